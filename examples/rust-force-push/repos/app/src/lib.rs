//! The last lines of a log, in a bounded queue.

use miniqueue::Queue;

/// The most recent lines of a log.
pub struct Tail {
    lines: Queue<String>,
}

impl Tail {
    /// A tail keeping up to `n` lines.
    pub fn new(n: usize) -> Self {
        Tail {
            lines: Queue::bounded(n),
        }
    }

    /// Records `line`; a full tail ignores it (for now).
    pub fn record(&mut self, line: &str) {
        let _ = self.lines.push(line.to_string());
    }

    /// The lines kept, oldest first (empties the tail).
    pub fn drain(&mut self) -> Vec<String> {
        std::iter::from_fn(|| self.lines.pop()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_lines_in_order() {
        let mut t = Tail::new(2);
        t.record("a");
        t.record("b");
        assert_eq!(t.drain(), ["a", "b"]);
    }
}
