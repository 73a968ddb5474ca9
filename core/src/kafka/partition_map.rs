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
//!
//! The maps hold values of many types. Only the entries are generic: where
//! each one is (a map of topics to slots, per slot an index of partition
//! numbers to positions) is one `SlotIndex` whose code serves them all,
//! which keeps a copy per type out of the browser's download (issue 9).

use crate::scenario::{Topic, TopicPartition};
use std::collections::{btree_map, BTreeMap};

/// Partition numbers below this are indexed; the others are kept ordered.
/// Above the parser's largest topic a single znode can describe (ZooKeeper's
/// 1 MiB `jute.maxbuffer` holds about 100,000 partitions), so that a real
/// topic is always indexed.
const DENSE: i32 = 1 << 17;

/// No entry for this partition number.
const NONE: u32 = u32::MAX;

/// Up to this many topics, a look-up scans them by address before it
/// searches them by name ([`SlotIndex::search`]): a scan of 32 addresses
/// costs about what five name comparisons do.
const SCANNED_TOPICS: usize = 32;

/// Where each partition's entry is, for every map alike: the topic's slot,
/// and the entry's position among the slot's entries. It knows nothing of
/// the values, so that its code is compiled once however many value types
/// the maps hold (the browser downloads every copy of a generic function;
/// issue 9); [`PartitionMap`] keeps the entries beside it.
#[derive(Clone, Debug, Default)]
struct SlotIndex {
    /// Topic → slot, sorted by topic (a map has a few topics, and a
    /// vector's code is smaller than an ordered map's).
    topics: Vec<(Topic, u32)>,
    /// Where in `topics` the last topic found by its address was: look-ups
    /// come in runs of one topic (a request's partitions are in order), so
    /// it is tried first.
    last_found: std::cell::Cell<usize>,
    slots: Vec<Positions>,
    /// Slots of removed topics, for the next new topic.
    free: Vec<u32>,
    len: usize,
}

/// One topic's positions. For `0 <= p < DENSE` they are in [`Dense`]; the
/// other numbers are in `sparse`.
#[derive(Clone, Debug, Default)]
struct Positions {
    dense: Dense,
    sparse: BTreeMap<i32, u32>,
    /// Entries in the slot: the position of the next one.
    count: u32,
    /// The partition at the last position, while every entry came after
    /// the one before it in partition order (positions are then in
    /// partition order, and the slot is listed without its index).
    last: Option<i32>,
    /// Some entry's position is not its partition number. Until then the
    /// slot holds partitions `0..count` at positions `0..count` — every
    /// topic of the controller's maps, whose partitions come in order — and
    /// a look-up reads no index: the index of a topic of 10,000 partitions
    /// is 40 KB, and reading it first was a cache miss of its own on each
    /// of a failover's million look-ups (issue 9). It follows from
    /// the other fields, but every look-up asks, and one flag is cheaper to
    /// ask than three fields (derived, the run of 100,000 partitions took
    /// 75 M instructions more).
    gapped: bool,
}

/// Where partitions `0..DENSE` are among a slot's entries.
#[derive(Clone, Debug)]
enum Dense {
    /// While the entries came in partition order (so a partition's position
    /// is the count of entries before it): a bit per partition number, and
    /// per word of 64 bits the position of its first entry. A broker hosts
    /// a few hundred of a topic's 10,000 partitions; an index of every
    /// number was 40 KB of each broker's every topic, 31 MB of a
    /// 100,000-partition cluster, where these are 2 KB (issue 9).
    Ranked { bits: Vec<u64>, first: Vec<u32> },
    /// An entry came out of partition order, or one was removed (the last
    /// entry took its place): `index[p]` is partition `p`'s position, or
    /// [`NONE`].
    Indexed(Vec<u32>),
}

impl Default for Dense {
    fn default() -> Dense {
        Dense::Ranked { bits: Vec::new(), first: Vec::new() }
    }
}

impl Dense {
    #[inline]
    fn get(&self, p: i32) -> Option<u32> {
        match self {
            Dense::Ranked { bits, first } => {
                let w = p as usize / 64;
                let (word, bit) = (*bits.get(w)?, 1u64 << (p % 64));
                let at = *first.get(w)?;
                (word & bit != 0).then(|| at + (word & (bit - 1)).count_ones())
            }
            Dense::Indexed(index) => index.get(p as usize).copied().filter(|i| *i != NONE),
        }
    }

    /// Partition `p`, which has no position, gets `position`: in a
    /// `Ranked`, `p` comes after every partition there and `position` after
    /// every entry.
    fn add(&mut self, p: i32, position: u32) {
        let p = p as usize;
        match self {
            Dense::Ranked { bits, first } => {
                if bits.len() <= p / 64 {
                    bits.resize(p / 64 + 1, 0);
                    first.resize(p / 64 + 1, position);
                }
                bits[p / 64] |= 1 << (p % 64);
            }
            Dense::Indexed(index) => {
                if index.len() <= p {
                    index.resize(p + 1, NONE);
                }
                index[p] = position;
            }
        }
    }

    /// Made an index of every number, from the bits if they are what
    /// there is.
    fn make_indexed(&mut self) {
        let Dense::Ranked { bits, first } = self else { return };
        let top = bits.iter().rposition(|w| *w != 0).map_or(0, |w| w * 64 + 64 - bits[w].leading_zeros() as usize);
        let mut index = vec![NONE; top];
        for (w, (&word, &at)) in bits.iter().zip(first.iter()).enumerate() {
            let (mut rest, mut position) = (word, at);
            while rest != 0 {
                index[w * 64 + rest.trailing_zeros() as usize] = position;
                position += 1;
                rest &= rest - 1;
            }
        }
        *self = Dense::Indexed(index);
    }

    /// Sets partition `p`'s place in the index (made first).
    fn set(&mut self, p: i32, position: u32) {
        self.make_indexed();
        if let Dense::Indexed(index) = self {
            if let Some(i) = index.get_mut(p as usize) {
                *i = position;
            }
        }
    }
}

impl Positions {
    #[inline]
    fn get(&self, p: i32) -> Option<u32> {
        if !self.gapped {
            return u32::try_from(p).ok().filter(|p| *p < self.count);
        }
        if (0..DENSE).contains(&p) {
            self.dense.get(p)
        } else {
            self.sparse.get(&p).copied()
        }
    }

    /// Partition `p`'s position and `false`, or if it has none, the next
    /// position, now its, and `true`.
    fn get_or_add(&mut self, p: i32) -> (u32, bool) {
        if let Some(i) = self.get(p) {
            return (i, false);
        }
        let next = self.count;
        if self.last.is_some_and(|last| p < last) {
            self.dense.make_indexed();
        }
        if (0..DENSE).contains(&p) {
            self.dense.add(p, next);
        } else {
            self.sparse.insert(p, next);
        }
        self.gapped |= u32::try_from(p) != Ok(next);
        self.count += 1;
        self.last = Some(p);
        (next, true)
    }

    /// Sets partition `p`'s position (it has one, and the positions are
    /// shuffled: a swap-remove made this call).
    fn set(&mut self, p: i32, position: u32) {
        if (0..DENSE).contains(&p) {
            self.dense.set(p, position);
        } else {
            self.sparse.insert(p, position);
        }
    }

    /// Forgets partition `p`'s position: the entry there is to be
    /// swap-removed, which may move the last one out of partition order.
    fn take(&mut self, p: i32) -> Option<u32> {
        let had = self.get(p)?;
        self.gapped = true;
        if (0..DENSE).contains(&p) {
            self.dense.set(p, NONE);
        } else {
            self.dense.make_indexed();
            self.sparse.remove(&p);
        }
        Some(had)
    }

    /// The positions in partition order. Entries that came in partition
    /// order are listed as they are kept, without reading the index: a
    /// broker hosts a few of each topic's partitions, and walking its index
    /// of every partition number to find them was most of the walk (the
    /// isr-expiration and checkpoint tasks walk every hosted partition).
    /// Otherwise the negative numbers, the indexed ones, the big ones.
    fn in_order(&self) -> InOrder<'_> {
        match &self.dense {
            Dense::Ranked { .. } => InOrder::Kept(0..self.count as usize),
            Dense::Indexed(index) => {
                InOrder::Indexed { below: self.sparse.range(..0), dense: index.iter(), above: self.sparse.range(DENSE..) }
            }
        }
    }
}

/// A slot's positions in partition order ([`Positions::in_order`]).
enum InOrder<'a> {
    /// The positions themselves, in partition order as they are.
    Kept(std::ops::Range<usize>),
    Indexed {
        below: btree_map::Range<'a, i32, u32>,
        dense: std::slice::Iter<'a, u32>,
        above: btree_map::Range<'a, i32, u32>,
    },
}

impl Iterator for InOrder<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match self {
            InOrder::Kept(positions) => positions.next(),
            InOrder::Indexed { below, dense, above } => {
                let next = match below.next() {
                    Some((_, i)) => Some(*i),
                    None => dense.find(|i| **i != NONE).or_else(|| above.next().map(|(_, i)| i)).copied(),
                };
                next.map(|i| i as usize)
            }
        }
    }
}

/// Every position of the index in `TopicPartition` order, as (slot,
/// position): the iteration of every map, written once for all of them.
struct Order<'a> {
    index: &'a SlotIndex,
    /// The slots still to come.
    slots: std::slice::Iter<'a, (Topic, u32)>,
    /// The slot being listed, and its positions still to come.
    current: Option<(usize, InOrder<'a>)>,
    /// How many positions are still to come: what is collected from a map
    /// is allocated once, at its size (a failover collects lists of every
    /// partition, which grown by doubling were copied a dozen times).
    remaining: usize,
}

impl Iterator for Order<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        loop {
            if let Some((slot, positions)) = &mut self.current {
                if let Some(i) = positions.next() {
                    self.remaining -= 1;
                    return Some((*slot, i));
                }
            }
            let slot = self.slots.next()?.1 as usize;
            self.current = Some((slot, self.index.slots[slot].in_order()));
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Order<'_> {}

impl SlotIndex {
    /// Natively inlined into each map's look-ups: a big run makes millions
    /// of them (a call each cost 0.4% of a 10,000-partition run); the
    /// browser build keeps the one copy.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn find(&self, tp: &TopicPartition) -> Option<(usize, usize)> {
        let slot = self.slot(&tp.topic)? as usize;
        Some((slot, self.slots[slot].get(tp.partition)? as usize))
    }

    /// Where `topic` is in `topics`, or where it would go. A map of a few
    /// topics is first scanned for the topic's allocation (`Topic::is_same`):
    /// the names are interned, and a scan of addresses costs a fraction of a
    /// binary search comparing names byte by byte — a big run makes millions
    /// of look-ups in maps of ten topics, and their searches were some 8% of
    /// its instructions.
    fn search(&self, topic: &Topic) -> Result<usize, usize> {
        if self.topics.get(self.last_found.get()).is_some_and(|(t, _)| t.is_same(topic)) {
            return Ok(self.last_found.get());
        }
        if self.topics.len() <= SCANNED_TOPICS {
            if let Some(i) = self.topics.iter().position(|(t, _)| t.is_same(topic)) {
                self.last_found.set(i);
                return Ok(i);
            }
        }
        self.topics.binary_search_by(|(t, _)| t.cmp(topic))
    }

    fn slot(&self, topic: &Topic) -> Option<u32> {
        self.search(topic).ok().map(|i| self.topics[i].1)
    }

    /// `search` by the topic's name.
    fn search_named(&self, topic: &str) -> Result<usize, usize> {
        self.topics.binary_search_by(|(t, _)| (**t).cmp(topic))
    }

    fn slot_named(&self, topic: &str) -> Option<u32> {
        self.search_named(topic).ok().map(|i| self.topics[i].1)
    }

    /// The slot and position of `tp`'s entry, and whether it is a new one
    /// (then at the end of the slot's entries, which may be a new slot at
    /// the end of the slots).
    fn insert(&mut self, tp: &TopicPartition) -> (usize, usize, bool) {
        let slot = match self.search(&tp.topic) {
            Ok(i) => self.topics[i].1,
            Err(i) => {
                let slot = self.free.pop().unwrap_or(self.slots.len() as u32);
                if slot as usize == self.slots.len() {
                    self.slots.push(Positions::default());
                }
                self.topics.insert(i, (tp.topic.clone(), slot));
                slot
            }
        };
        let (i, new) = self.slots[slot as usize].get_or_add(tp.partition);
        self.len += new as usize;
        (slot as usize, i as usize, new)
    }

    /// Forgets `tp`'s entry: its slot and position. The entry there is to be
    /// swap-removed, and [`SlotIndex::moved`] told which partition took its
    /// place; a slot left empty is freed (its entries are empty too).
    fn remove(&mut self, tp: &TopicPartition) -> Option<(usize, usize)> {
        let slot = self.slot(&tp.topic)?;
        let positions = &mut self.slots[slot as usize];
        let i = positions.take(tp.partition)?;
        positions.count -= 1;
        self.len -= 1;
        if positions.count == 0 {
            self.free_slot(&tp.topic, slot);
        }
        Some((slot as usize, i as usize))
    }

    /// Partition `p` of the slot now has position `i` (after a swap-remove).
    fn moved(&mut self, slot: usize, p: i32, i: usize) {
        self.slots[slot].set(p, i as u32);
    }

    /// Forgets the topic; its slot, whose entries are to be dropped.
    fn remove_topic(&mut self, topic: &str) -> Option<usize> {
        let slot = self.slot_named(topic)?;
        self.len -= self.slots[slot as usize].count as usize;
        self.free_slot(topic, slot);
        Some(slot as usize)
    }

    fn free_slot(&mut self, topic: &str, slot: u32) {
        if let Ok(i) = self.search_named(topic) {
            self.topics.remove(i);
        }
        self.slots[slot as usize] = Positions::default();
        self.free.push(slot);
    }

    /// The topics' slots in topic order.
    fn slots(&self) -> impl Iterator<Item = usize> + '_ {
        self.topics.iter().map(|(_, slot)| *slot as usize)
    }

    /// Every position, in `TopicPartition` order.
    fn order(&self) -> Order<'_> {
        Order { index: self, slots: self.topics.iter(), current: None, remaining: self.len }
    }

    /// The topic's positions in partition order.
    fn topic(&self, topic: &str) -> Order<'_> {
        let current = self.slot_named(topic).map(|slot| (slot as usize, self.slots[slot as usize].in_order()));
        let remaining = current.as_ref().map_or(0, |(slot, _)| self.slots[*slot].count as usize);
        Order { index: self, slots: [].iter(), current, remaining }
    }
}

/// The map: the [`SlotIndex`] and, per slot, the entries (each with its key,
/// so that iteration lends keys as a `BTreeMap` does), in the order they
/// came.
#[derive(Clone, Debug)]
pub struct PartitionMap<V> {
    index: SlotIndex,
    entries: Vec<Vec<(TopicPartition, V)>>,
}

impl<V> Default for PartitionMap<V> {
    fn default() -> Self {
        PartitionMap { index: SlotIndex::default(), entries: Vec::new() }
    }
}

/// Equal when they hold the same partitions and values, however stored (the
/// entries of two maps may have come in different orders).
impl<V: PartialEq> PartialEq for PartitionMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<V: Eq> Eq for PartitionMap<V> {}

impl<V> PartitionMap<V> {
    pub fn len(&self) -> usize {
        self.index.len
    }

    pub fn is_empty(&self) -> bool {
        self.index.len == 0
    }

    pub fn clear(&mut self) {
        *self = PartitionMap::default();
    }

    pub fn get(&self, tp: &TopicPartition) -> Option<&V> {
        let (slot, i) = self.index.find(tp)?;
        Some(&self.entries[slot][i].1)
    }

    pub fn get_mut(&mut self, tp: &TopicPartition) -> Option<&mut V> {
        let (slot, i) = self.index.find(tp)?;
        Some(&mut self.entries[slot][i].1)
    }

    pub fn contains_key(&self, tp: &TopicPartition) -> bool {
        self.index.find(tp).is_some()
    }

    pub fn insert(&mut self, tp: TopicPartition, v: V) -> Option<V> {
        let (slot, i, new) = self.index.insert(&tp);
        if !new {
            return Some(std::mem::replace(&mut self.entries[slot][i].1, v));
        }
        if slot == self.entries.len() {
            self.entries.push(Vec::new());
        }
        self.entries[slot].push((tp, v));
        None
    }

    /// Room for `total` entries of `topic` in all, if it has any: a
    /// LeaderAndIsr brings a new topic's partitions at once, and a
    /// broker's entries (some 200 bytes each) grown one by one were copied
    /// a dozen times.
    pub fn reserve_topic(&mut self, topic: &str, total: usize) {
        if let Some(slot) = self.index.slot_named(topic) {
            let entries = &mut self.entries[slot as usize];
            entries.reserve(total.saturating_sub(entries.len()));
        }
    }

    /// Whether [`PartitionMap::reserve_topic`] would make room: asked
    /// first by a map shared until written (`CopyOnWrite`), which a
    /// reservation that changes nothing must not copy.
    pub fn lacks_room(&self, topic: &str, total: usize) -> bool {
        self.index.slot_named(topic).is_some_and(|slot| self.entries[slot as usize].capacity() < total)
    }

    pub fn remove(&mut self, tp: &TopicPartition) -> Option<V> {
        let (slot, i) = self.index.remove(tp)?;
        let entries = &mut self.entries[slot];
        let (_, v) = entries.swap_remove(i);
        if let Some((moved, _)) = entries.get(i) {
            self.index.moved(slot, moved.partition, i);
        } else if entries.is_empty() {
            // The slot was freed: let its vector go too.
            *entries = Vec::new();
        }
        Some(v)
    }

    /// Drops every partition of the topic.
    pub fn remove_topic(&mut self, topic: &str) {
        if let Some(slot) = self.index.remove_topic(topic) {
            self.entries[slot] = Vec::new();
        }
    }

    /// In `TopicPartition` order.
    pub fn iter(&self) -> impl Iterator<Item = (&TopicPartition, &V)> {
        self.index.order().map(|(slot, i)| self.entry(slot, i))
    }

    /// The topic's partitions, in partition order.
    pub fn topic(&self, topic: &str) -> impl Iterator<Item = (&TopicPartition, &V)> {
        self.index.topic(topic).map(|(slot, i)| self.entry(slot, i))
    }

    fn entry(&self, slot: usize, i: usize) -> (&TopicPartition, &V) {
        let (k, v) = &self.entries[slot][i];
        (k, v)
    }

    pub fn keys(&self) -> impl Iterator<Item = &TopicPartition> {
        self.iter().map(|(tp, _)| tp)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }

    /// The values in `TopicPartition` order.
    pub fn into_values(self) -> impl Iterator<Item = V> {
        let PartitionMap { index, mut entries } = self;
        let mut values = Vec::with_capacity(index.len);
        for slot in index.slots() {
            let mut taken: Vec<Option<V>> = std::mem::take(&mut entries[slot]).into_iter().map(|(_, v)| Some(v)).collect();
            values.extend(index.slots[slot].in_order().filter_map(|i| taken[i].take()));
        }
        values.into_iter()
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
    fn entries_added_in_order_are_listed_in_order_until_one_is_not() {
        let (mut map, mut model) = (PartitionMap::default(), BTreeMap::new());
        for (i, p) in [-3, 0, 2, 5, DENSE, DENSE + 1].into_iter().enumerate() {
            map.insert(tp("t", p), i);
            model.insert(tp("t", p), i);
        }
        assert!(map.iter().eq(model.iter()));
        for (i, p) in [4, 1].into_iter().enumerate() {
            map.insert(tp("t", p), 10 + i);
            model.insert(tp("t", p), 10 + i);
            assert!(map.iter().eq(model.iter()));
        }
        assert_eq!(map.remove(&tp("t", 0)), model.remove(&tp("t", 0)));
        assert!(map.iter().eq(model.iter()));
        assert!(map.into_values().eq(model.into_values()));
    }

    #[test]
    fn a_topic_whose_partitions_came_in_order_is_read_without_its_index() {
        let mut map = PartitionMap::default();
        for p in 0..100 {
            map.insert(tp("t", p), p);
        }
        let t = &map.index.slots[map.index.slot_named("t").unwrap() as usize];
        assert!(!t.gapped);
        for p in [-1, 0, 57, 99, 100, DENSE, i32::MIN, i32::MAX] {
            assert_eq!(map.get(&tp("t", p)), (0..100).contains(&p).then_some(&p));
        }
        // A gap, and the index answers.
        map.insert(tp("t", 150), 150);
        map.remove(&tp("t", 3));
        let t = &map.index.slots[map.index.slot_named("t").unwrap() as usize];
        assert!(t.gapped);
        for p in [-1, 0, 3, 4, 99, 100, 150] {
            let expected = ((0..100).contains(&p) && p != 3 || p == 150).then_some(&p);
            assert_eq!(map.get(&tp("t", p)), expected);
        }
    }

    #[test]
    fn a_few_partitions_in_order_are_found_by_their_bits_then_by_an_index() {
        let (mut map, mut model) = (PartitionMap::default(), BTreeMap::new());
        // As a broker hosts them: a few of the topic's, in order (a negative
        // number from a hostile znode first, a big one last).
        let hosted: Vec<i32> = [-7].into_iter().chain((0..10_000).filter(|p| p % 17 == 3 || p % 64 == 63)).chain([DENSE + 5]).collect();
        for (i, p) in hosted.iter().enumerate() {
            map.insert(tp("t", *p), i);
            model.insert(tp("t", *p), i);
        }
        let t = &map.index.slots[map.index.slot_named("t").unwrap() as usize];
        assert!(matches!(t.dense, Dense::Ranked { .. }));
        let agree = |map: &PartitionMap<usize>, model: &BTreeMap<TopicPartition, usize>| {
            for p in (-10..10_100).chain([DENSE + 5, DENSE + 6, i32::MIN, i32::MAX]) {
                assert_eq!(map.get(&tp("t", p)), model.get(&tp("t", p)), "partition {p}");
            }
            assert!(map.iter().eq(model.iter()));
        };
        agree(&map, &model);
        // One out of order: the bits become an index of every number.
        map.insert(tp("t", 5), 99);
        model.insert(tp("t", 5), 99);
        let t = &map.index.slots[map.index.slot_named("t").unwrap() as usize];
        assert!(matches!(t.dense, Dense::Indexed(_)));
        agree(&map, &model);
        // A removal from a topic still in order makes the index too.
        let (mut map2, mut model2) = (PartitionMap::default(), BTreeMap::new());
        for p in [1, 40, 64, 200] {
            map2.insert(tp("t", p), p as usize);
            model2.insert(tp("t", p), p as usize);
        }
        assert_eq!(map2.remove(&tp("t", 40)), model2.remove(&tp("t", 40)));
        agree(&map2, &model2);
    }

    #[test]
    fn random_inserts_and_removals_agree_with_an_ordered_map() {
        let mut rng = crate::sim::Rng::seeded(17);
        let (mut map, mut model) = (PartitionMap::default(), BTreeMap::new());
        for i in 0..5000 {
            let p = [rng.index(50) as i32, -(rng.index(3) as i32), DENSE + rng.index(3) as i32][rng.index(3)];
            let k = tp(["x", "y", "z"][rng.index(3)], p);
            if rng.chance(1, 100) {
                // A removed topic's slot is taken by the next new one.
                map.remove_topic(&k.topic);
                model.retain(|m: &TopicPartition, _| m.topic != k.topic);
            } else if rng.chance(1, 3) {
                assert_eq!(map.remove(&k), model.remove(&k));
            } else {
                assert_eq!(map.insert(k.clone(), i), model.insert(k, i));
            }
            if i % 250 == 0 {
                assert!(map.iter().eq(model.iter()));
                assert!(map.topic("y").eq(model.iter().filter(|(k, _)| k.topic == "y")));
                // The sizes the iterators tell, all along (collections are allocated by them).
                let (mut all, y) = (map.iter(), model.keys().filter(|k| k.topic == "y").count());
                assert_eq!(map.topic("y").size_hint(), (y, Some(y)));
                for left in (0..=model.len()).rev() {
                    assert_eq!(all.size_hint(), (left, Some(left)));
                    all.next();
                }
            }
        }
        assert!(map.iter().eq(model.iter()));
        assert!(model.iter().all(|(k, v)| map.get(k) == Some(v)));
        assert_eq!(map.len(), model.len());
        assert!(map.into_values().eq(model.into_values()));
    }
}
