//! One-shot watches (`org.apache.zookeeper.server.WatchManager`). The server
//! keeps two tables: data watches (set by getData and exists — an exists
//! watch may name a missing node) and child watches (set by getChildren).
//! A watch fires once and is gone; a session holds at most one watch per
//! (table, path), however many reads set it.

use super::data_tree::Change;
use super::node_hash_map;
use super::path;
use super::stat::SessionId;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// ZooKeeper's `Watcher.Event.EventType` for node events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum EventType {
    NodeCreated,
    NodeDeleted,
    NodeDataChanged,
    NodeChildrenChanged,
}

impl EventType {
    pub fn name(self) -> &'static str {
        match self {
            EventType::NodeCreated => "NodeCreated",
            EventType::NodeDeleted => "NodeDeleted",
            EventType::NodeDataChanged => "NodeDataChanged",
            EventType::NodeChildrenChanged => "NodeChildrenChanged",
        }
    }
}

/// A watch notification the server sends to one session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    pub session: SessionId,
    pub event: EventType,
    pub path: String,
}

/// Which read set a data-table watch, for showing it (the server itself does
/// not distinguish them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DataWatchKinds {
    pub data: bool,
    pub exists: bool,
}

#[derive(Clone, Debug, Default)]
pub struct WatchManager {
    data: BTreeMap<String, BTreeMap<SessionId, DataWatchKinds>>,
    child: BTreeMap<String, BTreeSet<SessionId>>,
    /// Counts every change to the watches, so that a picture of them (the
    /// browser's znode rows) can be kept while it stays the same. Not part of
    /// what the watches *are*: equality ignores it.
    revision: u64,
    /// Which paths may be in either table (derived from them, so equality
    /// ignores it too).
    filter: WatchedPaths,
}

/// Buckets of [`WatchedPaths`]: a power of two.
const FILTER_BUCKETS: usize = 1024;

/// A count of the watched paths (keys of either table) per bucket of their
/// hash. A change to a path whose bucket counts none is watched by nobody:
/// nearly every write of a big topic's creation (200,000 znodes, a few
/// hundred watches) then costs no search of the tables (issue 9).
#[derive(Clone, Debug, Default)]
struct WatchedPaths(Vec<u32>);

impl WatchedPaths {
    fn bucket(path: &str) -> usize {
        (node_hash_map::tag(path) as usize) % FILTER_BUCKETS
    }

    fn add(&mut self, path: &str) {
        if self.0.is_empty() {
            self.0 = vec![0; FILTER_BUCKETS];
        }
        self.0[Self::bucket(path)] += 1;
    }

    fn remove(&mut self, path: &str) {
        if let Some(n) = self.0.get_mut(Self::bucket(path)) {
            *n = n.saturating_sub(1);
        }
    }

    /// False only if no table has `path`.
    fn may_hold(&self, path: &str) -> bool {
        self.0.get(Self::bucket(path)).is_some_and(|n| *n > 0)
    }

    /// `path`'s entry in `table`, counted when it is new. The three
    /// methods below are the only ways the tables gain or lose a path, so
    /// the counts stay exact.
    fn entry<'a, V: Default>(&mut self, table: &'a mut BTreeMap<String, V>, path: &str) -> &'a mut V {
        table.entry(path.to_string()).or_insert_with(|| {
            self.add(path);
            V::default()
        })
    }

    /// `path`'s entry taken out of `table`, no longer counted; a path no
    /// bucket counts is not searched for.
    fn take<V>(&mut self, table: &mut BTreeMap<String, V>, path: &str) -> Option<V> {
        if !self.may_hold(path) {
            return None;
        }
        let taken = table.remove(path)?;
        self.remove(path);
        Some(taken)
    }

    /// Keeps the entries of `table` that `keep` (which may change them)
    /// says to keep, no longer counting the others.
    fn retain<V>(&mut self, table: &mut BTreeMap<String, V>, mut keep: impl FnMut(&mut V) -> bool) {
        table.retain(|path, v| {
            let kept = keep(v);
            if !kept {
                self.remove(path);
            }
            kept
        });
    }
}

impl PartialEq for WatchManager {
    fn eq(&self, other: &WatchManager) -> bool {
        self.data == other.data && self.child == other.child
    }
}

impl Eq for WatchManager {}

impl WatchManager {
    /// Changes whenever a watch is set or removed (see `revision`).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// No watch is set at all (a write then fires nothing).
    pub fn is_empty(&self) -> bool {
        self.data.is_empty() && self.child.is_empty()
    }

    pub fn add_data_watch(&mut self, path: &str, session: SessionId) {
        self.data_watch(path, session).data = true;
    }

    pub fn add_exists_watch(&mut self, path: &str, session: SessionId) {
        self.data_watch(path, session).exists = true;
    }

    fn data_watch(&mut self, path: &str, session: SessionId) -> &mut DataWatchKinds {
        self.revision += 1;
        self.filter.entry(&mut self.data, path).entry(session).or_default()
    }

    pub fn add_child_watch(&mut self, path: &str, session: SessionId) {
        self.revision += 1;
        self.filter.entry(&mut self.child, path).insert(session);
    }

    /// A session's connection is gone (close or expiry): its watches go too.
    pub fn remove_session(&mut self, session: SessionId) {
        self.revision += 1;
        self.filter.retain(&mut self.data, |m| {
            m.remove(&session);
            !m.is_empty()
        });
        self.filter.retain(&mut self.child, |s| {
            s.remove(&session);
            !s.is_empty()
        });
    }

    /// Data-table watchers of `path`, for display. A path the filter counts
    /// no watch for is not searched: the browser's znode rows ask this of
    /// every one of a big cluster's 30,000 znodes, nearly all unwatched, and
    /// the two tables' searches were the largest part of building them all
    /// again after a seek (issue 9).
    pub fn data_watchers(&self, path: &str) -> Vec<(SessionId, DataWatchKinds)> {
        if !self.filter.may_hold(path) {
            return Vec::new();
        }
        self.data.get(path).map(|m| m.iter().map(|(s, k)| (*s, *k)).collect()).unwrap_or_default()
    }

    /// Child-table watchers of `path`, for display.
    pub fn child_watchers(&self, path: &str) -> Vec<SessionId> {
        if !self.filter.may_hold(path) {
            return Vec::new();
        }
        self.child.get(path).map(|s| s.iter().copied().collect()).unwrap_or_default()
    }

    /// Every watched path, for display and invariant checks.
    pub fn watched_paths(&self) -> BTreeSet<String> {
        self.data.keys().chain(self.child.keys()).cloned().collect()
    }

    /// Fires the watches a change triggers, as `DataTree` does: a create fires
    /// NodeCreated on the node's data watches and NodeChildrenChanged on the
    /// parent's child watches; a delete fires NodeDeleted on the node's data
    /// *and* child watches (once per session) and NodeChildrenChanged on the
    /// parent; a set fires NodeDataChanged on the node's data watches.
    pub fn trigger(&mut self, change: &Change, out: &mut Vec<Notification>) {
        self.revision += 1;
        match change {
            Change::Created(p) => {
                self.fire_data(p, EventType::NodeCreated, out);
                self.fire_child(path::parent(p), EventType::NodeChildrenChanged, &BTreeSet::new(), out);
            }
            Change::Deleted(p) => {
                let notified = self.fire_data(p, EventType::NodeDeleted, out);
                self.fire_child(p, EventType::NodeDeleted, &notified, out);
                self.fire_child(path::parent(p), EventType::NodeChildrenChanged, &BTreeSet::new(), out);
            }
            Change::DataChanged(p) => {
                self.fire_data(p, EventType::NodeDataChanged, out);
            }
        }
    }

    fn fire_data(&mut self, path: &str, event: EventType, out: &mut Vec<Notification>) -> BTreeSet<SessionId> {
        let Some(watchers) = self.filter.take(&mut self.data, path) else { return BTreeSet::new() };
        for session in watchers.keys() {
            out.push(Notification { session: *session, event, path: path.to_string() });
        }
        watchers.into_keys().collect()
    }

    fn fire_child(&mut self, path: &str, event: EventType, suppress: &BTreeSet<SessionId>, out: &mut Vec<Notification>) {
        let Some(watchers) = self.filter.take(&mut self.child, path) else { return };
        for session in watchers {
            if !suppress.contains(&session) {
                out.push(Notification { session, event, path: path.to_string() });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The filter counts exactly the keys of the two tables, through
    /// watches set, fired and dropped with their sessions.
    fn counted(w: &WatchManager) -> u32 {
        w.filter.0.iter().sum()
    }

    #[test]
    fn the_filter_counts_the_watched_paths() {
        let mut w = WatchManager::default();
        let mut out = Vec::new();
        w.add_data_watch("/a", 1);
        w.add_exists_watch("/a", 2);
        w.add_exists_watch("/a/b", 1);
        w.add_child_watch("/a", 1);
        w.add_child_watch("/c", 2);
        assert_eq!(counted(&w), 4);
        w.trigger(&Change::Created("/a/b".into()), &mut out);
        assert_eq!(out.len(), 2, "NodeCreated on /a/b, NodeChildrenChanged on /a");
        assert_eq!(counted(&w), 2);
        w.trigger(&Change::Created("/x/y".into()), &mut out);
        assert_eq!(out.len(), 2, "nobody watches /x/y or /x");
        w.remove_session(1);
        assert_eq!(counted(&w), 2, "/a keeps session 2's watch, /c is 2's");
        w.remove_session(2);
        assert_eq!(counted(&w), 0);
        assert!(w.is_empty());
    }
}
