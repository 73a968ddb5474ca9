//! What the event queue holds.

use crate::scenario::ConsoleOp;
use crate::zookeeper::{Notification, SessionId};

/// A client of the ZooKeeper server: who receives its responses and watches.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Client {
    /// A zkCli-style console session, by its scenario name.
    Console(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// `zk-session NAME`: the console opens a session.
    ConsoleOpen { name: String, timeout_ms: u64 },
    /// A `zk NAME ...` line: the console sends its request.
    ConsoleRequest { name: String, op: ConsoleOp },
    /// A watch notification reaching the client that set the watch.
    WatchDelivery { to: Client, notification: Notification },
    /// A client's heartbeat: ZooKeeper clients ping every timeout/3 when idle.
    Ping { to_session: SessionId },
    /// The server's session tracker checks whether a session has expired.
    SessionCheck { session: SessionId },
}

impl Event {
    /// Housekeeping that runs for ever (heartbeats, expiry checks): `run
    /// until-idle` does not wait for it, and it never records a step unless
    /// something happens (a session expires).
    pub fn is_background(&self) -> bool {
        matches!(self, Event::Ping { .. } | Event::SessionCheck { .. })
    }

    /// Part of a console line's round trip: the line waits for these.
    pub fn is_console(&self) -> bool {
        matches!(self, Event::ConsoleOpen { .. } | Event::ConsoleRequest { .. } | Event::WatchDelivery { to: Client::Console(_), .. })
    }
}
