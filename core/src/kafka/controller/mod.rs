//! `kafka.controller.KafkaController`: one per broker; the one elected through
//! `/controller` is active. Everything it does is an event taken from its
//! single queue; each event is one step of the simulation, and the numbered
//! sub-steps the seed articles walk through are recorded as steps of their own.
//!
//! The work is split as Kafka splits it: `failover` (election, failover,
//! resignation), `membership` (broker changes), `partition_state_machine`,
//! `replica_state_machine`, `topics`, `deletion` (TopicDeletionManager),
//! `reassignment`, `preferred` (preferred and auto leader election),
//! `shutdown` (controlled shutdown) and `notifications` (ISR change and
//! log-dir event notifications).

pub mod channel_manager;
pub mod context;
mod deletion;
pub mod election;
pub mod event;
mod failover;
mod membership;
mod notifications;
mod partition_state_machine;
mod preferred;
mod reassignment;
mod replica_state_machine;
mod shutdown;
mod topics;

use super::config::KafkaConfig;
use super::io::Io;
use super::messages::{ControlRequest, ControlResponse, Errors};
use super::zk_data::BrokerInfo;
use super::zookeeper_client::{WriteError, ZooKeeperClient};
use super::BrokerId;
use crate::sim::event::{BrokerEvent, Event};
use crate::trace::Detail;
use channel_manager::{ControllerChannelManager, RequestBatch};
use context::ControllerContext;
use event::ControllerEvent;
use serde_json::Value;
use std::collections::VecDeque;

/// What a controller handler may use: the broker's ZooKeeper client and the
/// event's I/O.
pub struct Cx<'a, 'b> {
    pub zkc: &'a mut ZooKeeperClient,
    pub io: &'a mut Io<'b>,
    /// The broker's incarnation, stamped on what it schedules for itself.
    pub incarnation: u32,
    /// The broker's registration, for re-registering after a new session.
    pub info: &'a BrokerInfo,
    /// Set by RegisterBrokerAndReelect: the broker's new epoch.
    pub new_broker_epoch: Option<i64>,
}

/// Why a controller operation stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControllerError {
    /// Another controller was elected (`ControllerMovedException`).
    ControllerMoved,
    /// A ZooKeeper error the operation cannot recover from.
    Zk(crate::zookeeper::KeeperError),
}

impl From<WriteError> for ControllerError {
    fn from(e: WriteError) -> Self {
        match e {
            WriteError::ControllerMoved => ControllerError::ControllerMoved,
            WriteError::Keeper(k) => ControllerError::Zk(k),
        }
    }
}

pub type CResult<T> = Result<T, ControllerError>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KafkaController {
    pub broker_id: BrokerId,
    pub config: KafkaConfig,
    /// `activeControllerId`: who this broker believes is the controller.
    pub active_controller_id: BrokerId,
    pub ctx: ControllerContext,
    pub channel: ControllerChannelManager,
    batch: RequestBatch,
    /// `ControllerEventManager`'s queue.
    pub queue: VecDeque<ControllerEvent>,
    /// The event being processed, for display.
    pub current: Option<String>,
    /// Whether the event thread has a run scheduled.
    thread_scheduled: bool,
    /// Bumped on resignation: the controller's scheduled tasks from an older
    /// term are recognised and dropped.
    pub term: u64,
    pub events_processed: u64,
    /// The broker's epoch (czxid of its registration), for control requests.
    pub broker_epoch: i64,
}

/// The controller's periodic tasks (`kafkaScheduler`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControllerTimer {
    AutoLeaderRebalance { term: u64 },
}

impl KafkaController {
    pub fn new(broker_id: BrokerId, config: KafkaConfig) -> KafkaController {
        KafkaController {
            broker_id,
            config,
            active_controller_id: -1,
            ctx: ControllerContext::default(),
            channel: ControllerChannelManager::default(),
            batch: RequestBatch::default(),
            queue: VecDeque::new(),
            current: None,
            thread_scheduled: false,
            term: 0,
            events_processed: 0,
            broker_epoch: -1,
        }
    }

    pub fn is_active(&self) -> bool {
        self.active_controller_id == self.broker_id
    }

    pub(crate) fn actor(&self) -> String {
        super::actor_name(self.broker_id, "/controller")
    }

    /// `eventManager.put`: queue an event, waking the event thread.
    /// The thread putting it may have been busy: the event is queued once
    /// that work is done.
    pub fn put(&mut self, event: ControllerEvent, io: &mut Io, incarnation: u32) {
        self.queue.push_back(event);
        let after = io.cost_ms();
        self.wake(io, incarnation, after);
    }

    /// `clearAndPut`: drop what is queued (preempting it) and queue `event`.
    pub fn clear_and_put(&mut self, event: ControllerEvent, io: &mut Io, incarnation: u32) {
        self.queue.clear();
        self.put(event, io, incarnation);
    }

    fn wake(&mut self, io: &mut Io, incarnation: u32, after_ms: u64) {
        if !self.thread_scheduled && !self.queue.is_empty() {
            self.thread_scheduled = true;
            io.fx.schedule(after_ms, Event::Broker { id: self.broker_id, incarnation, what: BrokerEvent::ControllerThread });
        }
    }

    /// The event thread's turn: take one event and process it
    /// (`ControllerEventThread.doWork` → `KafkaController.process`).
    pub fn run_event_thread(&mut self, cx: &mut Cx) {
        self.thread_scheduled = false;
        let Some(event) = self.queue.pop_front() else { return };
        self.events_processed += 1;
        self.current = Some(event.name().to_string());
        let actor = self.actor();
        cx.io.record(
            &actor,
            "controller-event",
            "ControllerEventManager.ControllerEventThread.doWork",
            format!(
                "process {} (state {}){}",
                event.name(),
                event.state(),
                if self.is_active() || !event.needs_active() { "" } else { " — this broker is not the active controller: nothing to do" }
            ),
            Detail::new()
                .with("event", &event.name())
                .with("controller_state", &event.state())
                .with("queued_behind", &self.queue.len())
                .with("active", &self.is_active()),
        );
        if let Err(ControllerError::ControllerMoved) = self.process(event, cx) {
            self.step(
                cx,
                "KafkaController.process",
                "ControllerMovedException: another broker is the controller now; maybeResign".into(),
                Value::Null,
            );
            self.batch.clear();
            self.maybe_resign(cx);
        }
        self.current = None;
        // The thread was busy for the ZooKeeper round trips it made.
        let busy = cx.io.cost_ms();
        self.wake(cx.io, cx.incarnation, busy);
    }

    fn process(&mut self, event: ControllerEvent, cx: &mut Cx) -> CResult<()> {
        match event {
            ControllerEvent::Startup => self.process_startup(cx),
            ControllerEvent::ControllerChange => self.process_controller_change(cx),
            ControllerEvent::Reelect => self.process_reelect(cx),
            ControllerEvent::RegisterBrokerAndReelect => self.process_register_broker_and_reelect(cx),
            ControllerEvent::Expire => self.process_expire(cx),
            ControllerEvent::BrokerChange => self.process_broker_change(cx),
            ControllerEvent::BrokerModifications(b) => self.process_broker_modification(cx, b),
            ControllerEvent::TopicChange => self.process_topic_change(cx),
            ControllerEvent::PartitionModifications(t) => self.process_partition_modifications(cx, &t),
            ControllerEvent::TopicDeletion => self.process_topic_deletion(cx),
            ControllerEvent::TopicDeletionStopReplicaResponseReceived { replica, partition_errors } => {
                self.process_topic_deletion_stop_replica_response(cx, replica, partition_errors)
            }
            ControllerEvent::ZkPartitionReassignment => self.process_zk_partition_reassignment(cx),
            ControllerEvent::PartitionReassignmentIsrChange(tp) => self.process_partition_reassignment_isr_change(cx, &tp),
            ControllerEvent::AutoPreferredReplicaLeaderElection => self.process_auto_preferred_replica_leader_election(cx),
            ControllerEvent::ReplicaLeaderElection { partitions, trigger } => self.process_replica_leader_election(cx, partitions, trigger),
            ControllerEvent::ControlledShutdown { broker, broker_epoch } => self.process_controlled_shutdown(cx, broker, broker_epoch),
            ControllerEvent::IsrChangeNotification => self.process_isr_change_notification(cx),
            ControllerEvent::LeaderAndIsrResponseReceived { broker, error, partition_errors } => {
                self.process_leader_and_isr_response(cx, broker, error, partition_errors)
            }
            ControllerEvent::UpdateMetadataResponseReceived { broker, error } => {
                let actor = self.actor();
                cx.io.record(
                    &actor,
                    "controller-step",
                    "KafkaController.processUpdateMetadataResponseReceived",
                    format!("UpdateMetadata response from broker {broker}: {error:?}"),
                    Detail::new().with("broker", &broker).with("error", &error),
                );
                Ok(())
            }
            ControllerEvent::LogDirEventNotification => self.process_log_dir_event_notification(cx),
            ControllerEvent::TopicUncleanLeaderElectionEnable(t) => self.process_topic_unclean_leader_election_enable(cx, &t),
        }
    }

    /// Records one sub-step of the event being processed.
    pub(crate) fn step(&self, cx: &mut Cx, source: &'static str, summary: String, detail: impl Into<Detail>) {
        let actor = self.actor();
        cx.io.record(&actor, "controller-step", source, summary, detail);
    }

    /// `step` whose summary and detail are built only if read (see
    /// `Io::record_with`): for the steps that list thousands of partitions.
    pub(crate) fn step_with(&self, cx: &mut Cx, source: &'static str, build: impl FnOnce() -> (String, Detail)) {
        let actor = self.actor();
        cx.io.record_with(&actor, "controller-step", source, build);
    }

    /// A numbered sub-step, as the seed articles number them ("第3步").
    pub(crate) fn numbered(&self, cx: &mut Cx, source: &'static str, n: u32, of: u32, what: String, detail: Detail) {
        let name = source.rsplit('.').next().unwrap_or(source);
        self.step(cx, source, format!("{name} step {n}/{of}: {what}"), detail.with("step", &n).with("of", &of));
    }

    /// `sendRequestsToBrokers`: the batch goes out, per broker in order
    /// LeaderAndIsr, UpdateMetadata, StopReplica.
    pub(crate) fn send_batch(&mut self, cx: &mut Cx) {
        let requests = self.batch.build(&self.ctx, self.broker_id);
        for (b, request) in requests {
            if let Some((r, generation)) = self.channel.send(b, request) {
                self.put_on_wire(cx, b, r, generation);
            }
        }
    }

    fn put_on_wire(&self, cx: &mut Cx, to: BrokerId, request: ControlRequest, generation: u64) {
        let actor = self.actor();
        cx.io.record_later(&actor, "control-request", "ControllerChannelManager.RequestSendThread.doWork", || Sent {
            to,
            request: request.clone(),
        });
        let delay = cx.io.departure_delay_ms();
        cx.io.fx.schedule(
            delay,
            Event::Broker {
                id: to,
                incarnation: u32::MAX,
                what: BrokerEvent::Request { from: self.broker_id, from_incarnation: cx.incarnation, generation, request },
            },
        );
    }

    /// A broker answered a request this controller sent: the send thread
    /// moves on, and the response becomes an event.
    pub fn on_response(&mut self, cx: &mut Cx, from: BrokerId, generation: u64, request: &ControlRequest, response: ControlResponse) {
        if !self.channel.is_current(from, generation) {
            return;
        }
        if let Some((next, g)) = self.channel.completed(from, generation) {
            self.put_on_wire(cx, from, next, g);
        }
        match response {
            ControlResponse::LeaderAndIsr { error, partition_errors } => {
                self.put(ControllerEvent::LeaderAndIsrResponseReceived { broker: from, error, partition_errors }, cx.io, cx.incarnation);
            }
            ControlResponse::UpdateMetadata { error } => {
                self.put(ControllerEvent::UpdateMetadataResponseReceived { broker: from, error }, cx.io, cx.incarnation);
            }
            ControlResponse::StopReplica { partition_errors, .. } => {
                // Only deletions of topics whose deletion has started call back.
                let ControlRequest::StopReplica { partitions, .. } = request else { return };
                let deleting = crate::kafka::ordered_map(
                    partitions
                        .iter()
                        .filter(|p| p.delete_partition && self.ctx.topics_with_deletion_started.contains(p.topic.as_str()))
                        .map(|p| {
                            let tp = crate::scenario::TopicPartition { topic: p.topic.clone(), partition: p.partition };
                            let e = partition_errors.get(&tp).copied().unwrap_or(Errors::NONE);
                            (tp, e)
                        }),
                );
                if !deleting.is_empty() {
                    self.put(
                        ControllerEvent::TopicDeletionStopReplicaResponseReceived { replica: from, partition_errors: deleting },
                        cx.io,
                        cx.incarnation,
                    );
                }
            }
            ControlResponse::ControlledShutdown { .. } => {}
        }
    }

    /// The controller's scheduler fired.
    pub fn on_timer(&mut self, cx: &mut Cx, timer: ControllerTimer) {
        match timer {
            ControllerTimer::AutoLeaderRebalance { term } if term == self.term && self.is_active() => {
                self.put(ControllerEvent::AutoPreferredReplicaLeaderElection, cx.io, cx.incarnation);
            }
            _ => {}
        }
    }
}

/// A control request put on the wire, kept (its payloads are shared) to be
/// described when its step is handed out: a topic's creation sends some
/// 1,300 of them in one event, and describing each as it was sent was a
/// twentieth of that event (issue 9).
#[derive(Debug)]
struct Sent {
    to: BrokerId,
    request: ControlRequest,
}

impl crate::trace::Describe for Sent {
    fn describe(&self) -> (String, Detail) {
        let (summary, detail) = describe_request(&self.request);
        (format!("send {summary} to broker {}", self.to), Detail::new().with("to", &self.to).with_detail("request", &detail))
    }
}

/// `LeaderAndIsr (3 partitions: t-0 leader 1 epoch 2, ...)`.
pub fn describe_request(r: &ControlRequest) -> (String, Detail) {
    (request_summary(r), request_detail(r))
}

/// A control request in a line: its type and a few of its partitions.
pub fn request_summary(r: &ControlRequest) -> String {
    match r {
        ControlRequest::LeaderAndIsr { partitions, .. } => {
            let parts: Vec<String> = partitions
                .iter()
                .take(4)
                .map(|p| format!("{}-{} leader {} epoch {} isr {:?}", p.topic, p.partition, p.leader, p.leader_epoch, p.isr))
                .collect();
            let more = if partitions.len() > 4 { format!(", ... {} in all", partitions.len()) } else { String::new() };
            format!("LeaderAndIsr ({}{more})", parts.join("; "))
        }
        ControlRequest::UpdateMetadata { partitions, live_brokers, .. } => format!(
            "UpdateMetadata ({} partitions, live brokers {:?})",
            partitions.len(),
            live_brokers.iter().map(|b| b.id).collect::<Vec<_>>()
        ),
        ControlRequest::StopReplica { partitions, .. } => format!(
            "StopReplica ({})",
            partitions
                .iter()
                .take(4)
                .map(|p| format!("{}-{}{}", p.topic, p.partition, if p.delete_partition { " delete" } else { "" }))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ControlRequest::ControlledShutdown { broker_id, broker_epoch } => {
            format!("ControlledShutdown (broker {broker_id}, epoch {broker_epoch})")
        }
    }
}

/// A control request's trace detail (at most 50 of its partitions).
fn request_detail(r: &ControlRequest) -> Detail {
    match r {
        ControlRequest::LeaderAndIsr { controller_epoch, broker_epoch, partitions, .. } => {
            batch_detail("LeaderAndIsr", *controller_epoch, *broker_epoch, partitions)
        }
        ControlRequest::UpdateMetadata { controller_epoch, broker_epoch, partitions, live_brokers, .. } => {
            batch_detail("UpdateMetadata", *controller_epoch, *broker_epoch, partitions)
                .with("live_brokers", &live_brokers.iter().map(|b| b.id).collect::<Vec<_>>())
        }
        ControlRequest::StopReplica { controller_epoch, broker_epoch, partitions, .. } => {
            batch_detail("StopReplica", *controller_epoch, *broker_epoch, partitions)
        }
        ControlRequest::ControlledShutdown { broker_id, broker_epoch } => {
            Detail::new().with("type", &"ControlledShutdown").with("broker_id", &broker_id).with("broker_epoch", &broker_epoch)
        }
    }
}

/// What the detail of every request of a batch holds, in this order: its
/// type, the epochs it is fenced by, its first 50 partitions and their count.
fn batch_detail<T: serde::Serialize>(kind: &str, controller_epoch: i32, broker_epoch: i64, partitions: &[T]) -> Detail {
    Detail::new()
        .with("type", kind)
        .with("controller_epoch", &controller_epoch)
        .with("broker_epoch", &broker_epoch)
        .with("partitions", &partitions[..partitions.len().min(50)])
        .with("partition_count", &partitions.len())
}
