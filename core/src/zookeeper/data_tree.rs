//! The znode tree (`org.apache.zookeeper.server.DataTree`): nodes, their stats,
//! and the ephemerals each session owns. It knows nothing of sessions' liveness
//! or of watches: it reports what changed and the server turns that into
//! watch events.

use super::error::KeeperError;
pub use super::node_hash_map::tree_order;
use super::node_hash_map::NodeHashMap;
use super::path;
use super::stat::{SessionId, Stat, Zxid};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZNode {
    pub data: Vec<u8>,
    /// `stat.num_children` counts the children; their names are the paths
    /// one level below (`DataTree::children`), not kept a second time.
    pub stat: Stat,
    /// Successful child creations ever: the next sequential suffix. The real
    /// server's `cversion` also counts deletions, but suffixes do not (measured
    /// on ZooKeeper 3.8.0: create /p/a, delete it, create /p/s- → s-0000000001).
    pub child_creations: i64,
}

impl ZNode {
    fn new(data: Vec<u8>, stat: Stat) -> ZNode {
        ZNode { data, stat, child_creations: 0 }
    }

    pub fn is_ephemeral(&self) -> bool {
        self.stat.ephemeral_owner != 0
    }
}

/// What a write did to the tree, in order; the server derives watch events.
/// A created node's path is the tree's own, shared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Created(Rc<str>),
    Deleted(Rc<str>),
    DataChanged(Rc<str>),
}

/// How to take back one applied write of a `multi` that later failed.
#[derive(Clone, Debug)]
pub enum Undo {
    Created { path: Rc<str>, parent_stat: Stat, parent_creations: i64 },
    Deleted { path: String, node: ZNode, parent_stat: Stat },
    DataSet { path: String, data: Vec<u8>, stat: Stat },
}

/// Where a write happens: the transaction's zxid and time, and where the
/// changes and undo records go. Only a `multi` can be taken back, so a
/// single write keeps no undo records (`undo: None`); changes only matter
/// to watches, so with no watch set they are not kept (`changes: None`).
pub struct Txn<'a> {
    pub zxid: Zxid,
    pub now: i64,
    pub changes: Option<&'a mut Vec<Change>>,
    pub undo: Option<&'a mut Vec<Undo>>,
}

impl Txn<'_> {
    fn note(&mut self, make: impl FnOnce() -> Change) {
        if let Some(changes) = self.changes.as_deref_mut() {
            changes.push(make());
        }
    }

    fn keep_undo(&mut self, make: impl FnOnce() -> Undo) {
        if let Some(undo) = self.undo.as_deref_mut() {
            undo.push(make());
        }
    }
}

/// How a create should name and own the new node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreateMode {
    pub ephemeral: bool,
    pub sequential: bool,
}

pub const SYSTEM_NODES: [&str; 3] = ["/zookeeper", "/zookeeper/config", "/zookeeper/quota"];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataTree {
    /// Shared with the timeline's snapshots of the tree until the next write
    /// (copy on write): a snapshot of a big cluster then costs little to
    /// take and to keep while its ZooKeeper is quiet (issue 9).
    nodes: Rc<NodeHashMap>,
    ephemerals: BTreeMap<SessionId, BTreeSet<String>>,
}

impl Default for DataTree {
    fn default() -> Self {
        Self::new()
    }
}

impl DataTree {
    /// A fresh tree as a new standalone server has it: `/`, `/zookeeper`,
    /// `/zookeeper/config` and `/zookeeper/quota`, with the odd initial
    /// counters the real server reports (root cversion -1, `/zookeeper` -2,
    /// `/zookeeper/config` aversion -1).
    pub fn new() -> DataTree {
        let mut nodes = NodeHashMap::default();
        let root = ZNode::new(Vec::new(), Stat { cversion: -1, num_children: 1, ..Stat::default() });
        let zk = ZNode::new(Vec::new(), Stat { cversion: -2, num_children: 2, ..Stat::default() });
        nodes.insert_new("/", root);
        nodes.insert_new("/zookeeper", zk);
        nodes.insert_new("/zookeeper/config", ZNode::new(Vec::new(), Stat { aversion: -1, ..Stat::default() }));
        nodes.insert_new("/zookeeper/quota", ZNode::new(Vec::new(), Stat::default()));
        DataTree { nodes: Rc::new(nodes), ephemerals: BTreeMap::new() }
    }

    pub fn get(&self, path: &str) -> Option<&ZNode> {
        self.nodes.get(path)
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every node, in tree order ([`tree_order`]: a parent, then its
    /// children's subtrees by name).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ZNode)> {
        self.nodes.iter()
    }

    /// [`DataTree::iter`], each path as the tree holds it (shared, not copied).
    pub fn iter_shared(&self) -> impl Iterator<Item = (&Rc<str>, &ZNode)> {
        self.nodes.iter().shared()
    }

    /// The nodes below `path` (not `path` itself), in tree order.
    pub fn descendants(&self, path: &str) -> impl Iterator<Item = (&str, &ZNode)> {
        self.nodes.subtree(path)
    }

    /// The ephemeral paths a session owns, in path order.
    pub fn ephemerals_of(&self, session: SessionId) -> Vec<String> {
        self.ephemerals.get(&session).map(|s| s.iter().cloned().collect()).unwrap_or_default()
    }

    /// The names of `path`'s children, in order.
    pub fn children(&self, path: &str) -> Vec<&str> {
        self.nodes.children(path)
    }

    fn check_version(node: &ZNode, version: i32) -> Result<(), KeeperError> {
        if version == -1 || version == node.stat.version {
            Ok(())
        } else {
            Err(KeeperError::BadVersion)
        }
    }

    /// `create`, in PrepRequestProcessor's order of checks: parent exists,
    /// node does not exist, parent is not ephemeral. Returns the created path
    /// (with its sequential suffix), as the tree holds it.
    pub fn create(&mut self, path: &str, data: Vec<u8>, mode: CreateMode, owner: SessionId, txn: &mut Txn) -> Result<Rc<str>, KeeperError> {
        if path == "/" {
            return Err(KeeperError::NodeExists);
        }
        // One look-up of the parent and one of the new path; only the
        // insertion descends the parent's children.
        let parent_id = self.nodes.id_of(path::parent(path)).ok_or(KeeperError::NoNode)?;
        let parent = self.nodes.node(parent_id).ok_or(KeeperError::NoNode)?;
        // Only a sequential node's path is new text; the tree keeps its
        // own copy of the path and everything after shares that one.
        let sequential = mode.sequential.then(|| format!("{path}{:010}", parent.child_creations));
        let full = sequential.as_deref().unwrap_or(path);
        // An ephemeral parent has no children, so NodeExists (checked
        // first by the server) cannot apply to it.
        if parent.is_ephemeral() {
            return Err(KeeperError::NoChildrenForEphemerals);
        }
        let (parent_stat, parent_creations) = (parent.stat, parent.child_creations);
        // A tree a keyframe shares is copied before its first write: not
        // for a create that fails.
        if Rc::strong_count(&self.nodes) > 1 && self.nodes.contains_key(full) {
            return Err(KeeperError::NodeExists);
        }
        let owner = if mode.ephemeral { owner } else { 0 };
        let stat = Stat {
            czxid: txn.zxid,
            mzxid: txn.zxid,
            pzxid: txn.zxid,
            ctime: txn.now,
            mtime: txn.now,
            ephemeral_owner: owner,
            data_length: data.len() as i32,
            ..Stat::default()
        };
        let nodes = Rc::make_mut(&mut self.nodes);
        let full = nodes.insert_child(parent_id, full, ZNode::new(data, stat)).ok_or(KeeperError::NodeExists)?;
        if let Some(parent) = nodes.node_mut(parent_id) {
            parent.child_creations += 1;
            parent.stat.cversion += 1;
            parent.stat.pzxid = txn.zxid;
            parent.stat.num_children += 1;
        }
        txn.keep_undo(|| Undo::Created { path: full.clone(), parent_stat, parent_creations });
        if owner != 0 {
            self.ephemerals.entry(owner).or_default().insert(full.to_string());
        }
        txn.note(|| Change::Created(full.clone()));
        Ok(full)
    }

    /// `delete`: node exists, version matches, no children.
    pub fn delete(&mut self, path: &str, version: i32, txn: &mut Txn) -> Result<(), KeeperError> {
        if path == "/" || SYSTEM_NODES.contains(&path) {
            return Err(KeeperError::BadArguments);
        }
        let parent_path = path::parent(path);
        if !self.nodes.contains_key(parent_path) {
            return Err(KeeperError::NoNode);
        }
        let node = self.nodes.get(path).ok_or(KeeperError::NoNode)?;
        Self::check_version(node, version)?;
        if node.stat.num_children != 0 {
            return Err(KeeperError::NotEmpty);
        }
        let node = Rc::make_mut(&mut self.nodes).remove(path).expect("checked above");
        if node.is_ephemeral() {
            if let Some(set) = self.ephemerals.get_mut(&node.stat.ephemeral_owner) {
                set.remove(path);
                if set.is_empty() {
                    self.ephemerals.remove(&node.stat.ephemeral_owner);
                }
            }
        }
        let parent = Rc::make_mut(&mut self.nodes).get_mut(parent_path).expect("checked above");
        let parent_stat = parent.stat;
        txn.keep_undo(|| Undo::Deleted { path: path.to_string(), node, parent_stat });
        parent.stat.cversion += 1;
        parent.stat.pzxid = txn.zxid;
        parent.stat.num_children -= 1;
        txn.note(|| Change::Deleted(path.into()));
        Ok(())
    }

    /// `setData`: node exists, version matches; version + 1.
    pub fn set_data(&mut self, path: &str, data: Vec<u8>, version: i32, txn: &mut Txn) -> Result<Stat, KeeperError> {
        if path == "/zookeeper/config" {
            return Err(KeeperError::NoAuth);
        }
        let node = Rc::make_mut(&mut self.nodes).get_mut(path).ok_or(KeeperError::NoNode)?;
        Self::check_version(node, version)?;
        let old = std::mem::replace(&mut node.data, data);
        let stat = node.stat;
        txn.keep_undo(|| Undo::DataSet { path: path.to_string(), data: old, stat });
        node.stat.data_length = node.data.len() as i32;
        node.stat.version += 1;
        node.stat.mzxid = txn.zxid;
        node.stat.mtime = txn.now;
        txn.note(|| Change::DataChanged(path.into()));
        Ok(node.stat)
    }

    /// `check` (multi only): node exists and version matches.
    pub fn check(&self, path: &str, version: i32) -> Result<(), KeeperError> {
        let node = self.nodes.get(path).ok_or(KeeperError::NoNode)?;
        Self::check_version(node, version)
    }

    /// Takes back applied writes, newest first (a failed `multi`).
    pub fn rollback(&mut self, undo: Vec<Undo>) {
        for u in undo.into_iter().rev() {
            match u {
                Undo::Created { path, parent_stat, parent_creations } => {
                    if let Some(node) = Rc::make_mut(&mut self.nodes).remove(&path) {
                        if node.is_ephemeral() {
                            if let Some(set) = self.ephemerals.get_mut(&node.stat.ephemeral_owner) {
                                set.remove(&*path);
                                if set.is_empty() {
                                    self.ephemerals.remove(&node.stat.ephemeral_owner);
                                }
                            }
                        }
                    }
                    if let Some(parent) = Rc::make_mut(&mut self.nodes).get_mut(path::parent(&path)) {
                        parent.stat = parent_stat;
                        parent.child_creations = parent_creations;
                    }
                }
                Undo::Deleted { path, node, parent_stat } => {
                    if node.is_ephemeral() {
                        self.ephemerals.entry(node.stat.ephemeral_owner).or_default().insert(path.clone());
                    }
                    if let Some(parent) = Rc::make_mut(&mut self.nodes).get_mut(path::parent(&path)) {
                        parent.stat = parent_stat;
                    }
                    Rc::make_mut(&mut self.nodes).insert_new(&path, node);
                }
                Undo::DataSet { path, data, stat } => {
                    if let Some(node) = Rc::make_mut(&mut self.nodes).get_mut(&path) {
                        node.data = data;
                        node.stat = stat;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_are_the_paths_one_level_below_in_name_order() {
        let mut tree = DataTree::new();
        let (mut changes, mode) = (Vec::new(), CreateMode { ephemeral: false, sequential: false });
        for p in ["/a", "/a/b", "/a/b/c", "/a/b/c/d", "/a/b-x", "/a/b.y", "/a/b.y/z", "/a/b0", "/a/c", "/a/c/e", "/ab", "/a-"] {
            let mut txn = Txn { zxid: 1, now: 0, changes: Some(&mut changes), undo: None };
            tree.create(p, Vec::new(), mode, 0, &mut txn).expect(p);
        }
        assert_eq!(tree.children("/a"), ["b", "b-x", "b.y", "b0", "c"]);
        assert_eq!(tree.children("/"), ["a", "a-", "ab", "zookeeper"]);
        assert_eq!(tree.children("/a/b"), ["c"]);
        assert!(tree.children("/a/b/c/d").is_empty());
        assert!(tree.children("/missing").is_empty());
        for (path, node) in tree.iter() {
            assert_eq!(tree.children(path).len() as i32, node.stat.num_children, "{path}");
        }
    }
}
