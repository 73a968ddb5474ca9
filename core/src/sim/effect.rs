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
/// a fifth of a 100,000-partition run with mimalloc; issue 9).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Effects(Vec<Vec<Effect>>);

/// The largest chunk, in effects.
const CHUNK: usize = 4096;

impl Effects {
    pub fn schedule(&mut self, after_ms: u64, event: Event) {
        self.push(Effect::Schedule { after_ms, event });
    }

    pub fn record(&mut self, record: Record) {
        self.push(Effect::Record(record));
    }

    fn push(&mut self, effect: Effect) {
        match self.0.last_mut() {
            Some(chunk) if chunk.len() < chunk.capacity() => chunk.push(effect),
            last => {
                let capacity = last.map_or(4, |c| (2 * c.capacity()).min(CHUNK));
                let mut chunk = Vec::with_capacity(capacity);
                chunk.push(effect);
                self.0.push(chunk);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.0.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Vec::is_empty)
    }
}

impl IntoIterator for Effects {
    type Item = Effect;
    type IntoIter = std::iter::Flatten<std::vec::IntoIter<Vec<Effect>>>;
    /// In the order they were added.
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter().flatten()
    }
}
