//! Partition reassignment through `/admin/reassign_partitions` (KIP-455's
//! algorithm as 2.8 runs it): add the target replicas, wait until they are
//! all in the ISR, move the leader if needed, remove the old replicas.

use super::context::{PartitionState, ReplicaState};
use super::election::Strategy;
use super::{CResult, ControllerError, Cx, KafkaController};
use crate::kafka::kafka_zk_client as kzk;
use crate::kafka::zk_data::{self, LeaderIsrAndControllerEpoch, ReplicaAssignment};
use crate::kafka::zookeeper_client::{NodeHandler, WriteError};
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use crate::small_map::SmallSet;
use crate::trace::Detail;
use crate::zookeeper::{KeeperError, Request};
use std::collections::BTreeMap;

const SRC: &str = "KafkaController.onPartitionReassignment";

impl KafkaController {
    /// `processZkPartitionReassignment`: `/admin/reassign_partitions` appeared.
    pub(super) fn process_zk_partition_reassignment(&mut self, cx: &mut Cx) -> CResult<()> {
        if !self.is_active() {
            return Ok(());
        }
        let actor = self.actor();
        if cx
            .zkc
            .register_node_handler_and_check_existence(cx.io, &actor, zk_data::REASSIGN_PARTITIONS, NodeHandler::PartitionReassignment)
            .ok()
            .flatten()
            .is_none()
        {
            return Ok(());
        }
        let moves = match cx.zkc.get_data(cx.io, &actor, "KafkaZkClient.getPartitionReassignment", zk_data::REASSIGN_PARTITIONS) {
            Ok((data, _)) => zk_data::decode_reassignment(&data).unwrap_or_default(),
            Err(_) => BTreeMap::new(),
        };
        self.step(
            cx,
            "KafkaController.processZkPartitionReassignment",
            format!("reassignments requested: {}", moves.iter().map(|(tp, r)| format!("{tp} → {r:?}")).collect::<Vec<_>>().join(", ")),
            Detail::new(),
        );
        let mut finished = Vec::new();
        for (tp, target) in moves {
            match self.ctx.assignment(&tp).cloned() {
                Some(current) if !self.ctx.is_topic_queued_for_deletion(&tp.topic) => {
                    let r = current.reassign_to(&target);
                    self.on_partition_reassignment(cx, &tp, r)?;
                    if !self.ctx.partitions_being_reassigned.contains(&tp) {
                        finished.push(tp);
                    }
                }
                _ => {
                    self.step(
                        cx,
                        "KafkaController.processZkPartitionReassignment",
                        format!("{tp}: unknown partition or topic being deleted (UNKNOWN_TOPIC_OR_PARTITION)"),
                        Detail::new(),
                    );
                    finished.push(tp);
                }
            }
        }
        self.remove_partitions_from_zk_reassignment(cx, &finished)
    }

    /// Resumes reassignments recorded in the topic znodes (adding/removing).
    pub(super) fn initialize_partition_reassignments(&mut self, cx: &mut Cx) -> CResult<()> {
        let pending: Vec<TopicPartition> = self.ctx.partitions_being_reassigned.iter().cloned().collect();
        for tp in pending {
            if let Some(a) = self.ctx.assignment(&tp).cloned() {
                self.on_partition_reassignment(cx, &tp, a)?;
            }
        }
        Ok(())
    }

    /// `maybeResumeReassignments`: reassignments whose targets include a new broker.
    pub(crate) fn maybe_resume_reassignments(&mut self, cx: &mut Cx, new_brokers: &SmallSet<BrokerId>) -> CResult<()> {
        let pending: Vec<TopicPartition> = self.ctx.partitions_being_reassigned.iter().cloned().collect();
        for tp in pending {
            if let Some(a) = self.ctx.assignment(&tp).cloned() {
                if a.target_replicas().iter().any(|b| new_brokers.contains(b)) {
                    self.on_partition_reassignment(cx, &tp, a)?;
                }
            }
        }
        Ok(())
    }

    /// `processPartitionReassignmentIsrChange`: the ISR of a reassigning
    /// partition changed — maybe the reassignment is complete.
    pub(super) fn process_partition_reassignment_isr_change(&mut self, cx: &mut Cx, tp: &TopicPartition) -> CResult<()> {
        if !self.is_active() || !self.ctx.partitions_being_reassigned.contains(tp) {
            return Ok(());
        }
        self.maybe_complete_reassignment(cx, tp)
    }

    pub(crate) fn maybe_complete_reassignment(&mut self, cx: &mut Cx, tp: &TopicPartition) -> CResult<()> {
        if let Some(a) = self.ctx.assignment(tp).cloned() {
            if self.is_reassignment_complete(cx, tp, &a)? {
                self.on_partition_reassignment(cx, tp, a)?;
                if !self.ctx.partitions_being_reassigned.contains(tp) {
                    self.remove_partitions_from_zk_reassignment(cx, std::slice::from_ref(tp))?;
                }
            }
        }
        Ok(())
    }

    fn is_reassignment_complete(&mut self, cx: &mut Cx, tp: &TopicPartition, a: &ReplicaAssignment) -> CResult<bool> {
        if !a.is_being_reassigned() {
            return Ok(true);
        }
        let actor = self.actor();
        let states = kzk::get_topic_partition_states(cx.zkc, cx.io, &actor, std::slice::from_ref(tp)).map_err(ControllerError::Zk)?;
        Ok(states.get(tp).map(|l| a.target_replicas().iter().all(|r| l.isr.contains(r))).unwrap_or(false))
    }

    /// `onPartitionReassignment`.
    fn on_partition_reassignment(&mut self, cx: &mut Cx, tp: &TopicPartition, r: ReplicaAssignment) -> CResult<()> {
        self.ctx.topics_ineligible_for_deletion.insert(tp.topic.to_string());
        self.update_current_reassignment(cx, tp, &r)?;
        if !self.is_reassignment_complete(cx, tp, &r)? {
            self.step(cx, SRC, format!("{tp}: A1 bump the leader epoch and send LeaderAndIsr to {:?} (adding {:?}, removing {:?}); A2 adding replicas → NewReplica", r.replicas, r.adding, r.removing), Detail::new().with("partition", &tp.to_string()).with("replicas", &r.replicas).with("adding", &r.adding).with("removing", &r.removing));
            self.update_leader_epoch_and_send_request(cx, tp, &r)?;
            let adding: Vec<_> = r.adding.iter().map(|b| (tp.clone(), *b)).collect();
            self.replica_state_changes(cx, &adding, ReplicaState::NewReplica)?;
            return Ok(());
        }
        let target = r.target_replicas();
        self.step(
            cx,
            SRC,
            format!("{tp}: every target replica {target:?} is in the ISR — complete the reassignment (B1-B8)"),
            Detail::new().with("partition", &tp.to_string()).with("target", &target),
        );
        let adding: Vec<_> = r.adding.iter().map(|b| (tp.clone(), *b)).collect();
        self.replica_state_changes(cx, &adding, ReplicaState::OnlineReplica)?;
        if let Some(a) = self.ctx.assignment_mut(tp) {
            *a = ReplicaAssignment::new(target.clone());
        }
        let leader = self.ctx.leadership.get(tp).map(|l| l.leader).unwrap_or(-1);
        if !target.contains(&leader) || !self.ctx.is_replica_online(leader, tp, false) {
            self.partition_state_changes(cx, std::slice::from_ref(tp), PartitionState::OnlinePartition, Some(Strategy::Reassign))?;
        } else {
            let a = ReplicaAssignment::new(target.clone());
            self.update_leader_epoch_and_send_request(cx, tp, &a)?;
        }
        let removing: Vec<_> = r.removing.iter().map(|b| (tp.clone(), *b)).collect();
        self.replica_state_changes(cx, &removing, ReplicaState::OfflineReplica)?;
        self.replica_state_changes(cx, &removing, ReplicaState::ReplicaDeletionStarted)?;
        self.replica_state_changes(cx, &removing, ReplicaState::ReplicaDeletionSuccessful)?;
        self.replica_state_changes(cx, &removing, ReplicaState::NonExistentReplica)?;
        self.write_topic_assignment(cx, &tp.topic)?;
        cx.zkc.unregister_node_handler(&zk_data::partition_state_path(tp));
        self.ctx.partitions_being_reassigned.remove(tp);
        let live: Vec<BrokerId> = self.ctx.live_or_shutting_down().into_iter().collect();
        self.send_update_metadata(cx, &live, std::slice::from_ref(tp));
        self.ctx.topics_ineligible_for_deletion.remove(tp.topic.as_str());
        self.resume_deletions(cx)
    }

    /// `updateCurrentReassignment`: U1 write the topic znode, U2 update the
    /// context, watch the partition's state (ISR changes).
    fn update_current_reassignment(&mut self, cx: &mut Cx, tp: &TopicPartition, r: &ReplicaAssignment) -> CResult<()> {
        if self.ctx.assignment(tp) != Some(r) {
            if let Some(a) = self.ctx.assignment_mut(tp) {
                *a = r.clone();
            }
            self.write_topic_assignment(cx, &tp.topic)?;
        }
        cx.zkc.register_node_handler(&zk_data::partition_state_path(tp), NodeHandler::PartitionReassignmentIsrChange(tp.clone()));
        if r.is_being_reassigned() {
            self.ctx.partitions_being_reassigned.insert(tp.clone());
        }
        Ok(())
    }

    fn write_topic_assignment(&mut self, cx: &mut Cx, topic: &str) -> CResult<()> {
        let actor = self.actor();
        let a = self.ctx.topic_assignment(topic);
        let req = Request::SetData { path: zk_data::topic_path(topic), data: zk_data::encode_topic(&a), version: -1 };
        cx.zkc.fenced(cx.io, &actor, "KafkaZkClient.setTopicAssignment", self.ctx.epoch_zk_version, req, |_| ())?;
        Ok(())
    }

    /// `updateLeaderEpochAndSendRequest`: same leader and ISR, epoch + 1.
    fn update_leader_epoch_and_send_request(&mut self, cx: &mut Cx, tp: &TopicPartition, a: &ReplicaAssignment) -> CResult<()> {
        let actor = self.actor();
        for _ in 0..16 {
            let states = kzk::get_topic_partition_states(cx.zkc, cx.io, &actor, std::slice::from_ref(tp)).map_err(ControllerError::Zk)?;
            let Some(cur) = states.get(tp) else { return Ok(()) };
            if cur.controller_epoch > self.ctx.epoch && !cx.zkc.fencing_disabled {
                return Ok(());
            }
            let new = LeaderIsrAndControllerEpoch { leader_epoch: cur.leader_epoch + 1, controller_epoch: self.ctx.epoch, ..cur.clone() };
            match kzk::update_leader_and_isr(
                cx.zkc,
                cx.io,
                &actor,
                "KafkaController.updateLeaderEpoch",
                tp,
                &new,
                self.ctx.epoch_zk_version,
            ) {
                Ok(v) => {
                    self.ctx.leadership.insert(tp.clone(), LeaderIsrAndControllerEpoch { zk_version: v, ..new });
                    self.batch.clear();
                    self.batch.add_leader_and_isr(&self.ctx, &a.replicas, tp, a, false);
                    self.send_batch(cx);
                    return Ok(());
                }
                Err(WriteError::Keeper(KeeperError::BadVersion)) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// Drops finished partitions from `/admin/reassign_partitions`, deleting
    /// it when empty (and re-arming the watch for the next one).
    fn remove_partitions_from_zk_reassignment(&mut self, cx: &mut Cx, done: &[TopicPartition]) -> CResult<()> {
        if done.is_empty() {
            return Ok(());
        }
        let actor = self.actor();
        let v = self.ctx.epoch_zk_version;
        let Ok((data, _)) = cx.zkc.get_data(cx.io, &actor, "KafkaZkClient.getPartitionReassignment", zk_data::REASSIGN_PARTITIONS) else {
            return Ok(());
        };
        let mut moves = zk_data::decode_reassignment(&data).unwrap_or_default();
        for tp in done {
            moves.remove(tp);
        }
        if moves.is_empty() {
            kzk::fenced_delete(cx.zkc, cx.io, &actor, "KafkaZkClient.deletePartitionReassignment", zk_data::REASSIGN_PARTITIONS, v)?;
            self.put(super::event::ControllerEvent::ZkPartitionReassignment, cx.io, cx.incarnation);
        } else {
            let req =
                Request::SetData { path: zk_data::REASSIGN_PARTITIONS.into(), data: zk_data::encode_reassignment(&moves), version: -1 };
            cx.zkc.fenced(cx.io, &actor, "KafkaZkClient.setOrCreatePartitionReassignment", v, req, |_| ())?;
        }
        Ok(())
    }
}
