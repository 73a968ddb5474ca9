//! `ReplicaStateMachine` (`ZkReplicaStateMachine`): the seven replica states,
//! their valid transitions, and what each transition sends — and
//! `removeReplicasFromIsr`, the controller's ISR shrink when a replica goes
//! offline.

use super::context::{Replica, ReplicaState};
use super::partition_state_machine::DETAIL_LIMIT;
use super::{CResult, ControllerError, Cx, KafkaController};
use crate::kafka::kafka_zk_client as kzk;
use crate::kafka::zk_data::{LeaderIsrAndControllerEpoch, NO_ASSIGNMENT, NO_LEADER};
use crate::kafka::zookeeper_client::WriteError;
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use crate::small_map::SmallMap;
use crate::trace::Detail;
use crate::zookeeper::KeeperError;
use std::collections::BTreeMap;

const SRC: &str = "ReplicaStateMachine.handleStateChanges";

impl KafkaController {
    /// `replicaStateMachine.startup`: mark every replica Online or
    /// ReplicaDeletionIneligible by liveness, then drive them to Online and
    /// Offline (which removes dead replicas from ISRs).
    pub(super) fn replica_state_machine_startup(&mut self, cx: &mut Cx) -> CResult<()> {
        let ctx = &self.ctx;
        // Room for every replica among the online ones, as nearly all are:
        // grown by doubling, a failover's list of 300,000 was a 17 MB block
        // and copies of it at the failover's peak of memory.
        let replicas = ctx.assignments.values().map(|a| a.replicas.len()).sum();
        let (mut online, mut offline) = (Vec::with_capacity(replicas), Vec::new());
        for (tp, a) in ctx.assignments.iter() {
            for &r in &a.replicas {
                let replica = (tp.clone(), r);
                if ctx.is_replica_online(r, tp, false) {
                    online.push(replica);
                } else {
                    offline.push(replica);
                }
            }
        }
        for (tp, r) in &online {
            self.ctx.replica_states.replace(tp, *r, ReplicaState::OnlineReplica);
        }
        for (tp, r) in &offline {
            self.ctx.replica_states.replace(tp, *r, ReplicaState::ReplicaDeletionIneligible);
        }
        self.step(
            cx,
            "ReplicaStateMachine.startup",
            format!("{} replicas online, {} offline", online.len(), offline.len()),
            Detail::new().with("online", &online.len()).with("offline", &offline.len()),
        );
        self.replica_state_changes(cx, &online, ReplicaState::OnlineReplica)?;
        self.replica_state_changes(cx, &offline, ReplicaState::OfflineReplica)
    }

    /// `handleStateChanges`: grouped by broker, one batch per call.
    pub(crate) fn replica_state_changes(&mut self, cx: &mut Cx, replicas: &[Replica], target: ReplicaState) -> CResult<()> {
        if replicas.is_empty() {
            return Ok(());
        }
        self.batch.clear();
        // Each broker's list made at its size (a failover's lists are each
        // broker's thousands of replicas, which grown by doubling were
        // copied a dozen times).
        let mut counts: SmallMap<BrokerId, usize> = SmallMap::new();
        for (_, b) in replicas {
            *counts.entry(*b).or_default() += 1;
        }
        let mut by_broker: SmallMap<BrokerId, Vec<TopicPartition>> = counts.iter().map(|(b, n)| (*b, Vec::with_capacity(*n))).collect();
        for (tp, b) in replicas {
            by_broker.entry(*b).or_default().push(tp.clone());
        }
        let mut result = Ok(());
        for (b, tps) in by_broker {
            if let Err(e) = self.do_replica_state_changes(cx, b, &tps, target, replicas.len()) {
                result = Err(e);
                break;
            }
        }
        self.send_batch(cx);
        result
    }

    fn do_replica_state_changes(
        &mut self,
        cx: &mut Cx,
        b: BrokerId,
        tps: &[TopicPartition],
        target: ReplicaState,
        total: usize,
    ) -> CResult<()> {
        // The partitions with their states before the change. The states of
        // partitions listed twice (a hostile assignment) are read again when
        // used, as the first change of one changes what the second sees.
        let mut valid = Vec::with_capacity(tps.len());
        let distinct = tps.windows(2).all(|w| w[0] < w[1]);
        for tp in tps {
            let cur = self.ctx.replica_state_of(tp, b);
            if target.valid_previous().contains(&cur) {
                valid.push((tp.clone(), cur));
            } else {
                self.step(
                    cx,
                    SRC,
                    format!("replica {b} of {tp}: invalid transition {} → {}; skipped", cur.name(), target.name()),
                    Detail::new()
                        .with("partition", &tp.to_string())
                        .with("replica", &b)
                        .with("from", &cur.name())
                        .with("to", &target.name()),
                );
            }
        }
        let valid_states = valid;
        // The partitions alone, for the transitions that need no earlier state.
        let partitions = || -> Vec<TopicPartition> { valid_states.iter().map(|(tp, _)| tp.clone()).collect() };
        match target {
            ReplicaState::NewReplica => {
                for tp in &partitions() {
                    if let Some(l) = self.ctx.leadership.get(tp) {
                        if l.leader == b {
                            self.step(cx, SRC, format!("replica {b} of {tp} cannot become NewReplica: it is the leader"), Detail::new());
                            continue;
                        }
                        let a = self.ctx.assignment(tp).unwrap_or(&NO_ASSIGNMENT);
                        self.batch.add_leader_and_isr_of(&self.ctx, l, &[b], tp, a, true);
                    }
                    self.mark_replica(cx, tp, b, target, total);
                }
            }
            ReplicaState::OnlineReplica => {
                // Room for a LeaderAndIsr state per partition (a failover's
                // startup sends one for every replica of the broker).
                self.batch.reserve_leader_and_isr(b, valid_states.len());
                for (tp, before) in &valid_states {
                    let cur = if distinct { *before } else { self.ctx.replica_state_of(tp, b) };
                    if cur == ReplicaState::NewReplica {
                        if let Some(a) = self.ctx.assignment_mut(tp) {
                            if !a.replicas.contains(&b) {
                                a.replicas.push(b);
                            }
                        }
                    } else if let Some(l) = self.ctx.leadership.get(tp) {
                        let a = self.ctx.assignment(tp).unwrap_or(&NO_ASSIGNMENT);
                        self.batch.add_leader_and_isr_of(&self.ctx, l, &[b], tp, a, false);
                    }
                    self.mark_replica(cx, tp, b, target, total);
                }
            }
            ReplicaState::OfflineReplica => {
                let valid = partitions();
                for tp in &valid {
                    self.batch.add_stop_replica(&self.ctx, &[b], tp, false);
                }
                let (with, without): (Vec<_>, Vec<_>) = valid.iter().cloned().partition(|tp| self.ctx.leadership.contains_key(tp));
                let updated = self.remove_replicas_from_isr(cx, b, &with)?;
                for (tp, _) in updated {
                    if !self.ctx.is_topic_queued_for_deletion(&tp.topic) {
                        let a = self.ctx.assignment(&tp).cloned().unwrap_or_default();
                        let recipients: Vec<_> = a.replicas.iter().copied().filter(|r| *r != b).collect();
                        self.batch.add_leader_and_isr(&self.ctx, &recipients, &tp, &a, false);
                    }
                    self.mark_replica(cx, &tp, b, target, total);
                }
                for tp in without {
                    let all: Vec<_> = self.ctx.live_or_shutting_down().into_iter().collect();
                    self.batch.add_update_metadata(&all, std::slice::from_ref(&tp));
                    self.mark_replica(cx, &tp, b, target, total);
                }
            }
            ReplicaState::ReplicaDeletionStarted => {
                for tp in &partitions() {
                    self.batch.add_stop_replica(&self.ctx, &[b], tp, true);
                    self.mark_replica(cx, tp, b, target, total);
                }
            }
            ReplicaState::ReplicaDeletionIneligible | ReplicaState::ReplicaDeletionSuccessful => {
                for tp in &partitions() {
                    self.mark_replica(cx, tp, b, target, total);
                }
            }
            ReplicaState::NonExistentReplica => {
                for tp in &partitions() {
                    if let Some(a) = self.ctx.assignment_mut(tp) {
                        a.replicas.retain(|r| *r != b);
                        a.adding.retain(|r| *r != b);
                        a.removing.retain(|r| *r != b);
                    }
                    self.mark_replica(cx, tp, b, target, total);
                    self.ctx.replica_states.remove(&(tp.clone(), b));
                }
            }
        }
        Ok(())
    }

    fn mark_replica(&mut self, cx: &mut Cx, tp: &TopicPartition, b: BrokerId, to: ReplicaState, total: usize) {
        // One look-up (a failover marks every replica).
        let from = self.ctx.replica_states.replace(tp, b, to).unwrap_or(ReplicaState::NonExistentReplica);
        if total <= DETAIL_LIMIT {
            self.step(
                cx,
                SRC,
                format!("replica {b} of {tp}: {} → {}", from.name(), to.name()),
                Detail::new().with("partition", &tp.to_string()).with("replica", &b).with("from", &from.name()).with("to", &to.name()),
            );
        }
    }

    /// `removeReplicasFromIsr`: for partitions whose ISR holds the replica,
    /// write leader (−1 if it was the replica), the ISR without it (unless it
    /// is the last member) and leader epoch + 1, retrying on BadVersion.
    /// Returns every partition's resulting leadership.
    pub(crate) fn remove_replicas_from_isr(
        &mut self,
        cx: &mut Cx,
        replica: BrokerId,
        partitions: &[TopicPartition],
    ) -> CResult<BTreeMap<TopicPartition, LeaderIsrAndControllerEpoch>> {
        const REMOVE: &str = "ReplicaStateMachine.doRemoveReplicasFromIsr";
        let actor = self.actor();
        let mut result = BTreeMap::new();
        let mut remaining = partitions.to_vec();
        for _ in 0..16 {
            if remaining.is_empty() {
                break;
            }
            let states = kzk::get_topic_partition_states(cx.zkc, cx.io, &actor, &remaining).map_err(ControllerError::Zk)?;
            let mut retry = Vec::new();
            cx.io.begin_pipeline();
            for tp in &remaining {
                let Some(cur) = states.get(tp) else { continue };
                if cur.controller_epoch > self.ctx.epoch && !cx.zkc.fencing_disabled {
                    continue;
                }
                if !cur.isr.contains(&replica) {
                    result.insert(tp.clone(), cur.clone());
                    continue;
                }
                let leader = if cur.leader == replica { NO_LEADER } else { cur.leader };
                let isr = if cur.isr.len() == 1 { cur.isr.clone() } else { cur.isr.iter().copied().filter(|b| *b != replica).collect() };
                let new = LeaderIsrAndControllerEpoch {
                    leader,
                    leader_epoch: cur.leader_epoch + 1,
                    isr,
                    zk_version: cur.zk_version,
                    controller_epoch: self.ctx.epoch,
                };
                match kzk::update_leader_and_isr(
                    cx.zkc,
                    cx.io,
                    &actor,
                    "KafkaZkClient.updateLeaderAndIsr",
                    tp,
                    &new,
                    self.ctx.epoch_zk_version,
                ) {
                    Ok(v) => {
                        let stored = LeaderIsrAndControllerEpoch { zk_version: v, ..new };
                        if partitions.len() <= DETAIL_LIMIT {
                            self.step(
                                cx,
                                REMOVE,
                                format!(
                                    "{tp}: remove replica {replica} from the ISR → leader {}, ISR {:?}, leader epoch {}, zkVersion {v}{}",
                                    stored.leader,
                                    stored.isr,
                                    stored.leader_epoch,
                                    if cur.isr.len() == 1 { " (the last ISR member stays in the ISR)" } else { "" }
                                ),
                                Detail::new()
                                    .with("partition", &tp.to_string())
                                    .with("replica", &replica)
                                    .with("leader", &stored.leader)
                                    .with("isr", &stored.isr)
                                    .with("leader_epoch", &stored.leader_epoch)
                                    .with("zk_version", &v),
                            );
                        }
                        self.ctx.leadership.insert(tp.clone(), stored.clone());
                        result.insert(tp.clone(), stored);
                    }
                    Err(WriteError::Keeper(KeeperError::BadVersion)) => retry.push(tp.clone()),
                    Err(WriteError::ControllerMoved) => return Err(ControllerError::ControllerMoved),
                    Err(WriteError::Keeper(_)) => {}
                }
            }
            cx.io.end_pipeline();
            remaining = retry;
        }
        Ok(result)
    }
}
