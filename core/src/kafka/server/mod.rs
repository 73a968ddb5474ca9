//! `KafkaServer`: one simulated broker process — its ZooKeeper client, its
//! controller, its metadata cache and replica manager — as a state machine
//! the simulator drives with events.

pub mod config_handler;
pub mod dynamic_config_manager;
pub mod kafka_apis;
pub mod metadata_cache;
pub mod notification_listener;
pub mod replica_manager;
pub mod replication;

use super::config::KafkaConfig;
use super::controller::{Cx, KafkaController};
use super::io::Io;
use super::kafka_zk_client as kzk;
use super::messages::{ControlResponse, Errors};
use super::zk_data::{self, BrokerInfo};
use super::zookeeper_client::{ChildHandler, HandlerCall, NodeHandler, ZooKeeperClient};
use super::BrokerId;
use crate::console::session_hex;
use crate::sim::event::{BrokerEvent, Event, ANY_INCARNATION};
use crate::trace::Detail;
use crate::zookeeper::{EventType, KeeperError, Notification};
use dynamic_config_manager::DynamicConfigManager;
use metadata_cache::MetadataCache;
use replica_manager::ReplicaManager;
use std::collections::VecDeque;

/// The process, as `broker ID state` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessState {
    Stopped,
    Running,
    ShuttingDown,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broker {
    pub id: BrokerId,
    pub info: BrokerInfo,
    pub config: KafkaConfig,
    pub log_dirs: u32,
    pub state: ProcessState,
    pub paused: bool,
    /// Bumped on every start: events addressed to an earlier process are dropped.
    pub incarnation: u32,
    pub zkc: ZooKeeperClient,
    pub broker_epoch: i64,
    pub controller: KafkaController,
    pub metadata_cache: MetadataCache,
    pub replica_manager: ReplicaManager,
    /// Events that arrived while the process was paused, in order.
    pub deferred: VecDeque<BrokerEvent>,
    /// Controlled shutdown attempts made so far.
    pub shutdown_attempts: u32,
    /// Whether the controller's Startup event has been processed (`start all`
    /// waits for it so that the lowest id becomes controller).
    pub controller_started: bool,
    /// The newest parked fetch per follower (its expiry token).
    pub(crate) parked_tokens: crate::small_map::SmallMap<BrokerId, u64>,
    /// The DynamicConfigManager and what its handlers applied.
    pub dynamic_config: DynamicConfigManager,
}

impl Broker {
    pub fn new(id: BrokerId, log_dirs: u32) -> Broker {
        Broker {
            id,
            info: BrokerInfo { id, host: format!("broker{id}"), port: 9092, rack: None },
            config: KafkaConfig::default(),
            log_dirs,
            state: ProcessState::Stopped,
            paused: false,
            incarnation: 0,
            zkc: ZooKeeperClient::default(),
            broker_epoch: -1,
            controller: KafkaController::new(id, KafkaConfig::default()),
            metadata_cache: MetadataCache::default(),
            replica_manager: ReplicaManager::new(log_dirs, 0),
            deferred: VecDeque::new(),
            shutdown_attempts: 0,
            controller_started: false,
            parked_tokens: Default::default(),
            dynamic_config: DynamicConfigManager::default(),
        }
    }

    pub fn actor(&self) -> String {
        super::actor_name(self.id, "")
    }

    /// `running | paused | stopped | shutting-down`.
    pub fn state_name(&self) -> &'static str {
        match (self.state, self.paused) {
            (ProcessState::Stopped, _) => "stopped",
            (_, true) => "paused",
            (ProcessState::Running, false) => "running",
            (ProcessState::ShuttingDown, false) => "shutting-down",
        }
    }

    pub fn is_alive(&self) -> bool {
        self.state != ProcessState::Stopped
    }

    fn event(&self, what: BrokerEvent) -> Event {
        Event::Broker { id: self.id, incarnation: self.incarnation, what }
    }

    /// `KafkaServer.startup` (seed 003's starting point).
    pub fn startup(&mut self, io: &mut Io, config: KafkaConfig) {
        self.incarnation += 1;
        self.config = config.clone();
        self.state = ProcessState::Running;
        self.paused = false;
        self.deferred.clear();
        self.controller = KafkaController::new(self.id, config);
        self.metadata_cache = self.metadata_cache.cleared();
        // The logs and checkpoint files survive the restart; memory does not.
        let old = std::mem::replace(&mut self.replica_manager, ReplicaManager::new(self.log_dirs, io.now.as_u64()));
        let mut disk = old.disk;
        disk.extend(old.partitions.iter().map(|(tp, h)| (tp.clone(), (h.log_dir, h.leo))));
        self.replica_manager.disk = disk;
        self.replica_manager.checkpointed = old.checkpointed;
        self.replica_manager.checkpoints = old.checkpoints;
        self.zkc = ZooKeeperClient::default();
        self.shutdown_attempts = 0;
        self.controller_started = false;
        self.parked_tokens.clear();
        self.dynamic_config = DynamicConfigManager::default();
        let actor = self.actor();
        const SRC: &str = "KafkaServer.startup";
        // initZkClient: a new session.
        self.open_session(io);
        io.record(
            &actor,
            "broker",
            SRC,
            format!(
                "starting: ZooKeeper session {} (timeout {} ms)",
                crate::kafka::zookeeper_client::session_label(self.zkc.session),
                self.config.zookeeper_session_timeout_ms
            ),
            Detail::new().with("session", &self.zkc.session.map(session_hex)),
        );
        // createTopLevelPaths.
        for path in zk_data::PERSISTENT_ZK_PATHS {
            match self.zkc.create_recursive(io, &actor, "KafkaZkClient.createTopLevelPaths", path, Vec::new()) {
                Ok(()) | Err(KeeperError::NodeExists) => {}
                Err(_) => {}
            }
        }
        // getOrGenerateClusterId.
        let cluster_id = match self.zkc.get_data(io, &actor, "KafkaZkClient.getClusterId", zk_data::CLUSTER_ID) {
            Ok((data, _)) => serde_json::from_slice::<serde_json::Value>(&data)
                .ok()
                .and_then(|v| v.get("id")?.as_str().map(String::from))
                .unwrap_or_default(),
            Err(_) => {
                let id = random_cluster_id(io);
                let _ = self.zkc.create_recursive(
                    io,
                    &actor,
                    "KafkaZkClient.createOrGetClusterId",
                    zk_data::CLUSTER_ID,
                    zk_data::encode_cluster_id(&id),
                );
                id
            }
        };
        // dynamicConfig.initialize, then the LogManager with its topic configs.
        self.dynamic_broker_config_initialize(io);
        self.log_manager_load_topic_configs(io);
        // ReplicaManager.startup, then registerBroker: the broker epoch.
        self.replica_manager_startup(io);
        let data = self.info.encode(self.config.inter_broker_protocol_version, io.now.as_u64());
        match kzk::register_broker(&mut self.zkc, io, &actor, &zk_data::broker_path(self.id), data) {
            Ok(epoch) => {
                self.broker_epoch = epoch;
                self.controller.broker_epoch = epoch;
                io.record(
                    &actor,
                    "broker",
                    SRC,
                    format!("registered at /brokers/ids/{}: broker epoch {epoch} (the znode's czxid)", self.id),
                    Detail::new().with("broker_epoch", &epoch).with("cluster_id", &cluster_id),
                );
            }
            Err(e) => {
                io.record(
                    &actor,
                    "broker",
                    SRC,
                    format!(
                        "registration at /brokers/ids/{} failed ({e}): another broker with this id is registered; the broker exits",
                        self.id
                    ),
                    Detail::new().with("error", &e.name()),
                );
                self.stop(io, "startup failed");
                return;
            }
        }
        // KafkaController.startup: put Startup on the event queue.
        io.record(
            &actor,
            "broker",
            "KafkaController.startup",
            "controller starting: register the session-expiration handler, put Startup on the controller event queue".into(),
            Detail::new(),
        );
        self.controller.put(super::controller::event::ControllerEvent::Startup, io, self.incarnation);
        self.dynamic_config_manager_startup(io);
        io.record(&actor, "broker", SRC, format!("broker {} started (RunningAsBroker)", self.id), Detail::new());
    }

    fn open_session(&mut self, io: &mut Io) {
        let timeout = self.config.zookeeper_session_timeout_ms;
        let session = io.zk.create_session(io.now, &self.actor(), timeout);
        self.zkc.session = Some(session);
        let negotiated = io.zk.session(session).map(|s| s.timeout_ms).unwrap_or(timeout);
        io.fx.schedule(negotiated / 3, self.event(BrokerEvent::Ping { session }));
        io.fx.schedule(negotiated, Event::SessionCheck { session });
    }

    /// The process is gone (crash, halt, or the end of a shutdown).
    pub fn stop(&mut self, io: &mut Io, why: &str) {
        self.state = ProcessState::Stopped;
        self.paused = false;
        self.deferred.clear();
        self.incarnation += 1;
        self.zkc = ZooKeeperClient::default();
        self.controller = KafkaController::new(self.id, self.config.clone());
        self.dynamic_config = DynamicConfigManager::default();
        let actor = self.actor();
        io.record(&actor, "broker", "KafkaServer", format!("broker {} stopped: {why}", self.id), Detail::new().with("why", &why));
    }

    /// Dispatches one event addressed to this process.
    pub fn handle(&mut self, what: BrokerEvent, io: &mut Io) {
        if self.paused {
            self.deferred.push_back(what);
            return;
        }
        match what {
            BrokerEvent::Ping { session } if self.zkc.session == Some(session) => self.ping(io, session),
            BrokerEvent::Ping { .. } => {}
            BrokerEvent::Watch(n) => self.on_watch(io, n),
            BrokerEvent::SessionExpired { session } if self.zkc.session == Some(session) => self.on_session_expired(io),
            BrokerEvent::SessionExpired { .. } => {}
            BrokerEvent::ControllerThread => {
                let was_startup = self.controller.queue.front() == Some(&super::controller::event::ControllerEvent::Startup);
                let mut cx = Cx { zkc: &mut self.zkc, io, incarnation: self.incarnation, info: &self.info, new_broker_epoch: None };
                self.controller.run_event_thread(&mut cx);
                if let Some(e) = cx.new_broker_epoch {
                    self.broker_epoch = e;
                }
                if was_startup {
                    self.controller_started = true;
                }
            }
            BrokerEvent::ControllerTimer(t) => {
                let mut cx = Cx { zkc: &mut self.zkc, io, incarnation: self.incarnation, info: &self.info, new_broker_epoch: None };
                self.controller.on_timer(&mut cx, t);
            }
            BrokerEvent::Request { from, from_incarnation, generation, request } => {
                self.handle_request(io, from, from_incarnation, generation, request)
            }
            BrokerEvent::Response { from, generation, exchange } => {
                let (request, response) = *exchange;
                let mut cx = Cx { zkc: &mut self.zkc, io, incarnation: self.incarnation, info: &self.info, new_broker_epoch: None };
                self.controller.on_response(&mut cx, from, generation, &request, response);
            }
            BrokerEvent::ControlledShutdownRequest { from, broker_epoch } => {
                let actor = self.controller.actor();
                io.record(
                    &actor,
                    "control-request",
                    "KafkaApis.handleControlledShutdownRequest",
                    format!("ControlledShutdown request from broker {from}: put ControlledShutdown on the event queue"),
                    Detail::new().with("from", &from).with("broker_epoch", &broker_epoch),
                );
                self.controller.put(
                    super::controller::event::ControllerEvent::ControlledShutdown { broker: from, broker_epoch },
                    io,
                    self.incarnation,
                );
            }
            BrokerEvent::ControlledShutdownResponse { from, response } => self.on_controlled_shutdown_response(io, from, response),
            BrokerEvent::ControlledShutdownRetry => self.attempt_controlled_shutdown(io),
            BrokerEvent::FetchRequest { from, from_incarnation, generation, partitions } => {
                self.handle_fetch_request(io, from, from_incarnation, generation, partitions)
            }
            BrokerEvent::FetchResponse { from, generation, partitions } => self.handle_fetch_response(io, from, generation, partitions),
            BrokerEvent::DelayedFetchExpired { follower, token } => self.on_delayed_fetch_expired(io, follower, token),
            BrokerEvent::FetchBackoff { leader, generation } => self.on_fetch_backoff(io, leader, generation),
            BrokerEvent::ReplicaTask(task) => self.run_replica_task(io, task),
            BrokerEvent::LogDirFailureHandler => self.handle_log_dir_failure(io),
            BrokerEvent::ConfigChangeListener => self.run_config_change_listener(io),
            BrokerEvent::DynamicConfigBootstrap => self.bootstrap_dynamic_configs(io),
        }
    }

    /// A heartbeat; if the server answers that the session expired, the
    /// client learns it now (a paused process learns it on waking).
    fn ping(&mut self, io: &mut Io, session: crate::zookeeper::SessionId) {
        if io.zk.touch(session, io.now) {
            let timeout = io.zk.session(session).map(|s| s.timeout_ms).unwrap_or(self.config.zookeeper_session_timeout_ms);
            io.fx.schedule(timeout / 3, self.event(BrokerEvent::Ping { session }));
        } else {
            self.on_session_expired(io);
        }
    }

    /// `ZooKeeperClientWatcher.process`: a watch fired; the registered
    /// handler puts an event on the controller's queue.
    fn on_watch(&mut self, io: &mut Io, n: Notification) {
        let actor = self.actor();
        let Some(call) = self.zkc.dispatch(n.event, &n.path) else {
            io.record(
                &actor,
                "watch-event",
                "ZooKeeperClient.ZooKeeperClientWatcher.process",
                format!("{} {}: no handler registered any more; ignored", n.event.name(), n.path),
                Detail::new().with("type", &n.event.name()).with("path", &n.path),
            );
            return;
        };
        use super::controller::event::{ControllerEvent as E, ElectionTrigger};
        let (handler, event) = match &call {
            HandlerCall::Child(ChildHandler::BrokerChange) => ("BrokerChangeHandler.handleChildChange", Some(E::BrokerChange)),
            HandlerCall::Child(ChildHandler::TopicChange) => ("TopicChangeHandler.handleChildChange", Some(E::TopicChange)),
            HandlerCall::Child(ChildHandler::TopicDeletion) => ("TopicDeletionHandler.handleChildChange", Some(E::TopicDeletion)),
            HandlerCall::Child(ChildHandler::IsrChangeNotification) => {
                ("IsrChangeNotificationHandler.handleChildChange", Some(E::IsrChangeNotification))
            }
            HandlerCall::Child(ChildHandler::LogDirEventNotification) => {
                ("LogDirEventNotificationHandler.handleChildChange", Some(E::LogDirEventNotification))
            }
            HandlerCall::Child(ChildHandler::ConfigChangeNotification) => {
                let queued = self.enqueue_config_change_run(io);
                let what = if queued { "queue a run of the config change listener" } else { "a run is already queued" };
                let handler = "ZkNodeChangeNotificationListener.ChangeNotificationHandler.handleChildChange";
                io.record(
                    &self.cm_actor(),
                    "watch-event",
                    handler,
                    format!("{} {} → {handler}: {what}", n.event.name(), n.path),
                    Detail::new().with("type", &n.event.name()).with("path", &n.path).with("handler", &handler).with("queued", &queued),
                );
                return;
            }
            HandlerCall::Node(NodeHandler::ControllerChange, EventType::NodeDeleted) => {
                ("ControllerChangeHandler.handleDeletion", Some(E::Reelect))
            }
            HandlerCall::Node(NodeHandler::ControllerChange, _) => {
                ("ControllerChangeHandler.handleCreation/handleDataChange", Some(E::ControllerChange))
            }
            HandlerCall::Node(NodeHandler::BrokerModifications(b), EventType::NodeDataChanged) => {
                ("BrokerModificationsHandler.handleDataChange", Some(E::BrokerModifications(*b)))
            }
            HandlerCall::Node(NodeHandler::PartitionModifications(t), EventType::NodeDataChanged) => {
                ("PartitionModificationsHandler.handleDataChange", Some(E::PartitionModifications(t.clone())))
            }
            HandlerCall::Node(NodeHandler::PartitionReassignment, EventType::NodeCreated) => {
                ("PartitionReassignmentHandler.handleCreation", Some(E::ZkPartitionReassignment))
            }
            HandlerCall::Node(NodeHandler::PreferredReplicaElection, EventType::NodeCreated) => (
                "PreferredReplicaElectionHandler.handleCreation",
                Some(E::ReplicaLeaderElection { partitions: None, trigger: ElectionTrigger::ZkTriggered }),
            ),
            HandlerCall::Node(NodeHandler::PartitionReassignmentIsrChange(tp), EventType::NodeDataChanged) => {
                ("PartitionReassignmentIsrChangeHandler.handleDataChange", Some(E::PartitionReassignmentIsrChange(tp.clone())))
            }
            HandlerCall::Node(_, _) => ("ZNodeChangeHandler", None),
        };
        let what = event
            .as_ref()
            .map(|e| format!("put {} on the controller event queue", e.name()))
            .unwrap_or_else(|| "nothing to do for this event type".into());
        io.record(
            &actor,
            "watch-event",
            handler,
            format!("{} {} → {handler}: {what}", n.event.name(), n.path),
            Detail::new().with("type", &n.event.name()).with("path", &n.path).with("handler", &handler),
        );
        if let Some(e) = event {
            self.controller.put(e, io, self.incarnation);
        }
    }

    /// The session expired (`ZooKeeperClient.reinitialize`): the controller
    /// gets Expire, a new session is made, then RegisterBrokerAndReelect.
    fn on_session_expired(&mut self, io: &mut Io) {
        if self.state == ProcessState::Stopped {
            return;
        }
        let actor = self.actor();
        let old = self.zkc.session;
        use super::controller::event::ControllerEvent as E;
        self.controller.clear_and_put(E::Expire, io, self.incarnation);
        self.open_session(io);
        io.record(
            &actor,
            "broker",
            "ZooKeeperClient.reinitialize",
            format!("ZooKeeper session {} expired: beforeInitializingSession puts Expire; new session {}; afterInitializingSession puts RegisterBrokerAndReelect and queues a run of the config change listener", crate::kafka::zookeeper_client::session_label(old), crate::kafka::zookeeper_client::session_label(self.zkc.session)),
            Detail::new().with("old_session", &old.map(session_hex)).with("new_session", &self.zkc.session.map(session_hex)),
        );
        self.controller.put(E::RegisterBrokerAndReelect, io, self.incarnation);
        // The config change listener's afterInitializingSession: a run, in
        // case notifications arrived while the session was gone.
        self.enqueue_config_change_run(io);
    }

    /// `KafkaServer.shutdown` with `controlled.shutdown.enable`.
    pub fn begin_shutdown(&mut self, io: &mut Io) {
        self.state = ProcessState::ShuttingDown;
        self.shutdown_attempts = 0;
        let actor = self.actor();
        if self.config.controlled_shutdown_enable {
            io.record(
                &actor,
                "broker",
                "KafkaServer.controlledShutdown",
                format!(
                    "controlled shutdown: up to {} attempts, {} ms apart",
                    self.config.controlled_shutdown_max_retries, self.config.controlled_shutdown_retry_backoff_ms
                ),
                Detail::new(),
            );
            self.attempt_controlled_shutdown(io);
        } else {
            self.finish_shutdown(io);
        }
    }

    fn attempt_controlled_shutdown(&mut self, io: &mut Io) {
        if self.state != ProcessState::ShuttingDown {
            return;
        }
        self.shutdown_attempts += 1;
        let actor = self.actor();
        let controller = kzk::get_controller_id(&mut self.zkc, io, &actor).ok().flatten();
        match controller {
            Some(c) => {
                io.record(
                    &actor,
                    "control-request",
                    "KafkaServer.controlledShutdown",
                    format!(
                        "attempt {}: send ControlledShutdown (broker epoch {}) to controller {c}",
                        self.shutdown_attempts, self.broker_epoch
                    ),
                    Detail::new().with("controller", &c).with("attempt", &self.shutdown_attempts),
                );
                let delay = io.departure_delay_ms();
                io.fx.schedule(
                    delay,
                    Event::Broker {
                        id: c,
                        incarnation: ANY_INCARNATION,
                        what: BrokerEvent::ControlledShutdownRequest { from: self.id, broker_epoch: self.broker_epoch },
                    },
                );
            }
            None => self.controlled_shutdown_failed(io, "no controller is registered"),
        }
    }

    fn on_controlled_shutdown_response(&mut self, io: &mut Io, from: BrokerId, response: ControlResponse) {
        if self.state != ProcessState::ShuttingDown {
            return;
        }
        let ControlResponse::ControlledShutdown { error, remaining } = response else { return };
        if error == Errors::NONE && remaining.is_empty() {
            let actor = self.actor();
            io.record(
                &actor,
                "broker",
                "KafkaServer.controlledShutdown",
                format!("controller {from} moved every leader away: controlled shutdown succeeded"),
                Detail::new(),
            );
            self.finish_shutdown(io);
        } else {
            self.controlled_shutdown_failed(
                io,
                &format!("controller answered {error:?} with {} partitions still led here", remaining.len()),
            );
        }
    }

    fn controlled_shutdown_failed(&mut self, io: &mut Io, why: &str) {
        let actor = self.actor();
        if self.shutdown_attempts < self.config.controlled_shutdown_max_retries {
            io.record(
                &actor,
                "broker",
                "KafkaServer.controlledShutdown",
                format!(
                    "attempt {} failed ({why}); retrying in {} ms",
                    self.shutdown_attempts, self.config.controlled_shutdown_retry_backoff_ms
                ),
                Detail::new(),
            );
            io.fx.schedule(self.config.controlled_shutdown_retry_backoff_ms, self.event(BrokerEvent::ControlledShutdownRetry));
        } else {
            io.record(
                &actor,
                "broker",
                "KafkaServer.controlledShutdown",
                format!("attempt {} failed ({why}); no retries left: proceeding with an unclean shutdown", self.shutdown_attempts),
                Detail::new(),
            );
            self.finish_shutdown(io);
        }
    }

    /// The rest of `KafkaServer.shutdown`: the controller resigns, the
    /// session closes (its ephemerals — `/brokers/ids/<id>`, maybe
    /// `/controller` — are deleted at once).
    pub(super) fn finish_shutdown(&mut self, io: &mut Io) {
        if self.controller.is_active() {
            let mut cx = Cx { zkc: &mut self.zkc, io, incarnation: self.incarnation, info: &self.info, new_broker_epoch: None };
            self.controller.on_controller_resignation(&mut cx);
        }
        if let Some(session) = self.zkc.session.take() {
            if let Ok(n) = io.zk.end_session(io.now, session, crate::zookeeper::server::SessionEnd::Closed) {
                io.notifications.extend(n);
            }
            let actor = self.actor();
            io.record(
                &actor,
                "broker",
                "KafkaZkClient.close",
                format!("closed ZooKeeper session {}: its ephemeral znodes are deleted now", session_hex(session)),
                Detail::new().with("session", &session_hex(session)),
            );
        }
        self.stop(io, "shut down");
    }

    /// `update-broker ID listener=HOST:PORT`: `updateBrokerInfo`.
    pub fn update_listener(&mut self, io: &mut Io, host: String, port: u16) {
        self.info.host = host;
        self.info.port = port;
        let actor = self.actor();
        let data = self.info.encode(self.config.inter_broker_protocol_version, io.now.as_u64());
        let _ = self.zkc.call(
            io,
            &actor,
            "KafkaZkClient.updateBrokerInfo",
            crate::zookeeper::Request::SetData { path: zk_data::broker_path(self.id), data, version: -1 },
        );
    }

    /// Wakes a paused process: what queued up is handled in order.
    pub fn resume(&mut self, io: &mut Io) {
        self.paused = false;
        let deferred: Vec<_> = self.deferred.drain(..).collect();
        for what in deferred {
            io.fx.schedule(0, self.event(what));
        }
    }
}

/// A cluster id as Kafka makes one: 22 characters of URL-safe base64.
fn random_cluster_id(io: &mut Io) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    (0..22).map(|_| ALPHABET[io.rng.index(64)] as char).collect()
}
