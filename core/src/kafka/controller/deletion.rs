//! `TopicDeletionManager`: topics marked under `/admin/delete_topics` are
//! deleted replica by replica; a dead replica makes the topic ineligible
//! until its broker returns.

use super::context::{PartitionState, Replica, ReplicaState};
use super::{CResult, ControllerError, Cx, KafkaController};
use crate::kafka::kafka_zk_client as kzk;
use crate::kafka::messages::Errors;
use crate::kafka::zk_data;
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use crate::small_map::SmallSet;
use crate::trace::Detail;
use std::collections::{BTreeMap, BTreeSet};

const SRC: &str = "TopicDeletionManager";

impl KafkaController {
    /// `fetchTopicDeletionsInProgress` + `topicDeletionManager.init`.
    pub(super) fn init_topic_deletion(&mut self, cx: &mut Cx) -> CResult<()> {
        let actor = self.actor();
        let marked: BTreeSet<String> = cx
            .zkc
            .get_children(cx.io, &actor, "KafkaZkClient.getTopicDeletions", zk_data::DELETE_TOPICS)
            .unwrap_or_default()
            .into_iter()
            .collect();
        if !self.config.delete_topic_enable {
            for t in &marked {
                kzk::fenced_delete(
                    cx.zkc,
                    cx.io,
                    &actor,
                    "KafkaZkClient.deleteTopicDeletions",
                    &zk_data::delete_topic_path(t),
                    self.ctx.epoch_zk_version,
                )?;
            }
            return Ok(());
        }
        let marked: BTreeSet<String> = marked.into_iter().filter(|t| self.ctx.all_topics.contains(t)).collect();
        let ineligible: BTreeSet<String> = marked
            .iter()
            .filter(|t| {
                self.ctx.replicas_for_topic(t).iter().any(|(tp, r)| !self.ctx.is_replica_online(*r, tp, false))
                    || self.ctx.partitions_being_reassigned.iter().any(|tp| &tp.topic == *t)
            })
            .cloned()
            .collect();
        self.ctx.topics_to_be_deleted.extend(marked.iter().cloned());
        self.ctx.topics_ineligible_for_deletion.extend(ineligible.iter().cloned());
        let (marked_list, ineligible_list) = (crate::kafka::show(&marked), crate::kafka::show(&ineligible));
        self.step(
            cx,
            "TopicDeletionManager.init",
            format!("topics queued for deletion {marked_list}, ineligible {ineligible_list}"),
            Detail::new().with("queued", &marked).with("ineligible", &ineligible),
        );
        Ok(())
    }

    /// `processTopicDeletion`: the markers under `/admin/delete_topics`.
    pub(super) fn process_topic_deletion(&mut self, cx: &mut Cx) -> CResult<()> {
        if !self.is_active() {
            return Ok(());
        }
        let actor = self.actor();
        let v = self.ctx.epoch_zk_version;
        let marked: BTreeSet<String> = cx
            .zkc
            .get_children(cx.io, &actor, "KafkaZkClient.getTopicDeletions", zk_data::DELETE_TOPICS)
            .map_err(ControllerError::Zk)?
            .into_iter()
            .collect();
        let unknown: Vec<String> = marked.iter().filter(|t| !self.ctx.all_topics.contains(*t)).cloned().collect();
        for t in &unknown {
            kzk::fenced_delete(cx.zkc, cx.io, &actor, "KafkaZkClient.deleteTopicDeletions", &zk_data::delete_topic_path(t), v)?;
        }
        let to_delete: BTreeSet<String> = marked.into_iter().filter(|t| self.ctx.all_topics.contains(t)).collect();
        let to_delete_list = crate::kafka::show(&to_delete);
        if !self.config.delete_topic_enable {
            self.step(
                cx,
                "KafkaController.processTopicDeletion",
                format!("delete.topic.enable=false: removing the markers of {to_delete_list} and deleting nothing"),
                Detail::new().with("topics", &to_delete),
            );
            for t in &to_delete {
                kzk::fenced_delete(cx.zkc, cx.io, &actor, "KafkaZkClient.deleteTopicDeletions", &zk_data::delete_topic_path(t), v)?;
            }
            return Ok(());
        }
        let new: BTreeSet<String> = to_delete.difference(&self.ctx.topics_to_be_deleted).cloned().collect();
        if new.is_empty() {
            return Ok(());
        }
        let new_list = crate::kafka::show(&new);
        self.step(
            cx,
            "KafkaController.processTopicDeletion",
            format!("topics marked for deletion: {new_list}"),
            Detail::new().with("topics", &new),
        );
        for t in &new {
            if self.ctx.partitions_being_reassigned.iter().any(|tp| &tp.topic == t) {
                self.ctx.topics_ineligible_for_deletion.insert(t.clone());
            }
        }
        self.ctx.topics_to_be_deleted.extend(new);
        self.resume_deletions(cx)
    }

    /// `resumeDeletionForTopics`: clear ineligibility and try again.
    pub(crate) fn resume_deletion_for_topics(&mut self, cx: &mut Cx, topics: &BTreeSet<String>) -> CResult<()> {
        for t in topics {
            self.ctx.topics_ineligible_for_deletion.remove(t);
        }
        self.resume_deletions(cx)
    }

    /// `failReplicaDeletion`: the replicas are ineligible, and so their topics.
    pub(crate) fn fail_replica_deletion(&mut self, cx: &mut Cx, replicas: &[Replica]) -> CResult<()> {
        let topics: BTreeSet<String> =
            replicas.iter().map(|(tp, _)| tp.topic.to_string()).filter(|t| self.ctx.is_topic_queued_for_deletion(t)).collect();
        if topics.is_empty() {
            return Ok(());
        }
        self.replica_state_changes(cx, replicas, ReplicaState::ReplicaDeletionIneligible)?;
        self.ctx.topics_ineligible_for_deletion.extend(topics.iter().cloned());
        let topics_list = crate::kafka::show(&topics);
        self.step(
            cx,
            "TopicDeletionManager.failReplicaDeletion",
            format!("deletion of {topics_list} halted: replicas could not be deleted (ineligible until their brokers return)"),
            Detail::new().with("topics", &topics),
        );
        self.resume_deletions(cx)
    }

    /// `resumeDeletions`: complete, retry or start each queued topic.
    pub(crate) fn resume_deletions(&mut self, cx: &mut Cx) -> CResult<()> {
        let queued: Vec<String> = self.ctx.topics_to_be_deleted.iter().cloned().collect();
        let mut to_start = Vec::new();
        for t in queued {
            let replicas = self.ctx.replicas_for_topic(&t);
            let state = |r: &Replica| self.ctx.replica_state(r);
            if replicas.iter().all(|r| state(r) == ReplicaState::ReplicaDeletionSuccessful) {
                self.complete_delete_topic(cx, &t)?;
                continue;
            }
            let started = replicas.iter().any(|r| state(r) == ReplicaState::ReplicaDeletionStarted);
            let ineligible: Vec<Replica> =
                replicas.iter().filter(|r| state(r) == ReplicaState::ReplicaDeletionIneligible).cloned().collect();
            if !started && !ineligible.is_empty() && !self.ctx.topics_ineligible_for_deletion.contains(&t) {
                // Retry: ineligible replicas go back to Offline.
                self.replica_state_changes(cx, &ineligible, ReplicaState::OfflineReplica)?;
            }
            let replicas = self.ctx.replicas_for_topic(&t);
            let started = replicas.iter().any(|r| self.ctx.replica_state(r) == ReplicaState::ReplicaDeletionStarted);
            if !started && !self.ctx.topics_ineligible_for_deletion.contains(&t) {
                to_start.push(t);
            }
        }
        if !to_start.is_empty() {
            self.on_topic_deletion(cx, &to_start)?;
        }
        Ok(())
    }

    /// `onTopicDeletion`: partitions Offline → NonExistent, UpdateMetadata
    /// with leader −2, then delete the replicas.
    fn on_topic_deletion(&mut self, cx: &mut Cx, topics: &[String]) -> CResult<()> {
        let fresh: Vec<String> = topics.iter().filter(|t| !self.ctx.topics_with_deletion_started.contains(*t)).cloned().collect();
        let partitions: Vec<TopicPartition> = fresh.iter().flat_map(|t| self.ctx.partitions_for_topic(t)).collect();
        let topics_list = crate::kafka::show(topics);
        self.step(
            cx,
            "TopicDeletionManager.onTopicDeletion",
            format!("deleting topics {topics_list}"),
            Detail::new().with("topics", &topics),
        );
        self.partition_state_changes(cx, &partitions, PartitionState::OfflinePartition, None)?;
        self.partition_state_changes(cx, &partitions, PartitionState::NonExistentPartition, None)?;
        self.ctx.topics_with_deletion_started.extend(fresh);
        let all_partitions: Vec<TopicPartition> = topics.iter().flat_map(|t| self.ctx.partitions_for_topic(t)).collect();
        let live: Vec<BrokerId> = self.ctx.live_or_shutting_down().into_iter().collect();
        self.send_update_metadata(cx, &live, &all_partitions);
        let replicas: Vec<Replica> = topics.iter().flat_map(|t| self.ctx.replicas_for_topic(t)).collect();
        self.on_partition_deletion(cx, &replicas)
    }

    /// `onPartitionDeletion`: dead replicas → Ineligible; live ones →
    /// Offline → ReplicaDeletionStarted (StopReplica with delete).
    fn on_partition_deletion(&mut self, cx: &mut Cx, replicas: &[Replica]) -> CResult<()> {
        let (dead, alive): (Vec<Replica>, Vec<Replica>) =
            replicas.iter().cloned().partition(|(tp, r)| !self.ctx.is_replica_online(*r, tp, false));
        let alive: Vec<Replica> =
            alive.into_iter().filter(|r| self.ctx.replica_state(r) != ReplicaState::ReplicaDeletionSuccessful).collect();
        self.replica_state_changes(cx, &dead, ReplicaState::ReplicaDeletionIneligible)?;
        if !dead.is_empty() {
            let topics: BTreeSet<String> = dead.iter().map(|(tp, _)| tp.topic.to_string()).collect();
            let topics_list = crate::kafka::show(&topics);
            self.step(
                cx,
                SRC,
                format!(
                    "replicas on dead brokers {:?}: topics {topics_list} are ineligible for deletion until they return",
                    dead.iter().map(|(_, b)| *b).collect::<SmallSet<_>>()
                ),
                Detail::new(),
            );
            self.ctx.topics_ineligible_for_deletion.extend(topics);
        }
        self.replica_state_changes(cx, &alive, ReplicaState::OfflineReplica)?;
        self.replica_state_changes(cx, &alive, ReplicaState::ReplicaDeletionStarted)
    }

    /// A StopReplica(delete) response for a topic being deleted.
    pub(super) fn process_topic_deletion_stop_replica_response(
        &mut self,
        cx: &mut Cx,
        replica: BrokerId,
        errors: BTreeMap<TopicPartition, Errors>,
    ) -> CResult<()> {
        if !self.is_active() {
            return Ok(());
        }
        let (failed, ok): (Vec<_>, Vec<_>) = errors.into_iter().partition(|(_, e)| *e != Errors::NONE);
        let failed: Vec<Replica> = failed.into_iter().map(|(tp, _)| (tp, replica)).collect();
        let ok: Vec<Replica> = ok.into_iter().map(|(tp, _)| (tp, replica)).collect();
        if !failed.is_empty() {
            self.fail_replica_deletion(cx, &failed)?;
        }
        if !ok.is_empty() {
            self.replica_state_changes(cx, &ok, ReplicaState::ReplicaDeletionSuccessful)?;
            self.resume_deletions(cx)?;
        }
        Ok(())
    }

    /// `completeDeleteTopic`: the znodes go (fenced), and the context forgets.
    fn complete_delete_topic(&mut self, cx: &mut Cx, topic: &str) -> CResult<()> {
        let actor = self.actor();
        let v = self.ctx.epoch_zk_version;
        cx.zkc.unregister_node_handler(&zk_data::topic_path(topic));
        let replicas = self.ctx.replicas_for_topic(topic);
        self.replica_state_changes(cx, &replicas, ReplicaState::NonExistentReplica)?;
        kzk::fenced_delete_recursive(cx.zkc, cx.io, &actor, "KafkaZkClient.deleteTopicZNode", &zk_data::topic_path(topic), v)?;
        kzk::fenced_delete(cx.zkc, cx.io, &actor, "KafkaZkClient.deleteTopicConfigs", &zk_data::topic_config_path(topic), v)?;
        kzk::fenced_delete(cx.zkc, cx.io, &actor, "KafkaZkClient.deleteTopicDeletions", &zk_data::delete_topic_path(topic), v)?;
        self.ctx.remove_topic(topic);
        self.step(
            cx,
            "TopicDeletionManager.completeDeleteTopic",
            format!("topic {topic} deleted: its znodes are gone"),
            Detail::new().with("topic", &topic),
        );
        Ok(())
    }
}
