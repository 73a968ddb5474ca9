//! Effects: what a handler wants done. Handlers never touch the queue, the
//! clock or the trace themselves; they return effects and the simulator
//! applies them, so every handler is a plain function of (state, event).

use super::event::Event;
use crate::trace::Record;

#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Enqueue `event` `after_ms` milliseconds from now.
    Schedule { after_ms: u64, event: Event },
    /// Record a step in the trace. Boxed, as [`Effect::Schedule`]'s event
    /// is the common case: a quiet run records none (it counts them).
    Record(Box<Record>),
}

/// A handler's output, built up with small helpers. Kept in chunks that
/// double in size up to [`CHUNK`], so that the hundreds of thousands of
/// steps a big failover records are never copied to a larger vector (a
/// 40 MB vector copied at every doubling, and the pages it touched anew, were
/// a fifth of a 100,000-partition run with mimalloc; issue 9). The first
/// chunk is held in place: most events have a few effects, and a list of
/// chunks for them was an allocation per event.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Effects {
    first: Vec<Effect>,
    more: Vec<Vec<Effect>>,
    /// Steps recorded as a count alone (nobody reads them).
    counted_steps: usize,
}

/// The largest chunk, in effects.
const CHUNK: usize = 4096;

impl Effects {
    pub fn schedule(&mut self, after_ms: u64, event: Event) {
        self.push(Effect::Schedule { after_ms, event });
    }

    pub fn record(&mut self, record: Record) {
        self.push(Effect::Record(Box::new(record)));
    }

    /// A step nobody reads: counted, with no record.
    pub fn count_step(&mut self) {
        self.counted_steps += 1;
    }

    /// The steps recorded by [`Effects::count_step`].
    pub fn counted_steps(&self) -> usize {
        self.counted_steps
    }

    fn push(&mut self, effect: Effect) {
        let current = self.more.last_mut().unwrap_or(&mut self.first);
        if current.len() < current.capacity() {
            current.push(effect);
            return;
        }
        let capacity = if current.capacity() == 0 { 4 } else { (2 * current.capacity()).min(CHUNK) };
        let mut chunk = Vec::with_capacity(capacity);
        chunk.push(effect);
        if self.first.capacity() == 0 {
            self.first = chunk;
        } else {
            self.more.push(chunk);
        }
    }

    /// Effects whose first chunk is the list `room` holds, emptied and
    /// taken from it: the simulator lends each handler the list it took back
    /// from the last, so an event's one or two effects need no allocation.
    pub fn in_room(room: &mut Vec<Effect>) -> Effects {
        let mut first = std::mem::take(room);
        first.clear();
        Effects { first, ..Effects::default() }
    }

    /// The effects, the counted steps included.
    pub fn len(&self) -> usize {
        self.counted_steps + self.first.len() + self.more.iter().map(Vec::len).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.counted_steps == 0 && self.first.is_empty() && self.more.iter().all(Vec::is_empty)
    }

    /// The first chunk and the others: the effects in the order they were
    /// added, a chunk at a time (a loop per chunk costs less per effect than
    /// one flattened iterator, and the simulator applies every effect of a
    /// run). The simulator drains the first and lends it to the next handler.
    pub fn into_first_and_more(self) -> (Vec<Effect>, Vec<Vec<Effect>>) {
        (self.first, self.more)
    }
}
