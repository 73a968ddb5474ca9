//! Effects: what a handler wants done. Handlers never touch the queue, the
//! clock or the trace themselves; they return effects and the simulator
//! applies them, so every handler is a plain function of (state, event).

use super::event::Event;
use crate::trace::Record;

#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Enqueue `event` `after_ms` milliseconds from now.
    Schedule { after_ms: u64, event: Event },
}

/// A handler's output, built up with small helpers: the events to schedule
/// and, beside them, the steps to record (they go to different queues, so
/// their order against each other does not matter; each keeps its own).
/// The records travel in chunks of their own, one box for them all: a box
/// for each was an allocation per step, 24,000 of them in the event that
/// creates a topic of 10,000 partitions (issue 9).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Effects {
    effects: Chunks<Effect>,
    /// None until the first: most events of a quiet run record nothing,
    /// and an empty list of them made and dropped with each of its millions
    /// of events was a twentieth of its instructions (boxed, the list
    /// keeps `Effects` as small as it was).
    records: Option<Box<Chunks<Record>>>,
    /// Steps recorded as a count alone (nobody reads them).
    counted_steps: usize,
}

/// A list kept in chunks that double in size up to [`CHUNK`], so that the
/// hundreds of thousands of steps a big failover records are never copied
/// to a larger vector (a 40 MB vector copied at every doubling, and the
/// pages it touched anew, were a fifth of a 100,000-partition run with
/// mimalloc; issue 9). The first chunk is held in place: most events have a
/// few effects, and a list of chunks for them was an allocation per event.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunks<T> {
    first: Vec<T>,
    more: Vec<Vec<T>>,
}

impl<T> Default for Chunks<T> {
    fn default() -> Self {
        Chunks { first: Vec::new(), more: Vec::new() }
    }
}

/// The largest chunk, in items.
const CHUNK: usize = 4096;

impl<T> Chunks<T> {
    #[inline]
    fn push(&mut self, item: T) {
        let current = self.more.last_mut().unwrap_or(&mut self.first);
        if current.len() < current.capacity() {
            current.push(item);
            return;
        }
        let capacity = if current.capacity() == 0 { 4 } else { (2 * current.capacity()).min(CHUNK) };
        let mut chunk = Vec::with_capacity(capacity);
        chunk.push(item);
        if self.first.capacity() == 0 {
            self.first = chunk;
        } else {
            self.more.push(chunk);
        }
    }

    #[inline]
    fn len(&self) -> usize {
        self.first.len() + self.more.iter().map(Vec::len).sum::<usize>()
    }

    /// The first chunk is filled first and never drained here, so it is
    /// empty only while the list is.
    #[inline]
    fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    /// The first chunk and the others: the items in the order they were
    /// added, a chunk at a time (a loop per chunk costs less per item than
    /// one flattened iterator, and the simulator applies every effect of a
    /// run).
    #[inline]
    pub fn into_first_and_more(self) -> (Vec<T>, Vec<Vec<T>>) {
        (self.first, self.more)
    }
}

impl Effects {
    #[inline]
    pub fn schedule(&mut self, after_ms: u64, event: Event) {
        self.effects.push(Effect::Schedule { after_ms, event });
    }

    pub fn record(&mut self, record: Record) {
        self.records.get_or_insert_with(Box::default).push(record);
    }

    /// A step nobody reads: counted, with no record.
    pub fn count_step(&mut self) {
        self.counted_steps += 1;
    }

    /// The steps recorded by [`Effects::count_step`].
    pub fn counted_steps(&self) -> usize {
        self.counted_steps
    }

    /// Effects whose first chunk is the list `room` holds, emptied and
    /// taken from it: the simulator lends each handler the list it took back
    /// from the last, so an event's one or two effects need no allocation.
    #[inline]
    pub fn in_room(room: &mut Vec<Effect>) -> Effects {
        let mut first = std::mem::take(room);
        first.clear();
        Effects { effects: Chunks { first, more: Vec::new() }, ..Effects::default() }
    }

    /// The effects and the steps, the counted steps included.
    pub fn len(&self) -> usize {
        self.counted_steps + self.effects.len() + self.records_len()
    }

    /// The steps recorded (not those only counted).
    pub fn records_len(&self) -> usize {
        self.records.as_ref().map_or(0, |r| r.len())
    }

    pub fn is_empty(&self) -> bool {
        self.counted_steps == 0 && self.effects.is_empty() && self.records.is_none()
    }

    /// The effects and the records, each in the order they were added. The
    /// simulator drains the effects' first chunk and lends it to the next
    /// handler.
    #[inline]
    pub fn into_parts(self) -> (Chunks<Effect>, Option<Box<Chunks<Record>>>) {
        (self.effects, self.records)
    }
}
