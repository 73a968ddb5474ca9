//! Notifications from the brokers: ISR changes under
//! `/isr_change_notification` (seed 002's other half), log-dir failures under
//! `/log_dir_event_notification` (seed 004), LeaderAndIsr responses carrying
//! KAFKA_STORAGE_ERROR, and a topic's unclean election being enabled.

use super::context::PartitionState;
use super::election::Strategy;
use super::{CResult, ControllerError, Cx, KafkaController};
use crate::kafka::kafka_zk_client as kzk;
use crate::kafka::messages::Errors;
use crate::kafka::zk_data;
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use crate::small_map::SmallSet;
use crate::trace::Detail;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

impl KafkaController {
    /// `processIsrChangeNotification`: re-read the changed partitions' states,
    /// tell every broker, finish reassignments, delete exactly the processed
    /// notifications.
    pub(super) fn process_isr_change_notification(&mut self, cx: &mut Cx) -> CResult<()> {
        if !self.is_active() {
            return Ok(());
        }
        const SRC: &str = "KafkaController.processIsrChangeNotification";
        let actor = self.actor();
        let children = cx
            .zkc
            .get_children(cx.io, &actor, "KafkaZkClient.getAllIsrChangeNotifications", zk_data::ISR_CHANGE_NOTIFICATION)
            .map_err(ControllerError::Zk)?;
        let mut partitions: BTreeSet<TopicPartition> = BTreeSet::new();
        for c in &children {
            if let Ok((data, _)) = cx.zkc.get_data(
                cx.io,
                &actor,
                "KafkaZkClient.getPartitionsFromIsrChangeNotifications",
                &format!("{}/{c}", zk_data::ISR_CHANGE_NOTIFICATION),
            ) {
                partitions.extend(zk_data::decode_partitions(&data).unwrap_or_default());
            }
        }
        let list: Vec<_> = partitions.iter().filter(|tp| self.ctx.assignment(tp).is_some()).cloned().collect();
        self.numbered(
            cx,
            SRC,
            1,
            3,
            format!("{} notifications name partitions {}: re-read their state znodes", children.len(), crate::kafka::show(&list)),
            Detail::new().with("notifications", &children),
        );
        self.update_leader_and_isr_cache(cx, &list)?;
        let live: Vec<BrokerId> = self.ctx.live_or_shutting_down().into_iter().collect();
        self.numbered(cx, SRC, 2, 3, format!("UpdateMetadata for them to every broker {live:?}"), Detail::new());
        self.send_update_metadata(cx, &live, &list);
        for tp in list.iter().filter(|tp| self.ctx.partitions_being_reassigned.contains(*tp)).cloned().collect::<Vec<_>>() {
            self.maybe_complete_reassignment(cx, &tp)?;
        }
        self.numbered(cx, SRC, 3, 3, format!("delete the {} processed notifications", children.len()), Detail::new());
        for c in &children {
            kzk::fenced_delete(
                cx.zkc,
                cx.io,
                &actor,
                "KafkaZkClient.deleteIsrChangeNotifications",
                &format!("{}/{c}", zk_data::ISR_CHANGE_NOTIFICATION),
                self.ctx.epoch_zk_version,
            )?;
        }
        Ok(())
    }

    /// `processLogDirEventNotification`: every replica on the notifying
    /// brokers → OnlineReplica (LeaderAndIsr to each; the broker answers
    /// KAFKA_STORAGE_ERROR for those in a failed dir), then delete the
    /// notifications.
    pub(super) fn process_log_dir_event_notification(&mut self, cx: &mut Cx) -> CResult<()> {
        if !self.is_active() {
            return Ok(());
        }
        const SRC: &str = "KafkaController.processLogDirEventNotification";
        let actor = self.actor();
        let children = cx
            .zkc
            .get_children(cx.io, &actor, "KafkaZkClient.getAllLogDirEventNotifications", zk_data::LOG_DIR_EVENT_NOTIFICATION)
            .map_err(ControllerError::Zk)?;
        let mut brokers = SmallSet::new();
        for c in &children {
            if let Ok((data, _)) = cx.zkc.get_data(
                cx.io,
                &actor,
                "KafkaZkClient.getBrokerIdsFromLogDirEvents",
                &format!("{}/{c}", zk_data::LOG_DIR_EVENT_NOTIFICATION),
            ) {
                if let Some(b) = serde_json::from_slice::<Value>(&data).ok().and_then(|v| v.get("broker")?.as_i64()) {
                    brokers.insert(b as BrokerId);
                }
            }
        }
        let replicas = self.ctx.replicas_on_brokers(&brokers);
        self.numbered(
            cx,
            SRC,
            1,
            2,
            format!(
                "brokers {brokers:?} reported a failed log dir: onBrokerLogDirFailure sends LeaderAndIsr for their {} replicas",
                replicas.len()
            ),
            Detail::new().with("brokers", &brokers),
        );
        self.replica_state_changes(cx, &replicas, super::context::ReplicaState::OnlineReplica)?;
        self.numbered(cx, SRC, 2, 2, format!("delete the {} processed notifications", children.len()), Detail::new());
        for c in &children {
            kzk::fenced_delete(
                cx.zkc,
                cx.io,
                &actor,
                "KafkaZkClient.deleteLogDirEventNotifications",
                &format!("{}/{c}", zk_data::LOG_DIR_EVENT_NOTIFICATION),
                self.ctx.epoch_zk_version,
            )?;
        }
        Ok(())
    }

    /// `processLeaderAndIsrResponseReceived`: replicas answered
    /// KAFKA_STORAGE_ERROR are on an offline dir — take them offline.
    pub(super) fn process_leader_and_isr_response(
        &mut self,
        cx: &mut Cx,
        broker: BrokerId,
        error: Errors,
        partition_errors: BTreeMap<TopicPartition, Errors>,
    ) -> CResult<()> {
        const SRC: &str = "KafkaController.processLeaderAndIsrResponseReceived";
        if !self.is_active() {
            return Ok(());
        }
        if error != Errors::NONE {
            self.step(
                cx,
                SRC,
                format!("LeaderAndIsr response from broker {broker}: {error:?}"),
                Detail::new().with("broker", &broker).with("error", &error),
            );
            return Ok(());
        }
        let storage: BTreeSet<TopicPartition> =
            partition_errors.iter().filter(|(_, e)| **e == Errors::KAFKA_STORAGE_ERROR).map(|(tp, _)| tp.clone()).collect();
        let previous = self.ctx.replicas_on_offline_dirs.get(&broker).cloned().unwrap_or_default();
        // Answered without error, a replica is no longer on an offline dir
        // (none was, mostly: no need then to collect the thousands answered).
        let current: BTreeSet<TopicPartition> = if previous.is_empty() {
            storage
        } else {
            previous.iter().filter(|tp| partition_errors.get(*tp) != Some(&Errors::NONE)).cloned().chain(storage).collect()
        };
        let newly: Vec<TopicPartition> = current.difference(&previous).cloned().collect();
        self.ctx.replicas_on_offline_dirs.insert(broker, current);
        // Thousands of partitions answered with an error after a failover
        // (their leader epoch was not newer): listed only if read.
        self.step_with(cx, SRC, || {
            let errors = crate::kafka::errors_by_name(&partition_errors);
            (
                if newly.is_empty() {
                    format!(
                        "LeaderAndIsr response from broker {broker}: {} partitions, errors {}",
                        partition_errors.len(),
                        crate::kafka::show_errors(&errors)
                    )
                } else {
                    format!("broker {broker} answered KAFKA_STORAGE_ERROR for {}: those replicas are offline", crate::kafka::show(&newly))
                },
                Detail::new().with("broker", &broker).with("errors", &errors),
            )
        });
        if !newly.is_empty() {
            let replicas: Vec<_> = newly.into_iter().map(|tp| (tp, broker)).collect();
            self.on_replicas_become_offline(cx, &replicas)?;
        }
        Ok(())
    }

    /// `processTopicUncleanLeaderElectionEnable`: try the topic's offline
    /// partitions again, now that unclean election is allowed.
    pub(super) fn process_topic_unclean_leader_election_enable(&mut self, cx: &mut Cx, topic: &str) -> CResult<()> {
        if !self.is_active() {
            return Ok(());
        }
        let offline: Vec<_> = self
            .ctx
            .partitions_for_topic(topic)
            .into_iter()
            .filter(|tp| self.ctx.partition_state(tp) == PartitionState::OfflinePartition)
            .collect();
        self.step(
            cx,
            "KafkaController.processTopicUncleanLeaderElectionEnable",
            format!("{topic}: unclean leader election enabled; retry {} offline partitions", offline.len()),
            Detail::new(),
        );
        self.partition_state_changes(cx, &offline, PartitionState::OnlinePartition, Some(Strategy::Offline { allow_unclean: false }))
    }
}
