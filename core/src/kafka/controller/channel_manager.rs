//! `ControllerChannelManager` and `ControllerBrokerRequestBatch`: control
//! requests are collected per broker during a state change and sent as one
//! LeaderAndIsr, then one UpdateMetadata, then one StopReplica per broker.
//! Each broker has one send thread that sends a request, waits for its
//! response, then sends the next.

use super::context::ControllerContext;
use crate::kafka::messages::{
    ControlRequest, LeaderAndIsrPartitionState, StopReplicaPartitionState, UpdateMetadataPartitionState, UpdateMetadataPartitions,
};
use crate::kafka::partition_map::PartitionMap;
use crate::kafka::zk_data::{ReplicaAssignment, LEADER_DURING_DELETE};
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

/// One broker's queue: the request on the wire, and those waiting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BrokerQueue {
    /// Bumped when the broker is removed and added again (a bounce), so a
    /// response from the old connection is recognised and dropped.
    pub generation: u64,
    pub in_flight: Option<ControlRequest>,
    pub waiting: VecDeque<ControlRequest>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControllerChannelManager {
    pub brokers: BTreeMap<BrokerId, BrokerQueue>,
    next_generation: u64,
}

impl ControllerChannelManager {
    pub fn add_broker(&mut self, b: BrokerId) {
        if !self.brokers.contains_key(&b) {
            self.next_generation += 1;
            self.brokers.insert(b, BrokerQueue { generation: self.next_generation, ..BrokerQueue::default() });
        }
    }

    /// Drops the broker's queue: requests not yet answered are lost.
    pub fn remove_broker(&mut self, b: BrokerId) {
        self.brokers.remove(&b);
    }

    pub fn shutdown(&mut self) {
        self.brokers.clear();
    }

    /// Queues a request; returns it with its generation if the send thread is
    /// idle and should put it on the wire now.
    pub fn send(&mut self, b: BrokerId, request: ControlRequest) -> Option<(ControlRequest, u64)> {
        let q = self.brokers.get_mut(&b)?;
        if q.in_flight.is_none() {
            q.in_flight = Some(request.clone());
            Some((request, q.generation))
        } else {
            q.waiting.push_back(request);
            None
        }
    }

    /// The response to the request in flight arrived: the next one goes out.
    pub fn completed(&mut self, b: BrokerId, generation: u64) -> Option<(ControlRequest, u64)> {
        let q = self.brokers.get_mut(&b)?;
        if q.generation != generation {
            return None;
        }
        q.in_flight = q.waiting.pop_front();
        q.in_flight.clone().map(|r| (r, q.generation))
    }

    pub fn is_current(&self, b: BrokerId, generation: u64) -> bool {
        self.brokers.get(&b).map(|q| q.generation == generation).unwrap_or(false)
    }

    pub fn queued(&self) -> usize {
        self.brokers.values().map(|q| q.waiting.len() + q.in_flight.iter().count()).sum()
    }
}

/// `ControllerBrokerRequestBatch`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
/// The partitions are kept in [`PartitionMap`]s: a failover adds every
/// replica, one look-up each, and they leave in `TopicPartition` order. A
/// LeaderAndIsr state is boxed so that its broker's list grows by copying
/// pointers, not the states.
pub struct RequestBatch {
    leader_and_isr: BTreeMap<BrokerId, PartitionMap<Box<LeaderAndIsrPartitionState>>>,
    stop_replica: BTreeMap<BrokerId, PartitionMap<StopReplicaPartitionState>>,
    update_metadata_brokers: BTreeSet<BrokerId>,
    update_metadata_partitions: PartitionMap<()>,
    /// The context's `live_brokers_version` when every live broker was last
    /// seen among `update_metadata_brokers`: until the live set changes,
    /// adding them again adds nothing (a failover would otherwise walk the
    /// fifty brokers once per replica, a tenth of its time).
    live_covered: Option<u64>,
}

impl RequestBatch {
    pub fn is_empty(&self) -> bool {
        self.leader_and_isr.is_empty() && self.stop_replica.is_empty() && self.update_metadata_brokers.is_empty()
    }

    pub fn clear(&mut self) {
        *self = RequestBatch::default();
    }

    /// `addLeaderAndIsrRequestForBrokers`: also adds UpdateMetadata for the
    /// partition to every live or shutting-down broker.
    pub fn add_leader_and_isr(
        &mut self,
        ctx: &ControllerContext,
        brokers: &[BrokerId],
        tp: &TopicPartition,
        assignment: &ReplicaAssignment,
        is_new: bool,
    ) {
        let Some(l) = ctx.leadership.get(tp) else { return };
        for &b in brokers.iter().filter(|b| **b >= 0) {
            let state = |already_new: bool| LeaderAndIsrPartitionState {
                topic: tp.topic.clone(),
                partition: tp.partition,
                controller_epoch: l.controller_epoch,
                leader: l.leader,
                leader_epoch: l.leader_epoch,
                isr: l.isr.clone(),
                zk_version: l.zk_version,
                replicas: assignment.replicas.clone(),
                adding_replicas: assignment.adding.clone(),
                removing_replicas: assignment.removing.clone(),
                is_new: is_new || already_new,
            };
            let parts = self.leader_and_isr.entry(b).or_default();
            // One look-up when the partition is already in (it stays new if it was).
            match parts.get_mut(tp) {
                Some(held) => **held = state(held.is_new),
                None => {
                    parts.insert(tp.clone(), Box::new(state(false)));
                }
            }
        }
        self.add_update_metadata_for_live(ctx, tp);
    }

    /// `add_update_metadata` for every live or shutting-down broker. Called
    /// once per replica of a big failover: the recipients are the same each
    /// time, so they are looked at only when the live set has changed since
    /// they last covered it.
    fn add_update_metadata_for_live(&mut self, ctx: &ControllerContext, tp: &TopicPartition) {
        if self.live_covered != Some(ctx.live_brokers_version()) {
            let live = ctx.live_brokers().keys().copied().filter(|b| *b >= 0);
            if !includes_sorted(&self.update_metadata_brokers, live.clone()) {
                self.update_metadata_brokers.extend(live);
            }
            self.live_covered = Some(ctx.live_brokers_version());
        }
        self.update_metadata_partitions.insert(tp.clone(), ());
    }

    /// `addUpdateMetadataRequestForBrokers`. (It only adds recipients, so
    /// the live brokers covered stay covered.)
    pub fn add_update_metadata(&mut self, brokers: &[BrokerId], partitions: &[TopicPartition]) {
        self.update_metadata_brokers.extend(brokers.iter().copied().filter(|b| *b >= 0));
        for tp in partitions {
            self.update_metadata_partitions.insert(tp.clone(), ());
        }
    }

    /// `addStopReplicaRequestForBrokers`.
    pub fn add_stop_replica(&mut self, ctx: &ControllerContext, brokers: &[BrokerId], tp: &TopicPartition, delete: bool) {
        let leader_epoch = if ctx.is_topic_queued_for_deletion(&tp.topic) {
            LEADER_DURING_DELETE
        } else {
            ctx.leadership.get(tp).map(|l| l.leader_epoch).unwrap_or(-1)
        };
        for &b in brokers.iter().filter(|b| **b >= 0) {
            let entry = self.stop_replica.entry(b).or_default();
            let already = entry.get(tp).map(|s| s.delete_partition).unwrap_or(false);
            entry.insert(
                tp.clone(),
                StopReplicaPartitionState {
                    topic: tp.topic.clone(),
                    partition: tp.partition,
                    leader_epoch,
                    delete_partition: delete || already,
                },
            );
        }
    }

    /// `sendRequestsToBrokers`: LeaderAndIsr first, then UpdateMetadata, then
    /// StopReplica, only to live or shutting-down brokers. Returns the
    /// requests per broker, in sending order.
    pub fn build(&mut self, ctx: &ControllerContext, controller_id: BrokerId) -> Vec<(BrokerId, ControlRequest)> {
        let live = ctx.live_or_shutting_down();
        let mut out = Vec::new();
        let batch = std::mem::take(self);
        for (b, parts) in batch.leader_and_isr {
            if let (true, Some(epoch)) = (live.contains(&b), ctx.broker_epoch(b)) {
                let leaders: BTreeSet<BrokerId> = parts.values().map(|p| p.leader).filter(|l| live.contains(l)).collect();
                out.push((
                    b,
                    ControlRequest::LeaderAndIsr {
                        controller_id,
                        controller_epoch: ctx.epoch,
                        broker_epoch: epoch,
                        partitions: Arc::new(sized(parts.len(), parts.into_values().map(|p| *p))),
                        live_leaders: leaders.into_iter().collect(),
                    },
                ));
            }
        }
        let partitions = batch.update_metadata_partitions.keys().filter_map(|tp| update_metadata_state(ctx, tp)).map(Arc::new);
        let partitions = UpdateMetadataPartitions::new(sized(batch.update_metadata_partitions.len(), partitions));
        let live_brokers: Arc<Vec<_>> = Arc::new(ctx.live_brokers().values().map(|(info, _)| info.clone()).collect());
        for b in batch.update_metadata_brokers {
            if let (true, Some(epoch)) = (live.contains(&b), ctx.broker_epoch(b)) {
                out.push((
                    b,
                    ControlRequest::UpdateMetadata {
                        controller_id,
                        controller_epoch: ctx.epoch,
                        broker_epoch: epoch,
                        partitions: partitions.clone(),
                        live_brokers: Arc::clone(&live_brokers),
                    },
                ));
            }
        }
        for (b, parts) in batch.stop_replica {
            if let (true, Some(epoch)) = (live.contains(&b), ctx.broker_epoch(b)) {
                out.push((
                    b,
                    ControlRequest::StopReplica {
                        controller_id,
                        controller_epoch: ctx.epoch,
                        broker_epoch: epoch,
                        partitions: Arc::new(sized(parts.len(), parts.into_values())),
                    },
                ));
            }
        }
        // LeaderAndIsr, then UpdateMetadata, then StopReplica, per broker.
        out.sort_by_key(|(b, r)| {
            (*b, matches!(r, ControlRequest::UpdateMetadata { .. }) as u8 + 2 * matches!(r, ControlRequest::StopReplica { .. }) as u8)
        });
        out
    }
}

/// The partition as UpdateMetadata carries it; partitions of topics being
/// deleted show leader -2 and epoch -2.
fn update_metadata_state(ctx: &ControllerContext, tp: &TopicPartition) -> Option<UpdateMetadataPartitionState> {
    let l = ctx.leadership.get(tp)?;
    let replicas = ctx.replicas(tp);
    let deleting = ctx.is_topic_queued_for_deletion(&tp.topic);
    Some(UpdateMetadataPartitionState {
        topic: tp.topic.clone(),
        partition: tp.partition,
        controller_epoch: l.controller_epoch,
        leader: if deleting { LEADER_DURING_DELETE } else { l.leader },
        leader_epoch: if deleting { LEADER_DURING_DELETE } else { l.leader_epoch },
        isr: l.isr.clone(),
        zk_version: l.zk_version,
        offline_replicas: replicas.iter().copied().filter(|r| !ctx.is_replica_online(*r, tp, true)).collect(),
        replicas,
    })
}

/// The items in a vector made at most `len` long at once: the partition
/// lists of a failover's requests hold hundreds of thousands, and grown by
/// doubling they were copied at every step.
fn sized<T>(len: usize, items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::with_capacity(len);
    out.extend(items);
    out
}

/// Whether `set` holds every id of `ids` (ascending), in one pass over both.
fn includes_sorted(set: &BTreeSet<BrokerId>, ids: impl Iterator<Item = BrokerId>) -> bool {
    let mut held = set.iter().copied().peekable();
    for id in ids {
        while held.next_if(|h| *h < id).is_some() {}
        if held.next_if_eq(&id).is_none() {
            return false;
        }
    }
    true
}
