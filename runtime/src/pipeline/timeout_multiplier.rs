//! `--timeout-multiplier F` (Harbor's flag; SWE-bench's `--timeout` overrides instead): every
//! test step's limit is the spec's `timeout` × F, rounded up to a whole second. The limit is
//! part of each run's content id (`taskc_compiler::lower`), so a run computed under another
//! limit is never reused. Locks are checked and written against the spec as written.

use std::borrow::Cow;

use taskc_compiler::model::Task;

/// A finite factor > 0; `1` leaves the spec's limits as they are.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct TimeoutMultiplier(f64);

impl Default for TimeoutMultiplier {
    fn default() -> Self {
        TimeoutMultiplier(1.0)
    }
}

impl TimeoutMultiplier {
    /// `F`, when it is a finite number > 0 (and at most 1000).
    pub fn new(f: f64) -> Option<TimeoutMultiplier> {
        (f.is_finite() && f > 0.0 && f <= 1000.0).then_some(TimeoutMultiplier(f))
    }

    pub fn get(self) -> f64 {
        self.0
    }

    /// `task` with every test step's limit scaled (borrowed unchanged at 1).
    pub fn apply(self, task: &Task) -> Cow<'_, Task> {
        if self.0 == 1.0 {
            return Cow::Borrowed(task);
        }
        let mut scaled = task.clone();
        for repo in &mut scaled.repos {
            if let Some(t) = &mut repo.test {
                // Bounded above by 1000 × a u64 read from a spec: the cast saturates.
                t.timeout_secs = ((t.timeout_secs as f64) * self.0).ceil().max(1.0) as u64;
            }
        }
        Cow::Owned(scaled)
    }
}

/// `--timeout-multiplier`'s value.
impl std::str::FromStr for TimeoutMultiplier {
    type Err = String;

    fn from_str(s: &str) -> Result<TimeoutMultiplier, String> {
        s.parse::<f64>()
            .ok()
            .and_then(TimeoutMultiplier::new)
            .ok_or_else(|| format!("`{s}` is not a number > 0 and ≤ 1000 (e.g. 2 or 0.5)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_only_positive_finite_factors() {
        assert_eq!("2.5".parse::<TimeoutMultiplier>().map(|m| m.get()), Ok(2.5));
        for bad in ["0", "-1", "nan", "inf", "x", "1001"] {
            assert!(bad.parse::<TimeoutMultiplier>().is_err(), "{bad}");
        }
    }
}
