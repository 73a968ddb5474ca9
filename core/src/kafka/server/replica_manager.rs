//! `ReplicaManager`: the partitions a broker hosts, as leader or follower,
//! with the leader epoch and zkVersion the controller last sent.
//! `becomeLeaderOrFollower` and `stopReplicas` apply the controller's
//! requests with Kafka's epoch fencing.

use crate::kafka::messages::{Errors, LeaderAndIsrPartitionState, StopReplicaPartitionState};
use crate::kafka::zk_data::LEADER_DURING_DELETE;
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Leader,
    Follower,
}

/// A partition this broker hosts (`Partition` + its `Log`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostedPartition {
    pub role: Role,
    pub leader: BrokerId,
    pub leader_epoch: i32,
    pub zk_version: i32,
    pub controller_epoch: i32,
    pub replicas: Vec<BrokerId>,
    /// The ISR as this broker knows it (the leader maintains it).
    pub isr: Vec<BrokerId>,
    pub log_dir: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplicaManager {
    pub controller_epoch: i32,
    pub partitions: BTreeMap<TopicPartition, HostedPartition>,
    /// Partitions in a failed log dir (`HostedPartition.Offline`).
    pub offline: BTreeSet<TopicPartition>,
    pub log_dirs: Vec<bool>,
    /// Whether the first LeaderAndIsr has arrived (starts the HW checkpoints).
    pub received_leader_and_isr: bool,
}

/// What `becomeLeaderOrFollower` did, for the trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeaderAndIsrOutcome {
    pub error: Option<Errors>,
    pub partition_errors: BTreeMap<TopicPartition, Errors>,
    pub became_leader: Vec<TopicPartition>,
    pub became_follower: Vec<TopicPartition>,
    pub first: bool,
}

impl ReplicaManager {
    pub fn new(log_dirs: u32) -> ReplicaManager {
        ReplicaManager { log_dirs: vec![true; log_dirs as usize], ..ReplicaManager::default() }
    }

    /// LogManager's rule: the online dir with the fewest partitions, ties in
    /// dir order.
    pub fn choose_log_dir(&self) -> Option<u32> {
        let mut counts = vec![0usize; self.log_dirs.len()];
        for p in self.partitions.values() {
            if let Some(c) = counts.get_mut(p.log_dir as usize) {
                *c += 1;
            }
        }
        (0..self.log_dirs.len()).filter(|d| self.log_dirs[*d]).min_by_key(|d| counts[*d]).map(|d| d as u32)
    }

    /// `becomeLeaderOrFollower`.
    pub fn become_leader_or_follower(
        &mut self,
        me: BrokerId,
        controller_epoch: i32,
        partitions: &[LeaderAndIsrPartitionState],
    ) -> LeaderAndIsrOutcome {
        let mut out = LeaderAndIsrOutcome::default();
        if controller_epoch < self.controller_epoch {
            out.error = Some(Errors::STALE_CONTROLLER_EPOCH);
            return out;
        }
        self.controller_epoch = controller_epoch;
        out.first = !self.received_leader_and_isr;
        self.received_leader_and_isr = true;
        for p in partitions {
            let tp = p.tp();
            if self.offline.contains(&tp) {
                out.partition_errors.insert(tp, Errors::KAFKA_STORAGE_ERROR);
                continue;
            }
            let current = self.partitions.get(&tp).map(|h| h.leader_epoch).unwrap_or(-1);
            if p.leader_epoch <= current {
                out.partition_errors.insert(tp, Errors::STALE_CONTROLLER_EPOCH);
                continue;
            }
            if !p.replicas.contains(&me) {
                out.partition_errors.insert(tp, Errors::UNKNOWN_TOPIC_OR_PARTITION);
                continue;
            }
            let log_dir = match self.partitions.get(&tp) {
                Some(h) => h.log_dir,
                None => match self.choose_log_dir() {
                    Some(d) => d,
                    None => {
                        out.partition_errors.insert(tp, Errors::KAFKA_STORAGE_ERROR);
                        continue;
                    }
                },
            };
            let role = if p.leader == me { Role::Leader } else { Role::Follower };
            let isr = if role == Role::Leader { p.isr.clone() } else { Vec::new() };
            self.partitions.insert(
                tp.clone(),
                HostedPartition {
                    role,
                    leader: p.leader,
                    leader_epoch: p.leader_epoch,
                    zk_version: p.zk_version,
                    controller_epoch: p.controller_epoch,
                    replicas: p.replicas.clone(),
                    isr,
                    log_dir,
                },
            );
            match role {
                Role::Leader => out.became_leader.push(tp.clone()),
                Role::Follower => out.became_follower.push(tp.clone()),
            }
            out.partition_errors.insert(tp, Errors::NONE);
        }
        out
    }

    /// `stopReplicas`: per partition, stop (and delete) unless the request's
    /// leader epoch is not newer than ours.
    pub fn stop_replicas(
        &mut self,
        controller_epoch: i32,
        partitions: &[StopReplicaPartitionState],
    ) -> (Option<Errors>, BTreeMap<TopicPartition, Errors>) {
        if controller_epoch < self.controller_epoch {
            return (Some(Errors::STALE_CONTROLLER_EPOCH), BTreeMap::new());
        }
        self.controller_epoch = controller_epoch;
        let mut errors = BTreeMap::new();
        for p in partitions {
            let tp = TopicPartition { topic: p.topic.clone(), partition: p.partition };
            if self.offline.contains(&tp) {
                errors.insert(tp, Errors::KAFKA_STORAGE_ERROR);
                continue;
            }
            let current = self.partitions.get(&tp).map(|h| h.leader_epoch);
            let stop = match current {
                None => true,
                Some(cur) => p.leader_epoch == LEADER_DURING_DELETE || p.leader_epoch == -1 || p.leader_epoch > cur,
            };
            if !stop {
                errors.insert(tp, Errors::FENCED_LEADER_EPOCH);
                continue;
            }
            if p.delete_partition {
                self.partitions.remove(&tp);
            } else if let Some(h) = self.partitions.get_mut(&tp) {
                // The replica stops fetching; it stays on disk.
                h.role = Role::Follower;
                h.leader = -1;
            }
            errors.insert(tp, Errors::NONE);
        }
        (None, errors)
    }
}
