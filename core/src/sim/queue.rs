//! The one event queue: events ordered by (virtual time, insertion sequence),
//! so two events due at the same millisecond run in the order they were
//! scheduled, on every platform.

use super::time::Millis;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A queued event's place in the order: due time, then insertion sequence
/// (unique, so two keys never tie), and where the event waits in `slots`.
type Key = Reverse<(Millis, u64, u32)>;

/// The heap orders small keys, and the events wait in slots beside it: a
/// big cluster keeps thousands of events queued (every fetch session's
/// parked fetch, every session's heartbeat), and each push and pop moved a
/// dozen whole events of a hundred bytes up or down the heap (issue 9).
#[derive(Clone, Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Key>,
    /// The events, by slot; None where a slot is free.
    slots: Vec<Option<E>>,
    /// Free slots, reused before the vector grows.
    free: Vec<u32>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), slots: Vec::new(), free: Vec::new(), next_seq: 0 }
    }
}

impl<E> EventQueue<E> {
    pub fn push(&mut self, time: Millis, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(event);
                slot
            }
            None => {
                self.slots.push(Some(event));
                (self.slots.len() - 1) as u32
            }
        };
        self.heap.push(Reverse((time, seq, slot)));
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<Millis> {
        self.heap.peek().map(|Reverse((time, _, _))| *time)
    }

    pub fn peek(&self) -> Option<(Millis, &E)> {
        let Reverse((time, _, slot)) = self.heap.peek()?;
        self.slots[*slot as usize].as_ref().map(|e| (*time, e))
    }

    pub fn pop(&mut self) -> Option<(Millis, E)> {
        let Reverse((time, _, slot)) = self.heap.pop()?;
        let event = self.slots[slot as usize].take()?;
        self.free.push(slot);
        Some((time, event))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Whether any pending event satisfies `pred` (order does not matter).
    pub fn any(&self, pred: impl FnMut(&E) -> bool) -> bool {
        self.slots.iter().flatten().any(pred)
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
