//! `MetadataCache`: what a broker believes about the cluster, as the last
//! UpdateMetadata told it. It lags ZooKeeper between a change and its
//! propagation — the lesson of seed 002.

use crate::kafka::messages::UpdateMetadataPartitionState;
use crate::kafka::zk_data::{BrokerInfo, LEADER_DURING_DELETE};
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MetadataCache {
    pub controller_id: Option<BrokerId>,
    pub controller_epoch: i32,
    pub live_brokers: BTreeMap<BrokerId, BrokerInfo>,
    /// Shared with the request that brought it (and the other brokers').
    /// The map itself is shared with the timeline's snapshots of this cache
    /// until the next UpdateMetadata changes it (copy on write): fifty
    /// brokers' caches of 10,000 partitions were half of what a snapshot of
    /// a big cluster cost to take and to keep (issue 9).
    pub partitions: Arc<BTreeMap<TopicPartition, Arc<UpdateMetadataPartitionState>>>,
    /// Counts the UpdateMetadata requests applied, so that a picture of the
    /// cache (the browser's belief tables) can be kept while it stays the
    /// same. A restarted broker's empty cache carries its count on (see
    /// [`MetadataCache::cleared`]).
    pub updates: u64,
}

impl MetadataCache {
    /// The empty cache a broker starts again with; its count goes on, so no
    /// two different caches of one broker share a count.
    pub fn cleared(&self) -> MetadataCache {
        MetadataCache { updates: self.updates + 1, ..MetadataCache::default() }
    }

    /// `updateMetadata`: partitions of topics being deleted (leader −2) are
    /// removed; the others replace what was cached.
    pub fn update(
        &mut self,
        controller_id: BrokerId,
        controller_epoch: i32,
        live: &[BrokerInfo],
        partitions: &[Arc<UpdateMetadataPartitionState>],
    ) {
        self.updates += 1;
        self.controller_id = Some(controller_id);
        self.controller_epoch = controller_epoch;
        self.live_brokers = live.iter().map(|b| (b.id, b.clone())).collect();
        if partitions.len() >= MERGE_FROM && partitions.len() * 4 >= self.partitions.len() && is_strictly_sorted(partitions) {
            self.merge(partitions);
            return;
        }
        let cached = Arc::make_mut(&mut self.partitions);
        for p in partitions {
            let tp = TopicPartition { topic: p.topic.clone(), partition: p.partition };
            if p.leader == LEADER_DURING_DELETE {
                cached.remove(&tp);
            } else {
                cached.insert(tp, Arc::clone(p));
            }
        }
    }

    /// `update` for a big request in partition order (the controller sends
    /// its partitions sorted; a failover sends all of them to every broker):
    /// one ordered pass over the cache and the request, the map rebuilt from
    /// the result, instead of a descent of the map per partition. The same
    /// outcome: the request's partitions replace or remove the cached ones.
    fn merge(&mut self, partitions: &[Arc<UpdateMetadataPartitionState>]) {
        // The old map, or a copy of it while a snapshot still shares it.
        let old = Arc::try_unwrap(std::mem::take(&mut self.partitions)).unwrap_or_else(|shared| (*shared).clone());
        let mut cached = old.into_iter().peekable();
        let mut merged = Vec::with_capacity(cached.len() + partitions.len());
        for p in partitions {
            let tp = TopicPartition { topic: p.topic.clone(), partition: p.partition };
            while let Some(before) = cached.next_if(|(k, _)| *k < tp) {
                merged.push(before);
            }
            cached.next_if(|(k, _)| *k == tp);
            if p.leader != LEADER_DURING_DELETE {
                merged.push((tp, Arc::clone(p)));
            }
        }
        merged.extend(cached);
        self.partitions = Arc::new(merged.into_iter().collect());
    }
}

/// Requests smaller than this are applied partition by partition.
const MERGE_FROM: usize = 64;

/// Whether the partitions are in `TopicPartition` order, none twice.
fn is_strictly_sorted(partitions: &[Arc<UpdateMetadataPartitionState>]) -> bool {
    partitions.windows(2).all(|w| (&w[0].topic, w[0].partition) < (&w[1].topic, w[1].partition))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(topic: &str, partition: i32, leader: BrokerId) -> Arc<UpdateMetadataPartitionState> {
        Arc::new(UpdateMetadataPartitionState {
            topic: topic.into(),
            partition,
            controller_epoch: 1,
            leader,
            leader_epoch: 0,
            isr: vec![leader],
            zk_version: 0,
            replicas: vec![leader],
            offline_replicas: Vec::new(),
        })
    }

    #[test]
    fn a_big_sorted_request_merges_as_one_partition_at_a_time_would() {
        let first: Vec<_> = (0..100).map(|p| state("b", p, 1)).collect();
        // Replaced, removed (leader −2) and new partitions, in order.
        let mut second: Vec<_> = (0..80).map(|p| state("a", p, 2)).collect();
        second.extend((0..100).step_by(2).map(|p| state("b", p, if p % 4 == 0 { LEADER_DURING_DELETE } else { 3 })));
        let (mut merged, mut one_by_one) = (MetadataCache::default(), MetadataCache::default());
        merged.update(0, 1, &[], &first);
        merged.update(0, 1, &[], &second);
        for p in first.iter().chain(&second) {
            one_by_one.update(0, 1, &[], std::slice::from_ref(p));
        }
        assert_eq!(merged.partitions, one_by_one.partitions);
        assert_eq!((merged.controller_id, merged.controller_epoch), (one_by_one.controller_id, one_by_one.controller_epoch));
        assert_eq!(merged.partitions.len(), 80 + 75);
    }
}
