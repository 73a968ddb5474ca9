//! `kafka.zookeeper.ZooKeeperClient`: a broker's session with ZooKeeper and
//! its registry of change handlers. As in Kafka, registering a handler sets no
//! watch: a watch is armed only when a read is issued on a path that has a
//! handler, and every handler re-reads its path while it runs, re-arming it.

use super::io::Io;
use super::BrokerId;
use crate::console::session_hex;
use crate::scenario::TopicPartition;
use crate::small_map::SmallMap;
use crate::trace::{Describe, Detail};
use crate::zookeeper::{CreateMode, EventType, KeeperError, Request, Response, SessionId, Stat, ZkError, ZkResult};
use std::collections::BTreeMap;

/// `ZNodeChildChangeHandler`s Kafka registers, by what they do on a change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChildHandler {
    BrokerChange,
    TopicChange,
    TopicDeletion,
    IsrChangeNotification,
    LogDirEventNotification,
    ConfigChangeNotification,
}

/// `ZNodeChangeHandler`s (creation, deletion, data change of one node).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeHandler {
    ControllerChange,
    BrokerModifications(BrokerId),
    PartitionModifications(String),
    PartitionReassignment,
    PreferredReplicaElection,
    PartitionReassignmentIsrChange(TopicPartition),
}

/// What a handler asks for when its watch fires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandlerCall {
    Child(ChildHandler),
    Node(NodeHandler, EventType),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZooKeeperClient {
    pub session: Option<SessionId>,
    /// A planted bug for the invariant checker's own test: controller writes
    /// go out without the `/controller_epoch` check.
    pub fencing_disabled: bool,
    child_handlers: SmallMap<String, ChildHandler>,
    node_handlers: BTreeMap<String, NodeHandler>,
}

/// A write through the controller's fence failed because another controller
/// has been elected since (`ControllerMovedException`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteError {
    ControllerMoved,
    Keeper(KeeperError),
}

impl ZooKeeperClient {
    pub fn register_child_handler(&mut self, path: &str, h: ChildHandler) {
        self.child_handlers.insert(path.to_string(), h);
    }

    pub fn unregister_child_handler(&mut self, path: &str) {
        self.child_handlers.remove(path);
    }

    pub fn register_node_handler(&mut self, path: &str, h: NodeHandler) {
        self.node_handlers.insert(path.to_string(), h);
    }

    pub fn unregister_node_handler(&mut self, path: &str) {
        self.node_handlers.remove(path);
    }

    pub fn unregister_node_handlers_where(&mut self, pred: impl Fn(&NodeHandler) -> bool) {
        self.node_handlers.retain(|_, h| !pred(h));
    }

    pub fn has_child_handler(&self, path: &str) -> bool {
        self.child_handlers.contains_key(path)
    }

    /// `ZooKeeperClientWatcher.process`: which handler a notification reaches.
    pub fn dispatch(&self, event: EventType, path: &str) -> Option<HandlerCall> {
        match event {
            EventType::NodeChildrenChanged => self.child_handlers.get(path).cloned().map(HandlerCall::Child),
            _ => self.node_handlers.get(path).cloned().map(|h| HandlerCall::Node(h, event)),
        }
    }

    /// Sends one request on the session, paying a round trip, and records it.
    pub fn call(&mut self, io: &mut Io, actor: &str, source: &'static str, request: Request) -> ZkResult {
        self.call_then(io, actor, source, request, ZkResult::clone)
    }

    /// [`call`](Self::call), handing the caller only what `take` draws from
    /// the result: the record keeps the result itself, so what the caller
    /// does not need is never copied (a topic's creation makes 20,000
    /// fenced creates whose answers only say "done").
    fn call_then<T>(&mut self, io: &mut Io, actor: &str, source: &'static str, request: Request, take: impl FnOnce(&ZkResult) -> T) -> T {
        io.zk_round_trip();
        let Some(session) = self.session else {
            return take(&Err(ZkError::Keeper(KeeperError::SessionExpired)));
        };
        let (result, notifications) = io.zk.process(io.now, session, &request);
        io.notifications.extend(notifications);
        let taken = take(&result);
        io.record_later(actor, "zk-request", source, || ZkCall { request, result });
        taken
    }

    pub fn get_children(&mut self, io: &mut Io, actor: &str, source: &'static str, path: &str) -> Result<Vec<String>, KeeperError> {
        let watch = self.child_handlers.contains_key(path);
        match self.call(io, actor, source, Request::GetChildren { path: path.into(), watch }) {
            Ok(Response::Children { children, .. }) => Ok(children),
            Ok(_) => Err(KeeperError::BadArguments),
            Err(e) => Err(e.code()),
        }
    }

    pub fn get_data(&mut self, io: &mut Io, actor: &str, source: &'static str, path: &str) -> Result<(Vec<u8>, Stat), KeeperError> {
        self.get_data_then(io, actor, source, path, |read| read.map(|(data, stat)| (data.to_vec(), stat)))
    }

    /// [`get_data`](Self::get_data), handing `take` the data where the
    /// record keeps it: a bulk read decodes each answer without a copy.
    pub fn get_data_then<T>(
        &mut self,
        io: &mut Io,
        actor: &str,
        source: &'static str,
        path: &str,
        take: impl FnOnce(Result<(&[u8], Stat), KeeperError>) -> T,
    ) -> T {
        let watch = self.node_handlers.contains_key(path);
        self.call_then(io, actor, source, Request::GetData { path: path.into(), watch }, |result| {
            take(match result {
                Ok(Response::Data { data, stat }) => Ok((data, *stat)),
                Ok(_) => Err(KeeperError::BadArguments),
                Err(e) => Err(e.code()),
            })
        })
    }

    /// `registerZNodeChangeHandlerAndCheckExistence`: the handler, then an
    /// `exists` that arms its watch — even on a missing node, where a get
    /// would leave none.
    pub fn register_node_handler_and_check_existence(
        &mut self,
        io: &mut Io,
        actor: &str,
        path: &str,
        h: NodeHandler,
    ) -> Result<Option<Stat>, KeeperError> {
        self.register_node_handler(path, h);
        self.exists(io, actor, "KafkaZkClient.registerZNodeChangeHandlerAndCheckExistence", path)
    }

    /// `exists`, arming the watch when a handler is registered.
    pub fn exists(&mut self, io: &mut Io, actor: &str, source: &'static str, path: &str) -> Result<Option<Stat>, KeeperError> {
        let watch = self.node_handlers.contains_key(path);
        match self.call(io, actor, source, Request::Exists { path: path.into(), watch }) {
            Ok(Response::Exists { stat }) => Ok(Some(stat)),
            Ok(_) => Err(KeeperError::BadArguments),
            Err(ZkError::Keeper(KeeperError::NoNode)) => Ok(None),
            Err(e) => Err(e.code()),
        }
    }

    pub fn create(
        &mut self,
        io: &mut Io,
        actor: &str,
        source: &'static str,
        path: &str,
        data: Vec<u8>,
        mode: CreateMode,
    ) -> Result<String, KeeperError> {
        match self.call(io, actor, source, Request::Create { path: path.into(), data, mode }) {
            Ok(Response::Created { path }) => Ok(path.to_string()),
            Ok(_) => Err(KeeperError::BadArguments),
            Err(e) => Err(e.code()),
        }
    }

    /// Creates `path` and any missing parents (persistent, empty), as
    /// `KafkaZkClient.createRecursive` does; NodeExists on the last is an error.
    pub fn create_recursive(
        &mut self,
        io: &mut Io,
        actor: &str,
        source: &'static str,
        path: &str,
        data: Vec<u8>,
    ) -> Result<(), KeeperError> {
        match self.create(io, actor, source, path, data.clone(), CreateMode { ephemeral: false, sequential: false }) {
            Err(KeeperError::NoNode) => {
                let parent = crate::zookeeper::path::parent(path).to_string();
                match self.create_recursive(io, actor, source, &parent, Vec::new()) {
                    Ok(()) | Err(KeeperError::NodeExists) => {}
                    Err(e) => return Err(e),
                }
                self.create(io, actor, source, path, data, CreateMode { ephemeral: false, sequential: false }).map(|_| ())
            }
            other => other.map(|_| ()),
        }
    }

    /// A controller write fenced by the `/controller_epoch` zkVersion:
    /// `multi(check(/controller_epoch, v), op)`. A BadVersion on the check
    /// means another controller was elected. The caller gets what `take`
    /// draws from the write's own response (see [`call_then`](Self::call_then)).
    pub fn fenced<T>(
        &mut self,
        io: &mut Io,
        actor: &str,
        source: &'static str,
        epoch_zk_version: i32,
        op: Request,
        take: impl FnOnce(&Response) -> T,
    ) -> Result<T, WriteError> {
        let fenced = !self.fencing_disabled;
        let request = if fenced {
            Request::Multi(vec![Request::Check { path: super::zk_data::CONTROLLER_EPOCH.into(), version: epoch_zk_version }, op])
        } else {
            op
        };
        self.call_then(io, actor, source, request, |result| match result {
            Ok(Response::Multi(rs)) if fenced => Ok(take(rs.last().unwrap_or(&Response::Checked))),
            Ok(r) => Ok(take(r)),
            Err(ZkError::Multi(f)) if fenced && f.index == 0 => Err(WriteError::ControllerMoved),
            Err(e) => Err(WriteError::Keeper(e.code())),
        })
    }
}

/// The request a step shows: a fenced write's real op, behind its check of
/// `/controller_epoch` (with that check's version), or the request itself.
fn shown(request: &Request) -> (&Request, Option<i32>) {
    if let Request::Multi(ops) = request {
        if let [Request::Check { path, version }, op] = ops.as_slice() {
            if path == super::zk_data::CONTROLLER_EPOCH {
                return (op, Some(*version));
            }
        }
    }
    (request, None)
}

fn describe(request: &Request) -> Detail {
    let (request, fenced_by) = shown(request);
    let mut d = Detail::new();
    match request {
        Request::Multi(ops) => {
            d.put("op", "multi");
            d.put("path", request.path());
            d.put("ops", &ops.iter().map(|o| format!("{} {}", o.op_name(), o.path())).collect::<Vec<_>>());
        }
        Request::Create { path, data, mode } => {
            d.put("op", "create");
            d.put("path", path);
            d.put("mode", mode_name(*mode));
            d.put("data", &String::from_utf8_lossy(data));
        }
        Request::SetData { path, data, version } => {
            d.put("op", "set");
            d.put("path", path);
            d.put("data", &String::from_utf8_lossy(data));
            d.put("version", version);
        }
        Request::Delete { path, version } => {
            d.put("op", "delete");
            d.put("path", path);
            d.put("version", version);
        }
        Request::GetData { path, watch } | Request::Exists { path, watch } | Request::GetChildren { path, watch } => {
            d.put("op", request.op_name());
            d.put("path", path);
            if *watch {
                d.put("watch", &true);
            }
        }
        Request::Check { path, version } => {
            d.put("op", "check");
            d.put("path", path);
            d.put("version", version);
        }
    }
    if let Some(version) = fenced_by {
        d.put("fenced_by_controller_epoch_zk_version", &version);
    }
    d
}

fn mode_name(m: CreateMode) -> &'static str {
    match (m.ephemeral, m.sequential) {
        (false, false) => "PERSISTENT",
        (true, false) => "EPHEMERAL",
        (false, true) => "PERSISTENT_SEQUENTIAL",
        (true, true) => "EPHEMERAL_SEQUENTIAL",
    }
}

/// A request and its outcome, kept for the step that shows them.
#[derive(Debug)]
struct ZkCall {
    request: Request,
    result: ZkResult,
}

impl Describe for ZkCall {
    fn describe(&self) -> (String, Detail) {
        describe_outcome(&self.request, &self.result)
    }
}

/// A request's step: its summary (`op path → outcome`) and detail.
fn describe_outcome(request: &Request, result: &ZkResult) -> (String, Detail) {
    let mut d = describe(request);
    let (shown, fenced_by) = shown(request);
    let (op, path) = (shown.op_name(), shown.path());
    let watch = match shown {
        Request::GetData { watch: true, .. } | Request::Exists { watch: true, .. } | Request::GetChildren { watch: true, .. } => " (watch)",
        _ => "",
    };
    let outcome = match result {
        Err(e) => {
            d.put("ok", &false);
            d.put("error", e.code().name());
            if let ZkError::Multi(f) = e {
                if f.index == 0 && fenced_by.is_some() {
                    d.put("controller_moved", &true);
                    return (format!("{op} {path} → BadVersion on /controller_epoch: another controller was elected"), d);
                }
            }
            e.code().name().to_string()
        }
        Ok(r) => {
            d.put("ok", &true);
            let r = match r {
                Response::Multi(rs) if fenced_by.is_some() => rs.last().cloned().unwrap_or(Response::Checked),
                other => other.clone(),
            };
            match r {
                Response::Created { path } => {
                    d.put("created", &path);
                    format!("created {path}")
                }
                Response::Children { children, .. } => {
                    let shown = summarize_list(&children);
                    d.put("children", &children);
                    shown
                }
                Response::Data { data, stat } => {
                    d.put("data", &String::from_utf8_lossy(&data));
                    d.put("stat", &stat);
                    format!("version {}", stat.version)
                }
                Response::Exists { stat } => {
                    d.put("stat", &stat);
                    format!("exists, version {}", stat.version)
                }
                Response::SetData { stat } => {
                    d.put("stat", &stat);
                    format!("version {}", stat.version)
                }
                Response::Deleted => "deleted".into(),
                Response::Checked | Response::Multi(_) => "ok".into(),
            }
        }
    };
    (format!("{op} {path}{watch} → {outcome}"), d)
}

fn summarize_list(items: &[String]) -> String {
    if items.len() <= 8 {
        format!("[{}]", items.join(", "))
    } else {
        format!("[{}, ... {} in all]", items[..6].join(", "), items.len())
    }
}

/// How a broker's session shows in the trace.
pub fn session_label(session: Option<SessionId>) -> String {
    session.map(session_hex).unwrap_or_else(|| "none".into())
}
