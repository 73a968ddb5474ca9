//! `ControllerChannelManager` and `ControllerBrokerRequestBatch`: control
//! requests are collected per broker during a state change and sent as one
//! LeaderAndIsr, then one UpdateMetadata, then one StopReplica per broker.
//! Each broker has one send thread that sends a request, waits for its
//! response, then sends the next.

use super::context::ControllerContext;
use crate::kafka::messages::{
    ControlRequest, LeaderAndIsrPartitionState, Reassigning, StopReplicaPartitionState, UpdateMetadataPartitionState,
    UpdateMetadataPartitions,
};
use crate::kafka::partition_map::PartitionMap;
use crate::kafka::partition_set::PartitionSet;
use crate::kafka::zk_data::{LeaderIsrAndControllerEpoch, ReplicaAssignment, LEADER_DURING_DELETE};
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use crate::small_map::{SmallMap, SmallSet};
use std::collections::VecDeque;
use std::rc::Rc;

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
    pub brokers: SmallMap<BrokerId, BrokerQueue>,
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
/// The LeaderAndIsr states are kept in the order they are added, a
/// partition perhaps more than once, and put in `TopicPartition` order,
/// each once, when the batch is built: a failover adds every replica, for
/// each broker in order, so adding is a push and building rarely sorts (a
/// look-up per replica in a map of partitions, and the walk of the maps to
/// send them, were a fifth of the failover). The UpdateMetadata partitions
/// are a [`PartitionSet`], a bit each, which comes out in order. The
/// per-broker lists are small maps by broker id, so the requests are built
/// broker by broker in sending order, with no sort of their own.
pub struct RequestBatch {
    leader_and_isr: SmallMap<BrokerId, Vec<LeaderAndIsrPartitionState>>,
    stop_replica: SmallMap<BrokerId, PartitionMap<StopReplicaPartitionState>>,
    update_metadata_brokers: SmallSet<BrokerId>,
    update_metadata_partitions: PartitionSet,
    /// The context's `live_brokers_version` when every live broker was last
    /// seen among `update_metadata_brokers`: until the live set changes,
    /// adding them again adds nothing (a failover would otherwise walk the
    /// fifty brokers once per replica, a tenth of its time).
    live_covered: Option<u64>,
}

impl RequestBatch {
    pub fn is_empty(&self) -> bool {
        self.leader_and_isr.values().all(Vec::is_empty) && self.stop_replica.is_empty() && self.update_metadata_brokers.is_empty()
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
        if let Some(l) = ctx.leadership.get(tp) {
            self.add_leader_and_isr_of(ctx, l, brokers, tp, assignment, is_new);
        }
    }

    /// Room for `more` LeaderAndIsr states to broker `b`, so that a list of
    /// thousands is not copied as it grows (a list left empty sends nothing).
    pub fn reserve_leader_and_isr(&mut self, b: BrokerId, more: usize) {
        if b >= 0 {
            self.leader_and_isr.entry(b).or_default().reserve(more);
        }
    }

    /// `add_leader_and_isr` with the partition's leadership in hand (a
    /// failover adds every replica, and has just looked it up).
    pub fn add_leader_and_isr_of(
        &mut self,
        ctx: &ControllerContext,
        l: &LeaderIsrAndControllerEpoch,
        brokers: &[BrokerId],
        tp: &TopicPartition,
        assignment: &ReplicaAssignment,
        is_new: bool,
    ) {
        for &b in brokers.iter().filter(|b| **b >= 0) {
            // A partition added again replaces its state, which stays new
            // if it was (see `in_partition_order`).
            self.leader_and_isr.entry(b).or_default().push(LeaderAndIsrPartitionState {
                topic: tp.topic.clone(),
                partition: tp.partition,
                controller_epoch: l.controller_epoch,
                leader: l.leader,
                leader_epoch: l.leader_epoch,
                isr: l.isr.clone(),
                zk_version: l.zk_version,
                replicas: assignment.replicas.clone(),
                reassigning: Reassigning::new(&assignment.adding, &assignment.removing),
                is_new,
            });
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
        self.update_metadata_partitions.insert(tp);
    }

    /// `addUpdateMetadataRequestForBrokers`. (It only adds recipients, so
    /// the live brokers covered stay covered.)
    pub fn add_update_metadata(&mut self, brokers: &[BrokerId], partitions: &[TopicPartition]) {
        self.update_metadata_brokers.extend(brokers.iter().copied().filter(|b| *b >= 0));
        self.update_metadata_partitions.extend(partitions);
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
        let mut batch = std::mem::take(self);
        let listed = std::mem::take(&mut batch.update_metadata_partitions);
        let partitions = listed.iter().filter_map(|tp| update_metadata_state(ctx, &tp)).map(Rc::new);
        let partitions = UpdateMetadataPartitions::new(sized(listed.len(), partitions));
        let live_brokers: Rc<Vec<_>> = Rc::new(ctx.live_brokers().values().map(|(info, _)| info.clone()).collect());
        // Per broker in id order, its LeaderAndIsr, then its UpdateMetadata,
        // then its StopReplica.
        let mut brokers: SmallSet<BrokerId> = batch.leader_and_isr.keys().chain(batch.stop_replica.keys()).copied().collect();
        brokers.extend(batch.update_metadata_brokers.iter().copied());
        for b in brokers {
            let (true, Some(epoch)) = (live.contains(&b), ctx.broker_epoch(b)) else { continue };
            // A broker whose list was made room for but got no state is sent
            // no LeaderAndIsr.
            if let Some(parts) = batch.leader_and_isr.remove(&b).filter(|parts| !parts.is_empty()) {
                let parts = in_partition_order(parts);
                let leaders: SmallSet<BrokerId> = parts.iter().map(|p| p.leader).filter(|l| live.contains(l)).collect();
                out.push((
                    b,
                    ControlRequest::LeaderAndIsr {
                        controller_id,
                        controller_epoch: ctx.epoch,
                        broker_epoch: epoch,
                        partitions: Rc::new(parts),
                        live_leaders: leaders.into_iter().collect(),
                    },
                ));
            }
            if batch.update_metadata_brokers.contains(&b) {
                out.push((
                    b,
                    ControlRequest::UpdateMetadata {
                        controller_id,
                        controller_epoch: ctx.epoch,
                        broker_epoch: epoch,
                        partitions: partitions.clone(),
                        live_brokers: Rc::clone(&live_brokers),
                    },
                ));
            }
            if let Some(parts) = batch.stop_replica.remove(&b) {
                out.push((
                    b,
                    ControlRequest::StopReplica {
                        controller_id,
                        controller_epoch: ctx.epoch,
                        broker_epoch: epoch,
                        partitions: Rc::new(sized(parts.len(), parts.into_values())),
                    },
                ));
            }
        }
        out
    }
}

/// A broker's LeaderAndIsr states as they were added, in `TopicPartition`
/// order, each partition once: its last state, new if any of them was
/// (`addLeaderAndIsrRequestForBrokers` replaces a partition's state and
/// keeps its isNew). Added in order, as they mostly are, they stay as they
/// are.
fn in_partition_order(mut states: Vec<LeaderAndIsrPartitionState>) -> Vec<LeaderAndIsrPartitionState> {
    fn key(s: &LeaderAndIsrPartitionState) -> (&crate::scenario::Topic, i32) {
        (&s.topic, s.partition)
    }
    if states.windows(2).all(|w| key(&w[0]) < key(&w[1])) {
        return states;
    }
    // Stable: a partition's states stay in the order they were added.
    states.sort_by(|a, b| key(a).cmp(&key(b)));
    states.dedup_by(|later, kept| {
        let same = key(later) == key(kept);
        if same {
            let is_new = kept.is_new || later.is_new;
            std::mem::swap(later, kept);
            kept.is_new = is_new;
        }
        same
    });
    states
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
fn includes_sorted(set: &SmallSet<BrokerId>, ids: impl Iterator<Item = BrokerId>) -> bool {
    let mut held = set.iter().copied().peekable();
    for id in ids {
        while held.next_if(|h| *h < id).is_some() {}
        if held.next_if_eq(&id).is_none() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn state(topic: &str, partition: i32, leader_epoch: i32, is_new: bool) -> LeaderAndIsrPartitionState {
        LeaderAndIsrPartitionState {
            topic: topic.into(),
            partition,
            controller_epoch: 1,
            leader: 1,
            leader_epoch,
            isr: [1].into(),
            zk_version: 0,
            replicas: [1].into(),
            reassigning: Default::default(),
            is_new,
        }
    }

    #[test]
    fn states_come_out_as_a_map_of_the_last_one_would_hold_them() {
        let mut rng = crate::sim::Rng::seeded(3);
        for _ in 0..200 {
            let added: Vec<_> = (0..rng.range_inclusive(0, 12))
                .map(|i| {
                    let topic = ["a", "b"][rng.index(2)];
                    state(topic, rng.range_inclusive(0, 4) as i32 - 1, i as i32, rng.index(2) == 0)
                })
                .collect();
            // What the batch did before: a map, each state replacing the last
            // one of its partition and keeping its isNew.
            let mut map: BTreeMap<TopicPartition, LeaderAndIsrPartitionState> = BTreeMap::new();
            for s in &added {
                let already_new = map.get(&s.tp()).is_some_and(|held| held.is_new);
                map.insert(s.tp(), LeaderAndIsrPartitionState { is_new: s.is_new || already_new, ..s.clone() });
            }
            assert_eq!(in_partition_order(added), map.into_values().collect::<Vec<_>>());
        }
    }
}
