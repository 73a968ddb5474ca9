//! The znode `Stat` structure, field for field as ZooKeeper returns it.

use serde::{Deserialize, Serialize};

/// A zxid: ZooKeeper's transaction id. Every write consumes one, successful or
/// not; a `multi` consumes one for all its ops; reads consume none.
pub type Zxid = i64;

/// A session id. Real standalone servers hand out `(serverId << 56) | counter`;
/// the simulator uses server id 1 and a counter from 1.
pub type SessionId = i64;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stat {
    pub czxid: Zxid,
    pub mzxid: Zxid,
    pub pzxid: Zxid,
    pub ctime: i64,
    pub mtime: i64,
    pub version: i32,
    pub cversion: i32,
    pub aversion: i32,
    pub ephemeral_owner: SessionId,
    pub data_length: i32,
    pub num_children: i32,
}
