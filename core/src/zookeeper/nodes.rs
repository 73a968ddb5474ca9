//! The znodes of a [`DataTree`](super::DataTree): found by path through a
//! hash table, listed in path order through an ordered set of the paths.
//!
//! A big cluster holds some 200,000 znodes whose paths share long prefixes
//! (`/brokers/topics/T/partitions/`): each descent of an ordered map of them
//! compared some 35 paths byte by byte, and the tree's look-ups — several
//! per write, one per read — were a tenth of a 100,000-partition run
//! (issue 9). Listing still goes by the ordered paths, so nothing that is
//! seen depends on the hash table's order: it is never iterated.

use super::data_tree::ZNode;
use std::collections::{BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Bound;

#[derive(Clone, Default, PartialEq, Eq)]
pub(super) struct Nodes {
    by_path: HashMap<String, ZNode, BuildHasherDefault<PathHasher>>,
    paths: BTreeSet<String>,
}

impl Nodes {
    pub(super) fn get(&self, path: &str) -> Option<&ZNode> {
        self.by_path.get(path)
    }

    pub(super) fn get_mut(&mut self, path: &str) -> Option<&mut ZNode> {
        self.by_path.get_mut(path)
    }

    pub(super) fn contains_key(&self, path: &str) -> bool {
        self.by_path.contains_key(path)
    }

    pub(super) fn len(&self) -> usize {
        self.by_path.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }

    /// Adds or replaces the node at `path`.
    pub(super) fn insert(&mut self, path: String, node: ZNode) {
        if self.by_path.insert(path.clone(), node).is_none() {
            self.paths.insert(path);
        }
    }

    pub(super) fn remove(&mut self, path: &str) -> Option<ZNode> {
        let node = self.by_path.remove(path)?;
        self.paths.remove(path);
        Some(node)
    }

    /// Every node, in path order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&String, &ZNode)> {
        self.with_nodes(self.paths.iter())
    }

    /// The nodes whose paths are between `from` and `to`, in path order.
    pub(super) fn range<'a>(&'a self, from: Bound<&str>, to: Bound<&str>) -> impl Iterator<Item = (&'a String, &'a ZNode)> {
        self.with_nodes(self.paths_in(from, to))
    }

    /// The paths between `from` and `to`, in order, without their nodes.
    pub(super) fn paths_in<'a>(&'a self, from: Bound<&str>, to: Bound<&str>) -> std::collections::btree_set::Range<'a, String> {
        self.paths.range::<str, _>((from, to))
    }

    fn with_nodes<'a>(&'a self, paths: impl Iterator<Item = &'a String>) -> impl Iterator<Item = (&'a String, &'a ZNode)> {
        // Every path in the set has its node (they are added and removed together).
        paths.filter_map(|p| self.by_path.get(p.as_str()).map(|n| (p, n)))
    }
}

impl std::fmt::Debug for Nodes {
    /// In path order, as an ordered map would print.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The hash of a path: FxHash (rustc's), a multiply and a rotate per eight
/// bytes. Fixed, so the table's layout is the same on every run — not that
/// anything observable depends on it.
#[derive(Default)]
pub(super) struct PathHasher(u64);

impl PathHasher {
    const K: u64 = 0xf135_7aea_2e62_a9c5;

    fn add(&mut self, word: u64) {
        self.0 = (self.0 ^ word).wrapping_mul(Self::K);
    }
}

impl Hasher for PathHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    fn write_u8(&mut self, b: u8) {
        self.add(u64::from(b));
    }

    fn finish(&self) -> u64 {
        // The multiply leaves the high bits best mixed; the table takes its
        // bucket from the low ones.
        self.0.rotate_left(26)
    }
}
