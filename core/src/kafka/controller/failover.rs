//! Election, failover and resignation (seed 003): `processStartup`, `elect`,
//! `onControllerFailover`, `onControllerResignation`, `maybeResign`,
//! `triggerControllerMove`, and the session events Expire and
//! RegisterBrokerAndReelect.

use super::context::ControllerContext;
use super::election::Strategy;
use super::event::ElectionTrigger;
use super::{CResult, ControllerError, ControllerTimer, Cx, KafkaController};
use crate::kafka::kafka_zk_client::{self as kzk, EPHEMERAL, PERSISTENT};
use crate::kafka::zk_data::{self, LeaderIsrAndControllerEpoch};
use crate::kafka::zookeeper_client::{ChildHandler, NodeHandler};
use crate::sim::event::{BrokerEvent, Event};
use crate::trace::Detail;
use crate::zookeeper::{KeeperError, Request, Response, ZkError};
use std::collections::BTreeSet;

const FAILOVER: &str = "KafkaController.onControllerFailover";
const FAILOVER_STEPS: u32 = 11;

impl KafkaController {
    /// `processStartup`: watch `/controller`, then try to become controller.
    pub(super) fn process_startup(&mut self, cx: &mut Cx) -> CResult<()> {
        let actor = self.actor();
        let _ = cx.zkc.register_node_handler_and_check_existence(cx.io, &actor, zk_data::CONTROLLER, NodeHandler::ControllerChange);
        self.elect(cx)
    }

    /// `processControllerChange` = `maybeResign`.
    pub(super) fn process_controller_change(&mut self, cx: &mut Cx) -> CResult<()> {
        self.maybe_resign(cx);
        Ok(())
    }

    /// `processReelect`: `/controller` was deleted — resign if needed, elect.
    pub(super) fn process_reelect(&mut self, cx: &mut Cx) -> CResult<()> {
        self.maybe_resign(cx);
        self.elect(cx)
    }

    /// A new ZooKeeper session: register the broker again (a new epoch), then
    /// re-elect.
    pub(super) fn process_register_broker_and_reelect(&mut self, cx: &mut Cx) -> CResult<()> {
        let actor = format!("broker-{}", self.broker_id);
        let data = cx.info.encode(self.config.inter_broker_protocol_version, cx.io.now.as_u64());
        match kzk::register_broker(cx.zkc, cx.io, &actor, &zk_data::broker_path(self.broker_id), data) {
            Ok(epoch) => {
                self.broker_epoch = epoch;
                cx.new_broker_epoch = Some(epoch);
                self.step(
                    cx,
                    "KafkaController.processRegisterBrokerAndReelect",
                    format!("registered again at /brokers/ids/{} with broker epoch {epoch} (the new czxid)", self.broker_id),
                    Detail::new().with("broker_epoch", &epoch),
                );
            }
            Err(e) => {
                self.step(
                    cx,
                    "KafkaController.processRegisterBrokerAndReelect",
                    format!("registration failed: {e}"),
                    Detail::new().with("error", &e.name()),
                );
            }
        }
        self.process_reelect(cx)
    }

    /// `processExpire`: the session is gone, so is any claim to lead.
    pub(super) fn process_expire(&mut self, cx: &mut Cx) -> CResult<()> {
        let was_active = self.is_active();
        self.active_controller_id = -1;
        if was_active {
            self.on_controller_resignation(cx);
        } else {
            self.step(cx, "KafkaController.processExpire", "session expired; this broker was not the controller".into(), Detail::new());
        }
        Ok(())
    }

    /// `maybeResign`: re-read `/controller` (re-arming its watch); if this
    /// broker was the controller and no longer is, resign.
    pub(crate) fn maybe_resign(&mut self, cx: &mut Cx) {
        let was_active = self.is_active();
        // The exists-watch is re-armed even when /controller is gone:
        // without it this broker would never hear of the next controller.
        let actor = self.actor();
        let _ = cx.zkc.register_node_handler_and_check_existence(cx.io, &actor, zk_data::CONTROLLER, NodeHandler::ControllerChange);
        self.active_controller_id = kzk::get_controller_id(cx.zkc, cx.io, &actor).ok().flatten().unwrap_or(-1);
        let now_active = self.is_active();
        self.step(
            cx,
            "KafkaController.maybeResign",
            format!(
                "/controller names {}; {}",
                show(self.active_controller_id),
                if was_active && !now_active { "this broker was the controller: resign" } else { "nothing to resign" }
            ),
            Detail::new().with("active_controller_id", &self.active_controller_id).with("was_active", &was_active),
        );
        if was_active && !now_active {
            self.on_controller_resignation(cx);
        }
    }

    /// `elect`: become controller unless someone already is.
    fn elect(&mut self, cx: &mut Cx) -> CResult<()> {
        let actor = self.actor();
        self.active_controller_id = kzk::get_controller_id(cx.zkc, cx.io, &actor).ok().flatten().unwrap_or(-1);
        if self.active_controller_id != -1 {
            self.step(
                cx,
                "KafkaController.elect",
                format!("broker {} is already the controller; stop the election", self.active_controller_id),
                Detail::new().with("active_controller_id", &self.active_controller_id),
            );
            return Ok(());
        }
        match self.register_controller_and_increment_controller_epoch(cx) {
            Ok((epoch, version)) => {
                self.ctx.epoch = epoch;
                self.ctx.epoch_zk_version = version;
                self.active_controller_id = self.broker_id;
                self.step(
                    cx,
                    "KafkaController.elect",
                    format!(
                        "broker {} is the controller now, controller epoch {epoch} (/controller_epoch zkVersion {version})",
                        self.broker_id
                    ),
                    Detail::new().with("controller_epoch", &epoch).with("epoch_zk_version", &version),
                );
                self.on_controller_failover(cx)
            }
            Err(ControllerError::ControllerMoved) => {
                self.step(cx, "KafkaController.elect", "lost the election: another broker created /controller first".into(), Detail::new());
                self.maybe_resign(cx);
                Ok(())
            }
            Err(ControllerError::Zk(e)) => {
                self.step(
                    cx,
                    "KafkaController.elect",
                    format!("election failed ({e}); triggerControllerMove"),
                    Detail::new().with("error", &e.name()),
                );
                self.trigger_controller_move(cx);
                Ok(())
            }
        }
    }

    /// `registerControllerAndIncrementControllerEpoch`: one multi creates the
    /// ephemeral `/controller` and bumps `/controller_epoch` conditionally.
    fn register_controller_and_increment_controller_epoch(&mut self, cx: &mut Cx) -> CResult<(i32, i32)> {
        let actor = self.actor();
        let src = "KafkaZkClient.registerControllerAndIncrementControllerEpoch";
        let (cur_epoch, cur_version) = match cx.zkc.get_data(cx.io, &actor, src, zk_data::CONTROLLER_EPOCH) {
            Ok((data, stat)) => (zk_data::decode_controller_epoch(&data).unwrap_or(0), stat.version),
            Err(KeeperError::NoNode) => match cx.zkc.create(cx.io, &actor, src, zk_data::CONTROLLER_EPOCH, b"0".to_vec(), PERSISTENT) {
                Ok(_) => (0, 0),
                Err(KeeperError::NodeExists) => {
                    let (data, stat) = cx.zkc.get_data(cx.io, &actor, src, zk_data::CONTROLLER_EPOCH).map_err(ControllerError::Zk)?;
                    (zk_data::decode_controller_epoch(&data).unwrap_or(0), stat.version)
                }
                Err(e) => return Err(ControllerError::Zk(e)),
            },
            Err(e) => return Err(ControllerError::Zk(e)),
        };
        let new_epoch = cur_epoch + 1;
        let multi = Request::Multi(vec![
            Request::Create {
                path: zk_data::CONTROLLER.into(),
                data: zk_data::encode_controller(self.broker_id, cx.io.now.as_u64()),
                mode: EPHEMERAL,
            },
            Request::SetData { path: zk_data::CONTROLLER_EPOCH.into(), data: new_epoch.to_string().into_bytes(), version: cur_version },
        ]);
        match cx.zkc.call(cx.io, &actor, src, multi) {
            Ok(Response::Multi(rs)) => match rs.last() {
                Some(Response::SetData { stat }) => Ok((new_epoch, stat.version)),
                _ => Ok((new_epoch, cur_version + 1)),
            },
            Ok(_) => Ok((new_epoch, cur_version + 1)),
            Err(ZkError::Multi(f)) if matches!(f.error, KeeperError::NodeExists | KeeperError::BadVersion) => {
                // checkControllerAndEpoch: a retried multi may have won after all.
                let owner = kzk::get_controller_id(cx.zkc, cx.io, &actor).map_err(ControllerError::Zk)?;
                let (data, stat) = cx.zkc.get_data(cx.io, &actor, src, zk_data::CONTROLLER_EPOCH).map_err(ControllerError::Zk)?;
                if owner == Some(self.broker_id) && zk_data::decode_controller_epoch(&data) == Some(new_epoch) {
                    Ok((new_epoch, stat.version))
                } else {
                    Err(ControllerError::ControllerMoved)
                }
            }
            Err(e) => Err(ControllerError::Zk(e.code())),
        }
    }

    /// `triggerControllerMove`: give up leadership and delete `/controller`.
    pub(crate) fn trigger_controller_move(&mut self, cx: &mut Cx) {
        let actor = self.actor();
        self.active_controller_id = kzk::get_controller_id(cx.zkc, cx.io, &actor).ok().flatten().unwrap_or(-1);
        if !self.is_active() {
            return;
        }
        let v = self.ctx.epoch_zk_version;
        self.active_controller_id = -1;
        self.on_controller_resignation(cx);
        let _ = kzk::fenced_delete(cx.zkc, cx.io, &actor, "KafkaZkClient.deleteController", zk_data::CONTROLLER, v);
    }

    /// `onControllerFailover`, in Kafka 2.8's order.
    pub(super) fn on_controller_failover(&mut self, cx: &mut Cx) -> CResult<()> {
        let actor = self.actor();
        let v = self.ctx.epoch_zk_version;
        // 0 (2.7+): /feature — at IBP < 2.7 a Disabled node with no features.
        let feature_exists =
            cx.zkc.exists(cx.io, &actor, "KafkaController.maybeSetupFeatureVersioning", zk_data::FEATURE).ok().flatten().is_some();
        if !feature_exists {
            let _ = cx.zkc.create(
                cx.io,
                &actor,
                "KafkaController.disableFeatureVersioning",
                zk_data::FEATURE,
                zk_data::encode_feature_disabled(),
                PERSISTENT,
            );
        }
        self.numbered(cx, FAILOVER, 1, FAILOVER_STEPS, "register the child change handlers for /brokers/ids, /brokers/topics, /admin/delete_topics, /log_dir_event_notification and /isr_change_notification".into(), Detail::new());
        for (path, h) in [
            (zk_data::BROKER_IDS, ChildHandler::BrokerChange),
            (zk_data::BROKER_TOPICS, ChildHandler::TopicChange),
            (zk_data::DELETE_TOPICS, ChildHandler::TopicDeletion),
            (zk_data::LOG_DIR_EVENT_NOTIFICATION, ChildHandler::LogDirEventNotification),
            (zk_data::ISR_CHANGE_NOTIFICATION, ChildHandler::IsrChangeNotification),
        ] {
            cx.zkc.register_child_handler(path, h);
        }
        self.numbered(
            cx,
            FAILOVER,
            2,
            FAILOVER_STEPS,
            "register and check /admin/preferred_replica_election and /admin/reassign_partitions".into(),
            Detail::new(),
        );
        for (path, h) in [
            (zk_data::PREFERRED_REPLICA_ELECTION, NodeHandler::PreferredReplicaElection),
            (zk_data::REASSIGN_PARTITIONS, NodeHandler::PartitionReassignment),
        ] {
            let _ = cx.zkc.register_node_handler_and_check_existence(cx.io, &actor, path, h);
        }
        self.numbered(cx, FAILOVER, 3, FAILOVER_STEPS, "delete stale log-dir event and ISR change notifications".into(), Detail::new());
        for (root, src) in [
            (zk_data::LOG_DIR_EVENT_NOTIFICATION, "KafkaZkClient.deleteLogDirEventNotifications"),
            (zk_data::ISR_CHANGE_NOTIFICATION, "KafkaZkClient.deleteIsrChangeNotifications"),
        ] {
            let children = cx.zkc.get_children(cx.io, &actor, src, root).unwrap_or_default();
            for c in children {
                kzk::fenced_delete(cx.zkc, cx.io, &actor, src, &format!("{root}/{c}"), v)?;
            }
        }
        self.numbered(
            cx,
            FAILOVER,
            4,
            FAILOVER_STEPS,
            "initializeControllerContext: read brokers, topics, assignments and partition states".into(),
            Detail::new(),
        );
        self.initialize_controller_context(cx)?;
        self.numbered(
            cx,
            FAILOVER,
            5,
            FAILOVER_STEPS,
            "fetchTopicDeletionsInProgress and initialise the TopicDeletionManager".into(),
            Detail::new(),
        );
        self.init_topic_deletion(cx)?;
        self.numbered(
            cx,
            FAILOVER,
            6,
            FAILOVER_STEPS,
            "sendUpdateMetadataRequest to every live broker (the live-broker list, no partitions)".into(),
            Detail::new(),
        );
        let live: Vec<_> = self.ctx.live_or_shutting_down().into_iter().collect();
        self.send_update_metadata(cx, &live, &[]);
        self.numbered(
            cx,
            FAILOVER,
            7,
            FAILOVER_STEPS,
            "replicaStateMachine.startup, then partitionStateMachine.startup".into(),
            Detail::new(),
        );
        self.replica_state_machine_startup(cx)?;
        self.partition_state_machine_startup(cx)?;
        self.numbered(cx, FAILOVER, 8, FAILOVER_STEPS, "initializePartitionReassignments".into(), Detail::new());
        self.initialize_partition_reassignments(cx)?;
        self.numbered(cx, FAILOVER, 9, FAILOVER_STEPS, "topicDeletionManager.tryTopicDeletion".into(), Detail::new());
        self.resume_deletions(cx)?;
        self.numbered(cx, FAILOVER, 10, FAILOVER_STEPS, "fetchPendingPreferredReplicaElections".into(), Detail::new());
        self.fetch_pending_preferred_replica_elections(cx)?;
        let rebalance = self.config.auto_leader_rebalance_enable;
        self.numbered(
            cx,
            FAILOVER,
            11,
            FAILOVER_STEPS,
            format!(
                "{}; the failover's ZooKeeper round trips took {} ms",
                if rebalance {
                    "kafkaScheduler.startup: auto-leader-rebalance-task first runs in 5 s"
                } else {
                    "kafkaScheduler.startup (auto.leader.rebalance.enable=false: no rebalance task)"
                },
                cx.io.cost_ms()
            ),
            Detail::new().with("auto_leader_rebalance", &rebalance).with("zookeeper_time_ms", &cx.io.cost_ms()),
        );
        if rebalance {
            self.schedule_auto_leader_rebalance(cx, 5_000);
        }
        Ok(())
    }

    pub(crate) fn schedule_auto_leader_rebalance(&mut self, cx: &mut Cx, after_ms: u64) {
        let term = self.term;
        cx.io.fx.schedule(
            after_ms,
            Event::Broker {
                id: self.broker_id,
                incarnation: cx.incarnation,
                what: BrokerEvent::ControllerTimer(ControllerTimer::AutoLeaderRebalance { term }),
            },
        );
    }

    /// `initializeControllerContext`.
    fn initialize_controller_context(&mut self, cx: &mut Cx) -> CResult<()> {
        let actor = self.actor();
        let brokers = kzk::get_all_broker_and_epochs(cx.zkc, cx.io, &actor).map_err(ControllerError::Zk)?;
        self.ctx.set_live_brokers(brokers);
        let topics = kzk::get_all_topics(cx.zkc, cx.io, &actor).map_err(ControllerError::Zk)?;
        self.ctx.all_topics = topics.iter().cloned().collect();
        for t in &topics {
            cx.zkc.register_node_handler(&zk_data::topic_path(t), NodeHandler::PartitionModifications(t.clone()));
        }
        self.ctx.assignments.clear();
        for (t, a) in kzk::get_replica_assignment(cx.zkc, cx.io, &actor, &topics).map_err(ControllerError::Zk)? {
            self.ctx.set_topic_assignment(&t, a);
        }
        self.ctx.partitions_being_reassigned = self
            .ctx
            .all_partitions()
            .into_iter()
            .filter(|tp| self.ctx.assignment(tp).map(|a| a.is_being_reassigned()).unwrap_or(false))
            .collect();
        self.ctx.leadership.clear();
        self.ctx.shutting_down.clear();
        let live: Vec<_> = self.ctx.live_brokers().keys().copied().collect();
        self.register_broker_modifications_handlers(cx, &live);
        let partitions = self.ctx.all_partitions();
        self.ctx.leadership =
            kzk::get_topic_partition_states(cx.zkc, cx.io, &actor, &partitions).map_err(ControllerError::Zk)?.into_iter().collect();
        for b in live {
            self.channel.add_broker(b);
        }
        let brokers: Vec<_> = self.ctx.live_brokers().iter().map(|(b, (_, e))| Detail::new().with("id", &b).with("epoch", &e)).collect();
        self.step(
            cx,
            "KafkaController.initializeControllerContext",
            format!(
                "context ready: live brokers {:?}, {} topics, {} partitions",
                self.ctx.live_brokers().keys().collect::<Vec<_>>(),
                self.ctx.all_topics.len(),
                partitions.len()
            ),
            Detail::new().with("live_brokers", &brokers).with("topics", &self.ctx.all_topics).with("partitions", &partitions.len()),
        );
        Ok(())
    }

    pub(crate) fn register_broker_modifications_handlers(&mut self, cx: &mut Cx, brokers: &[crate::kafka::BrokerId]) {
        let actor = self.actor();
        for &b in brokers {
            let path = zk_data::broker_path(b);
            let _ = cx.zkc.register_node_handler_and_check_existence(cx.io, &actor, &path, NodeHandler::BrokerModifications(b));
        }
    }

    /// `onControllerResignation`: unregister the handlers, stop the
    /// scheduler and the state machines, drop the channels, reset the context.
    pub(crate) fn on_controller_resignation(&mut self, cx: &mut Cx) {
        for p in [
            zk_data::ISR_CHANGE_NOTIFICATION,
            zk_data::LOG_DIR_EVENT_NOTIFICATION,
            zk_data::BROKER_TOPICS,
            zk_data::DELETE_TOPICS,
            zk_data::BROKER_IDS,
        ] {
            cx.zkc.unregister_child_handler(p);
        }
        for p in [zk_data::REASSIGN_PARTITIONS, zk_data::PREFERRED_REPLICA_ELECTION] {
            cx.zkc.unregister_node_handler(p);
        }
        cx.zkc.unregister_node_handlers_where(|h| {
            matches!(
                h,
                NodeHandler::BrokerModifications(_)
                    | NodeHandler::PartitionModifications(_)
                    | NodeHandler::PartitionReassignmentIsrChange(_)
            )
        });
        self.term += 1;
        self.channel.shutdown();
        self.batch.clear();
        let epoch = self.ctx.epoch;
        self.ctx = ControllerContext::default();
        self.step(
            cx,
            "KafkaController.onControllerResignation",
            format!("resigned as controller (was epoch {epoch}): handlers unregistered, scheduler and state machines stopped, channels closed, context reset"),
            Detail::new().with("previous_epoch", &epoch),
        );
    }

    /// `sendUpdateMetadataRequest`.
    pub(crate) fn send_update_metadata(
        &mut self,
        cx: &mut Cx,
        brokers: &[crate::kafka::BrokerId],
        partitions: &[crate::scenario::TopicPartition],
    ) {
        self.batch.clear();
        self.batch.add_update_metadata(brokers, partitions);
        self.send_batch(cx);
    }

    /// `fetchPendingPreferredReplicaElections` then `onReplicaElection`.
    fn fetch_pending_preferred_replica_elections(&mut self, cx: &mut Cx) -> CResult<()> {
        let actor = self.actor();
        let Ok((data, _)) =
            cx.zkc.get_data(cx.io, &actor, "KafkaZkClient.getPreferredReplicaElection", zk_data::PREFERRED_REPLICA_ELECTION)
        else {
            return Ok(());
        };
        let partitions: BTreeSet<_> = zk_data::decode_partitions(&data)
            .unwrap_or_default()
            .into_iter()
            .filter(|tp| {
                let done = match (self.ctx.leadership.get(tp), self.ctx.assignment(tp)) {
                    (Some(l), Some(a)) => a.replicas.first() == Some(&l.leader),
                    _ => true,
                };
                !done && !self.ctx.is_topic_queued_for_deletion(&tp.topic)
            })
            .collect();
        self.on_replica_election(cx, partitions, Strategy::Preferred, ElectionTrigger::ZkTriggered)
    }

    /// Reads the current state znodes of `partitions` into the cache.
    pub(crate) fn update_leader_and_isr_cache(&mut self, cx: &mut Cx, partitions: &[crate::scenario::TopicPartition]) -> CResult<()> {
        let actor = self.actor();
        let states = kzk::get_topic_partition_states(cx.zkc, cx.io, &actor, partitions).map_err(ControllerError::Zk)?;
        for (tp, l) in states {
            self.ctx.leadership.insert(tp, l);
        }
        Ok(())
    }
}

fn show(id: crate::kafka::BrokerId) -> String {
    if id < 0 {
        "nobody".into()
    } else {
        format!("broker {id}")
    }
}

/// The leader-and-ISR value written for a fresh partition.
pub(crate) fn initial_leader_and_isr(
    leader: crate::kafka::BrokerId,
    isr: crate::kafka::broker_ids::BrokerIds,
    controller_epoch: i32,
) -> LeaderIsrAndControllerEpoch {
    LeaderIsrAndControllerEpoch { leader, leader_epoch: 0, isr, zk_version: 0, controller_epoch }
}
