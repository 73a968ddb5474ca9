//! One-shot watches (`org.apache.zookeeper.server.WatchManager`). The server
//! keeps two tables: data watches (set by getData and exists — an exists
//! watch may name a missing node) and child watches (set by getChildren).
//! A watch fires once and is gone; a session holds at most one watch per
//! (table, path), however many reads set it.

use super::data_tree::Change;
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
        self.revision += 1;
        self.data.entry(path.to_string()).or_default().entry(session).or_default().data = true;
    }

    pub fn add_exists_watch(&mut self, path: &str, session: SessionId) {
        self.revision += 1;
        self.data.entry(path.to_string()).or_default().entry(session).or_default().exists = true;
    }

    pub fn add_child_watch(&mut self, path: &str, session: SessionId) {
        self.revision += 1;
        self.child.entry(path.to_string()).or_default().insert(session);
    }

    /// A session's connection is gone (close or expiry): its watches go too.
    pub fn remove_session(&mut self, session: SessionId) {
        self.revision += 1;
        self.data.retain(|_, m| {
            m.remove(&session);
            !m.is_empty()
        });
        self.child.retain(|_, s| {
            s.remove(&session);
            !s.is_empty()
        });
    }

    /// Data-table watchers of `path`, for display.
    pub fn data_watchers(&self, path: &str) -> Vec<(SessionId, DataWatchKinds)> {
        self.data.get(path).map(|m| m.iter().map(|(s, k)| (*s, *k)).collect()).unwrap_or_default()
    }

    /// Child-table watchers of `path`, for display.
    pub fn child_watchers(&self, path: &str) -> Vec<SessionId> {
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
        let watchers = self.data.remove(path).unwrap_or_default();
        for session in watchers.keys() {
            out.push(Notification { session: *session, event, path: path.to_string() });
        }
        watchers.into_keys().collect()
    }

    fn fire_child(&mut self, path: &str, event: EventType, suppress: &BTreeSet<SessionId>, out: &mut Vec<Notification>) {
        for session in self.child.remove(path).unwrap_or_default() {
            if !suppress.contains(&session) {
                out.push(Notification { session, event, path: path.to_string() });
            }
        }
    }
}
