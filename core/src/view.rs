//! The view: a serializable picture of the simulation at one step, all the
//! browser app renders. The app never reaches into the simulator; it gets
//! a `View` and sends commands.

use crate::console::session_hex;
use crate::kafka::server::replica_manager::Role;
use crate::kafka::zk_data::{self, LeaderIsrAndControllerEpoch};
use crate::runner::expect::ExpectOutcome;
use crate::runner::Timeline;
use crate::sim::Sim;
use crate::trace::TraceEntry;
use crate::zookeeper::Stat;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// (leader, leader epoch, ISR): a partition's leadership as ZooKeeper's
/// state znode, the controller's context or a metadata cache holds it.
pub type Leadership = (i32, i32, Vec<i32>);

#[derive(Clone, Debug, Serialize)]
pub struct View {
    pub step: u64,
    pub time_ms: u64,
    /// The scenario line being played (0 before the first; tours anchor
    /// their beats to lines).
    pub line: usize,
    /// Steps known so far (the timeline slider's range).
    pub known_steps: u64,
    /// The step at which the script ended, once reached.
    pub end: Option<u64>,
    pub error: Option<String>,
    pub controller: Option<i32>,
    pub controller_epoch: Option<i64>,
    pub znodes: Vec<ZnodeView>,
    pub brokers: Vec<BrokerView>,
    pub partitions: Vec<PartitionView>,
    pub sessions: Vec<SessionView>,
    pub expectations: Vec<ExpectOutcome>,
    /// The step just taken (what the explanation panel shows).
    pub current: Option<TraceEntry>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ZnodeView {
    pub path: String,
    pub name: String,
    pub depth: usize,
    pub data: String,
    pub stat: Stat,
    pub ephemeral: bool,
    /// Who owns an ephemeral: `broker-1`, or a console session's name.
    pub owner: Option<String>,
    pub sequential: bool,
    /// created | changed | deleted (this step), else empty.
    pub change: &'static str,
    pub watchers: Vec<WatcherView>,
    pub children: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct WatcherView {
    pub owner: String,
    /// data | exists | child
    pub kind: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct SessionView {
    pub id: String,
    pub owner: String,
    pub timeout_ms: u64,
    pub expires_in_ms: u64,
    pub ephemerals: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct BrokerView {
    pub id: i32,
    pub state: &'static str,
    /// It believes it is the active controller.
    pub controller: bool,
    /// It believes so with an epoch older than `/controller_epoch`.
    pub zombie: bool,
    pub controller_epoch: Option<i32>,
    pub broker_epoch: Option<i64>,
    pub session: Option<String>,
    pub session_expires_in_ms: Option<u64>,
    pub log_dirs: Vec<bool>,
    pub controller_queue: Vec<String>,
    pub controller_busy_with: Option<String>,
    pub fetch_paused: bool,
    pub host: String,
    pub port: u16,
    /// Where its metadata cache differs from ZooKeeper: partition →
    /// (leader, leader epoch, ISR) as it believes it, or `None` for a
    /// partition it does not know. A partition missing here is cached just
    /// as ZooKeeper holds it: with 50 brokers and 10,000 partitions a full
    /// copy was half a million entries rebuilt at every step (issue 9).
    pub metadata: BTreeMap<String, Option<Leadership>>,
    /// How many partitions its cache holds just as ZooKeeper does.
    pub metadata_agreeing: usize,
    pub metadata_live_brokers: Vec<i32>,
    pub metadata_controller_epoch: i32,
    /// The DynamicConfigManager's lastExecutedChange (-1 before the first).
    pub last_executed_change: i64,
    /// Per topic with a log here, the override set its logs run with.
    pub topic_overrides: BTreeMap<String, BTreeMap<String, String>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReplicaView {
    pub broker: i32,
    pub role: &'static str,
    pub leo: Option<u64>,
    pub hw: Option<u64>,
    pub state: Option<&'static str>,
    pub in_isr: bool,
    pub offline: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct PartitionView {
    pub tp: String,
    pub topic: String,
    pub partition: i32,
    pub replicas: Vec<i32>,
    pub leader: Option<i32>,
    pub isr: Vec<i32>,
    pub leader_epoch: Option<i32>,
    pub zk_version: Option<i32>,
    pub controller_epoch: Option<i32>,
    pub state: Option<&'static str>,
    pub replica_views: Vec<ReplicaView>,
    /// The active controller's cached leader and ISR (it may lag ZooKeeper).
    pub controller_view: Option<Leadership>,
}

/// The view at the timeline's current position.
pub fn view(timeline: &Timeline) -> View {
    let runner = timeline.current();
    let sim = runner.sim();
    let step = timeline.position();
    let previous_zxid = if step == 0 { 0 } else { timeline.zxid_after(step - 1) };
    let current = step.checked_sub(1).and_then(|i| timeline.trace().entries().get(i as usize)).cloned();
    let deleted = deleted_paths(current.as_ref());
    let in_zookeeper = partitions_in_zookeeper(sim);
    View {
        step,
        time_ms: sim.now().as_u64(),
        line: runner.current_line(),
        known_steps: timeline.known_steps(),
        end: timeline.end(),
        error: timeline.error().map(|e| e.to_string()),
        controller: sim.zk().tree().get(zk_data::CONTROLLER).and_then(|n| zk_data::decode_controller(&n.data)),
        controller_epoch: sim
            .zk()
            .tree()
            .get(zk_data::CONTROLLER_EPOCH)
            .and_then(|n| zk_data::decode_controller_epoch(&n.data))
            .map(i64::from),
        znodes: znodes(sim, previous_zxid, &deleted),
        brokers: brokers(sim, &in_zookeeper),
        partitions: partitions(sim, in_zookeeper),
        sessions: sessions(sim),
        expectations: runner.expectations().to_vec(),
        current,
    }
}

fn deleted_paths(entry: Option<&TraceEntry>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(e) = entry {
        let d = &e.detail;
        if d.get("op").and_then(|v| v.as_str()) == Some("delete") && d.get("ok").and_then(|v| v.as_bool()) == Some(true) {
            if let Some(p) = d.get("path").and_then(|v| v.as_str()) {
                out.insert(p.to_string());
            }
        }
        if let Some(list) = d.get("deleted").and_then(|v| v.as_array()) {
            out.extend(list.iter().filter_map(|v| v.as_str()).map(String::from));
        }
    }
    out
}

fn session_owner(sim: &Sim, id: i64) -> String {
    sim.zk().session(id).map(|s| s.owner.clone()).unwrap_or_else(|| session_hex(id))
}

fn znodes(sim: &Sim, previous_zxid: i64, deleted: &BTreeSet<String>) -> Vec<ZnodeView> {
    let zk = sim.zk();
    let mut out: Vec<ZnodeView> = zk
        .tree()
        .iter()
        .map(|(path, n)| {
            let mut watchers: Vec<WatcherView> = Vec::new();
            for (s, k) in zk.watches().data_watchers(path) {
                let owner = session_owner(sim, s);
                if k.data {
                    watchers.push(WatcherView { owner: owner.clone(), kind: "data" });
                }
                if k.exists {
                    watchers.push(WatcherView { owner, kind: "exists" });
                }
            }
            for s in zk.watches().child_watchers(path) {
                watchers.push(WatcherView { owner: session_owner(sim, s), kind: "child" });
            }
            let name = if path == "/" { "/".to_string() } else { crate::zookeeper::path::name(path).to_string() };
            let sequential = name.len() > 10 && name[name.len() - 10..].bytes().all(|b| b.is_ascii_digit());
            ZnodeView {
                path: path.clone(),
                depth: if path == "/" { 0 } else { path.matches('/').count() },
                name,
                data: String::from_utf8_lossy(&n.data).into_owned(),
                stat: n.stat,
                ephemeral: n.is_ephemeral(),
                owner: n.is_ephemeral().then(|| session_owner(sim, n.stat.ephemeral_owner)),
                sequential,
                change: if n.stat.czxid > previous_zxid && previous_zxid > 0 {
                    "created"
                } else if n.stat.mzxid > previous_zxid && previous_zxid > 0 {
                    "changed"
                } else {
                    ""
                },
                watchers,
                children: n.stat.num_children.max(0) as usize,
            }
        })
        .collect();
    // Deleted this step: shown struck through where they stood.
    for p in deleted {
        if zk.tree().get(p).is_none() {
            out.push(ZnodeView {
                path: p.clone(),
                name: crate::zookeeper::path::name(p).to_string(),
                depth: p.matches('/').count(),
                data: String::new(),
                stat: Stat::default(),
                ephemeral: false,
                owner: None,
                sequential: false,
                change: "deleted",
                watchers: Vec::new(),
                children: 0,
            });
        }
    }
    // The tree iterates in path order; only the deleted ones need placing.
    if !deleted.is_empty() {
        out.sort_by(|a, b| a.path.cmp(&b.path));
    }
    out
}

fn sessions(sim: &Sim) -> Vec<SessionView> {
    let now = sim.now();
    sim.zk()
        .sessions()
        .values()
        .map(|s| SessionView {
            id: session_hex(s.id),
            owner: s.owner.clone(),
            timeout_ms: s.timeout_ms,
            expires_in_ms: s.expires_at().since(now),
            ephemerals: sim.zk().tree().ephemerals_of(s.id).len(),
        })
        .collect()
}

/// The partitions ZooKeeper holds, as [`partitions_in_zookeeper`] lists them.
type InZookeeper = Vec<(crate::scenario::TopicPartition, zk_data::ReplicaAssignment, Option<LeaderIsrAndControllerEpoch>)>;

/// Where a metadata cache differs from ZooKeeper (see [`BrokerView::metadata`])
/// and how many partitions agree: one walk over both, which are in the same
/// (topic, partition) order.
fn metadata_differences(
    cache: &crate::kafka::server::metadata_cache::MetadataCache,
    zk: &InZookeeper,
) -> (BTreeMap<String, Option<Leadership>>, usize) {
    let mut out = BTreeMap::new();
    let mut agreeing = 0;
    let mut cached = cache.partitions.iter().peekable();
    let claim = |p: &crate::kafka::messages::UpdateMetadataPartitionState| Some((p.leader, p.leader_epoch, p.isr.clone()));
    for (tp, _, state) in zk {
        while let Some((c, p)) = cached.next_if(|(c, _)| *c < tp) {
            out.insert(c.to_string(), claim(p)); // cached, gone from ZooKeeper
        }
        let truth = state.as_ref().map(|s| (s.leader, s.leader_epoch, &s.isr));
        match cached.next_if(|(c, _)| *c == tp) {
            Some((_, p)) if truth == Some((p.leader, p.leader_epoch, &p.isr)) => agreeing += 1,
            Some((_, p)) => {
                out.insert(tp.to_string(), claim(p));
            }
            None if truth.is_none() => agreeing += 1,
            None => {
                out.insert(tp.to_string(), None);
            }
        }
    }
    for (c, p) in cached {
        out.insert(c.to_string(), claim(p));
    }
    (out, agreeing)
}

fn brokers(sim: &Sim, in_zookeeper: &InZookeeper) -> Vec<BrokerView> {
    let zk_epoch = sim.zk().tree().get(zk_data::CONTROLLER_EPOCH).and_then(|n| zk_data::decode_controller_epoch(&n.data)).unwrap_or(0);
    sim.brokers()
        .values()
        .map(|b| {
            let active = b.is_alive() && b.controller.is_active();
            let session = b.zkc.session.filter(|_| b.is_alive());
            let differences = metadata_differences(&b.metadata_cache, in_zookeeper);
            BrokerView {
                id: b.id,
                state: b.state_name(),
                controller: active,
                zombie: active && b.controller.ctx.epoch < zk_epoch,
                controller_epoch: active.then_some(b.controller.ctx.epoch),
                broker_epoch: sim.zk().tree().get(&zk_data::broker_path(b.id)).map(|n| n.stat.czxid),
                session: session.map(session_hex),
                session_expires_in_ms: session.and_then(|s| sim.zk().session(s)).map(|s| s.expires_at().since(sim.now())),
                log_dirs: b.replica_manager.log_dirs.clone(),
                controller_queue: b.controller.queue.iter().map(|e| e.name().to_string()).collect(),
                controller_busy_with: b.controller.current.clone(),
                fetch_paused: b.replica_manager.fetch_paused_all,
                host: b.info.host.clone(),
                port: b.info.port,
                metadata: differences.0,
                metadata_agreeing: differences.1,
                metadata_live_brokers: b.metadata_cache.live_brokers.keys().copied().collect(),
                metadata_controller_epoch: b.metadata_cache.controller_epoch,
                last_executed_change: b.dynamic_config.last_executed_change,
                topic_overrides: b
                    .dynamic_config
                    .handlers
                    .topic_overrides
                    .iter()
                    .filter(|(t, _)| b.is_alive() && !b.logs_of(t).is_empty())
                    .map(|(t, o)| (t.clone(), o.clone()))
                    .collect(),
            }
        })
        .collect()
}

/// Every partition as ZooKeeper holds it: its assignment (topic znode) and
/// its leader and ISR (state znode, with the znode's version as zkVersion),
/// in topic and partition order. What an observer reads; brokers never do.
pub(crate) fn partitions_in_zookeeper(
    sim: &Sim,
) -> Vec<(crate::scenario::TopicPartition, zk_data::ReplicaAssignment, Option<LeaderIsrAndControllerEpoch>)> {
    let tree = sim.zk().tree();
    let mut out = Vec::new();
    for topic in tree.children(zk_data::BROKER_TOPICS) {
        let Some(assignment) = tree.get(&zk_data::topic_path(topic)).and_then(|n| zk_data::decode_topic(&n.data)) else { continue };
        for (p, a) in assignment {
            let tp = crate::scenario::TopicPartition { topic: topic.into(), partition: p };
            let state =
                tree.get(&zk_data::partition_state_path(&tp)).and_then(|n| LeaderIsrAndControllerEpoch::decode(&n.data, n.stat.version));
            out.push((tp, a, state));
        }
    }
    out
}

fn partitions(sim: &Sim, in_zookeeper: InZookeeper) -> Vec<PartitionView> {
    let controller = sim.active_controller();
    let mut out = Vec::new();
    for (tp, a, state) in in_zookeeper {
        let (topic, p) = (&tp.topic, tp.partition);
        let isr = state.as_ref().map(|s| s.isr.clone()).unwrap_or_default();
        let replica_views = a
            .replicas
            .iter()
            .map(|&r| {
                let broker = sim.brokers().get(&r).filter(|b| b.is_alive());
                let hosted = broker.and_then(|b| b.replica_manager.partitions.get(&tp));
                ReplicaView {
                    broker: r,
                    role: match hosted.map(|h| h.role) {
                        Some(Role::Leader) => "leader",
                        Some(Role::Follower) => "follower",
                        None => "none",
                    },
                    leo: hosted.map(|h| h.leo),
                    hw: hosted.map(|h| h.hw),
                    state: controller.and_then(|c| c.ctx.replica_states.get(&(tp.clone(), r))).map(|s| s.name()),
                    in_isr: isr.contains(&r),
                    offline: broker.map(|b| b.replica_manager.offline.contains(&tp)).unwrap_or(true),
                }
            })
            .collect();
        out.push(PartitionView {
            tp: tp.to_string(),
            topic: topic.to_string(),
            partition: p,
            replicas: a.replicas.clone(),
            leader: state.as_ref().map(|s| s.leader),
            isr,
            leader_epoch: state.as_ref().map(|s| s.leader_epoch),
            zk_version: state.as_ref().map(|s| s.zk_version),
            controller_epoch: state.as_ref().map(|s| s.controller_epoch),
            state: controller.and_then(|c| c.ctx.partition_states.get(&tp)).map(|s| s.name()),
            replica_views,
            controller_view: controller.and_then(|c| c.ctx.leadership.get(&tp)).map(|l| (l.leader, l.leader_epoch, l.isr.clone())),
        });
    }
    out
}
