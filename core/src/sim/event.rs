//! What the event queue holds.

use crate::kafka::controller::ControllerTimer;
use crate::kafka::messages::{ControlRequest, ControlResponse};
use crate::kafka::BrokerId;
use crate::scenario::{ConsoleOp, TopicPartition};
use crate::zookeeper::{Notification, SessionId};

/// A request addressed to "whatever process runs as broker N now" (the
/// broker epoch in the request fences an old registration, not the address).
pub const ANY_INCARNATION: u32 = u32::MAX;

/// A client of the ZooKeeper server: who receives its watches.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Client {
    /// A zkCli-style console session, by its scenario name.
    Console(String),
    /// A broker process (an incarnation of it).
    Broker(BrokerId, u32),
    /// The admin tools' session (kafka-topics, kafka-configs, ...).
    Admin,
}

/// What happens to a broker process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrokerEvent {
    /// A watch notification from ZooKeeper.
    Watch(Notification),
    /// The client learns that ZooKeeper expired its session.
    SessionExpired {
        session: SessionId,
    },
    /// The ZooKeeper client's heartbeat on a session.
    Ping {
        session: SessionId,
    },
    /// The controller event thread takes its next event.
    ControllerThread,
    /// The controller's scheduler (auto leader rebalance).
    ControllerTimer(ControllerTimer),
    /// A control request from a controller.
    Request {
        from: BrokerId,
        from_incarnation: u32,
        generation: u64,
        request: ControlRequest,
    },
    /// The answer to a control request this broker's controller sent,
    /// with the request it answers. Boxed: every event is as big as the
    /// biggest kind, and a run moves a million fetch events through the
    /// queue for a few thousand of these.
    Response {
        from: BrokerId,
        generation: u64,
        exchange: Box<(ControlRequest, ControlResponse)>,
    },
    /// A broker asks this (controller) broker to let it shut down.
    ControlledShutdownRequest {
        from: BrokerId,
        broker_epoch: i64,
    },
    ControlledShutdownResponse {
        from: BrokerId,
        response: ControlResponse,
    },
    ControlledShutdownRetry,
    /// A follower's fetch (one session per follower-leader pair).
    FetchRequest {
        from: BrokerId,
        from_incarnation: u32,
        generation: u64,
        partitions: FetchPartitions,
    },
    /// The leader's answer: per partition its LEO and HW (or an error).
    FetchResponse {
        from: BrokerId,
        generation: u64,
        partitions: FetchResults,
    },
    /// A fetch parked for lack of new data reaches replica.fetch.wait.max.ms.
    DelayedFetchExpired {
        follower: BrokerId,
        token: u64,
    },
    /// A follower waits replica.fetch.backoff.ms after an error.
    FetchBackoff {
        leader: BrokerId,
        generation: u64,
    },
    /// One of ReplicaManager's scheduled tasks.
    ReplicaTask(ReplicaTask),
    /// The LogDirFailureHandler thread takes the next offline dir.
    LogDirFailureHandler,
    /// The config change listener's thread takes its queued run
    /// (`ZkNodeChangeNotificationListener.processNotifications`).
    ConfigChangeListener,
    /// DynamicConfigManager.startup's bootstrap of every entity's config.
    DynamicConfigBootstrap,
}

/// `ReplicaManager`'s three scheduled tasks (seed 002).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplicaTask {
    HighwatermarkCheckpoint,
    IsrExpiration,
    IsrChangePropagation,
}

/// A fetch request's (partition, fetch offset) pairs. Shared, not copied:
/// a follower whose request has not changed sends the same list again, and
/// the leader recognises it by its address (`Rc::ptr_eq`) — an idle round
/// then costs no per-partition work (see `replica_manager::HostedPartitions`).
pub type FetchPartitions = std::rc::Rc<Vec<(TopicPartition, u64)>>;

/// A fetch response's partitions, shared as `FetchPartitions` is: a leader
/// whose answer has not changed sends the same list again.
pub type FetchResults = std::rc::Rc<Vec<(TopicPartition, FetchResult)>>;

/// One partition of a fetch response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FetchResult {
    pub error: crate::kafka::messages::Errors,
    pub leader_leo: u64,
    pub hw: u64,
}

/// What the queue holds. Every event is as big as its biggest kind, and a
/// big run moves a million of them (nearly all fetch rounds) through the
/// handlers' effects and the queue, so a control response, which carries
/// its request back, is boxed (issue 9: 104 bytes an event before, 80 now,
/// and an effect 152 → 88 with the step records boxed; the idle cluster's
/// run 10-15% faster). Boxing the control requests too (56 bytes) made the
/// same run slower, by how the handlers were then compiled: measured, not
/// reasoned.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// `zk-session NAME`: the console opens a session.
    ConsoleOpen { name: String, timeout_ms: u64 },
    /// A `zk NAME ...` line: the console sends its request.
    ConsoleRequest { name: String, op: ConsoleOp },
    /// A watch notification reaching a console session.
    WatchDelivery { to: Client, notification: Notification },
    /// A console client's heartbeat: ZooKeeper clients ping every timeout/3.
    Ping { to_session: SessionId },
    /// The server's session tracker checks whether a session has expired.
    SessionCheck { session: SessionId },
    /// Something for one broker process.
    Broker { id: BrokerId, incarnation: u32, what: BrokerEvent },
}

impl Event {
    /// Housekeeping that runs for ever (heartbeats, expiry checks, periodic
    /// tasks): `run until-idle` does not wait for it.
    pub fn is_background(&self) -> bool {
        match self {
            Event::Ping { .. } | Event::SessionCheck { .. } => true,
            Event::Broker { what, .. } => matches!(
                what,
                BrokerEvent::Ping { .. }
                    | BrokerEvent::ControllerTimer(_)
                    | BrokerEvent::ReplicaTask(_)
                    | BrokerEvent::FetchRequest { .. }
                    | BrokerEvent::FetchResponse { .. }
                    | BrokerEvent::DelayedFetchExpired { .. }
                    | BrokerEvent::FetchBackoff { .. }
            ),
            _ => false,
        }
    }

    /// Part of a console line's round trip: the line waits for these.
    pub fn is_console(&self) -> bool {
        matches!(self, Event::ConsoleOpen { .. } | Event::ConsoleRequest { .. } | Event::WatchDelivery { to: Client::Console(_), .. })
    }
}

#[cfg(test)]
mod tests {
    /// See [`super::Event`]: a kind that would grow them past this is boxed.
    #[test]
    fn events_and_effects_stay_small() {
        assert!(std::mem::size_of::<super::Event>() <= 80);
        assert!(std::mem::size_of::<crate::sim::effect::Effect>() <= 88);
    }
}
