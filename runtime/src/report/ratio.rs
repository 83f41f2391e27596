//! A rate as reports show it: numerator, denominator and a rounded percentage.

use serde::{Deserialize, Serialize};

/// `num` of `den`, with `percent` rounded to two decimals (`None` when `den` is 0).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    pub num: usize,
    pub den: usize,
    pub percent: Option<f64>,
}

impl Ratio {
    /// `num / den` as a percentage rounded to 0.01.
    pub fn new(num: usize, den: usize) -> Ratio {
        let percent = (den > 0).then(|| (num as f64 * 10_000.0 / den as f64).round() / 100.0);
        Ratio { num, den, percent }
    }

    /// The percentage as text without a `%` sign (`66.67`, `100`, `n/a`).
    pub fn value_text(&self) -> String {
        match self.percent {
            Some(p) => format!("{p}"),
            None => "n/a".into(),
        }
    }

    /// `66.67%` or `n/a`.
    pub fn percent_text(&self) -> String {
        match self.percent {
            Some(p) => format!("{p:.2}%"),
            None => "n/a".into(),
        }
    }

    /// `2/3`.
    pub fn count_text(&self) -> String {
        format!("{}/{}", self.num, self.den)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_hundredths() {
        assert_eq!(Ratio::new(2, 3).percent, Some(66.67));
        assert_eq!(Ratio::new(1, 3).percent, Some(33.33));
        assert_eq!(Ratio::new(3, 3).value_text(), "100");
        assert_eq!(Ratio::new(0, 0).percent, None);
        assert_eq!(Ratio::new(1, 8).percent_text(), "12.50%");
    }
}
