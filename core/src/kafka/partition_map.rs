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

/// One topic's partitions: `dense[p]` for `0 <= p < DENSE`, `sparse` for the rest.
#[derive(Clone, Debug)]
struct Slots<V> {
    dense: Vec<Option<V>>,
    sparse: BTreeMap<i32, V>,
    len: usize,
}

impl<V> Default for Slots<V> {
    fn default() -> Self {
        Slots { dense: Vec::new(), sparse: BTreeMap::new(), len: 0 }
    }
}

impl<V> Slots<V> {
    fn get(&self, p: i32) -> Option<&V> {
        if (0..DENSE).contains(&p) {
            self.dense.get(p as usize)?.as_ref()
        } else {
            self.sparse.get(&p)
        }
    }

    fn get_mut(&mut self, p: i32) -> Option<&mut V> {
        if (0..DENSE).contains(&p) {
            self.dense.get_mut(p as usize)?.as_mut()
        } else {
            self.sparse.get_mut(&p)
        }
    }

    fn insert(&mut self, p: i32, v: V) -> Option<V> {
        let old = if (0..DENSE).contains(&p) {
            let i = p as usize;
            if self.dense.len() <= i {
                self.dense.resize_with(i + 1, || None);
            }
            self.dense[i].replace(v)
        } else {
            self.sparse.insert(p, v)
        };
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    fn remove(&mut self, p: i32) -> Option<V> {
        let old = if (0..DENSE).contains(&p) { self.dense.get_mut(p as usize)?.take() } else { self.sparse.remove(&p) };
        if old.is_some() {
            self.len -= 1;
        }
        old
    }

    /// In partition order: the negative numbers, the indexed ones, the big ones.
    fn iter(&self) -> impl Iterator<Item = (i32, &V)> {
        let below = self.sparse.range(..0).map(|(p, v)| (*p, v));
        let dense = self.dense.iter().enumerate().filter_map(|(p, v)| Some((p as i32, v.as_ref()?)));
        let above = self.sparse.range(DENSE..).map(|(p, v)| (*p, v));
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
            None => self.topics.entry(tp.topic).or_default(),
        };
        let old = slots.insert(tp.partition, v);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    pub fn remove(&mut self, tp: &TopicPartition) -> Option<V> {
        let slots = self.topics.get_mut(&tp.topic)?;
        let old = slots.remove(tp.partition)?;
        self.len -= 1;
        if slots.len == 0 {
            self.topics.remove(&tp.topic);
        }
        Some(old)
    }

    /// Drops every partition of the topic.
    pub fn remove_topic(&mut self, topic: &str) {
        if let Some(slots) = self.topics.remove(topic) {
            self.len -= slots.len;
        }
    }

    /// In `TopicPartition` order.
    pub fn iter(&self) -> impl Iterator<Item = (TopicPartition, &V)> {
        self.topics.iter().flat_map(|(t, slots)| slots.iter().map(move |(p, v)| (TopicPartition { topic: t.clone(), partition: p }, v)))
    }

    pub fn keys(&self) -> impl Iterator<Item = TopicPartition> + '_ {
        self.iter().map(|(tp, _)| tp)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.topics.values().flat_map(|slots| slots.iter().map(|(_, v)| v))
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
        let listed: Vec<_> = map.iter().map(|(k, v)| (k, *v)).collect();
        assert_eq!(listed, model.iter().map(|(k, v)| (k.clone(), *v)).collect::<Vec<_>>());
        assert_eq!(map.values().copied().collect::<Vec<_>>(), model.values().copied().collect::<Vec<_>>());
        assert_eq!((map.len(), map.get(&tp("b", DENSE)), map.contains_key(&tp("a", 1))), (model.len(), Some(&3), false));
        map.remove_topic("b");
        model.retain(|k, _| k.topic != "b");
        assert_eq!(map.keys().collect::<Vec<_>>(), model.keys().cloned().collect::<Vec<_>>());
        assert_eq!(map.len(), model.len());
    }
}
