//! `--dump-state`: the final state in the contract's schema.

use super::expect;
use crate::console;
use crate::scenario::Subject;
use crate::sim::Sim;
use serde::Serialize;
use serde_json::{json, Map, Value};
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
                children: zk.tree().children(path).into_iter().map(String::from).collect(),
            };
            (path.to_string(), d)
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
        brokers: brokers(sim),
        partitions: partitions(sim),
        sessions,
        last_zxid: zk.last_zxid(),
    }
}

fn brokers(sim: &Sim) -> Map<String, Value> {
    let tree = sim.zk().tree();
    sim.brokers()
        .values()
        .map(|b| {
            let epoch = tree.get(&crate::kafka::zk_data::broker_path(b.id)).map(|n| Value::from(n.stat.czxid)).unwrap_or(Value::Null);
            let dirs: Map<String, Value> = b.replica_manager.log_dirs.iter().enumerate().map(|(i, ok)| (i.to_string(), Value::from(if *ok { "online" } else { "offline" }))).collect();
            // topic_configs: per topic with a log here, the effective values
            // that differ from this broker's defaults.
            let (topic_configs, quotas, throttles) = b.dynamic_config_json();
            let v = json!({
                "state": b.state_name(),
                "epoch": epoch,
                "log_dirs": dirs,
                "last_executed_change": b.dynamic_config.last_executed_change,
                "topic_configs": topic_configs,
                "quotas": quotas,
                "throttles": throttles,
                "dynamic_broker_config": {"default": b.dynamic_config.handlers.dynamic_default, "broker": b.dynamic_config.handlers.dynamic_broker},
                "checkpoints": b.replica_manager.checkpoints.iter().map(|(d, t)| (d.to_string(), Value::from(&**t))).collect::<Map<String, Value>>(),
                "checkpoints": b.replica_manager.checkpoints.iter().map(|(d, t)| (d.to_string(), Value::from(&**t))).collect::<Map<String, Value>>(),
                "offline_replicas": b.replica_manager.offline.iter().map(|tp| tp.to_string()).collect::<Vec<_>>(),
                "session": b.zkc.session.map(console::session_hex),
                "controller": b.controller.is_active(),
                "controller_epoch_seen": b.metadata_cache.controller_epoch,
                "metadata_cache": {
                    "controller_id": b.metadata_cache.controller_id,
                    "live_brokers": b.metadata_cache.live_brokers.keys().collect::<Vec<_>>(),
                    "partitions": b.metadata_cache.partitions().map(|(tp, p)| (tp.to_string(), json!({"leader": p.leader, "leader_epoch": p.leader_epoch, "isr": p.isr}))).collect::<Map<String, Value>>(),
                },
                "replicas": b.replica_manager.partitions.iter().map(|(tp, h)| (tp.to_string(), json!({"role": format!("{:?}", h.role), "leader": h.leader, "leader_epoch": h.leader_epoch, "zk_version": h.zk_version, "log_dir": h.log_dir, "leo": h.leo, "hw": h.hw, "isr": h.isr}))).collect::<Map<String, Value>>(),
                "offline_replicas": b.replica_manager.offline.iter().map(|tp| tp.to_string()).collect::<Vec<_>>(),
            });
            (b.id.to_string(), v)
        })
        .collect()
}

/// `partitions`: ZooKeeper's state znodes for leader, ISR, leader epoch and
/// zkVersion; the active controller's state machines for the states.
fn partitions(sim: &Sim) -> Map<String, Value> {
    let controller = sim.active_controller();
    let mut out = Map::new();
    for (tp, a, state) in crate::view::partitions_in_zookeeper(sim) {
        let states: Map<String, Value> = a
            .replicas
            .iter()
            .filter_map(|r| {
                controller.and_then(|c| c.ctx.replica_states.get(&(tp.clone(), *r))).map(|s| (r.to_string(), Value::from(s.name())))
            })
            .collect();
        out.insert(
            tp.to_string(),
            json!({
                "replicas": a.replicas,
                "leader": state.as_ref().map(|s| s.leader),
                "isr": state.as_ref().map(|s| s.isr.clone()),
                "leader_epoch": state.as_ref().map(|s| s.leader_epoch),
                "zk_version": state.as_ref().map(|s| s.zk_version),
                "state": controller.and_then(|c| c.ctx.partition_states.get(&tp)).map(|s| s.name()),
                "replica_states": states,
            }),
        );
    }
    out
}

/// The dump as pretty JSON text, ending in a newline.
pub fn dump_json(sim: &Sim) -> String {
    let mut s = serde_json::to_string_pretty(&dump(sim)).unwrap_or_default();
    s.push('\n');
    s
}
