//! Topic management (seed 001): `processTopicChange`, `onNewPartitionCreation`
//! and `processPartitionModifications` (partitions added to a topic).

use super::context::{PartitionState, ReplicaState};
use super::election::Strategy;
use super::{CResult, ControllerError, Cx, KafkaController};
use crate::kafka::kafka_zk_client as kzk;
use crate::kafka::zk_data;
use crate::kafka::zookeeper_client::NodeHandler;
use crate::scenario::{Topic, TopicPartition};
use crate::trace::Detail;
use std::collections::BTreeSet;

impl KafkaController {
    /// `processTopicChange`: new topics get handlers and their partitions
    /// are created; vanished topics are forgotten.
    pub(super) fn process_topic_change(&mut self, cx: &mut Cx) -> CResult<()> {
        if !self.is_active() {
            return Ok(());
        }
        let actor = self.actor();
        let topics: BTreeSet<String> = kzk::get_all_topics(cx.zkc, cx.io, &actor).map_err(ControllerError::Zk)?.into_iter().collect();
        let new: Vec<String> = topics.difference(&self.ctx.all_topics).cloned().collect();
        let gone: Vec<String> = self.ctx.all_topics.difference(&topics).cloned().collect();
        self.ctx.all_topics = topics;
        for t in &new {
            cx.zkc.register_node_handler(&zk_data::topic_path(t), NodeHandler::PartitionModifications(t.clone()));
        }
        for t in &gone {
            self.ctx.remove_topic(t);
        }
        let assignments = kzk::get_replica_assignment(cx.zkc, cx.io, &actor, &new).map_err(ControllerError::Zk)?;
        // Sized once for all the new topics, not grown topic by topic.
        let mut partitions = Vec::with_capacity(assignments.values().map(|a| a.len()).sum());
        for (t, a) in assignments {
            let topic = Topic::new(&t);
            partitions.extend(a.keys().map(|p| TopicPartition { topic: topic.clone(), partition: *p }));
            self.ctx.set_topic_assignment(&t, a);
        }
        let (new_list, gone_list) = (crate::kafka::show(&new), crate::kafka::show(&gone));
        self.step(
            cx,
            "KafkaController.processTopicChange",
            format!("new topics {new_list}, deleted topics {gone_list}: {} new partitions", partitions.len()),
            Detail::new().with("new", &new).with("deleted", &gone).with("partitions", &partitions.len()),
        );
        if !partitions.is_empty() {
            self.on_new_partition_creation(cx, &partitions)?;
        }
        Ok(())
    }

    /// `onNewPartitionCreation`: New, then NewReplica, then Online (initial
    /// leader and ISR), then OnlineReplica.
    pub(crate) fn on_new_partition_creation(&mut self, cx: &mut Cx, partitions: &[TopicPartition]) -> CResult<()> {
        // At its size: the replicas of 100,000 partitions grown by doubling
        // were copied a dozen times.
        let mut replicas = Vec::with_capacity(partitions.iter().map(|tp| self.ctx.assignment(tp).map_or(0, |a| a.replicas.len())).sum());
        replicas.extend(partitions.iter().flat_map(|tp| self.ctx.replicas(tp).into_iter().map(move |r| (tp.clone(), r))));
        self.step(
            cx,
            "KafkaController.onNewPartitionCreation",
            format!("{} new partitions: → NewPartition, replicas → NewReplica, → OnlinePartition (first live replica leads), replicas → OnlineReplica", partitions.len()),
            Detail::new().with("partitions", &partitions.iter().take(50).map(|tp| tp.to_string()).collect::<Vec<_>>()),
        );
        self.partition_state_changes(cx, partitions, PartitionState::NewPartition, None)?;
        self.replica_state_changes(cx, &replicas, ReplicaState::NewReplica)?;
        self.partition_state_changes(cx, partitions, PartitionState::OnlinePartition, Some(Strategy::Offline { allow_unclean: false }))?;
        self.replica_state_changes(cx, &replicas, ReplicaState::OnlineReplica)
    }

    /// `processPartitionModifications`: partitions added to an existing topic.
    pub(super) fn process_partition_modifications(&mut self, cx: &mut Cx, topic: &str) -> CResult<()> {
        if !self.is_active() {
            return Ok(());
        }
        let actor = self.actor();
        let a = kzk::get_replica_assignment(cx.zkc, cx.io, &actor, &[topic.to_string()]).map_err(ControllerError::Zk)?;
        let Some(full) = a.get(topic).cloned() else { return Ok(()) };
        let known = self.ctx.topic_assignment(topic);
        let added: Vec<TopicPartition> =
            full.keys().filter(|p| !known.contains_key(p)).map(|p| TopicPartition { topic: topic.into(), partition: *p }).collect();
        if added.is_empty() {
            return Ok(());
        }
        if self.ctx.is_topic_queued_for_deletion(topic) {
            self.step(
                cx,
                "KafkaController.processPartitionModifications",
                format!("{topic} is being deleted: the added partitions are ignored"),
                Detail::new(),
            );
            return Ok(());
        }
        for tp in &added {
            if let Some(r) = full.get(&tp.partition) {
                self.ctx.assignments.insert(tp.clone(), r.clone());
            }
        }
        self.step(
            cx,
            "KafkaController.processPartitionModifications",
            format!("{topic}: new partitions {:?}", added.iter().map(|tp| tp.partition).collect::<Vec<_>>()),
            Detail::new(),
        );
        self.on_new_partition_creation(cx, &added)
    }
}
