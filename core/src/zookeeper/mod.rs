//! The coordination tree: a model of a ZooKeeper 3.8 server, exact in what a
//! client can observe — results and error codes, created names, stats, and
//! which watch events each session receives. A differential test against a
//! real server (`tests/zk_differential/`) is the judge.

pub mod data_tree;
pub mod error;
mod node_hash_map;
pub mod path;
pub mod request;
pub mod server;
pub mod stat;
pub mod watch_manager;

pub use data_tree::{CreateMode, DataTree, ZNode};
pub use error::KeeperError;
pub use request::{MultiFailure, Request, Response, ZkError, ZkResult};
pub use server::{Session, ZooKeeper};
pub use stat::{SessionId, Stat, Zxid};
pub use watch_manager::{EventType, Notification};

#[cfg(test)]
mod tests;
