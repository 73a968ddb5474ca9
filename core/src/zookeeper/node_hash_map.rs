//! The tree's nodes by path (`org.apache.zookeeper.server.NodeHashMap`).
//! The real `DataTree` finds a node by hashing its path; so does this one.
//! An ordered map of paths had been enough, but its keys are long and share
//! their beginnings (`/brokers/topics/t/partitions/1234/state`): each
//! look-up in 200,000 of them was some twenty string comparisons, each a
//! read elsewhere in memory, and a failover reads 100,000 state znodes while
//! each new log reads its topic's config (issue 9). A hash look-up reads the
//! path once.
//!
//! The path order that listings, views and dumps need is kept beside the
//! index, in an ordered map of the same paths to their slots: only a create
//! or a delete pays a descent of it.

use super::data_tree::ZNode;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Bound;
use std::rc::Rc;

/// An empty bucket of the index.
const EMPTY: u32 = u32::MAX;

/// A node and its path, in its slot.
#[derive(Clone)]
struct Slot {
    path: Rc<str>,
    node: ZNode,
}

/// One bucket of the index: a slot, with the top half of its path's hash,
/// which places it (its top bits) and skips most mismatches without
/// reading the path.
#[derive(Clone, Copy)]
struct Bucket {
    tag: u32,
    slot: u32,
}

const VACANT: Bucket = Bucket { tag: 0, slot: EMPTY };

#[derive(Clone, Default)]
pub struct NodeHashMap {
    /// The nodes; a deleted node's slot is `None` until a create reuses it.
    slots: Vec<Option<Slot>>,
    free: Vec<u32>,
    /// Open addressing with linear probing, at most half full; its length
    /// is zero or a power of two.
    index: Vec<Bucket>,
    /// Every path in path order, with its slot.
    order: BTreeMap<Rc<str>, u32>,
}

/// The top half of the path's hash: eight bytes at a time, each word mixed
/// in by a rotate and a multiplication (as rustc's FxHasher), the tail
/// padded and marked with its length. Deterministic, as everything in the
/// simulator; a scenario that made paths collide on purpose would only slow
/// its own run.
pub(super) fn tag(path: &str) -> u32 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let mut h: u64 = 0;
    let mut words = path.as_bytes().chunks_exact(8);
    for w in &mut words {
        h = (h.rotate_left(26) ^ u64::from_le_bytes(w.try_into().unwrap_or([0; 8]))).wrapping_mul(K);
    }
    let rest = words.remainder();
    let mut tail = [0u8; 8];
    tail[..rest.len()].copy_from_slice(rest);
    tail[7] ^= rest.len() as u8;
    ((h.rotate_left(26) ^ u64::from_le_bytes(tail)).wrapping_mul(K) >> 32) as u32
}

impl NodeHashMap {
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The bucket a tag starts probing at: its top bits, which depend on
    /// every byte of the path (the index has at most 2^32 buckets).
    fn home(&self, tag: u32) -> usize {
        let bits = self.index.len().trailing_zeros();
        if bits == 0 {
            0
        } else {
            (tag >> (32 - bits)) as usize
        }
    }

    /// The bucket holding `path`, or None.
    fn find(&self, path: &str, t: u32) -> Option<usize> {
        if self.index.is_empty() {
            return None;
        }
        let mask = self.index.len() - 1;
        let mut i = self.home(t);
        loop {
            let b = self.index[i];
            if b.slot == EMPTY {
                return None;
            }
            if b.tag == t && self.slots[b.slot as usize].as_ref().is_some_and(|s| &*s.path == path) {
                return Some(i);
            }
            i = (i + 1) & mask;
        }
    }

    fn slot_of(&self, path: &str) -> Option<u32> {
        self.find(path, tag(path)).map(|i| self.index[i].slot)
    }

    pub fn contains_key(&self, path: &str) -> bool {
        self.slot_of(path).is_some()
    }

    pub fn get(&self, path: &str) -> Option<&ZNode> {
        let slot = self.slot_of(path)?;
        self.slots[slot as usize].as_ref().map(|s| &s.node)
    }

    pub fn get_mut(&mut self, path: &str) -> Option<&mut ZNode> {
        let slot = self.slot_of(path)?;
        self.slots[slot as usize].as_mut().map(|s| &mut s.node)
    }

    /// Adds a node at a path that has none (the caller has checked).
    pub fn insert_new(&mut self, path: &str, node: ZNode) {
        let path: Rc<str> = Rc::from(path);
        let slot = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(Slot { path: path.clone(), node });
                i
            }
            None => {
                self.slots.push(Some(Slot { path: path.clone(), node }));
                (self.slots.len() - 1) as u32
            }
        };
        let t = tag(&path);
        self.order.insert(path, slot);
        if self.order.len() * 2 > self.index.len() {
            self.grow();
        }
        self.place(Bucket { tag: t, slot });
    }

    /// Puts a bucket at the first vacant place from its home.
    fn place(&mut self, bucket: Bucket) {
        let mask = self.index.len() - 1;
        let mut i = self.home(bucket.tag);
        while self.index[i].slot != EMPTY {
            i = (i + 1) & mask;
        }
        self.index[i] = bucket;
    }

    /// Doubles the index (at least 16 buckets) and places every bucket
    /// again: their tags say where.
    fn grow(&mut self) {
        let size = (self.index.len() * 2).max(16);
        let old = std::mem::replace(&mut self.index, vec![VACANT; size]);
        for b in old.into_iter().filter(|b| b.slot != EMPTY) {
            self.place(b);
        }
    }

    pub fn remove(&mut self, path: &str) -> Option<ZNode> {
        let at = self.find(path, tag(path))?;
        let slot = self.index[at].slot;
        self.vacate(at);
        self.order.remove(path);
        self.free.push(slot);
        self.slots[slot as usize].take().map(|s| s.node)
    }

    /// Empties bucket `at`, moving back the buckets after it that probed
    /// past it (backward-shift deletion: no tombstones to skip later).
    fn vacate(&mut self, mut at: usize) {
        let mask = self.index.len() - 1;
        let mut j = at;
        loop {
            j = (j + 1) & mask;
            let b = self.index[j];
            if b.slot == EMPTY {
                break;
            }
            let home = self.home(b.tag);
            // `b` may move to `at` unless its home lies cyclically in (at, j].
            let stays = if at <= j { at < home && home <= j } else { at < home || home <= j };
            if !stays {
                self.index[at] = b;
                at = j;
            }
        }
        self.index[at] = VACANT;
    }

    /// Every node, in path order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ZNode)> {
        self.order.iter().filter_map(|(p, i)| Some((&**p, &self.slots[*i as usize].as_ref()?.node)))
    }

    /// The nodes with paths in `[from, to)`, in path order.
    pub fn range<'a>(&'a self, from: &str, to: Bound<&str>) -> impl Iterator<Item = (&'a str, &'a ZNode)> {
        self.order.range::<str, _>((Bound::Included(from), to)).filter_map(|(p, i)| Some((&**p, &self.slots[*i as usize].as_ref()?.node)))
    }
}

/// Equal when they hold the same nodes at the same paths, whatever slots
/// their histories put them in.
impl PartialEq for NodeHashMap {
    fn eq(&self, other: &NodeHashMap) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for NodeHashMap {}

impl fmt::Debug for NodeHashMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zookeeper::Stat;

    fn node(version: i32) -> ZNode {
        ZNode { data: Vec::new(), stat: Stat { version, ..Stat::default() }, child_creations: 0 }
    }

    /// Inserts and removes in an order that forces probing chains and
    /// backward shifts, checking every path against a plain ordered map.
    #[test]
    fn agrees_with_an_ordered_map_through_inserts_and_removals() {
        let mut map = NodeHashMap::default();
        let mut model: BTreeMap<String, i32> = BTreeMap::new();
        let mut x: u64 = 7;
        for step in 0..20_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let path = format!("/brokers/topics/t/partitions/{}", (x >> 33) % 3000);
            match model.entry(path.clone()) {
                std::collections::btree_map::Entry::Occupied(e) if step % 3 != 0 => {
                    assert_eq!(map.remove(&path).map(|n| n.stat.version), Some(e.remove()));
                }
                std::collections::btree_map::Entry::Occupied(_) => {}
                std::collections::btree_map::Entry::Vacant(e) => {
                    map.insert_new(&path, node(step));
                    e.insert(step);
                }
            }
            if step % 997 == 0 {
                for (p, v) in &model {
                    assert_eq!(map.get(p).map(|n| n.stat.version), Some(*v), "{p}");
                }
            }
        }
        assert_eq!(map.len(), model.len());
        let listed: Vec<(&str, i32)> = map.iter().map(|(p, n)| (p, n.stat.version)).collect();
        let expected: Vec<(&str, i32)> = model.iter().map(|(p, v)| (p.as_str(), *v)).collect();
        assert_eq!(listed, expected);
        assert!(map.get("/brokers/topics/t/partitions/3000").is_none());
        assert!(!map.contains_key("/brokers"));
    }

    #[test]
    fn equal_whatever_the_slots() {
        let (mut a, mut b) = (NodeHashMap::default(), NodeHashMap::default());
        a.insert_new("/x", node(1));
        a.insert_new("/y", node(2));
        b.insert_new("/z", node(9));
        b.insert_new("/y", node(2));
        b.remove("/z");
        b.insert_new("/x", node(1));
        assert_eq!(a, b);
        b.get_mut("/x").expect("there").stat.version = 5;
        assert_ne!(a, b);
    }
}
