//! The ZooKeeper server: sessions, the zxid counter, the tree and the watch
//! tables, behind the request interface every client — Kafka broker or
//! console — goes through. A pure state machine: it is told the time, and it
//! returns the response and the watch notifications to deliver.

use super::data_tree::{Change, DataTree, Txn, Undo};
use super::error::KeeperError;
use super::path;
use super::request::{MultiFailure, Request, Response, ZkError, ZkResult};
use super::stat::{SessionId, Zxid};
use super::watch_manager::{Notification, WatchManager};
use crate::sim::time::Millis;
use std::collections::BTreeMap;

/// `tickTime` of a default server: session timeouts are negotiated into
/// `[2 × tickTime, 20 × tickTime]`.
pub const TICK_TIME_MS: u64 = 2000;
pub const MIN_SESSION_TIMEOUT_MS: u64 = 2 * TICK_TIME_MS;
pub const MAX_SESSION_TIMEOUT_MS: u64 = 20 * TICK_TIME_MS;
/// The largest znode data the server accepts (`jute.maxbuffer`, 1 MiB - 1).
pub const MAX_DATA_BYTES: usize = 0xfffff;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub id: SessionId,
    /// Who opened it: `broker-1`, or a console session's name.
    pub owner: String,
    pub timeout_ms: u64,
    /// When the server last heard from the client (request or ping).
    pub last_heard: Millis,
}

impl Session {
    pub fn expires_at(&self) -> Millis {
        self.last_heard.plus(self.timeout_ms)
    }
}

/// Why a session ended, as the trace explains it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionEnd {
    Closed,
    Expired,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZooKeeper {
    tree: DataTree,
    watches: WatchManager,
    sessions: BTreeMap<SessionId, Session>,
    last_zxid: Zxid,
    sessions_created: i64,
    /// Requests served so far, reads included: a measure of work that needs
    /// no clock (`Sim::work`).
    requests: u64,
    /// A planted bug for the invariant checker's own test: requests from a
    /// session that has expired are served anyway (as if the client had
    /// silently reconnected, like the old zkclient library).
    pub serve_expired_sessions: bool,
    /// The list a write notes its changes in, kept empty between writes so
    /// that the next one needs no allocation (a topic's creation writes
    /// 20,000 times in one event; issue 9).
    changes: Vec<Change>,
}

impl ZooKeeper {
    pub fn tree(&self) -> &DataTree {
        &self.tree
    }

    /// Requests served so far, reads included.
    pub fn requests_served(&self) -> u64 {
        self.requests
    }

    pub fn watches(&self) -> &WatchManager {
        &self.watches
    }

    pub fn sessions(&self) -> &BTreeMap<SessionId, Session> {
        &self.sessions
    }

    pub fn session(&self, id: SessionId) -> Option<&Session> {
        self.sessions.get(&id)
    }

    pub fn last_zxid(&self) -> Zxid {
        self.last_zxid
    }

    fn next_zxid(&mut self) -> Zxid {
        self.last_zxid += 1;
        self.last_zxid
    }

    /// createSession: one transaction. The timeout is negotiated into the
    /// server's bounds, as a real server does.
    pub fn create_session(&mut self, now: Millis, owner: &str, requested_timeout_ms: u64) -> SessionId {
        self.next_zxid();
        self.sessions_created += 1;
        let id = (1i64 << 56) | self.sessions_created;
        let timeout_ms = requested_timeout_ms.clamp(MIN_SESSION_TIMEOUT_MS, MAX_SESSION_TIMEOUT_MS);
        self.sessions.insert(id, Session { id, owner: owner.to_string(), timeout_ms, last_heard: now });
        id
    }

    /// A ping (or any request) from a live client renews its session.
    pub fn touch(&mut self, id: SessionId, now: Millis) -> bool {
        match self.sessions.get_mut(&id) {
            Some(s) => {
                s.last_heard = s.last_heard.max(now);
                true
            }
            None => false,
        }
    }

    /// Sessions whose timeout has passed without a word from their client.
    pub fn sessions_due_to_expire(&self, now: Millis) -> Vec<SessionId> {
        self.sessions.values().filter(|s| s.expires_at() <= now).map(|s| s.id).collect()
    }

    /// closeSession (or expiry): one transaction whose zxid deletes every
    /// ephemeral the session owns. On a close the client is still connected
    /// and hears its own watches fire before the reply (measured on 3.8.0);
    /// an expired session's connection is gone, so its watches go first.
    pub fn end_session(&mut self, now: Millis, id: SessionId, how: SessionEnd) -> Result<Vec<Notification>, KeeperError> {
        if self.sessions.remove(&id).is_none() {
            return Err(KeeperError::SessionExpired);
        }
        let zxid = self.next_zxid();
        if how == SessionEnd::Expired {
            self.watches.remove_session(id);
        }
        let mut changes = Vec::new();
        let watched = !self.watches.is_empty();
        for path in self.tree.ephemerals_of(id) {
            let mut txn = Txn { zxid, now: now.as_u64() as i64, changes: watched.then_some(&mut changes), undo: None };
            // Cannot fail: an ephemeral has no children and we pass version -1.
            let _ = self.tree.delete(&path, -1, &mut txn);
        }
        let notifications = self.fire(&changes);
        self.watches.remove_session(id);
        Ok(notifications)
    }

    /// Processes one request from `session` at `now`.
    pub fn process(&mut self, now: Millis, session: SessionId, request: &Request) -> (ZkResult, Vec<Notification>) {
        self.requests += 1;
        if !self.touch(session, now) && !self.serve_expired_sessions {
            return (Err(KeeperError::SessionExpired.into()), Vec::new());
        }
        if !request.is_write() {
            return (self.read(session, request).map_err(ZkError::from), Vec::new());
        }
        let zxid = self.next_zxid();
        let t = now.as_u64() as i64;
        let mut changes = std::mem::take(&mut self.changes);
        // With no watch set, nothing a write changes can fire one.
        let watched = !self.watches.is_empty();
        let result = match request {
            Request::Multi(ops) => self.multi(session, ops, zxid, t, watched.then_some(&mut changes)),
            op => {
                let mut txn = Txn { zxid, now: t, changes: watched.then_some(&mut changes), undo: None };
                self.write(session, op, &mut txn).map_err(ZkError::from)
            }
        };
        let notifications = if result.is_ok() { self.fire(&changes) } else { Vec::new() };
        changes.clear();
        self.changes = changes;
        (result, notifications)
    }

    fn fire(&mut self, changes: &[Change]) -> Vec<Notification> {
        let mut out = Vec::new();
        if self.watches.is_empty() {
            return out;
        }
        for c in changes {
            self.watches.trigger(c, &mut out);
        }
        out
    }

    fn multi(&mut self, session: SessionId, ops: &[Request], zxid: Zxid, now: i64, mut changes: Option<&mut Vec<Change>>) -> ZkResult {
        let mut undo: Vec<Undo> = Vec::new();
        let mut responses = Vec::with_capacity(ops.len());
        for (index, op) in ops.iter().enumerate() {
            // The last op is never taken back: if it fails it changed
            // nothing, and then only the ops before it are (a fenced write,
            // check then the write, keeps no undo record at all).
            let last = index + 1 == ops.len();
            let mut txn = Txn { zxid, now, changes: changes.as_deref_mut(), undo: (!last).then_some(&mut undo) };
            let outcome = if op.is_write() && !matches!(op, Request::Multi(_)) {
                self.write(session, op, &mut txn)
            } else {
                Err(KeeperError::BadArguments)
            };
            match outcome {
                Ok(r) => responses.push(r),
                Err(error) => {
                    self.tree.rollback(undo);
                    if let Some(changes) = changes {
                        changes.clear();
                    }
                    let results = (0..ops.len())
                        .map(|i| match i.cmp(&index) {
                            std::cmp::Ordering::Less => KeeperError::RolledBack,
                            std::cmp::Ordering::Equal => error,
                            std::cmp::Ordering::Greater => KeeperError::RuntimeInconsistency,
                        })
                        .collect();
                    return Err(ZkError::Multi(MultiFailure { index, error, results }));
                }
            }
        }
        Ok(Response::Multi(responses))
    }

    fn write(&mut self, session: SessionId, op: &Request, txn: &mut Txn) -> Result<Response, KeeperError> {
        match op {
            Request::Create { path: p, data, mode } => {
                path::validate_path(p, mode.sequential).map_err(|_| KeeperError::BadArguments)?;
                if data.len() > MAX_DATA_BYTES {
                    return Err(KeeperError::BadArguments);
                }
                let created = self.tree.create(p, data.clone(), *mode, session, txn)?;
                Ok(Response::Created { path: created })
            }
            Request::Delete { path: p, version } => {
                path::validate_path(p, false).map_err(|_| KeeperError::BadArguments)?;
                self.tree.delete(p, *version, txn)?;
                Ok(Response::Deleted)
            }
            Request::SetData { path: p, data, version } => {
                path::validate_path(p, false).map_err(|_| KeeperError::BadArguments)?;
                if data.len() > MAX_DATA_BYTES {
                    return Err(KeeperError::BadArguments);
                }
                let stat = self.tree.set_data(p, data.clone(), *version, txn)?;
                Ok(Response::SetData { stat })
            }
            Request::Check { path: p, version } => {
                // Every path in the tree passed validation when it was
                // created, so only a missing one is checked (BadArguments
                // before NoNode): every fenced controller write checks
                // `/controller_epoch`.
                match self.tree.check(p, *version) {
                    Err(KeeperError::NoNode) => {
                        path::validate_path(p, false).map_err(|_| KeeperError::BadArguments)?;
                        Err(KeeperError::NoNode)
                    }
                    checked => checked.map(|()| Response::Checked),
                }
            }
            _ => Err(KeeperError::BadArguments),
        }
    }

    fn read(&mut self, session: SessionId, op: &Request) -> Result<Response, KeeperError> {
        let p = op.path();
        // One lookup; every path in the tree passed validation when it was
        // created, so only a path that is not there needs checking.
        let node = self.tree.get(p);
        if node.is_none() {
            path::validate_path(p, false).map_err(|_| KeeperError::BadArguments)?;
        }
        match op {
            Request::GetData { watch, .. } => {
                let node = node.ok_or(KeeperError::NoNode)?;
                let response = Response::Data { data: node.data.clone(), stat: node.stat };
                if *watch {
                    self.watches.add_data_watch(p, session);
                }
                Ok(response)
            }
            Request::Exists { watch, .. } => {
                // An exists-watch is set whether or not the node is there:
                // on a missing node it fires NodeCreated.
                if *watch {
                    self.watches.add_exists_watch(p, session);
                }
                let node = node.ok_or(KeeperError::NoNode)?;
                Ok(Response::Exists { stat: node.stat })
            }
            Request::GetChildren { watch, .. } => {
                let node = node.ok_or(KeeperError::NoNode)?;
                let children = self.tree.children(p).into_iter().map(String::from).collect();
                let response = Response::Children { children, stat: node.stat };
                if *watch {
                    self.watches.add_child_watch(p, session);
                }
                Ok(response)
            }
            _ => Err(KeeperError::BadArguments),
        }
    }
}
