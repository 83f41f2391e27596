//! A bounded FIFO queue.

use std::collections::VecDeque;

/// The value `push` could not store: the queue is full.
#[derive(Debug, PartialEq, Eq)]
pub struct PushError<T>(pub T);

/// A FIFO queue holding at most a fixed number of items.
pub struct Queue<T> {
    items: VecDeque<T>,
    cap: usize,
}

impl<T> Queue<T> {
    /// A queue holding at most `cap` items.
    ///
    /// ```
    /// let q: miniqueue::Queue<u8> = miniqueue::Queue::bounded(2);
    /// assert!(q.is_empty());
    /// ```
    pub fn bounded(cap: usize) -> Self {
        Queue {
            items: VecDeque::with_capacity(cap),
            cap,
        }
    }

    /// Appends `value`, or gives it back when the queue is full.
    ///
    /// ```
    /// let mut q = miniqueue::Queue::bounded(1);
    /// assert!(q.push(1).is_ok());
    /// assert_eq!(q.push(2), Err(miniqueue::PushError(2)));
    /// ```
    pub fn push(&mut self, value: T) -> Result<(), PushError<T>> {
        if self.items.len() == self.cap {
            return Err(PushError(value));
        }
        self.items.push_back(value);
        Ok(())
    }

    /// Removes the oldest item.
    ///
    /// ```
    /// let mut q = miniqueue::Queue::bounded(2);
    /// q.push('a').unwrap();
    /// assert_eq!(q.pop(), Some('a'));
    /// assert_eq!(q.pop(), None);
    /// ```
    pub fn pop(&mut self) -> Option<T> {
        self.items.pop_front()
    }

    /// How many items the queue holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the queue holds no item.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_then_pop_is_fifo() {
        let mut q = Queue::bounded(3);
        for i in 0..3 {
            q.push(i).unwrap();
        }
        assert_eq!(q.push(9), Err(PushError(9)));
        assert_eq!((q.pop(), q.pop(), q.len()), (Some(0), Some(1), 1));
    }
}
