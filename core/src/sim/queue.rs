//! The one event queue: events ordered by (virtual time, insertion sequence),
//! so two events due at the same millisecond run in the order they were
//! scheduled, on every platform.

use super::time::Millis;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Debug)]
struct Entry<E> {
    time: Millis,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.time, self.seq).cmp(&(other.time, other.seq))
    }
}

#[derive(Clone, Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), next_seq: 0 }
    }
}

impl<E> EventQueue<E> {
    pub fn push(&mut self, time: Millis, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Reverse(Entry { time, seq, event }));
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<Millis> {
        self.heap.peek().map(|Reverse(e)| e.time)
    }

    pub fn peek(&self) -> Option<(Millis, &E)> {
        self.heap.peek().map(|Reverse(e)| (e.time, &e.event))
    }

    pub fn pop(&mut self) -> Option<(Millis, E)> {
        self.heap.pop().map(|Reverse(e)| (e.time, e.event))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Whether any pending event satisfies `pred` (order does not matter).
    pub fn any(&self, mut pred: impl FnMut(&E) -> bool) -> bool {
        self.heap.iter().any(|Reverse(e)| pred(&e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_time_events_keep_insertion_order() {
        let mut q = EventQueue::default();
        q.push(Millis(5), "b");
        q.push(Millis(1), "a");
        q.push(Millis(5), "c");
        q.push(Millis(5), "d");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!["a", "b", "c", "d"]);
    }
}
