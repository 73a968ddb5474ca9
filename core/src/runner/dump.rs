//! `--dump-state`: the final state in the contract's schema.

use super::expect;
use crate::console;
use crate::scenario::Subject;
use crate::sim::Sim;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize)]
pub struct ZnodeDump {
    pub data: String,
    pub ephemeral_owner: i64,
    pub version: i32,
    pub cversion: i32,
    pub aversion: i32,
    pub czxid: i64,
    pub mzxid: i64,
    pub pzxid: i64,
    pub ctime: i64,
    pub mtime: i64,
    pub data_length: i32,
    pub num_children: i32,
    pub children: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SessionDump {
    pub id: i64,
    pub hex: String,
    pub owner: String,
    pub timeout_ms: u64,
    pub last_heard_ms: u64,
    pub ephemerals: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct StateDump {
    pub time_ms: u64,
    pub steps: u64,
    pub seed: u64,
    pub controller: Value,
    pub controller_epoch: Value,
    pub znodes: BTreeMap<String, ZnodeDump>,
    pub brokers: Map<String, Value>,
    pub partitions: Map<String, Value>,
    pub sessions: BTreeMap<String, SessionDump>,
    pub last_zxid: i64,
}

pub fn dump(sim: &Sim) -> StateDump {
    let zk = sim.zk();
    let znodes = zk
        .tree()
        .iter()
        .map(|(path, n)| {
            let d = ZnodeDump {
                data: String::from_utf8_lossy(&n.data).into_owned(),
                ephemeral_owner: n.stat.ephemeral_owner,
                version: n.stat.version,
                cversion: n.stat.cversion,
                aversion: n.stat.aversion,
                czxid: n.stat.czxid,
                mzxid: n.stat.mzxid,
                pzxid: n.stat.pzxid,
                ctime: n.stat.ctime,
                mtime: n.stat.mtime,
                data_length: n.stat.data_length,
                num_children: n.stat.num_children,
                children: n.children.iter().cloned().collect(),
            };
            (path.clone(), d)
        })
        .collect();
    let sessions = zk
        .sessions()
        .values()
        .map(|s| {
            let d = SessionDump {
                id: s.id,
                hex: console::session_hex(s.id),
                owner: s.owner.clone(),
                timeout_ms: s.timeout_ms,
                last_heard_ms: s.last_heard.as_u64(),
                ephemerals: zk.tree().ephemerals_of(s.id),
            };
            (console::session_hex(s.id), d)
        })
        .collect();
    StateDump {
        time_ms: sim.now().as_u64(),
        steps: sim.steps(),
        seed: sim.seed(),
        controller: expect::actual(sim, &Subject::Controller),
        controller_epoch: expect::actual(sim, &Subject::ControllerEpoch),
        znodes,
        brokers: Map::new(),
        partitions: Map::new(),
        sessions,
        last_zxid: zk.last_zxid(),
    }
}

/// The dump as pretty JSON text, ending in a newline.
pub fn dump_json(sim: &Sim) -> String {
    let mut s = serde_json::to_string_pretty(&dump(sim)).unwrap_or_default();
    s.push('\n');
    s
}
