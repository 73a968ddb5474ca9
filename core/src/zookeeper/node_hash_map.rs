//! The tree's nodes by path (`org.apache.zookeeper.server.NodeHashMap`).
//! The real `DataTree` finds a node by hashing its path; so does this one.
//! An ordered map of paths had been enough, but its keys are long and share
//! their beginnings (`/brokers/topics/t/partitions/1234/state`): each
//! look-up in 200,000 of them was some twenty string comparisons, each a
//! read elsewhere in memory, and a failover reads 100,000 state znodes while
//! each new log reads its topic's config (issue 9). A hash look-up reads the
//! path once.
//!
//! Each node also keeps its children by name, as the real `DataNode` does:
//! listings, views and dumps walk the tree from the root, a parent before
//! its subtree and children in name order ([`tree_order`]). A create or a
//! delete pays one insertion into its parent's children, whose names are
//! short.

use super::data_tree::ZNode;
use super::path;
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::{btree_map, BTreeMap};
use std::fmt;
use std::rc::Rc;

/// An empty bucket of the index.
const EMPTY: u32 = u32::MAX;

/// A node and its path, in its slot, with its children's slots by name.
#[derive(Clone)]
struct Slot {
    path: Rc<str>,
    node: ZNode,
    children: Children,
}

/// Up to this many children stay in a sorted vector.
const FEW_CHILDREN: usize = 32;

/// A node's children's slots by name: a sorted vector while they are few —
/// most nodes have none or one (a partition's `state`), and a B-tree's
/// smallest node holds room for eleven — a B-tree beyond (a topic's
/// `partitions` has thousands). The B-tree boxed: the few nodes with many
/// children pay a hop, and every slot is 8 bytes smaller (the enum is a
/// `Vec`'s 24 bytes, its tag in the vector's spare values).
#[derive(Clone, Default)]
enum Children {
    #[default]
    None,
    Few(Vec<(Name, u32)>),
    #[allow(clippy::box_collection)]
    Many(Box<BTreeMap<Name, u32>>),
}

impl Children {
    fn is_empty(&self) -> bool {
        match self {
            Children::None => true,
            Children::Few(v) => v.is_empty(),
            Children::Many(m) => m.is_empty(),
        }
    }

    fn insert(&mut self, name: Name, slot: u32) {
        match self {
            Children::None => *self = Children::Few(vec![(name, slot)]),
            Children::Few(v) if v.len() < FEW_CHILDREN => match v.binary_search_by(|(n, _)| n.cmp(&name)) {
                Ok(i) => v[i].1 = slot,
                Err(i) => v.insert(i, (name, slot)),
            },
            Children::Few(v) => {
                let mut m: BTreeMap<Name, u32> = std::mem::take(v).into_iter().collect();
                m.insert(name, slot);
                *self = Children::Many(Box::new(m));
            }
            Children::Many(m) => {
                m.insert(name, slot);
            }
        }
    }

    fn remove(&mut self, name: &str) {
        match self {
            Children::None => {}
            Children::Few(v) => {
                if let Ok(i) = v.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
                    v.remove(i);
                }
            }
            Children::Many(m) => {
                m.remove(name);
            }
        }
    }

    fn iter(&self) -> ChildIter<'_> {
        match self {
            Children::None => ChildIter::Few([].iter()),
            Children::Few(v) => ChildIter::Few(v.iter()),
            Children::Many(m) => ChildIter::Many(m.iter()),
        }
    }
}

/// A node's children in name order, with their slots.
enum ChildIter<'a> {
    Few(std::slice::Iter<'a, (Name, u32)>),
    Many(btree_map::Iter<'a, Name, u32>),
}

impl<'a> Iterator for ChildIter<'a> {
    type Item = (&'a Name, u32);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            ChildIter::Few(i) => i.next().map(|(n, s)| (n, *s)),
            ChildIter::Many(i) => i.next().map(|(n, s)| (n, *s)),
        }
    }
}

/// A child's name: the last segment of its path, which it shares, with its
/// first eight bytes beside it. A topic's `partitions` node holds thousands
/// of children in a B-tree, and each of its 10,000 insertions as the topic
/// is created compared some twenty names: read through the shared path,
/// each comparison was a pointer chase and a `memcmp`, about 1,700
/// instructions an insertion (callgrind; issue 9). Partition numbers and
/// most names fit in eight bytes, so one integer comparison decides.
#[derive(Clone)]
struct Name {
    path: Rc<str>,
    start: u32,
    /// The name's first eight bytes, big-endian, zero-padded: ordered as
    /// the names are, as far as it goes (a shorter name pads with the
    /// lowest byte, and a name is ordered before its extensions).
    head: u64,
}

impl Name {
    fn of(path: &Rc<str>) -> Name {
        let name = path::name(path);
        let start = path.len() - name.len();
        let mut head = [0u8; 8];
        let n = name.len().min(8);
        head[..n].copy_from_slice(&name.as_bytes()[..n]);
        Name { path: path.clone(), start: start as u32, head: u64::from_be_bytes(head) }
    }

    fn as_str(&self) -> &str {
        &self.path[self.start as usize..]
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.head == other.head && self.as_str() == other.as_str()
    }
}

impl Eq for Name {}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The order of the names as strings (so that a look-up by `&str` finds
/// them): the heads first, the whole names only when those are equal.
impl Ord for Name {
    fn cmp(&self, other: &Name) -> Ordering {
        self.head.cmp(&other.head).then_with(|| self.as_str().cmp(other.as_str()))
    }
}

/// The order the tree is listed in: a parent before its subtree, siblings
/// by name — the paths compared segment by segment, that is bytewise with
/// '/' before every other byte. (Plain byte order would put `/t-x` between
/// `/t` and `/t/partitions`, and a topic's partitions under the next
/// topic's in the browser's tree.)
pub fn tree_order(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // Only the first byte that differs is ranked (the view merges 30,000
    // rows by this order, most of them equal).
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let rank = |c: u8| if c == b'/' { 0 } else { u16::from(c) + 1 };
    match (a.get(same), b.get(same)) {
        (Some(x), Some(y)) => rank(*x).cmp(&rank(*y)),
        // One is a prefix of the other: the shorter first.
        (x, y) => x.is_some().cmp(&y.is_some()),
    }
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

/// A node's slot, as [`NodeHashMap::id_of`] found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeId(u32);

#[derive(Clone, Default)]
pub struct NodeHashMap {
    /// The nodes; a deleted node's slot is `None` until a create reuses it.
    slots: Vec<Option<Slot>>,
    free: Vec<u32>,
    /// Open addressing with linear probing, at most half full; its length
    /// is zero or a power of two.
    index: Vec<Bucket>,
    len: usize,
    /// The slot of `/`, the root of every walk.
    root: Option<u32>,
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
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
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
        self.probe(path, t).ok()
    }

    /// The bucket holding `path`, or else the vacant bucket where it would
    /// go: without tombstones (backward-shift deletion), a probe for a
    /// path ends at the first vacant bucket, which is where it is placed.
    /// The index must not be empty.
    fn probe(&self, path: &str, t: u32) -> Result<usize, usize> {
        let mask = self.index.len() - 1;
        let mut i = self.home(t);
        loop {
            let b = self.index[i];
            if b.slot == EMPTY {
                return Err(i);
            }
            if b.tag == t && self.slots[b.slot as usize].as_ref().is_some_and(|s| &*s.path == path) {
                return Ok(i);
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
        self.slot(path).map(|s| &s.node)
    }

    pub fn get_mut(&mut self, path: &str) -> Option<&mut ZNode> {
        let slot = self.slot_of(path)?;
        self.slots[slot as usize].as_mut().map(|s| &mut s.node)
    }

    /// Where `path`'s node is held: found by one hash, and good until the
    /// map next loses a node (a removal frees its slot for the next create).
    pub fn id_of(&self, path: &str) -> Option<NodeId> {
        self.slot_of(path).map(NodeId)
    }

    pub fn node(&self, id: NodeId) -> Option<&ZNode> {
        self.slots.get(id.0 as usize)?.as_ref().map(|s| &s.node)
    }

    pub fn node_mut(&mut self, id: NodeId) -> Option<&mut ZNode> {
        self.slots.get_mut(id.0 as usize)?.as_mut().map(|s| &mut s.node)
    }

    /// Adds a node at a path that has none, below a parent that exists
    /// (the caller has checked both; `/` has no parent). A node without
    /// its parent is found by its path but in no walk. Returns the path as
    /// the map holds it, for what else names the new node (the watches'
    /// change, a multi's undo record, the response) to share.
    pub fn insert_new(&mut self, path: &str, node: ZNode) -> Rc<str> {
        let parent = if path == "/" { None } else { self.slot_of(path::parent(path)) };
        let at = self.vacancy(path);
        match at {
            Ok(at) => self.fill(at, path, parent, node),
            // Should the caller be wrong, the node is replaced, as a map would.
            // (The probe answers only with a full slot.)
            Err(slot) => match self.slots[slot as usize].as_mut() {
                Some(s) => {
                    s.node = node;
                    s.path.clone()
                }
                None => Rc::from(path),
            },
        }
    }

    /// Adds `node` at `path` as a child of `parent`, unless a node is there
    /// already (then nothing changes). A create finds its parent once and
    /// hashes its own path once: looking each up again to check, to change
    /// the parent's stat and to link the child was five hashes of long
    /// paths for each of a topic's 20,000 creates (issue 9).
    pub fn insert_child(&mut self, parent: NodeId, path: &str, node: ZNode) -> Option<Rc<str>> {
        let at = self.vacancy(path).ok()?;
        Some(self.fill(at, path, Some(parent.0), node))
    }

    /// The empty bucket where `path` goes (its tag and place), with room
    /// made first so that the bucket stays where it is; or the slot of the
    /// node already there.
    fn vacancy(&mut self, path: &str) -> Result<(usize, u32), u32> {
        if (self.len + 1) * 2 > self.index.len() {
            self.grow();
        }
        let t = tag(path);
        match self.probe(path, t) {
            Ok(at) => Err(self.index[at].slot),
            Err(at) => Ok((at, t)),
        }
    }

    /// Puts a new node in the vacant bucket `at`, linked below its parent.
    fn fill(&mut self, (at, t): (usize, u32), path: &str, parent: Option<u32>, node: ZNode) -> Rc<str> {
        let path: Rc<str> = Rc::from(path);
        let entry = Slot { path: path.clone(), node, children: Children::None };
        let slot = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(entry);
                i
            }
            None => {
                self.slots.push(Some(entry));
                (self.slots.len() - 1) as u32
            }
        };
        match parent.and_then(|p| self.slots[p as usize].as_mut()) {
            Some(p) => {
                p.children.insert(Name::of(&path), slot);
            }
            None if &*path == "/" => self.root = Some(slot),
            // No parent: found by its path, but in no walk (DataTree
            // creates a node only below an existing one).
            None => {}
        }
        self.len += 1;
        self.index[at] = Bucket { tag: t, slot };
        path
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

    /// Takes out a node that has no children (the caller has checked).
    pub fn remove(&mut self, path: &str) -> Option<ZNode> {
        let at = self.find(path, tag(path))?;
        let slot = self.index[at].slot;
        self.vacate(at);
        if path != "/" {
            if let Some(parent) = self.slot_of(path::parent(path)).and_then(|p| self.slots[p as usize].as_mut()) {
                parent.children.remove(path::name(path));
            }
        }
        if self.root == Some(slot) {
            self.root = None;
        }
        self.len -= 1;
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

    /// Every node, in [`tree_order`].
    pub fn iter(&self) -> Walk<'_> {
        Walk { map: self, first: self.root, stack: Vec::new() }
    }

    /// The nodes below `path` (not `path` itself), in [`tree_order`].
    pub fn subtree(&self, path: &str) -> Walk<'_> {
        let stack = self.slot(path).map(|s| vec![s.children.iter()]).unwrap_or_default();
        Walk { map: self, first: None, stack }
    }

    /// The names of `path`'s children, in order.
    pub fn children(&self, path: &str) -> Vec<&str> {
        self.slot(path).map(|s| s.children.iter().map(|(n, _)| n.as_str()).collect()).unwrap_or_default()
    }

    fn slot(&self, path: &str) -> Option<&Slot> {
        self.slots[self.slot_of(path)? as usize].as_ref()
    }
}

/// A walk of the tree, depth first: each node, then its children's
/// subtrees in name order.
pub struct Walk<'a> {
    map: &'a NodeHashMap,
    first: Option<u32>,
    stack: Vec<ChildIter<'a>>,
}

impl<'a> Walk<'a> {
    /// The same walk, each path as the tree holds it: a row that keeps the
    /// path (the browser's znode rows, 30,000 on a big cluster) shares it
    /// instead of copying it (issue 9).
    pub fn shared(self) -> SharedWalk<'a> {
        SharedWalk(self)
    }

    fn next_slot(&mut self) -> Option<&'a Slot> {
        let slot = match self.first.take() {
            Some(s) => s,
            None => loop {
                let top = self.stack.last_mut()?;
                match top.next() {
                    Some((_, s)) => break s,
                    None => {
                        self.stack.pop();
                    }
                }
            },
        };
        let s = self.map.slots[slot as usize].as_ref()?;
        if !s.children.is_empty() {
            self.stack.push(s.children.iter());
        }
        Some(s)
    }
}

impl<'a> Iterator for Walk<'a> {
    type Item = (&'a str, &'a ZNode);

    fn next(&mut self) -> Option<Self::Item> {
        self.next_slot().map(|s| (&*s.path, &s.node))
    }
}

/// [`Walk`] yielding each path's shared string.
pub struct SharedWalk<'a>(Walk<'a>);

impl<'a> Iterator for SharedWalk<'a> {
    type Item = (&'a Rc<str>, &'a ZNode);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next_slot().map(|s| (&s.path, &s.node))
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

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_nodes_children_take_a_vectors_room() {
        assert_eq!(std::mem::size_of::<Children>(), std::mem::size_of::<Vec<(Name, u32)>>());
    }

    fn node(version: i32) -> ZNode {
        ZNode { data: Vec::new(), stat: Stat { version, ..Stat::default() }, child_creations: 0 }
    }

    /// Inserts and removes in an order that forces probing chains and
    /// backward shifts, checking every path against a plain ordered map,
    /// and the walk against the paths sorted in tree order.
    #[test]
    fn agrees_with_an_ordered_map_through_inserts_and_removals() {
        let mut map = NodeHashMap::default();
        let mut model: BTreeMap<String, i32> = BTreeMap::new();
        for p in ["/", "/brokers", "/brokers/topics", "/brokers/topics/t", "/brokers/topics/t-x", "/brokers/topics/t/partitions"] {
            map.insert_new(p, node(-1));
            model.insert(p.to_string(), -1);
        }
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
        let mut expected: Vec<(&str, i32)> = model.iter().map(|(p, v)| (p.as_str(), *v)).collect();
        expected.sort_by(|a, b| tree_order(a.0, b.0));
        assert_eq!(listed, expected);
        let below: Vec<&str> = map.subtree("/brokers/topics/t").map(|(p, _)| p).collect();
        let expected_below: Vec<&str> = expected.iter().map(|(p, _)| *p).filter(|p| p.starts_with("/brokers/topics/t/")).collect();
        assert_eq!(below, expected_below);
        assert_eq!(map.children("/brokers/topics"), ["t", "t-x"]);
        assert!(map.get("/brokers/topics/t/partitions/3000").is_none());
        assert!(!map.contains_key("/zookeeper"));
    }

    /// Children stay in name order as they grow past the vector's room
    /// into a B-tree, and as they are removed from either.
    #[test]
    fn children_in_name_order_few_or_many() {
        let mut map = NodeHashMap::default();
        map.insert_new("/", node(0));
        map.insert_new("/p", node(0));
        let mut names: Vec<String> = Vec::new();
        for i in (0..2 * FEW_CHILDREN).rev() {
            let name = format!("c{i}");
            map.insert_new(&format!("/p/{name}"), node(0));
            names.push(name);
            if i == FEW_CHILDREN + 3 {
                map.remove("/p/c40");
                names.retain(|n| n != "c40");
            }
            names.sort();
            assert_eq!(map.children("/p"), names);
        }
        for n in ["c0", "c63", "c7"] {
            map.remove(&format!("/p/{n}"));
            names.retain(|m| m != n);
        }
        assert_eq!(map.children("/p"), names);
        assert_eq!(map.iter().count(), 2 + names.len());
    }

    /// Names compare as their strings do, whether their first eight bytes
    /// decide or not: shorter and longer than eight, one the other's
    /// beginning, and past ASCII.
    #[test]
    fn names_order_as_their_strings() {
        let names = [
            "",
            "0",
            "1",
            "10",
            "9999",
            "abcdefg",
            "abcdefgh",
            "abcdefgh0",
            "abcdefghi",
            "abcdefgi",
            "partition",
            "partitions",
            "é",
            "éa",
            "zzzzzzzzzzzz",
        ];
        let named: Vec<Name> = names.iter().map(|n| Name::of(&Rc::from(format!("/p/{n}")))).collect();
        for (a, x) in names.iter().zip(&named) {
            for (b, y) in names.iter().zip(&named) {
                assert_eq!(x.cmp(y), a.cmp(b), "{a:?} against {b:?}");
                assert_eq!(x == y, a == b, "{a:?} against {b:?}");
            }
        }
    }

    /// A parent comes before its subtree, and its subtree before a
    /// sibling whose name extends its own (`t`, `t/partitions`, `t-x`).
    #[test]
    fn tree_order_lists_a_subtree_before_the_next_sibling() {
        let mut paths = ["/t-x", "/t/p", "/t", "/t.y/z", "/t0", "/", "/t/p/0", "/t-x/p"];
        paths.sort_by(|a, b| tree_order(a, b));
        assert_eq!(paths, ["/", "/t", "/t/p", "/t/p/0", "/t-x", "/t-x/p", "/t.y/z", "/t0"]);
    }

    /// A second insertion at a path replaces its node: one entry, one
    /// child, as a map would keep.
    #[test]
    fn inserting_at_a_taken_path_replaces_the_node() {
        let mut map = NodeHashMap::default();
        map.insert_new("/", node(0));
        map.insert_new("/a", node(1));
        map.insert_new("/a", node(2));
        assert_eq!(map.len(), 2);
        assert_eq!(map.children("/"), ["a"]);
        assert_eq!(map.get("/a").map(|n| n.stat.version), Some(2));
        assert_eq!(map.iter().count(), 2);
    }

    #[test]
    fn equal_whatever_the_slots() {
        let (mut a, mut b) = (NodeHashMap::default(), NodeHashMap::default());
        a.insert_new("/", node(0));
        b.insert_new("/", node(0));
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
