//! The requests a client can send and the responses it gets back, one variant
//! per ZooKeeper opcode the simulator models.

use super::data_tree::CreateMode;
use super::error::KeeperError;
use super::stat::Stat;
use std::borrow::Cow;
use std::rc::Rc;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Create {
        path: String,
        data: Vec<u8>,
        mode: CreateMode,
    },
    Delete {
        path: String,
        version: i32,
    },
    SetData {
        path: String,
        data: Vec<u8>,
        version: i32,
    },
    /// Only inside a `Multi`: fails the whole multi unless the version matches.
    /// The path borrowed when it is a constant: every fenced controller
    /// write checks `/controller_epoch`, 20,000 times for a topic of 10,000
    /// partitions, and a copy of it each time was that many allocations.
    Check {
        path: Cow<'static, str>,
        version: i32,
    },
    GetData {
        path: String,
        watch: bool,
    },
    /// `exists`: with `watch`, sets a watch even when the node is missing.
    Exists {
        path: String,
        watch: bool,
    },
    GetChildren {
        path: String,
        watch: bool,
    },
    /// Atomic: every op applies, under one zxid, or none does.
    Multi(Vec<Request>),
}

impl Request {
    pub fn op_name(&self) -> &'static str {
        match self {
            Request::Create { .. } => "create",
            Request::Delete { .. } => "delete",
            Request::SetData { .. } => "set",
            Request::Check { .. } => "check",
            Request::GetData { .. } => "get",
            Request::Exists { .. } => "stat",
            Request::GetChildren { .. } => "ls",
            Request::Multi(_) => "multi",
        }
    }

    pub fn path(&self) -> &str {
        match self {
            Request::Create { path, .. }
            | Request::Delete { path, .. }
            | Request::SetData { path, .. }
            | Request::GetData { path, .. }
            | Request::Exists { path, .. }
            | Request::GetChildren { path, .. } => path,
            Request::Check { path, .. } => path,
            Request::Multi(ops) => ops.first().map(|o| o.path()).unwrap_or(""),
        }
    }

    /// Whether the request is a write (consumes a zxid).
    pub fn is_write(&self) -> bool {
        !matches!(self, Request::GetData { .. } | Request::Exists { .. } | Request::GetChildren { .. })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// The created path (with its sequential suffix), shared with the tree.
    Created {
        path: Rc<str>,
    },
    Deleted,
    SetData {
        stat: Stat,
    },
    Checked,
    Data {
        data: Vec<u8>,
        stat: Stat,
    },
    Exists {
        stat: Stat,
    },
    Children {
        children: Vec<String>,
        stat: Stat,
    },
    /// Every op of a committed multi, in order.
    Multi(Vec<Response>),
}

/// A multi that did not commit: which op failed, and how. Kafka's controller
/// looks at the index — a BadVersion on op 0, its `/controller_epoch` check,
/// means another controller was elected (ControllerMovedException).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultiFailure {
    pub index: usize,
    pub error: KeeperError,
    /// Per op: RolledBack before the failure, the error at it,
    /// RuntimeInconsistency after it.
    pub results: Vec<KeeperError>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ZkError {
    Keeper(KeeperError),
    Multi(MultiFailure),
}

impl ZkError {
    /// The code a client sees (for a multi, the failing op's code).
    pub fn code(&self) -> KeeperError {
        match self {
            ZkError::Keeper(e) => *e,
            ZkError::Multi(m) => m.error,
        }
    }
}

impl From<KeeperError> for ZkError {
    fn from(e: KeeperError) -> Self {
        ZkError::Keeper(e)
    }
}

pub type ZkResult = Result<Response, ZkError>;
