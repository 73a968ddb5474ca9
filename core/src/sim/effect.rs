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

/// A handler's output, built up with small helpers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Effects(pub Vec<Effect>);

impl Effects {
    pub fn schedule(&mut self, after_ms: u64, event: Event) {
        self.0.push(Effect::Schedule { after_ms, event });
    }

    pub fn record(&mut self, record: Record) {
        self.0.push(Effect::Record(record));
    }
}
