//! Effects: what a handler wants done. Handlers never touch the queue, the
//! clock or the trace themselves; they return effects and the simulator
//! applies them, so every handler is a plain function of (state, event).

use super::event::Event;
use crate::trace::Record;

#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Enqueue `event` `after_ms` milliseconds from now.
    Schedule { after_ms: u64, event: Event },
    /// Record a step in the trace.
    Record(Record),
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
        self.push(Effect::Record(record));
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

    /// Effects whose first chunk is `room`, an emptied list lent by the
    /// simulator: an event's one or two effects then need no allocation.
    pub fn with_room(mut room: Vec<Effect>) -> Effects {
        room.clear();
        Effects { first: room, ..Effects::default() }
    }

    /// The first chunk and the others, in order (see [`Effects::into_chunks`]):
    /// the simulator drains the first and lends it to the next handler.
    pub fn into_first_and_more(self) -> (Vec<Effect>, Vec<Vec<Effect>>) {
        (self.first, self.more)
    }

    /// The effects, the counted steps included.
    pub fn len(&self) -> usize {
        self.counted_steps + self.first.len() + self.more.iter().map(Vec::len).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.counted_steps == 0 && self.first.is_empty() && self.more.iter().all(Vec::is_empty)
    }

    /// The chunks, in order: the effects as they were added, taken a chunk
    /// at a time (a loop per chunk costs less per effect than one flattened
    /// iterator, and the simulator applies every effect of a run).
    pub fn into_chunks(self) -> Chunks {
        std::iter::once(self.first).chain(self.more)
    }
}

/// [`Effects::into_chunks`].
pub type Chunks = std::iter::Chain<std::iter::Once<Vec<Effect>>, std::vec::IntoIter<Vec<Effect>>>;

impl IntoIterator for Effects {
    type Item = Effect;
    type IntoIter = std::iter::Flatten<Chunks>;
    /// In the order they were added.
    fn into_iter(self) -> Self::IntoIter {
        self.into_chunks().flatten()
    }
}
