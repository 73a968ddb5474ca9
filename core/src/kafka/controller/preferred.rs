//! Preferred leader election: through `/admin/preferred_replica_election`
//! (`processReplicaLeaderElection` → `onReplicaElection`) and the periodic
//! `auto-leader-rebalance-task` (`checkAndTriggerAutoLeaderRebalance`).

use super::context::PartitionState;
use super::election::Strategy;
use super::event::ElectionTrigger;
use super::{CResult, Cx, KafkaController};
use crate::kafka::kafka_zk_client as kzk;
use crate::kafka::zk_data;
use crate::kafka::zookeeper_client::NodeHandler;
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use crate::small_map::SmallMap;
use crate::trace::Detail;
use serde_json::Value;
use std::collections::BTreeSet;

impl KafkaController {
    /// `processReplicaLeaderElection` for the ZooKeeper trigger.
    pub(super) fn process_replica_leader_election(
        &mut self,
        cx: &mut Cx,
        partitions: Option<BTreeSet<TopicPartition>>,
        trigger: ElectionTrigger,
    ) -> CResult<()> {
        if !self.is_active() {
            return Ok(());
        }
        let actor = self.actor();
        let partitions = match partitions {
            Some(p) => p,
            None => {
                cx.zkc.register_node_handler(zk_data::PREFERRED_REPLICA_ELECTION, NodeHandler::PreferredReplicaElection);
                match cx.zkc.get_data(cx.io, &actor, "KafkaZkClient.getPreferredReplicaElection", zk_data::PREFERRED_REPLICA_ELECTION) {
                    Ok((data, _)) => zk_data::decode_partitions(&data).unwrap_or_default().into_iter().collect(),
                    Err(_) => return Ok(()),
                }
            }
        };
        let (known, unknown): (BTreeSet<_>, BTreeSet<_>) = partitions.into_iter().partition(|tp| self.ctx.assignment(tp).is_some());
        let (deleting, eligible): (BTreeSet<_>, BTreeSet<_>) =
            known.into_iter().partition(|tp| self.ctx.is_topic_queued_for_deletion(&tp.topic));
        let (needed, not_needed): (BTreeSet<_>, BTreeSet<_>) = eligible.into_iter().partition(|tp| {
            let head = self.ctx.assignment(tp).and_then(|a| a.replicas.first().copied());
            self.ctx.leadership.get(tp).map(|l| Some(l.leader) != head).unwrap_or(false)
        });
        self.step(
            cx,
            "KafkaController.processReplicaLeaderElection",
            format!("preferred election: {} to elect, {} already led by their preferred replica (ELECTION_NOT_NEEDED), {} unknown, {} being deleted", needed.len(), not_needed.len(), unknown.len(), deleting.len()),
            Detail::new().with("elect", &needed.iter().map(|t| t.to_string()).collect::<Vec<_>>()).with("not_needed", &not_needed.len()).with("unknown", &unknown.len()),
        );
        self.on_replica_election(cx, needed, Strategy::Preferred, trigger)
    }

    /// `onReplicaElection`; for a ZooKeeper trigger the znode is deleted
    /// afterwards (fenced) and its watch re-armed.
    pub(crate) fn on_replica_election(
        &mut self,
        cx: &mut Cx,
        partitions: BTreeSet<TopicPartition>,
        strategy: Strategy,
        trigger: ElectionTrigger,
    ) -> CResult<()> {
        let list: Vec<_> = partitions.into_iter().collect();
        self.partition_state_changes(cx, &list, PartitionState::OnlinePartition, Some(strategy))?;
        if trigger == ElectionTrigger::ZkTriggered {
            let actor = self.actor();
            if cx.zkc.exists(cx.io, &actor, "KafkaZkClient.pathExists", zk_data::PREFERRED_REPLICA_ELECTION).ok().flatten().is_some() {
                kzk::fenced_delete(
                    cx.zkc,
                    cx.io,
                    &actor,
                    "KafkaZkClient.deletePreferredReplicaElection",
                    zk_data::PREFERRED_REPLICA_ELECTION,
                    self.ctx.epoch_zk_version,
                )?;
            }
            let _ = cx.zkc.register_node_handler_and_check_existence(
                cx.io,
                &actor,
                zk_data::PREFERRED_REPLICA_ELECTION,
                NodeHandler::PreferredReplicaElection,
            );
        }
        Ok(())
    }

    /// `processAutoPreferredReplicaLeaderElection`: for each broker, if more
    /// than leader.imbalance.per.broker.percentage of the partitions it
    /// prefers are led elsewhere, elect it where it can lead; then reschedule.
    pub(super) fn process_auto_preferred_replica_leader_election(&mut self, cx: &mut Cx) -> CResult<()> {
        if !self.is_active() {
            return Ok(());
        }
        let mut by_preferred: SmallMap<BrokerId, Vec<TopicPartition>> = SmallMap::new();
        for tp in self.ctx.all_partitions() {
            if self.ctx.is_topic_queued_for_deletion(&tp.topic) {
                continue;
            }
            if let Some(&head) = self.ctx.assignment(&tp).and_then(|a| a.replicas.first()) {
                by_preferred.entry(head).or_default().push(tp);
            }
        }
        let threshold = self.config.leader_imbalance_per_broker_percentage as f64 / 100.0;
        let mut to_elect = BTreeSet::new();
        let mut ratios = serde_json::Map::new();
        for (b, tps) in &by_preferred {
            let imbalanced: Vec<&TopicPartition> =
                tps.iter().filter(|tp| self.ctx.leadership.get(tp).map(|l| l.leader != *b).unwrap_or(false)).collect();
            let ratio = imbalanced.len() as f64 / tps.len() as f64;
            ratios.insert(b.to_string(), Value::from(ratio));
            if ratio > threshold && self.ctx.partitions_being_reassigned.is_empty() {
                for tp in imbalanced {
                    let can_lead = self.ctx.is_replica_online(*b, tp, false)
                        && self.ctx.leadership.get(tp).map(|l| l.isr.contains(b)).unwrap_or(false);
                    if can_lead {
                        to_elect.insert(tp.clone());
                    }
                }
            }
        }
        self.step(
            cx,
            "KafkaController.checkAndTriggerAutoLeaderRebalance",
            format!(
                "imbalance ratios per preferred broker {{{}}} (threshold {threshold}); electing preferred leaders for {} partitions",
                by_preferred_ratios(&ratios),
                to_elect.len()
            ),
            Detail::new()
                .with("ratios", &ratios)
                .with("threshold", &threshold)
                .with("elect", &to_elect.iter().map(|t| t.to_string()).collect::<Vec<_>>()),
        );
        if !to_elect.is_empty() {
            self.on_replica_election(cx, to_elect, Strategy::Preferred, ElectionTrigger::AutoTriggered)?;
        }
        let interval = self.config.leader_imbalance_check_interval_seconds * 1000;
        self.schedule_auto_leader_rebalance(cx, interval);
        Ok(())
    }
}

/// The ratios as a learner reads them: `0: 0.50, 1: 0.00` (broker: ratio).
fn by_preferred_ratios(ratios: &serde_json::Map<String, Value>) -> String {
    ratios.iter().map(|(b, r)| format!("{b}: {:.2}", r.as_f64().unwrap_or_default())).collect::<Vec<_>>().join(", ")
}
