//! Virtual time. Nothing in the simulator reads a wall clock: time moves only
//! when the event queue hands out an event scheduled later than "now".

use std::fmt;

/// A point in virtual time, in milliseconds since the simulation started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Millis(pub u64);

impl Millis {
    pub const ZERO: Millis = Millis(0);

    pub fn as_u64(self) -> u64 {
        self.0
    }

    /// `self + d`, saturating so absurd durations cannot wrap the clock.
    pub fn plus(self, d: u64) -> Millis {
        Millis(self.0.saturating_add(d))
    }

    pub fn since(self, earlier: Millis) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl fmt::Display for Millis {
    /// `18.004s`: how the app and the trace summaries show a time.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:03}s", self.0 / 1000, self.0 % 1000)
    }
}
