//! The view: a serializable picture of the simulation at one step, all the
//! browser app renders. The app never reaches into the simulator; it gets
//! a `View` and sends commands.

use crate::console::session_hex;
use crate::kafka::broker_ids::BrokerIds;
use crate::kafka::server::metadata_cache::Layout;
use crate::kafka::server::replica_manager::Role;
use crate::kafka::zk_data::{self, LeaderIsrAndControllerEpoch};
use crate::runner::expect::ExpectOutcome;
use crate::runner::Timeline;
use crate::scenario::TopicPartition;
use crate::sim::Sim;
use crate::trace::TraceEntry;
use crate::zookeeper::data_tree::tree_order;
use crate::zookeeper::Stat;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::rc::Rc;

/// (leader, leader epoch, ISR): a partition's leadership as ZooKeeper's
/// state znode, the controller's context or a metadata cache holds it.
pub type Leadership = (i32, i32, BrokerIds);

#[derive(Clone, Debug, PartialEq, Serialize)]
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
    /// Shared with the views before it while ZooKeeper and its watches stay
    /// the same (most steps are fetch rounds that write nothing), so a step
    /// on a big cluster neither rebuilds nor redraws the tree (issue 9).
    pub znodes: Rc<Vec<Rc<ZnodeView>>>,
    pub brokers: Vec<BrokerView>,
    /// The partitions the [`Window`] asked for (all, unless it says
    /// otherwise), in topic and partition order.
    pub partitions: Vec<PartitionView>,
    /// How many partitions ZooKeeper holds, and how many of them the
    /// window's filter matches.
    pub partition_count: usize,
    pub partition_matches: usize,
    /// The partitions worth a "what each actor believes" table, at most
    /// [`BELIEF_TABLES`]: those where the controller or a running broker holds
    /// another leadership than ZooKeeper first, then the first others.
    pub belief_partitions: Vec<PartitionView>,
    pub sessions: Vec<SessionView>,
    pub expectations: Vec<ExpectOutcome>,
    /// The step just taken (what the explanation panel shows).
    pub current: Option<TraceEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ZnodeView {
    /// Shared with the tree (a big cluster's rows are 30,000 paths).
    pub path: Rc<str>,
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

impl ZnodeView {
    /// The znode's name: its path's last component (`/` for the root).
    pub fn name(&self) -> &str {
        znode_name(&self.path)
    }
}

/// A path's last component, and `/` for the root (whose last component is empty).
fn znode_name(path: &str) -> &str {
    if path == "/" {
        "/"
    } else {
        crate::zookeeper::path::name(path)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WatcherView {
    pub owner: String,
    /// data | exists | child
    pub kind: &'static str,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionView {
    pub id: String,
    pub owner: String,
    pub timeout_ms: u64,
    pub expires_in_ms: u64,
    pub ephemerals: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
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
    /// Shared with the views before it while neither ZooKeeper nor the cache
    /// changed.
    pub metadata: Rc<Differences>,
    /// How many partitions its cache holds just as ZooKeeper does.
    pub metadata_agreeing: usize,
    pub metadata_live_brokers: Vec<i32>,
    pub metadata_controller_epoch: i32,
    /// The DynamicConfigManager's lastExecutedChange (-1 before the first).
    pub last_executed_change: i64,
    /// Per topic with a log here, the override set its logs run with.
    pub topic_overrides: BTreeMap<String, BTreeMap<String, String>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplicaView {
    pub broker: i32,
    pub role: &'static str,
    pub leo: Option<u64>,
    pub hw: Option<u64>,
    pub state: Option<&'static str>,
    pub in_isr: bool,
    pub offline: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PartitionView {
    pub tp: String,
    pub topic: String,
    pub partition: i32,
    pub replicas: BrokerIds,
    pub leader: Option<i32>,
    pub isr: BrokerIds,
    pub leader_epoch: Option<i32>,
    pub zk_version: Option<i32>,
    pub controller_epoch: Option<i32>,
    pub state: Option<&'static str>,
    pub replica_views: Vec<ReplicaView>,
    /// The active controller's cached leader and ISR (it may lag ZooKeeper).
    pub controller_view: Option<Leadership>,
}

/// What one view lends the next: the parts of the picture that cannot have
/// changed, each under the key that says so. A timeline replays the same
/// steps to the same states, so a key read off the state (a zxid, a count of
/// changes) names one picture — until the learner acts and the future
/// branches: then the cache must be dropped ([`ViewCache::default`]).
#[derive(Clone, Debug, Default)]
pub struct ViewCache {
    /// The partitions in ZooKeeper, decoded, as of a last zxid.
    zookeeper: Option<(i64, Rc<InZookeeper>)>,
    /// Counts the changes of what ZooKeeper holds about partitions: two
    /// zxids far apart often hold the same (a seek across the steady fetch
    /// rounds writes none), and the brokers' differences from it stand.
    truth: u64,
    /// Decoded partition state znodes by topic and partition: (mzxid,
    /// state). Kept when a view does not read them (see [`UNREAD_TOPICS_KEPT`]).
    states: BTreeMap<String, Vec<DecodedState>>,
    /// Decoded topic znodes (the replica assignment) by path: (mzxid,
    /// assignment). A 10,000-partition topic's is 200 KB of JSON.
    topics: BTreeMap<String, (i64, Rc<Assignment>)>,
    /// The znode rows, as of (last zxid, the step's previous zxid, watches
    /// revision, the step's deletions): the steps of one event share their
    /// zxids, and only the deleted rows tell them apart.
    znodes: Option<(ZnodesKey, Rc<Vec<Rc<ZnodeView>>>)>,
    /// Per broker: (partitions revision, cache updates) → the differences and the count agreeing.
    metadata: BTreeMap<i32, (MetadataKey, Rc<Differences>, usize)>,
    /// The differences of each cache layout met since the partitions
    /// revision `truth` last moved: brokers whose caches share one layout
    /// share one comparison (fifty comparisons of 10,000 partitions were
    /// most of a view after a seek, issue 9).
    layouts: Vec<(u64, Layout, Rc<Differences>, usize)>,
}

/// A decoded state znode: (partition, mzxid, state).
type DecodedState = (i32, i64, Option<LeaderIsrAndControllerEpoch>);

/// Topics a view did not read whose decoded znodes its cache keeps for the
/// next (beyond that, only the topics read stay).
const UNREAD_TOPICS_KEPT: usize = 16;

/// Cache layouts whose differences are kept at most (the oldest go first):
/// more than a cluster's brokers, few enough that the request lists they
/// keep alive stay few.
const LAYOUTS_KEPT: usize = 64;

/// (the revision of ZooKeeper's partitions, the broker's count of metadata
/// cache updates).
type MetadataKey = (u64, u64);

/// (last zxid, the step's previous zxid, watches revision, deleted paths).
type ZnodesKey = (i64, i64, u64, BTreeSet<String>);

/// Where a metadata cache differs from ZooKeeper (see [`BrokerView::metadata`]):
/// each such partition with what the cache holds for it, in (topic,
/// partition) order. A sorted list, built in the order of the walk that
/// finds them: a map keyed by each partition's name, formatted, was a
/// quarter of the view of a topic's creation, where all 10,000 partitions
/// are unknown to every cache at first (issue 9).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Differences(Vec<(TopicPartition, Option<Leadership>)>);

impl Differences {
    /// What the cache holds for `topic`-`partition`, if it differs from
    /// ZooKeeper (`Some(None)`: the cache does not know the partition).
    pub fn get(&self, topic: &str, partition: i32) -> Option<&Option<Leadership>> {
        self.position(topic, partition).ok().map(|i| &self.0[i].1)
    }

    pub fn contains(&self, tp: &TopicPartition) -> bool {
        self.position(&tp.topic, tp.partition).is_ok()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets what the cache holds for `tp`, keeping the order.
    pub fn insert(&mut self, tp: TopicPartition, claim: Option<Leadership>) {
        match self.position(&tp.topic, tp.partition) {
            Ok(i) => self.0[i].1 = claim,
            Err(i) => self.0.insert(i, (tp, claim)),
        }
    }

    /// The next partition of an ordered walk: at the end, no search.
    fn push(&mut self, tp: TopicPartition, claim: Option<Leadership>) {
        match self.0.last() {
            Some((last, _)) if *last >= tp => self.insert(tp, claim),
            _ => self.0.push((tp, claim)),
        }
    }

    fn position(&self, topic: &str, partition: i32) -> Result<usize, usize> {
        self.0.binary_search_by(|(tp, _)| (tp.topic.as_str(), tp.partition).cmp(&(topic, partition)))
    }
}

impl FromIterator<(TopicPartition, Option<Leadership>)> for Differences {
    fn from_iter<I: IntoIterator<Item = (TopicPartition, Option<Leadership>)>>(items: I) -> Differences {
        let mut out = Differences::default();
        for (tp, claim) in items {
            out.insert(tp, claim);
        }
        out
    }
}

/// As a map from each partition's name (`t-0`) to the cache's claim.
impl Serialize for Differences {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(tp, claim)| (tp.to_string(), claim)))
    }
}

/// At most this many partitions get a belief table.
pub const BELIEF_TABLES: usize = 12;

/// Which partition rows a view carries: the ones whose name contains
/// `filter`, the first `limit` of them. A page shows a few hundred rows of a
/// 10,000-partition topic; building all of them at every step cost more
/// than drawing the page (issue 9).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Window {
    pub filter: String,
    pub limit: usize,
}

impl Default for Window {
    /// Every partition.
    fn default() -> Window {
        Window { filter: String::new(), limit: usize::MAX }
    }
}

/// The view at the timeline's current position, every partition in it.
pub fn view(timeline: &Timeline) -> View {
    view_cached(timeline, &mut ViewCache::default(), &Window::default())
}

/// [`view`] with the partitions `window` asks for, reusing what `cache` holds
/// from earlier views of this timeline and keeping what this one built for
/// the next.
pub fn view_cached(timeline: &Timeline, cache: &mut ViewCache, window: &Window) -> View {
    let runner = timeline.current();
    let sim = runner.sim();
    let step = timeline.position();
    let previous_zxid = if step == 0 { 0 } else { timeline.zxid_after(step - 1) };
    let current = step.checked_sub(1).and_then(|i| timeline.trace().entries().get(i as usize)).cloned();
    let deleted = deleted_paths(current.as_ref());
    let in_zookeeper = cache.in_zookeeper(sim);
    let brokers = brokers(sim, &in_zookeeper, cache);
    let (rows, partition_matches) = window_rows(&in_zookeeper, window);
    let belief_rows = belief_rows(sim, &in_zookeeper, &brokers);
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
        znodes: cache.znodes(sim, previous_zxid, &deleted),
        partitions: partitions(sim, &in_zookeeper, &rows),
        partition_count: in_zookeeper.len(),
        partition_matches,
        belief_partitions: partitions(sim, &in_zookeeper, &belief_rows),
        brokers,
        sessions: sessions(sim),
        expectations: runner.expectations().to_vec(),
        current,
    }
}

impl ViewCache {
    fn in_zookeeper(&mut self, sim: &Sim) -> Rc<InZookeeper> {
        let zxid = sim.zk().last_zxid();
        let since = match &self.zookeeper {
            Some((at, decoded)) if *at == zxid => return decoded.clone(),
            // Forward on the same timeline (a seek back, or the learner's
            // action, which drops the cache, changes the history).
            Some((at, _)) if zxid > *at => written_since(sim, *at),
            _ => Written::Anything,
        };
        let decoded = match (since, self.zookeeper.take()) {
            (Written::Nothing, Some((_, decoded))) => decoded,
            (Written::States(paths), Some((_, decoded))) => {
                let (decoded, changed) = with_states(&decoded, paths, sim);
                self.truth += u64::from(changed);
                decoded
            }
            (_, previous) => {
                let fresh = self.decode_partitions(sim);
                match previous {
                    Some((_, same)) if *same == fresh => same,
                    _ => {
                        self.truth += 1;
                        Rc::new(fresh)
                    }
                }
            }
        };
        self.zookeeper = Some((zxid, decoded.clone()));
        decoded
    }

    /// [`partitions_in_zookeeper`], decoding only the znodes written since
    /// they were last decoded (each decode is a JSON parse; a failover
    /// writes a few at a time). A topic's state znodes are found in one walk
    /// of its subtree, not looked up path by path in the tree of every znode,
    /// and decoded ones stay cached when this view does not read them: a
    /// seek to before a topic existed and back found its 10,000 states and
    /// its assignment to decode again (issue 9).
    fn decode_partitions(&mut self, sim: &Sim) -> InZookeeper {
        let tree = sim.zk().tree();
        let mut out = Vec::new();
        let mut read = BTreeSet::new();
        for topic in tree.children(zk_data::BROKER_TOPICS) {
            let path = zk_data::topic_path(topic);
            let Some(node) = tree.get(&path) else { continue };
            let assignment = match self.topics.get(&path) {
                Some((mzxid, decoded)) if *mzxid == node.stat.mzxid => decoded.clone(),
                _ => match zk_data::decode_topic(&node.data) {
                    Some(decoded) => {
                        let decoded = Rc::new(decoded);
                        self.topics.insert(path.clone(), (node.stat.mzxid, decoded.clone()));
                        decoded
                    }
                    None => continue,
                },
            };
            read.insert(path);
            // The topic's state znodes in partition order (the walk is in
            // tree order: 0, 1, 10, 100, …).
            let under = zk_data::partitions_path(topic);
            let mut found: Vec<(i32, &crate::zookeeper::ZNode)> = tree
                .descendants(&under)
                .filter_map(|(p, n)| Some((zk_data::parse_partition_state_suffix(p.strip_prefix(under.as_str())?.strip_prefix('/')?)?, n)))
                .collect();
            found.sort_unstable_by_key(|(i, _)| *i);
            let mut found = found.into_iter().peekable();
            // The decoded states, like the assignment, in partition order:
            // three sorted lists walked side by side.
            let before = self.states.remove(topic).unwrap_or_default();
            let mut before = before.into_iter().peekable();
            let mut decoded = Vec::with_capacity(assignment.len());
            let topic_name = topic.to_string();
            let topic: crate::scenario::Topic = topic.into();
            for (&p, a) in assignment.iter() {
                while found.next_if(|(i, _)| *i < p).is_some() {}
                while before.next_if(|(i, ..)| *i < p).is_some() {}
                let known = before.next_if(|(i, ..)| *i == p);
                let state = found.next_if(|(i, _)| *i == p).and_then(|(_, node)| {
                    let state = match known {
                        Some((_, mzxid, state)) if mzxid == node.stat.mzxid => state,
                        _ => LeaderIsrAndControllerEpoch::decode(&node.data, node.stat.version),
                    };
                    decoded.push((p, node.stat.mzxid, state.clone()));
                    state
                });
                out.push((crate::scenario::TopicPartition { topic: topic.clone(), partition: p }, a.clone(), state));
            }
            self.states.insert(topic_name, decoded);
        }
        // What was not read stays, within bounds: topics a seek will find
        // again, not every topic a long run deleted.
        if self.topics.len() > read.len() + UNREAD_TOPICS_KEPT {
            self.topics.retain(|path, _| read.contains(path));
            self.states.retain(|topic, _| read.contains(&zk_data::topic_path(topic)));
        }
        out
    }

    fn znodes(&mut self, sim: &Sim, previous_zxid: i64, deleted: &BTreeSet<String>) -> Rc<Vec<Rc<ZnodeView>>> {
        let key = (sim.zk().last_zxid(), previous_zxid, sim.zk().watches().revision(), deleted.clone());
        match self.znodes.take() {
            Some((at, rows)) if at == key => {
                self.znodes = Some((at, rows.clone()));
                rows
            }
            before => {
                let rows = Rc::new(znodes(sim, previous_zxid, deleted, before.as_ref().map(|(_, rows)| rows.as_slice())));
                self.znodes = Some((key, rows.clone()));
                rows
            }
        }
    }

    fn metadata_differences(&mut self, broker: &crate::kafka::server::Broker, in_zookeeper: &InZookeeper) -> (Rc<Differences>, usize) {
        let key = (self.truth, broker.metadata_cache.updates);
        match self.metadata.get(&broker.id) {
            Some((at, differences, agreeing)) if *at == key => (differences.clone(), *agreeing),
            _ => {
                let layout = broker.metadata_cache.layout();
                self.layouts.retain(|(truth, ..)| *truth == self.truth);
                let (differences, agreeing) = match self.layouts.iter().find(|(_, l, ..)| *l == layout) {
                    Some((_, _, differences, agreeing)) => (differences.clone(), *agreeing),
                    None => {
                        let (differences, agreeing) = metadata_differences(&broker.metadata_cache, in_zookeeper);
                        let differences = Rc::new(differences);
                        if self.layouts.len() >= LAYOUTS_KEPT {
                            self.layouts.remove(0);
                        }
                        self.layouts.push((self.truth, layout, differences.clone(), agreeing));
                        (differences, agreeing)
                    }
                };
                self.metadata.insert(broker.id, (key, differences.clone(), agreeing));
                (differences, agreeing)
            }
        }
    }
}

/// What was written under `/brokers/topics` since a zxid.
enum Written {
    /// Nothing: the decoded partitions stand.
    Nothing,
    /// Only these partition state znodes' data (a leader election, an ISR
    /// change): patch them into the decoded partitions.
    States(Vec<String>),
    /// Anything else (a topic created, deleted or reassigned): decode again.
    Anything,
}

/// Reads the stats under `/brokers/topics` for writes after `zxid`: a
/// created or deleted node moves its parent's pzxid, set data its mzxid.
/// A walk of the stats is far cheaper than decoding every partition again,
/// which at each ZooKeeper write of a big cluster was most of its view
/// (issue 9).
fn written_since(sim: &Sim, zxid: i64) -> Written {
    let tree = sim.zk().tree();
    let Some(root) = tree.get(zk_data::BROKER_TOPICS) else { return Written::Anything };
    if root.stat.pzxid > zxid || root.stat.mzxid > zxid {
        return Written::Anything;
    }
    let mut states = Vec::new();
    for (path, node) in tree.descendants(zk_data::BROKER_TOPICS) {
        if node.stat.pzxid > zxid || (node.stat.mzxid > zxid && !path.ends_with("/state")) {
            return Written::Anything;
        }
        if node.stat.mzxid > zxid {
            states.push(path.to_string());
        }
    }
    if states.is_empty() {
        Written::Nothing
    } else {
        Written::States(states)
    }
}

/// `decoded` with the state znodes at `paths` read again, and whether any
/// of them changed what it holds.
fn with_states(decoded: &Rc<InZookeeper>, paths: Vec<String>, sim: &Sim) -> (Rc<InZookeeper>, bool) {
    let tree = sim.zk().tree();
    let mut patched: Option<InZookeeper> = None;
    for path in paths {
        let Some((topic, partition)) = zk_data::parse_partition_state_path(&path) else { continue };
        let Ok(i) = decoded.binary_search_by(|(tp, _, _)| (tp.topic.as_str(), tp.partition).cmp(&(topic, partition))) else { continue };
        let state = tree.get(&path).and_then(|n| LeaderIsrAndControllerEpoch::decode(&n.data, n.stat.version));
        if decoded[i].2 != state {
            patched.get_or_insert_with(|| decoded.as_ref().clone())[i].2 = state;
        }
    }
    match patched {
        Some(p) => (Rc::new(p), true),
        None => (decoded.clone(), false),
    }
}

fn deleted_paths(entry: Option<&TraceEntry>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(e) = entry {
        let d = e.detail.value();
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

/// A znode's depth: the slashes in its path. Counted as bytes: `matches`
/// with a `char` ran the generic pattern searcher, 2.7 ms of the wasm's
/// view after a seek that rebuilt a big cluster's 30,000 rows (issue 9).
fn depth(path: &str) -> usize {
    path.bytes().filter(|&b| b == b'/').count()
}

fn session_owner(sim: &Sim, id: i64) -> String {
    sim.zk().session(id).map(|s| s.owner.clone()).unwrap_or_else(|| session_hex(id))
}

/// Every znode's row, in tree order (a parent, then its children's
/// subtrees by name), with this step's deletions where they stood. A row
/// of `before` (the last rows built, in the same order) is taken again when
/// its znode, its watchers and its mark for this step are the same: most of
/// a big cluster's 30,000 znodes stand still at every write, and copying
/// each one's path, name and data (a 10,000-partition topic's is 200 KB)
/// was a large share of the view (issue 9).
fn znodes(sim: &Sim, previous_zxid: i64, deleted: &BTreeSet<String>, before: Option<&[Rc<ZnodeView>]>) -> Vec<Rc<ZnodeView>> {
    let zk = sim.zk();
    let mut before = before.unwrap_or_default().iter().peekable();
    let mut out: Vec<Rc<ZnodeView>> = zk
        .tree()
        .iter_shared()
        .map(|(path, n)| {
            let watchers = watchers_of(sim, path);
            let owner = n.is_ephemeral().then(|| session_owner(sim, n.stat.ephemeral_owner));
            let change = if n.stat.czxid > previous_zxid && previous_zxid > 0 {
                "created"
            } else if n.stat.mzxid > previous_zxid && previous_zxid > 0 {
                "changed"
            } else {
                ""
            };
            while before.next_if(|row| row.path != *path && tree_order(&row.path, path).is_lt()).is_some() {}
            if let Some(row) = before.next_if(|row| row.path == *path) {
                if row.stat == n.stat && row.change == change && row.watchers == watchers && row.owner == owner {
                    return row.clone();
                }
            }
            let name = znode_name(path);
            let sequential = name.len() > 10 && name[name.len() - 10..].bytes().all(|b| b.is_ascii_digit());
            Rc::new(ZnodeView {
                path: path.clone(),
                depth: if &**path == "/" { 0 } else { depth(path) },
                data: text(&n.data),
                stat: n.stat,
                ephemeral: n.is_ephemeral(),
                owner,
                sequential,
                change,
                watchers,
                children: n.stat.num_children.max(0) as usize,
            })
        })
        .collect();
    // Deleted this step: shown struck through where they stood.
    for p in deleted {
        if zk.tree().get(p).is_none() {
            out.push(Rc::new(ZnodeView {
                path: p.as_str().into(),
                depth: depth(p),
                data: String::new(),
                stat: Stat::default(),
                ephemeral: false,
                owner: None,
                sequential: false,
                change: "deleted",
                watchers: Vec::new(),
                children: 0,
            }));
        }
    }
    // The tree iterates in tree order; only the deleted ones need placing.
    if !deleted.is_empty() {
        out.sort_by(|a, b| tree_order(&a.path, &b.path));
    }
    out
}

/// A znode's data as text, invalid UTF-8 replaced. Valid text is checked
/// by the standard library's fast path: the lossy reader alone walked each
/// byte, a tenth of the view of a topic's creation (20,000 new rows).
fn text(data: &[u8]) -> String {
    match std::str::from_utf8(data) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(data).into_owned(),
    }
}

/// The watches set on `path`, by whom.
fn watchers_of(sim: &Sim, path: &str) -> Vec<WatcherView> {
    let zk = sim.zk();
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
    watchers
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
fn metadata_differences(cache: &crate::kafka::server::metadata_cache::MetadataCache, zk: &InZookeeper) -> (Differences, usize) {
    let mut out = Differences::default();
    let mut agreeing = 0;
    let mut cached = cache.partitions().peekable();
    let claim = |p: &crate::kafka::messages::UpdateMetadataPartitionState| Some((p.leader, p.leader_epoch, p.isr.clone()));
    for (tp, _, state) in zk {
        while let Some((c, p)) = cached.next_if(|(c, _)| c < tp) {
            out.push(c, claim(p)); // cached, gone from ZooKeeper
        }
        let truth = state.as_ref().map(|s| (s.leader, s.leader_epoch, &s.isr));
        match cached.next_if(|(c, _)| c == tp) {
            Some((_, p)) if truth == Some((p.leader, p.leader_epoch, &p.isr)) => agreeing += 1,
            Some((_, p)) => out.push(tp.clone(), claim(p)),
            None if truth.is_none() => agreeing += 1,
            None => out.push(tp.clone(), None),
        }
    }
    for (c, p) in cached {
        out.push(c, claim(p));
    }
    (out, agreeing)
}

fn brokers(sim: &Sim, in_zookeeper: &InZookeeper, cache: &mut ViewCache) -> Vec<BrokerView> {
    let zk_epoch = sim.zk().tree().get(zk_data::CONTROLLER_EPOCH).and_then(|n| zk_data::decode_controller_epoch(&n.data)).unwrap_or(0);
    sim.brokers()
        .values()
        .map(|b| {
            let active = b.is_alive() && b.controller.is_active();
            let session = b.zkc.session.filter(|_| b.is_alive());
            let differences = cache.metadata_differences(b, in_zookeeper);
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
                    .filter(|(t, _)| b.is_alive() && b.has_log_of(t))
                    .map(|(t, o)| (t.clone(), o.clone()))
                    .collect(),
            }
        })
        .collect()
}

/// Every partition as ZooKeeper holds it: its assignment (topic znode) and
/// its leader and ISR (state znode, with the znode's version as zkVersion),
/// in topic and partition order. What an observer reads; brokers never do.
/// The view's own reader, with nothing decoded before.
pub(crate) fn partitions_in_zookeeper(sim: &Sim) -> InZookeeper {
    ViewCache::default().decode_partitions(sim)
}

/// A topic znode's replica assignment, by partition.
type Assignment = BTreeMap<i32, zk_data::ReplicaAssignment>;

/// The indices in `in_zookeeper` of the rows `window` asks for, and how many
/// partitions its filter matches.
fn window_rows(in_zookeeper: &InZookeeper, window: &Window) -> (Vec<usize>, usize) {
    if window.filter.is_empty() {
        return ((0..in_zookeeper.len().min(window.limit)).collect(), in_zookeeper.len());
    }
    let mut name = String::new();
    let mut matches = 0;
    let mut rows = Vec::new();
    for (i, (tp, _, _)) in in_zookeeper.iter().enumerate() {
        name.clear();
        let _ = write!(name, "{tp}");
        if name.contains(window.filter.as_str()) {
            matches += 1;
            if rows.len() < window.limit {
                rows.push(i);
            }
        }
    }
    (rows, matches)
}

/// The indices of [`View::belief_partitions`]: where the active controller's
/// context or a running broker's metadata cache differs from ZooKeeper
/// first, then the first of the others.
fn belief_rows(sim: &Sim, in_zookeeper: &InZookeeper, brokers: &[BrokerView]) -> Vec<usize> {
    // One ordered walk beside ZooKeeper's partitions (the controller's
    // context is in the same (topic, partition) order): a lookup per
    // partition in the controller's map was most of a big cluster's view at
    // every step (issue 9). The caches are asked only while fewer than
    // BELIEF_TABLES differ, and only those with differences at all.
    let mut leadership = sim.active_controller().map(|c| c.ctx.leadership.iter().peekable());
    let running: Vec<&BrokerView> = brokers.iter().filter(|b| b.state != "stopped" && !b.metadata.is_empty()).collect();
    let (mut differing, mut agreeing) = (Vec::new(), Vec::new());
    for (i, (tp, _, state)) in in_zookeeper.iter().enumerate() {
        if differing.len() >= BELIEF_TABLES {
            break;
        }
        let controller_differs = leadership.as_mut().is_some_and(|l| {
            while l.next_if(|(c, _)| *c < tp).is_some() {}
            let cached = l.next_if(|(c, _)| *c == tp).map(|(_, l)| (l.leader, l.leader_epoch, &l.isr));
            cached != state.as_ref().map(|s| (s.leader, s.leader_epoch, &s.isr))
        });
        let differs = controller_differs || running.iter().any(|b| b.metadata.contains(tp));
        if differs {
            differing.push(i);
        } else if agreeing.len() < BELIEF_TABLES {
            agreeing.push(i);
        }
    }
    differing.into_iter().chain(agreeing).take(BELIEF_TABLES).collect()
}

/// The rows of the partitions at `rows` (indices in `in_zookeeper`).
fn partitions(sim: &Sim, in_zookeeper: &InZookeeper, rows: &[usize]) -> Vec<PartitionView> {
    let controller = sim.active_controller();
    let mut out = Vec::with_capacity(rows.len());
    for (tp, a, state) in rows.iter().filter_map(|&i| in_zookeeper.get(i)) {
        let (topic, p) = (&tp.topic, tp.partition);
        let isr = state.as_ref().map(|s| s.isr.clone()).unwrap_or_default();
        let replica_views = a
            .replicas
            .iter()
            .map(|&r| {
                let broker = sim.brokers().get(&r).filter(|b| b.is_alive());
                let hosted = broker.and_then(|b| b.replica_manager.partitions.get(tp));
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
                    offline: broker.map(|b| b.replica_manager.offline.contains(tp)).unwrap_or(true),
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
            state: controller.and_then(|c| c.ctx.partition_states.get(tp)).map(|s| s.name()),
            replica_views,
            controller_view: controller.and_then(|c| c.ctx.leadership.get(tp)).map(|l| (l.leader, l.leader_epoch, l.isr.clone())),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::sandbox::Sandbox;

    /// A row's name is its path's last component, as ZooKeeper names a
    /// node among its siblings; the root is `/`. The rows share their
    /// paths with the tree rather than copying them.
    #[test]
    fn znode_rows_name_their_nodes_and_share_the_trees_paths() {
        let mut sandbox = Sandbox::load("cluster brokers=1\nstart all\nrun 5s\n").expect("scenario");
        sandbox.run_for(100_000);
        let view = sandbox.view();
        let name = |path: &str| view.znodes.iter().find(|z| &*z.path == path).map(|z| z.name().to_string());
        assert_eq!(name("/").as_deref(), Some("/"));
        assert_eq!(name("/brokers").as_deref(), Some("brokers"));
        assert_eq!(name("/brokers/ids/0").as_deref(), Some("0"));
        let again = sandbox.view();
        let row = |v: &super::View| v.znodes.iter().find(|z| &*z.path == "/brokers/ids/0").map(|z| z.path.clone()).expect("broker 0's row");
        assert!(std::rc::Rc::ptr_eq(&row(&view), &row(&again)), "both views share the tree's path");
    }

    /// The znode rows list each node's subtree right after it: a topic's
    /// partitions come before a topic whose name extends its own with a
    /// '-' or '.', which sort before '/' byte by byte.
    #[test]
    fn znode_rows_list_each_subtree_under_its_own_node() {
        let script = "cluster brokers=1\nstart all\n\
                      topic create t partitions=1 replication-factor=1\n\
                      topic create t-x partitions=1 replication-factor=1\n\
                      topic create t.y partitions=1 replication-factor=1\nrun 5s\n";
        let mut sandbox = Sandbox::load(script).expect("scenario");
        sandbox.run_for(100_000);
        let rows: Vec<String> = sandbox.view().znodes.iter().map(|z| z.path.to_string()).collect();
        let at = |p: &str| rows.iter().position(|r| r == p).unwrap_or_else(|| panic!("{p} in {rows:?}"));
        assert!(at("/brokers/topics/t") < at("/brokers/topics/t/partitions/0/state"));
        assert!(at("/brokers/topics/t/partitions/0/state") < at("/brokers/topics/t-x"));
        assert!(at("/brokers/topics/t-x/partitions/0/state") < at("/brokers/topics/t.y"));
        for (row, path) in rows.iter().enumerate().skip(1) {
            let parent = crate::zookeeper::path::parent(path);
            assert!(at(parent) < row, "{path} listed before its parent");
            let last_below = rows.iter().rposition(|r| r.starts_with(&format!("{parent}/")) || r == parent).unwrap_or(row);
            assert!(
                rows[at(parent)..=last_below].iter().all(|r| r == parent || r.starts_with(&format!("{parent}/")) || parent == "/"),
                "{parent}'s subtree is not one run"
            );
        }
    }
}
