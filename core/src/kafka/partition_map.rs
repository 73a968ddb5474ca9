//! `PartitionMap`: a map keyed by [`TopicPartition`] that keeps each topic's
//! partitions in a vector indexed by the partition number, for the
//! controller's per-partition state (`partitionStates`, the leaderships,
//! the replica states). A failover reads and writes every partition of
//! every topic several times; in one ordered map of 100,000 partitions
//! each access was a descent of some 17 levels comparing topic names, most
//! of a failover's time (issue 9). Here it is one descent of a map of
//! topics and an index.
//!
//! Iteration is in `TopicPartition` order, exactly as the `BTreeMap` it
//! replaces. Partition numbers come from znodes anyone may write (a console
//! can store `{"partitions":{"-1":[1],"2000000000":[1]}}`), so numbers
//! outside `0..DENSE` are kept in an ordered map beside the vector: a
//! hostile number costs no memory.

use crate::scenario::{Topic, TopicPartition};
use std::collections::BTreeMap;

/// Partition numbers below this are indexed; the others are kept ordered.
/// Above the parser's largest topic a single znode can describe (ZooKeeper's
/// 1 MiB `jute.maxbuffer` holds about 100,000 partitions), so that a real
/// topic is always indexed.
const DENSE: i32 = 1 << 17;

/// One topic's partitions, each with its key (so that iteration lends
/// keys as a `BTreeMap` does). For `0 <= p < DENSE`, `index[p]` is the
/// partition's place in `entries` (or [`NONE`]): four bytes per partition
/// number, so that a broker hosting a few of a topic's partitions keeps no
/// room for the others. The other numbers are in `sparse`.
#[derive(Clone, Debug)]
struct Slots<V> {
    index: Vec<u32>,
    entries: Vec<(TopicPartition, V)>,
    sparse: BTreeMap<i32, (TopicPartition, V)>,
}

/// No entry for this partition number.
const NONE: u32 = u32::MAX;

impl<V> Default for Slots<V> {
    fn default() -> Self {
        Slots { index: Vec::new(), entries: Vec::new(), sparse: BTreeMap::new() }
    }
}

impl<V> Slots<V> {
    fn len(&self) -> usize {
        self.entries.len() + self.sparse.len()
    }

    /// Where partition `p` (in `0..DENSE`) is in `entries`.
    fn position(&self, p: i32) -> Option<usize> {
        self.index.get(p as usize).copied().filter(|i| *i != NONE).map(|i| i as usize)
    }

    fn get(&self, p: i32) -> Option<&V> {
        if (0..DENSE).contains(&p) {
            self.position(p).map(|i| &self.entries[i].1)
        } else {
            self.sparse.get(&p).map(|(_, v)| v)
        }
    }

    fn get_mut(&mut self, p: i32) -> Option<&mut V> {
        if (0..DENSE).contains(&p) {
            self.position(p).map(|i| &mut self.entries[i].1)
        } else {
            self.sparse.get_mut(&p).map(|(_, v)| v)
        }
    }

    fn insert(&mut self, tp: TopicPartition, v: V) -> Option<V> {
        let p = tp.partition;
        if !(0..DENSE).contains(&p) {
            return self.sparse.insert(p, (tp, v)).map(|(_, v)| v);
        }
        if let Some(i) = self.position(p) {
            return Some(std::mem::replace(&mut self.entries[i], (tp, v)).1);
        }
        if self.index.len() <= p as usize {
            self.index.resize(p as usize + 1, NONE);
        }
        self.index[p as usize] = self.entries.len() as u32;
        self.entries.push((tp, v));
        None
    }

    fn remove(&mut self, p: i32) -> Option<V> {
        if !(0..DENSE).contains(&p) {
            return self.sparse.remove(&p).map(|(_, v)| v);
        }
        let i = self.position(p)?;
        self.index[p as usize] = NONE;
        let (_, v) = self.entries.swap_remove(i);
        if let Some((moved, _)) = self.entries.get(i) {
            self.index[moved.partition as usize] = i as u32;
        }
        Some(v)
    }

    /// The values in partition order, as `iter` lists them.
    fn into_values(self) -> impl Iterator<Item = V> {
        let Slots { index, entries, sparse: mut below } = self;
        let above = below.split_off(&0);
        let mut entries: Vec<Option<V>> = entries.into_iter().map(|(_, v)| Some(v)).collect();
        let dense = index.into_iter().filter(|i| *i != NONE).filter_map(move |i| entries[i as usize].take());
        below.into_values().map(|(_, v)| v).chain(dense).chain(above.into_values().map(|(_, v)| v))
    }

    /// In partition order: the negative numbers, the indexed ones, the big ones.
    fn iter(&self) -> impl Iterator<Item = (&TopicPartition, &V)> {
        let below = self.sparse.range(..0).map(|(_, (k, v))| (k, v));
        let dense = self.index.iter().filter(|i| **i != NONE).map(|i| {
            let (k, v) = &self.entries[*i as usize];
            (k, v)
        });
        let above = self.sparse.range(DENSE..).map(|(_, (k, v))| (k, v));
        below.chain(dense).chain(above)
    }
}

#[derive(Clone, Debug)]
pub struct PartitionMap<V> {
    topics: BTreeMap<Topic, Slots<V>>,
    len: usize,
}

impl<V> Default for PartitionMap<V> {
    fn default() -> Self {
        PartitionMap { topics: BTreeMap::new(), len: 0 }
    }
}

/// Equal when they hold the same partitions and values, however stored (a
/// vector may keep empty places where partitions were removed).
impl<V: PartialEq> PartialEq for PartitionMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<V: Eq> Eq for PartitionMap<V> {}

impl<V> PartitionMap<V> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        *self = PartitionMap::default();
    }

    pub fn get(&self, tp: &TopicPartition) -> Option<&V> {
        self.topics.get(&tp.topic)?.get(tp.partition)
    }

    pub fn get_mut(&mut self, tp: &TopicPartition) -> Option<&mut V> {
        self.topics.get_mut(&tp.topic)?.get_mut(tp.partition)
    }

    pub fn contains_key(&self, tp: &TopicPartition) -> bool {
        self.get(tp).is_some()
    }

    pub fn insert(&mut self, tp: TopicPartition, v: V) -> Option<V> {
        let slots = match self.topics.get_mut(&tp.topic) {
            Some(slots) => slots,
            None => self.topics.entry(tp.topic.clone()).or_default(),
        };
        let old = slots.insert(tp, v);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    pub fn remove(&mut self, tp: &TopicPartition) -> Option<V> {
        let slots = self.topics.get_mut(&tp.topic)?;
        let old = slots.remove(tp.partition)?;
        self.len -= 1;
        if slots.len() == 0 {
            self.topics.remove(&tp.topic);
        }
        Some(old)
    }

    /// Drops every partition of the topic.
    pub fn remove_topic(&mut self, topic: &str) {
        if let Some(slots) = self.topics.remove(topic) {
            self.len -= slots.len();
        }
    }

    /// In `TopicPartition` order.
    pub fn iter(&self) -> impl Iterator<Item = (&TopicPartition, &V)> {
        self.topics.values().flat_map(|slots| slots.iter())
    }

    /// The topic's partitions, in partition order.
    pub fn topic(&self, topic: &str) -> impl Iterator<Item = (&TopicPartition, &V)> {
        self.topics.get(topic).into_iter().flat_map(|slots| slots.iter())
    }

    pub fn keys(&self) -> impl Iterator<Item = &TopicPartition> {
        self.iter().map(|(tp, _)| tp)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }

    /// The values in `TopicPartition` order.
    pub fn into_values(self) -> impl Iterator<Item = V> {
        self.topics.into_values().flat_map(|slots| slots.into_values())
    }
}

impl<V> FromIterator<(TopicPartition, V)> for PartitionMap<V> {
    fn from_iter<I: IntoIterator<Item = (TopicPartition, V)>>(iter: I) -> Self {
        let mut map = PartitionMap::default();
        for (tp, v) in iter {
            map.insert(tp, v);
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(topic: &str, partition: i32) -> TopicPartition {
        TopicPartition { topic: topic.into(), partition }
    }

    #[test]
    fn behaves_as_an_ordered_map_of_partitions() {
        let keys = [tp("b", 3), tp("a", 1), tp("b", -4), tp("b", DENSE), tp("a", 0), tp("b", 0), tp("c", i32::MAX), tp("b", 3)];
        let (mut map, mut model) = (PartitionMap::default(), BTreeMap::new());
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(map.insert(k.clone(), i), model.insert(k.clone(), i));
        }
        assert_eq!(map.remove(&tp("a", 1)), model.remove(&tp("a", 1)));
        assert_eq!(map.remove(&tp("a", 7)), model.remove(&tp("a", 7)));
        *map.get_mut(&tp("b", -4)).unwrap() += 10;
        *model.get_mut(&tp("b", -4)).unwrap() += 10;
        let listed: Vec<_> = map.iter().map(|(k, v)| (k.clone(), *v)).collect();
        assert_eq!(listed, model.iter().map(|(k, v)| (k.clone(), *v)).collect::<Vec<_>>());
        assert_eq!(map.values().copied().collect::<Vec<_>>(), model.values().copied().collect::<Vec<_>>());
        assert_eq!((map.len(), map.get(&tp("b", DENSE)), map.contains_key(&tp("a", 1))), (model.len(), Some(&3), false));
        map.remove_topic("b");
        model.retain(|k, _| k.topic != "b");
        assert_eq!(map.keys().collect::<Vec<_>>(), model.keys().collect::<Vec<_>>());

        assert_eq!(map.len(), model.len());
    }

    #[test]
    fn random_inserts_and_removals_agree_with_an_ordered_map() {
        let mut rng = crate::sim::Rng::seeded(17);
        let (mut map, mut model) = (PartitionMap::default(), BTreeMap::new());
        for i in 0..5000 {
            let p = [rng.index(50) as i32, -(rng.index(3) as i32), DENSE + rng.index(3) as i32][rng.index(3)];
            let k = tp(["x", "y"][rng.index(2)], p);
            if rng.chance(1, 3) {
                assert_eq!(map.remove(&k), model.remove(&k));
            } else {
                assert_eq!(map.insert(k.clone(), i), model.insert(k, i));
            }
        }
        assert!(map.iter().eq(model.iter()));
        assert!(model.iter().all(|(k, v)| map.get(k) == Some(v)));
        assert_eq!(map.len(), model.len());
        assert!(map.into_values().eq(model.into_values()));
    }
}
