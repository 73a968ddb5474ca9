//! ZooKeeper's error codes (`KeeperException.Code`), as a client sees them.

use serde::Serialize;
use std::fmt;

/// A ZooKeeper error result. These are *results*, not failures of the
/// simulator: a `create` that finds the node already there answers
/// `NodeExists`, exactly as the real server does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum KeeperError {
    /// The node (or, for a create, its parent) does not exist.
    NoNode,
    /// A create found the node already there.
    NodeExists,
    /// A conditional set, delete or check named a version that is not the node's.
    BadVersion,
    /// A delete of a node that still has children.
    NotEmpty,
    /// A create under an ephemeral node: ephemerals cannot have children.
    NoChildrenForEphemerals,
    /// The session is closed or expired; nothing it asks for is done.
    SessionExpired,
    /// The request is malformed (an invalid path, a system node).
    BadArguments,
    /// The ACL forbids the operation (only `/zookeeper/config` here).
    NoAuth,
    /// In a failed `multi`: this op was valid but rolled back with the rest.
    RolledBack,
    /// In a failed `multi`: this op came after the failing one and was not tried.
    RuntimeInconsistency,
}

impl KeeperError {
    /// The name used in traces and console output (`KeeperException.Code` in
    /// CamelCase, as zkCli prints it).
    pub fn name(self) -> &'static str {
        match self {
            KeeperError::NoNode => "NoNode",
            KeeperError::NodeExists => "NodeExists",
            KeeperError::BadVersion => "BadVersion",
            KeeperError::NotEmpty => "NotEmpty",
            KeeperError::NoChildrenForEphemerals => "NoChildrenForEphemerals",
            KeeperError::SessionExpired => "SessionExpired",
            KeeperError::BadArguments => "BadArguments",
            KeeperError::NoAuth => "NoAuth",
            KeeperError::RolledBack => "RolledBack",
            KeeperError::RuntimeInconsistency => "RuntimeInconsistency",
        }
    }
}

impl fmt::Display for KeeperError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::error::Error for KeeperError {}
