//! The one event queue: events ordered by (virtual time, insertion sequence),
//! so two events due at the same millisecond run in the order they were
//! scheduled, on every platform.

use super::time::Millis;
use std::collections::{BTreeMap, VecDeque};

/// The events by due time, each time's in the order they were scheduled:
/// taking the earliest time's first event is the order (time, insertion
/// sequence) without keeping the sequence. A big cluster keeps thousands of
/// events queued (every fetch session's parked fetch, every session's
/// heartbeat) at a few hundred distinct times, so a push or pop finds its
/// time in a small ordered map; a binary heap of every event, sifting a
/// dozen levels per push and pop, was a quarter of an idle cluster's run
/// (issue 9).
#[derive(Debug)]
pub struct EventQueue<E> {
    by_time: BTreeMap<Millis, VecDeque<E>>,
    /// Emptied lists kept for the next new time, instead of a free and an
    /// allocation at every millisecond that has events.
    spare: Vec<VecDeque<E>>,
    len: usize,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { by_time: BTreeMap::new(), spare: Vec::new(), len: 0 }
    }
}

/// A copy (a timeline's snapshot) takes the events, not the spare lists.
impl<E: Clone> Clone for EventQueue<E> {
    fn clone(&self) -> Self {
        EventQueue { by_time: self.by_time.clone(), spare: Vec::new(), len: self.len }
    }
}

/// At most this many emptied lists are kept for reuse, none longer than
/// [`MAX_SPARE_CAPACITY`]: the few moments that queue thousands of events at
/// one time would otherwise keep their room for good.
const MAX_SPARE: usize = 64;
const MAX_SPARE_CAPACITY: usize = 256;

impl<E> EventQueue<E> {
    pub fn push(&mut self, time: Millis, event: E) {
        self.len += 1;
        let spare = &mut self.spare;
        self.by_time.entry(time).or_insert_with(|| spare.pop().unwrap_or_default()).push_back(event);
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<Millis> {
        self.by_time.first_key_value().map(|(time, _)| *time)
    }

    pub fn peek(&self) -> Option<(Millis, &E)> {
        let (time, events) = self.by_time.first_key_value()?;
        events.front().map(|e| (*time, e))
    }

    pub fn pop(&mut self) -> Option<(Millis, E)> {
        let mut first = self.by_time.first_entry()?;
        let time = *first.key();
        let event = first.get_mut().pop_front()?;
        if first.get().is_empty() {
            let emptied = first.remove();
            if self.spare.len() < MAX_SPARE && emptied.capacity() <= MAX_SPARE_CAPACITY {
                self.spare.push(emptied);
            }
        }
        self.len -= 1;
        Some((time, event))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether any pending event satisfies `pred` (order does not matter).
    pub fn any(&self, pred: impl FnMut(&E) -> bool) -> bool {
        self.by_time.values().flatten().any(pred)
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

    #[test]
    fn pushes_and_pops_interleaved_come_out_in_time_then_insertion_order() {
        // A model: every queued (time, sequence), the smallest popped first.
        let mut q = EventQueue::default();
        let mut model: Vec<(u64, u64)> = Vec::new();
        let mut rng = crate::sim::Rng::seeded(7);
        for seq in 0..2000u64 {
            let time = rng.range_inclusive(0, 50);
            q.push(Millis(time), seq);
            model.push((time, seq));
            if rng.range_inclusive(0, 2) == 0 {
                model.sort();
                let (time, seq) = model.remove(0);
                assert_eq!(q.pop(), Some((Millis(time), seq)));
            }
            assert_eq!(q.len(), model.len());
        }
        model.sort();
        for (time, seq) in model {
            assert_eq!(q.pop(), Some((Millis(time), seq)));
        }
        assert!(q.is_empty() && q.pop().is_none());
    }
}
