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
}
