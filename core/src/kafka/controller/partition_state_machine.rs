//! `PartitionStateMachine` (`ZkPartitionStateMachine`): NewPartition,
//! OnlinePartition, OfflinePartition, NonExistentPartition, the valid
//! transitions between them, and leader election on the way to Online.

use super::context::PartitionState;
use super::election::{self, Strategy};
use super::{CResult, ControllerError, Cx, KafkaController};
use crate::kafka::broker_ids::BrokerIds;
use crate::kafka::kafka_zk_client as kzk;
use crate::kafka::zk_data::{self, LeaderIsrAndControllerEpoch, ReplicaAssignment};
use crate::kafka::zookeeper_client::WriteError;
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use crate::small_map::SmallMap;
use crate::trace::Detail;
use crate::zookeeper::KeeperError;
use serde_json::Value;

const SRC: &str = "PartitionStateMachine.handleStateChanges";
/// Above this many partitions in one change, per-partition steps are summarised.
pub(crate) const DETAIL_LIMIT: usize = 16;

impl KafkaController {
    /// `partitionStateMachine.startup`: Online where the leader is live,
    /// Offline where not, New without a leader; then elect where needed.
    pub(super) fn partition_state_machine_startup(&mut self, cx: &mut Cx) -> CResult<()> {
        for tp in self.ctx.all_partitions() {
            let state = match self.ctx.leadership.get(&tp) {
                Some(l) if self.ctx.is_replica_online(l.leader, &tp, false) => PartitionState::OnlinePartition,
                Some(_) => PartitionState::OfflinePartition,
                None => PartitionState::NewPartition,
            };
            self.ctx.partition_states.insert(tp, state);
        }
        let mut counts: SmallMap<&str, usize> = SmallMap::new();
        for s in self.ctx.partition_states.values() {
            *counts.entry(s.name()).or_default() += 1;
        }
        self.step(
            cx,
            "PartitionStateMachine.startup",
            format!("initial partition states: {counts:?}"),
            Detail::new().with("counts", &counts),
        );
        self.trigger_online_partition_state_change(cx)
    }

    /// `handleStateChanges`: one batch of requests per call.
    pub(crate) fn partition_state_changes(
        &mut self,
        cx: &mut Cx,
        partitions: &[TopicPartition],
        target: PartitionState,
        strategy: Option<Strategy>,
    ) -> CResult<()> {
        if partitions.is_empty() {
            return Ok(());
        }
        self.batch.clear();
        let result = self.do_partition_state_changes(cx, partitions, target, strategy);
        self.send_batch(cx);
        result
    }

    fn do_partition_state_changes(
        &mut self,
        cx: &mut Cx,
        partitions: &[TopicPartition],
        target: PartitionState,
        strategy: Option<Strategy>,
    ) -> CResult<()> {
        let mut valid = Vec::new();
        for tp in partitions {
            let cur = self.ctx.partition_state(tp);
            if target.valid_previous().contains(&cur) {
                valid.push(tp.clone());
            } else {
                self.step(
                    cx,
                    SRC,
                    format!("{tp}: invalid transition {} → {}; skipped", cur.name(), target.name()),
                    Detail::new().with("partition", &tp.to_string()).with("from", &cur.name()).with("to", &target.name()),
                );
            }
        }
        match target {
            PartitionState::OnlinePartition => {
                let (new, existing): (Vec<_>, Vec<_>) =
                    valid.into_iter().partition(|tp| self.ctx.partition_state(tp) == PartitionState::NewPartition);
                let initialized = self.initialize_leader_and_isr(cx, &new)?;
                for tp in initialized {
                    self.mark_partition(cx, &tp, PartitionState::OnlinePartition, new.len());
                }
                if !existing.is_empty() {
                    let strategy = strategy.unwrap_or(Strategy::Offline { allow_unclean: false });
                    let elected = self.elect_leader_for_partitions(cx, &existing, strategy)?;
                    for tp in elected {
                        self.mark_partition(cx, &tp, PartitionState::OnlinePartition, existing.len());
                    }
                }
            }
            other => {
                for tp in &valid {
                    self.mark_partition(cx, tp, other, valid.len());
                }
            }
        }
        Ok(())
    }

    fn mark_partition(&mut self, cx: &mut Cx, tp: &TopicPartition, to: PartitionState, batch_size: usize) {
        let from = self.ctx.partition_state(tp);
        self.ctx.partition_states.insert(tp.clone(), to);
        if batch_size <= DETAIL_LIMIT {
            let leader = self
                .ctx
                .leadership
                .get(tp)
                .map(|l| format!(" (leader {}, leader epoch {}, ISR {:?})", l.leader, l.leader_epoch, l.isr))
                .unwrap_or_default();
            self.step(
                cx,
                SRC,
                format!("{tp}: {} → {}{leader}", from.name(), to.name()),
                Detail::new().with("partition", &tp.to_string()).with("from", &from.name()).with("to", &to.name()),
            );
        }
    }

    /// `initializeLeaderAndIsrForPartitions`: the first live replica leads,
    /// every live replica is in the ISR, leader epoch 0; the state znode is
    /// created (fenced) and LeaderAndIsr goes to the ISR with isNew.
    fn initialize_leader_and_isr(&mut self, cx: &mut Cx, partitions: &[TopicPartition]) -> CResult<Vec<TopicPartition>> {
        let actor = self.actor();
        let mut ok = Vec::new();
        cx.io.begin_pipeline();
        let result = self.initialize_each(cx, partitions, &actor, &mut ok);
        cx.io.end_pipeline();
        result.map(|()| ok)
    }

    /// Kafka's order: the partitions without a live replica are reported
    /// first, then the states of the others are created in one batch, then
    /// each created one is cached and its LeaderAndIsr queued.
    fn initialize_each(&mut self, cx: &mut Cx, partitions: &[TopicPartition], actor: &str, ok: &mut Vec<TopicPartition>) -> CResult<()> {
        let mut states = Vec::with_capacity(partitions.len());
        for tp in partitions {
            let replicas = self.ctx.assignment(tp).map(|a| a.replicas.as_slice()).unwrap_or_default();
            let live: BrokerIds = replicas.iter().copied().filter(|r| self.ctx.is_replica_online(*r, tp, false)).collect();
            let Some(&leader) = live.first() else {
                let replicas = replicas.to_vec();
                self.step(
                    cx,
                    "PartitionStateMachine.initializeLeaderAndIsrForPartitions",
                    format!("{tp}: no live replica among {replicas:?}; stays NewPartition"),
                    Detail::new().with("partition", &tp.to_string()),
                );
                continue;
            };
            states.push((tp.clone(), super::failover::initial_leader_and_isr(leader, live, self.ctx.epoch)));
        }
        let results = match kzk::create_topic_partition_states(cx.zkc, cx.io, actor, &states, self.ctx.epoch_zk_version) {
            Ok(results) => results,
            Err(_) => return Err(ControllerError::ControllerMoved),
        };
        // Room for each broker's LeaderAndIsr states at once: a new topic of
        // 100,000 partitions gives each of fifty brokers 6,000, which grown
        // one by one were copied a dozen times into fresh memory.
        let mut per_broker: SmallMap<BrokerId, usize> = SmallMap::new();
        for (_, l) in &states {
            for b in &l.isr {
                *per_broker.entry(*b).or_default() += 1;
            }
        }
        for (b, n) in per_broker {
            self.batch.reserve_leader_and_isr(b, n);
        }
        for ((tp, l), result) in states.into_iter().zip(results) {
            match result {
                Ok(()) => {
                    let none = ReplicaAssignment::default();
                    let assignment = self.ctx.assignment(&tp).unwrap_or(&none);
                    self.batch.add_leader_and_isr_of(&self.ctx, &l, &l.isr, &tp, assignment, true);
                    self.ctx.leadership.insert(tp.clone(), l);
                    ok.push(tp);
                }
                Err(e) => {
                    self.step(
                        cx,
                        "PartitionStateMachine.initializeLeaderAndIsrForPartitions",
                        format!("{tp}: creating the state znode failed ({e}); stays NewPartition"),
                        Detail::new().with("partition", &tp.to_string()).with("error", &e.name()),
                    );
                }
            }
        }
        Ok(())
    }

    /// `electLeaderForPartitions`: elect, retrying partitions whose state
    /// znode changed under us (BadVersion), until none is left.
    pub(crate) fn elect_leader_for_partitions(
        &mut self,
        cx: &mut Cx,
        partitions: &[TopicPartition],
        strategy: Strategy,
    ) -> CResult<Vec<TopicPartition>> {
        let mut remaining = partitions.to_vec();
        let mut elected = Vec::new();
        // ZooKeeper serialises writes, so each round makes progress; bound it anyway.
        for _ in 0..16 {
            if remaining.is_empty() {
                break;
            }
            let (done, retry) = self.do_elect_leader_for_partitions(cx, &remaining, strategy)?;
            elected.extend(done);
            remaining = retry;
        }
        Ok(elected)
    }

    fn do_elect_leader_for_partitions(
        &mut self,
        cx: &mut Cx,
        partitions: &[TopicPartition],
        strategy: Strategy,
    ) -> CResult<(Vec<TopicPartition>, Vec<TopicPartition>)> {
        const ELECT: &str = "PartitionStateMachine.doElectLeaderForPartitions";
        let actor = self.actor();
        let states = kzk::get_topic_partition_states(cx.zkc, cx.io, &actor, partitions).map_err(ControllerError::Zk)?;
        let (mut elected, mut retry) = (Vec::new(), Vec::new());
        let detail = partitions.len() <= DETAIL_LIMIT;
        // Kafka writes all the new states at once (one pipelined batch).
        cx.io.begin_pipeline();
        for tp in partitions {
            let Some(cur) = states.get(tp) else {
                self.step(cx, ELECT, format!("{tp}: no state znode; election failed"), Detail::new().with("partition", &tp.to_string()));
                continue;
            };
            if cur.controller_epoch > self.ctx.epoch && !cx.zkc.fencing_disabled {
                self.step(
                    cx,
                    ELECT,
                    format!("{tp}: the state was written by a newer controller (epoch {}); aborting", cur.controller_epoch),
                    Detail::new().with("partition", &tp.to_string()),
                );
                continue;
            }
            let Some((leader, isr, recipients, unclean)) = self.choose_leader(cx, tp, cur, strategy) else {
                self.step(
                    cx,
                    ELECT,
                    format!(
                        "{tp}: no eligible leader among replicas {:?} with ISR {:?} ({}); the partition stays offline",
                        self.ctx.replicas(tp),
                        cur.isr,
                        strategy.name()
                    ),
                    Detail::new().with("partition", &tp.to_string()).with("strategy", &strategy.name()).with("isr", &cur.isr),
                );
                continue;
            };
            let new = LeaderIsrAndControllerEpoch {
                leader,
                leader_epoch: cur.leader_epoch + 1,
                isr,
                zk_version: cur.zk_version,
                controller_epoch: self.ctx.epoch,
            };
            match kzk::update_leader_and_isr(cx.zkc, cx.io, &actor, "KafkaZkClient.updateLeaderAndIsr", tp, &new, self.ctx.epoch_zk_version)
            {
                Ok(version) => {
                    let stored = LeaderIsrAndControllerEpoch { zk_version: version, ..new };
                    if detail || unclean {
                        self.step(
                            cx,
                            ELECT,
                            format!(
                                "{tp}: {} elects broker {} (leader epoch {} → {}, ISR {:?}, zkVersion {}){}",
                                strategy.name(),
                                stored.leader,
                                cur.leader_epoch,
                                stored.leader_epoch,
                                stored.isr,
                                version,
                                if unclean {
                                    " — UNCLEAN: the new leader was not in the ISR; acknowledged records may be lost"
                                } else {
                                    ""
                                }
                            ),
                            Detail::new()
                                .with("partition", &tp.to_string())
                                .with("strategy", &strategy.name())
                                .with("leader", &stored.leader)
                                .with("leader_epoch", &stored.leader_epoch)
                                .with("isr", &stored.isr)
                                .with("zk_version", &version)
                                .with("unclean", &unclean),
                        );
                    }
                    self.ctx.leadership.insert(tp.clone(), stored);
                    let assignment = self.ctx.assignment(tp).cloned().unwrap_or_default();
                    self.batch.add_leader_and_isr(&self.ctx, &recipients, tp, &assignment, false);
                    elected.push(tp.clone());
                }
                Err(WriteError::Keeper(KeeperError::BadVersion)) => retry.push(tp.clone()),
                Err(WriteError::ControllerMoved) => return Err(ControllerError::ControllerMoved),
                Err(WriteError::Keeper(e)) => self.step(
                    cx,
                    ELECT,
                    format!("{tp}: writing the new leader failed ({e})"),
                    Detail::new().with("partition", &tp.to_string()).with("error", &e.name()),
                ),
            }
        }
        cx.io.end_pipeline();
        if !detail {
            self.step(
                cx,
                ELECT,
                format!("{} of {} partitions elected with {}", elected.len(), partitions.len(), strategy.name()),
                Detail::new().with("elected", &elected.len()).with("partitions", &partitions.len()).with("strategy", &strategy.name()),
            );
        }
        Ok((elected, retry))
    }

    /// The strategy's choice: (leader, new ISR, LeaderAndIsr recipients, unclean?).
    fn choose_leader(
        &mut self,
        cx: &mut Cx,
        tp: &TopicPartition,
        cur: &LeaderIsrAndControllerEpoch,
        strategy: Strategy,
    ) -> Option<(BrokerId, BrokerIds, BrokerIds, bool)> {
        let assignment = self.ctx.assignment(tp).cloned().unwrap_or_default();
        let ctx = &self.ctx;
        let online = |b: BrokerId| ctx.is_replica_online(b, tp, false);
        match strategy {
            Strategy::Offline { allow_unclean } => {
                let live_isr = cur.isr.iter().any(|b| online(*b));
                let unclean_ok = !live_isr && (allow_unclean || self.unclean_enabled_for(cx, &tp.topic));
                let ctx = &self.ctx;
                let online = |b: BrokerId| ctx.is_replica_online(b, tp, false);
                let (leader, unclean) = election::offline_leader(&assignment.replicas, &cur.isr, &online, unclean_ok)?;
                let isr = if unclean { BrokerIds::from([leader]) } else { cur.isr.iter().copied().filter(|b| online(*b)).collect() };
                let recipients = assignment.replicas.iter().copied().filter(|b| online(*b)).collect();
                Some((leader, isr, recipients, unclean))
            }
            Strategy::Reassign => {
                let target = assignment.target_replicas();
                let leader = election::reassign_leader(&target, &cur.isr, &online)?;
                Some((leader, cur.isr.clone(), target, false))
            }
            Strategy::Preferred => {
                let leader = election::preferred_leader(&assignment.replicas, &cur.isr, &online)?;
                Some((leader, cur.isr.clone(), assignment.replicas.clone(), false))
            }
            Strategy::ControlledShutdown => {
                let any = |b: BrokerId| ctx.is_replica_online(b, tp, true);
                let shutting = |b: BrokerId| ctx.shutting_down.contains(&b);
                let leader = election::controlled_shutdown_leader(&assignment.replicas, &cur.isr, &any, &shutting)?;
                let isr = cur.isr.iter().copied().filter(|b| !ctx.shutting_down.contains(b)).collect();
                let recipients = assignment.replicas.iter().copied().filter(|b| any(*b)).collect();
                Some((leader, isr, recipients, false))
            }
        }
    }

    /// The topic's effective `unclean.leader.election.enable`: the broker's
    /// setting overridden by `/config/topics/<topic>`.
    fn unclean_enabled_for(&mut self, cx: &mut Cx, topic: &str) -> bool {
        let actor = self.actor();
        let mut enabled = self.config.unclean_leader_election_enable;
        if let Ok((data, _)) = cx.zkc.get_data(cx.io, &actor, "KafkaZkClient.getEntityConfigs", &zk_data::topic_config_path(topic)) {
            if let Some(v) = serde_json::from_slice::<Value>(&data)
                .ok()
                .and_then(|v| v.get("config")?.get("unclean.leader.election.enable")?.as_str().map(String::from))
            {
                enabled = v.eq_ignore_ascii_case("true");
            }
        }
        enabled
    }
}
