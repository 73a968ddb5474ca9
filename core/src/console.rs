//! The zkCli-style console: named client sessions a scenario (or a learner at
//! the app's console) drives by hand. Its requests go through the same
//! server as the brokers', so a node written here fires the brokers' watches
//! exactly as a write by a Kafka tool would.

use crate::scenario::ConsoleOp;
use crate::sim::effect::Effects;
use crate::sim::event::{Client, Event};
use crate::small_map::SmallMap;
use crate::trace::Detail;
use crate::trace::Record;
use crate::zookeeper::server::SessionEnd;
use crate::zookeeper::{CreateMode, KeeperError, Notification, Request, Response, SessionId, ZkResult, ZooKeeper};

/// zkCli's default session timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConsoleState {
    Connected,
    Closed,
    Expired,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsoleSession {
    pub name: String,
    pub session: SessionId,
    pub timeout_ms: u64,
    pub state: ConsoleState,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Console {
    sessions: SmallMap<String, ConsoleSession>,
}

/// `0x0100000000000001`: how ZooKeeper prints a session id.
pub fn session_hex(id: SessionId) -> String {
    format!("0x{id:016x}")
}

impl Console {
    pub fn sessions(&self) -> impl Iterator<Item = &ConsoleSession> {
        self.sessions.values()
    }

    pub fn by_session(&self, id: SessionId) -> Option<&ConsoleSession> {
        self.sessions.values().find(|s| s.session == id)
    }

    pub fn is_connected(&self, name: &str) -> bool {
        self.sessions.get(name).map(|s| s.state == ConsoleState::Connected).unwrap_or(false)
    }

    /// Whether a watch event still reaches the session: a closing session
    /// hears the events of its own close; an expired one hears nothing.
    pub fn hears_watches(&self, name: &str) -> bool {
        self.sessions.get(name).map(|s| s.state != ConsoleState::Expired).unwrap_or(false)
    }

    /// `zk-session NAME [timeout=MS]`.
    pub fn open(&mut self, zk: &mut ZooKeeper, now: crate::sim::Millis, name: &str, timeout_ms: u64, fx: &mut Effects) {
        let session = zk.create_session(now, name, timeout_ms);
        let negotiated = zk.session(session).map(|s| s.timeout_ms).unwrap_or(timeout_ms);
        self.sessions.insert(
            name.to_string(),
            ConsoleSession { name: name.to_string(), session, timeout_ms: negotiated, state: ConsoleState::Connected },
        );
        fx.schedule(negotiated / 3, Event::Ping { to_session: session });
        fx.schedule(negotiated, Event::SessionCheck { session });
        let note =
            if negotiated != timeout_ms { format!(" (asked for {timeout_ms} ms; the server allows 4000-40000)") } else { String::new() };
        fx.record(Record {
            actor: name.into(),
            kind: "zk-session",
            summary: format!("session {} opened, timeout {negotiated} ms{note}", session_hex(session)),
            source: "ZooKeeper.<init> → SessionTracker.createSession",
            detail: Detail::new()
                .with("op", &"open")
                .with("ok", &true)
                .with("session", &session_hex(session))
                .with("session_id", &session)
                .with("timeout_ms", &negotiated),
            later: None,
        });
    }

    /// A heartbeat from a live console session keeps it alive.
    pub fn ping(&self, zk: &mut ZooKeeper, now: crate::sim::Millis, session: SessionId, fx: &mut Effects) {
        if let Some(s) = self.by_session(session) {
            if s.state == ConsoleState::Connected && zk.touch(session, now) {
                fx.schedule(s.timeout_ms / 3, Event::Ping { to_session: session });
            }
        }
    }

    /// The server ended this session: no more requests from it.
    pub fn session_ended(&mut self, session: SessionId, how: SessionEnd) {
        if let Some(s) = self.sessions.values_mut().find(|s| s.session == session) {
            s.state = match how {
                SessionEnd::Closed => ConsoleState::Closed,
                SessionEnd::Expired => ConsoleState::Expired,
            };
        }
    }

    /// One `zk NAME ...` line: send, wait for the reply, record it.
    pub fn request(&mut self, zk: &mut ZooKeeper, now: crate::sim::Millis, name: &str, op: &ConsoleOp) -> (Record, Vec<Notification>) {
        let Some(s) = self.sessions.get(name).cloned() else {
            return (error_record(name, op, KeeperError::SessionExpired), Vec::new());
        };
        if s.state != ConsoleState::Connected {
            return (error_record(name, op, KeeperError::SessionExpired), Vec::new());
        }
        match op {
            ConsoleOp::Close | ConsoleOp::Expire => {
                let how = if matches!(op, ConsoleOp::Close) { SessionEnd::Closed } else { SessionEnd::Expired };
                let result = zk.end_session(now, s.session, how);
                self.session_ended(s.session, how);
                let (ok, notes) = match result {
                    Ok(n) => (Ok(()), n),
                    Err(e) => (Err(e), Vec::new()),
                };
                (end_record(name, op, s.session, ok), notes)
            }
            _ => match to_request(op) {
                Some(request) => {
                    let (result, notes) = zk.process(now, s.session, &request);
                    (result_record(name, op, &result, zk), notes)
                }
                None => (error_record(name, op, KeeperError::BadArguments), Vec::new()),
            },
        }
    }
}

/// The ZooKeeper request a console line sends (none for close and expire,
/// which are session operations).
pub fn to_request(op: &ConsoleOp) -> Option<Request> {
    Some(match op {
        ConsoleOp::Create { path, data, ephemeral, sequential } => Request::Create {
            path: path.clone(),
            data: data.as_bytes().to_vec(),
            mode: CreateMode { ephemeral: *ephemeral, sequential: *sequential },
        },
        ConsoleOp::Get { path, watch } => Request::GetData { path: path.clone(), watch: *watch },
        ConsoleOp::Set { path, data, version } => {
            Request::SetData { path: path.clone(), data: data.as_bytes().to_vec(), version: *version }
        }
        ConsoleOp::Delete { path, version } => Request::Delete { path: path.clone(), version: *version },
        ConsoleOp::Ls { path, watch } => Request::GetChildren { path: path.clone(), watch: *watch },
        ConsoleOp::Stat { path, watch } => Request::Exists { path: path.clone(), watch: *watch },
        ConsoleOp::Close | ConsoleOp::Expire => return None,
    })
}

fn op_path(op: &ConsoleOp) -> Option<&str> {
    match op {
        ConsoleOp::Create { path, .. }
        | ConsoleOp::Get { path, .. }
        | ConsoleOp::Set { path, .. }
        | ConsoleOp::Delete { path, .. }
        | ConsoleOp::Ls { path, .. }
        | ConsoleOp::Stat { path, .. } => Some(path),
        ConsoleOp::Close | ConsoleOp::Expire => None,
    }
}

fn source_of(op: &ConsoleOp) -> &'static str {
    match op {
        ConsoleOp::Create { .. } => "ZooKeeper.create",
        ConsoleOp::Get { .. } => "ZooKeeper.getData",
        ConsoleOp::Set { .. } => "ZooKeeper.setData",
        ConsoleOp::Delete { .. } => "ZooKeeper.delete",
        ConsoleOp::Ls { .. } => "ZooKeeper.getChildren",
        ConsoleOp::Stat { .. } => "ZooKeeper.exists",
        ConsoleOp::Close => "ZooKeeper.close",
        ConsoleOp::Expire => "SessionTracker.expire",
    }
}

fn base_detail(op: &ConsoleOp) -> Detail {
    let mut d = Detail::new();
    d.put("op", &op.name());
    if let Some(p) = op_path(op) {
        d.put("path", &p);
    }
    match op {
        ConsoleOp::Get { watch, .. } | ConsoleOp::Ls { watch, .. } | ConsoleOp::Stat { watch, .. } if *watch => {
            d.put("watch", &true);
        }
        _ => {}
    }
    d
}

fn verb_line(op: &ConsoleOp) -> String {
    match op_path(op) {
        Some(p) => format!("{} {p}", op.name()),
        None => op.name().to_string(),
    }
}

fn error_record(name: &str, op: &ConsoleOp, e: KeeperError) -> Record {
    let mut d = base_detail(op);
    d.put("ok", &false);
    d.put("error", &e.name());
    Record {
        actor: name.into(),
        kind: "zk-result",
        summary: format!("{} → {e}", verb_line(op)),
        source: source_of(op),
        detail: d,
        later: None,
    }
}

fn end_record(name: &str, op: &ConsoleOp, session: SessionId, result: Result<(), KeeperError>) -> Record {
    match result {
        Err(e) => error_record(name, op, e),
        Ok(()) => {
            let mut d = base_detail(op);
            d.put("ok", &true);
            d.put("session", &session_hex(session));
            let what = if matches!(op, ConsoleOp::Close) { "closed" } else { "expired by the server" };
            Record {
                actor: name.into(),
                kind: "zk-result",
                summary: format!("session {} {what}; its ephemeral znodes are deleted", session_hex(session)),
                source: source_of(op),
                detail: d,
                later: None,
            }
        }
    }
}

fn result_record(name: &str, op: &ConsoleOp, result: &ZkResult, zk: &ZooKeeper) -> Record {
    let response = match result {
        Err(e) => return error_record(name, op, e.code()),
        Ok(r) => r,
    };
    let mut d = base_detail(op);
    d.put("ok", &true);
    let summary = match response {
        Response::Created { path } => {
            d.put("created", &path);
            let owner = zk.tree().get(path).map(|n| n.stat.ephemeral_owner).unwrap_or(0);
            let kind = if owner != 0 { " (ephemeral)" } else { "" };
            format!("create {} → {path}{kind}", op_path(op).unwrap_or(""))
        }
        Response::Data { data, stat } => {
            d.put("data", &String::from_utf8_lossy(data));
            d.put("stat", stat);
            format!("{} → {:?} (version {})", verb_line(op), String::from_utf8_lossy(data), stat.version)
        }
        Response::Exists { stat } => {
            d.put("stat", stat);
            format!("{} → version {}, {} children", verb_line(op), stat.version, stat.num_children)
        }
        Response::Children { children, .. } => {
            d.put("children", &children);
            format!("{} → [{}]", verb_line(op), children.join(", "))
        }
        Response::SetData { stat } => format!("{} → version {}", verb_line(op), stat.version),
        Response::Deleted => format!("{} → deleted", verb_line(op)),
        Response::Checked | Response::Multi(_) => format!("{} → ok", verb_line(op)),
    };
    Record { actor: name.into(), kind: "zk-result", summary, source: source_of(op), detail: d, later: None }
}

/// The trace record for a watch event reaching a console session.
pub fn watch_record(name: &str, n: &Notification) -> Record {
    Record {
        actor: name.into(),
        kind: "watch-event",
        summary: format!("{} {}", n.event.name(), n.path),
        source: "WatchManager.triggerWatch",
        detail: Detail::new().with("type", &n.event.name()).with("path", &n.path),
        later: None,
    }
}

/// Where a notification goes: the client that owns the session.
pub fn client_of(console: &Console, session: SessionId) -> Option<Client> {
    console.by_session(session).map(|s| Client::Console(s.name.clone()))
}
