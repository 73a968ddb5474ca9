//! `kafka.zk.ZkData`: the znode paths Kafka uses and the JSON it writes there,
//! field for field (Kafka 2.8.2 running with inter.broker.protocol.version=2.6).

use super::broker_ids::BrokerIds;
use super::config::ApiVersion;
use super::BrokerId;
use crate::scenario::TopicPartition;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub const CONTROLLER: &str = "/controller";
pub const CONTROLLER_EPOCH: &str = "/controller_epoch";
pub const BROKER_IDS: &str = "/brokers/ids";
pub const BROKER_TOPICS: &str = "/brokers/topics";
pub const CLUSTER_ID: &str = "/cluster/id";
pub const CONFIG_CHANGES: &str = "/config/changes";
pub const DELETE_TOPICS: &str = "/admin/delete_topics";
pub const REASSIGN_PARTITIONS: &str = "/admin/reassign_partitions";
pub const PREFERRED_REPLICA_ELECTION: &str = "/admin/preferred_replica_election";
pub const ISR_CHANGE_NOTIFICATION: &str = "/isr_change_notification";
pub const LOG_DIR_EVENT_NOTIFICATION: &str = "/log_dir_event_notification";
pub const FEATURE: &str = "/feature";
pub const ISR_CHANGE_PREFIX: &str = "isr_change_";
pub const LOG_DIR_EVENT_PREFIX: &str = "log_dir_event_";
pub const CONFIG_CHANGE_PREFIX: &str = "config_change_";

/// `ZkData.PersistentZkPaths` (2.8): created by every broker at startup.
pub const PERSISTENT_ZK_PATHS: &[&str] = &[
    "/consumers",
    BROKER_IDS,
    BROKER_TOPICS,
    CONFIG_CHANGES,
    DELETE_TOPICS,
    "/brokers/seqid",
    ISR_CHANGE_NOTIFICATION,
    "/latest_producer_id_block",
    LOG_DIR_EVENT_NOTIFICATION,
    "/config/topics",
    "/config/clients",
    "/config/users",
    "/config/brokers",
    "/config/ips",
];

pub fn broker_path(id: BrokerId) -> String {
    let mut p = String::with_capacity(BROKER_IDS.len() + 12);
    p.push_str(BROKER_IDS);
    p.push('/');
    push_int(&mut p, id);
    p
}

pub fn topic_path(topic: &str) -> String {
    [BROKER_TOPICS, "/", topic].concat()
}

pub fn partitions_path(topic: &str) -> String {
    [BROKER_TOPICS, "/", topic, "/partitions"].concat()
}

/// The paths of a partition are built by appending, not with `format!`: a
/// big cluster builds a few of them per partition at every creation and
/// failover, and the formatting machinery was most of their cost (issue 9).
/// The partition's path has room for the state path's `/state`.
pub fn partition_path(tp: &TopicPartition) -> String {
    // An i32 has at most 11 characters.
    let mut p = String::with_capacity(BROKER_TOPICS.len() + "/".len() + tp.topic.len() + "/partitions/".len() + 11 + "/state".len());
    p.push_str(BROKER_TOPICS);
    p.push('/');
    p.push_str(&tp.topic);
    p.push_str("/partitions/");
    push_int(&mut p, tp.partition);
    p
}

pub fn partition_state_path(tp: &TopicPartition) -> String {
    let mut p = partition_path(tp);
    p.push_str("/state");
    p
}

/// `n` in decimal, as `Display` writes it.
fn push_int(p: &mut String, n: i32) {
    p.push_str(itoa::Buffer::new().format(n));
}

/// The topic and partition of a partition state znode's path
/// (`/brokers/topics/T/partitions/P/state`); None for any other path.
pub fn parse_partition_state_path(path: &str) -> Option<(&str, i32)> {
    let rest = path.strip_prefix(BROKER_TOPICS)?.strip_prefix('/')?;
    let (topic, rest) = rest.split_once("/partitions/")?;
    let number = parse_partition_state_suffix(rest)?;
    Some((topic, number)).filter(|(t, _)| !t.is_empty() && !t.contains('/'))
}

/// The partition of `N/state`, the rest of a state znode's path after its
/// topic's `.../partitions/`.
pub fn parse_partition_state_suffix(rest: &str) -> Option<i32> {
    let partition = rest.strip_suffix("/state")?;
    // Only the path Kafka writes for the pair: not `01`, not `+1`.
    partition.parse().ok().filter(|p: &i32| itoa::Buffer::new().format(*p) == partition)
}

pub fn delete_topic_path(topic: &str) -> String {
    [DELETE_TOPICS, "/", topic].concat()
}

pub fn topic_config_path(topic: &str) -> String {
    ["/config/topics/", topic].concat()
}

/// `BrokerInfo`: what `/brokers/ids/<id>` holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerInfo {
    pub id: BrokerId,
    pub host: String,
    pub port: u16,
    pub rack: Option<String>,
}

impl BrokerInfo {
    pub fn endpoint(&self) -> String {
        format!("PLAINTEXT://{}:{}", self.host, self.port)
    }

    /// `BrokerIdZNode.encode`: version 4 from IBP 0.10.0-IV1 (the 2.8 builds'
    /// observed key order), version 2 before. The timestamp is a string.
    pub fn encode(&self, ibp: ApiVersion, now_ms: u64) -> Vec<u8> {
        let mut m = Map::new();
        if ibp >= ApiVersion::V0_10_0 {
            m.insert("listener_security_protocol_map".into(), json!({"PLAINTEXT": "PLAINTEXT"}));
        }
        m.insert("endpoints".into(), json!([self.endpoint()]));
        if let Some(rack) = &self.rack {
            m.insert("rack".into(), json!(rack));
        }
        m.insert("jmx_port".into(), json!(-1));
        m.insert("host".into(), json!(self.host));
        m.insert("timestamp".into(), json!(now_ms.to_string()));
        m.insert("port".into(), json!(self.port));
        m.insert("version".into(), json!(if ibp >= ApiVersion::V0_10_0 { 4 } else { 2 }));
        serde_json::to_vec(&Value::Object(m)).unwrap_or_default()
    }

    pub fn decode(id: BrokerId, data: &[u8]) -> Option<BrokerInfo> {
        let v: Value = serde_json::from_slice(data).ok()?;
        let endpoint = v.get("endpoints")?.as_array()?.first()?.as_str()?.to_string();
        let hostport = endpoint.split("://").nth(1)?;
        let (host, port) = hostport.rsplit_once(':')?;
        Some(BrokerInfo {
            id,
            host: host.to_string(),
            port: port.parse().ok()?,
            rack: v.get("rack").and_then(|r| r.as_str()).map(String::from),
        })
    }
}

/// `ControllerZNode.encode`.
pub fn encode_controller(broker: BrokerId, now_ms: u64) -> Vec<u8> {
    serde_json::to_vec(&json!({"version": 1, "brokerid": broker, "timestamp": now_ms.to_string()})).unwrap_or_default()
}

/// `ControllerZNode.decode`: the broker id, or None when unreadable.
pub fn decode_controller(data: &[u8]) -> Option<BrokerId> {
    let v: Value = serde_json::from_slice(data).ok()?;
    v.get("brokerid")?.as_i64().map(|id| id as BrokerId)
}

/// `/controller_epoch` holds a plain integer.
pub fn decode_controller_epoch(data: &[u8]) -> Option<i32> {
    std::str::from_utf8(data).ok()?.trim().parse().ok()
}

/// The leader and ISR of a partition as stored in its state znode
/// (`LeaderIsrAndControllerEpoch`), with the znode's version as zkVersion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderIsrAndControllerEpoch {
    pub leader: BrokerId,
    pub leader_epoch: i32,
    pub isr: BrokerIds,
    pub zk_version: i32,
    pub controller_epoch: i32,
}

pub const NO_LEADER: BrokerId = -1;
pub const LEADER_DURING_DELETE: BrokerId = -2;

impl LeaderIsrAndControllerEpoch {
    /// `TopicPartitionStateZNode.encode` (the observed key order), written
    /// straight out: the same bytes as serde_json gives the JSON object, for
    /// a tenth of the work (every created and elected partition writes one).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(80);
        out.extend_from_slice(b"{\"controller_epoch\":");
        push_json_int(&mut out, self.controller_epoch);
        out.extend_from_slice(b",\"leader\":");
        push_json_int(&mut out, self.leader);
        out.extend_from_slice(b",\"version\":1,\"leader_epoch\":");
        push_json_int(&mut out, self.leader_epoch);
        out.extend_from_slice(b",\"isr\":");
        push_json_list(&mut out, &self.isr);
        out.push(b'}');
        out
    }

    pub fn decode(data: &[u8], zk_version: i32) -> Option<LeaderIsrAndControllerEpoch> {
        // As `encode` writes it, read without serde (a failover reads every
        // partition's state); anything else through serde.
        Self::decode_as_written(data, zk_version).or_else(|| Self::decode_with_serde(data, zk_version))
    }

    fn decode_with_serde(data: &[u8], zk_version: i32) -> Option<LeaderIsrAndControllerEpoch> {
        // Straight into the fields (a failover reads every partition's state):
        // what Kafka writes always reads this way. Anything else (a field
        // twice, say, from a console `set`) goes the general way below, so
        // the outcome is the same; only an object may go straight (serde
        // would also read the fields from an array).
        #[derive(serde::Deserialize)]
        struct Fields {
            leader: i64,
            leader_epoch: i64,
            isr: Vec<i64>,
            controller_epoch: i64,
        }
        let object = data.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        if let Some(f) = object.then(|| serde_json::from_slice::<Fields>(data).ok()).flatten() {
            return Some(LeaderIsrAndControllerEpoch {
                leader: f.leader as BrokerId,
                leader_epoch: f.leader_epoch as i32,
                isr: f.isr.into_iter().map(|b| b as BrokerId).collect(),
                zk_version,
                controller_epoch: f.controller_epoch as i32,
            });
        }
        let v: Value = serde_json::from_slice(data).ok()?;
        let isr = v.get("isr")?.as_array()?.iter().map(|b| b.as_i64().map(|b| b as BrokerId)).collect::<Option<BrokerIds>>()?;
        Some(LeaderIsrAndControllerEpoch {
            leader: v.get("leader")?.as_i64()? as BrokerId,
            leader_epoch: v.get("leader_epoch")?.as_i64()? as i32,
            isr,
            zk_version,
            controller_epoch: v.get("controller_epoch")?.as_i64()? as i32,
        })
    }
}

impl LeaderIsrAndControllerEpoch {
    /// A state znode exactly as [`LeaderIsrAndControllerEpoch::encode`]
    /// writes it, numbers within an i32 as they are after the i64 cast
    /// (the general readings take `as i32` of an i64). None for anything
    /// else.
    fn decode_as_written(data: &[u8], zk_version: i32) -> Option<LeaderIsrAndControllerEpoch> {
        let mut r = JsonReader { data, at: 0 };
        r.expect(br#"{"controller_epoch":"#)?;
        let controller_epoch = r.int()? as i32;
        r.expect(br#","leader":"#)?;
        let leader = r.int()? as BrokerId;
        r.expect(br#","version":1,"leader_epoch":"#)?;
        let leader_epoch = r.int()? as i32;
        r.expect(br#","isr":"#)?;
        let isr = r.int_list()?;
        r.expect(b"}")?;
        (r.at == data.len()).then_some(LeaderIsrAndControllerEpoch { leader, leader_epoch, isr, zk_version, controller_epoch })
    }
}

/// `ReplicaAssignment`: replicas in preference order, and the replicas being
/// added and removed by a reassignment in progress.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplicaAssignment {
    pub replicas: BrokerIds,
    pub adding: BrokerIds,
    pub removing: BrokerIds,
}

/// No replicas: what an unknown partition's assignment reads as (borrowed
/// where a clone of the real one would cost an allocation per replica).
pub static NO_ASSIGNMENT: ReplicaAssignment =
    ReplicaAssignment { replicas: BrokerIds::new(), adding: BrokerIds::new(), removing: BrokerIds::new() };

impl ReplicaAssignment {
    pub fn new(replicas: impl Into<BrokerIds>) -> ReplicaAssignment {
        ReplicaAssignment { replicas: replicas.into(), adding: BrokerIds::new(), removing: BrokerIds::new() }
    }

    pub fn is_being_reassigned(&self) -> bool {
        !self.adding.is_empty() || !self.removing.is_empty()
    }

    /// `replicas - adding`.
    pub fn origin_replicas(&self) -> BrokerIds {
        self.replicas.iter().copied().filter(|r| !self.adding.contains(r)).collect()
    }

    /// `replicas - removing`.
    pub fn target_replicas(&self) -> BrokerIds {
        self.replicas.iter().copied().filter(|r| !self.removing.contains(r)).collect()
    }

    /// `reassignTo(target)`: full = (target ++ origin).distinct.
    pub fn reassign_to(&self, target: &[BrokerId]) -> ReplicaAssignment {
        let origin = self.origin_replicas();
        let mut full: Vec<BrokerId> = Vec::new();
        for r in target.iter().chain(origin.iter()) {
            if !full.contains(r) {
                full.push(*r);
            }
        }
        let adding = full.iter().copied().filter(|r| !origin.contains(r)).collect();
        let removing = full.iter().copied().filter(|r| !target.contains(r)).collect();
        ReplicaAssignment { replicas: full.into(), adding, removing }
    }
}

/// `TopicZNode.encode` version 2 (IBP below 2.8-IV0 writes no topic id):
/// the bytes serde_json gives the JSON object, written straight out (a
/// topic of 10,000 partitions built a map of 10,000 JSON lists).
pub fn encode_topic(assignment: &BTreeMap<i32, ReplicaAssignment>) -> Vec<u8> {
    let mut out = Vec::with_capacity(96 + 16 * assignment.len());
    out.extend_from_slice(br#"{"version":2,"partitions":"#);
    push_json_lists(&mut out, assignment, |a| &a.replicas, false);
    out.extend_from_slice(br#","adding_replicas":"#);
    push_json_lists(&mut out, assignment, |a| &a.adding, true);
    out.extend_from_slice(br#","removing_replicas":"#);
    push_json_lists(&mut out, assignment, |a| &a.removing, true);
    out.push(b'}');
    out
}

/// `{"P":[...],...}` of one list of each partition's assignment, in
/// partition order; empty lists left out if `skip_empty`.
fn push_json_lists(
    out: &mut Vec<u8>,
    assignment: &BTreeMap<i32, ReplicaAssignment>,
    list: fn(&ReplicaAssignment) -> &BrokerIds,
    skip_empty: bool,
) {
    out.push(b'{');
    let mut first = true;
    for (p, a) in assignment {
        let l = list(a);
        if skip_empty && l.is_empty() {
            continue;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        out.push(b'"');
        push_json_int(out, *p);
        out.extend_from_slice(b"\":");
        push_json_list(out, l);
    }
    out.push(b'}');
}

/// A JSON list of integers, as serde_json writes it.
fn push_json_list(out: &mut Vec<u8>, ids: &[BrokerId]) {
    out.push(b'[');
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_json_int(out, *id);
    }
    out.push(b']');
}

fn push_json_int(out: &mut Vec<u8>, n: i32) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// `TopicZNode.decode`: tolerates v1 and missing adding/removing maps.
pub fn decode_topic(data: &[u8]) -> Option<BTreeMap<i32, ReplicaAssignment>> {
    decode_topic_as_written(data).or_else(|| decode_topic_value(data))
}

/// A topic znode exactly as [`encode_topic`] writes it, read without
/// building a JSON value (a failover reads ten of 10,000 partitions each,
/// and the values were 4% of the run). None for anything else — spaces,
/// another key order, v1, numbers that are not plain integers, partitions
/// out of order or twice — which [`decode_topic_value`] then reads, so the
/// outcome is the same whatever the znode holds.
fn decode_topic_as_written(data: &[u8]) -> Option<BTreeMap<i32, ReplicaAssignment>> {
    let mut r = JsonReader { data, at: 0 };
    r.expect(br#"{"version":2,"partitions":"#)?;
    let partitions = r.int_lists()?;
    r.expect(br#","adding_replicas":"#)?;
    let adding = r.int_lists()?;
    r.expect(br#","removing_replicas":"#)?;
    let removing = r.int_lists()?;
    r.expect(b"}")?;
    if r.at != data.len() {
        return None;
    }
    // The lists of the partitions' keys: both maps are in key order.
    let (mut adding, mut removing) = (adding.into_iter().peekable(), removing.into_iter().peekable());
    let of = |lists: &mut std::iter::Peekable<std::vec::IntoIter<(i32, BrokerIds)>>, p: i32| {
        while lists.next_if(|(q, _)| *q < p).is_some() {}
        lists.next_if(|(q, _)| *q == p).map(|(_, l)| l).unwrap_or_default()
    };
    Some(
        partitions
            .into_iter()
            .map(|(p, replicas)| {
                let adding = of(&mut adding, p);
                let removing = of(&mut removing, p);
                (p, ReplicaAssignment { replicas, adding, removing })
            })
            .collect(),
    )
}

/// The plain integers and maps of integer lists that Kafka's znodes hold,
/// in the one spelling serde_json writes them; None wherever the text
/// strays from it.
struct JsonReader<'a> {
    data: &'a [u8],
    at: usize,
}

impl JsonReader<'_> {
    fn expect(&mut self, text: &[u8]) -> Option<()> {
        let rest = self.data.get(self.at..)?;
        rest.starts_with(text).then(|| self.at += text.len())
    }

    fn next_is(&mut self, b: u8) -> bool {
        self.expect(&[b]).is_some()
    }

    /// An integer as serde_json writes one: `0`, or an optional `-` and
    /// digits without a leading zero (not `-0`), at most 18 digits so that
    /// it is exact in an i64, and not the start of a fraction or exponent.
    fn int(&mut self) -> Option<i64> {
        let negative = self.next_is(b'-');
        let digits = self.data.get(self.at..)?.iter().take_while(|b| b.is_ascii_digit()).count();
        let text = &self.data[self.at..self.at + digits];
        if digits == 0 || digits > 18 || (text[0] == b'0' && (digits > 1 || negative)) {
            return None;
        }
        if matches!(self.data.get(self.at + digits), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.at += digits;
        let n = text.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
        Some(if negative { -n } else { n })
    }

    /// `[1,2,3]`: the ids as `as BrokerId` takes them from an i64,
    /// collected as a `BrokerIds` collects (up to three without a vector:
    /// a topic's assignment is 10,000 lists, each partition's ISR one more;
    /// issue 9).
    fn int_list(&mut self) -> Option<BrokerIds> {
        self.expect(b"[")?;
        if self.next_is(b']') {
            return Some(BrokerIds::new());
        }
        let mut open = true;
        std::iter::from_fn(|| {
            open.then(|| {
                let id = self.int()? as BrokerId;
                open = !self.next_is(b']');
                if open {
                    self.expect(b",")?;
                }
                Some(id)
            })
        })
        .collect()
    }

    /// `{"0":[..],"1":[..]}`: keys that are i32s in ascending order.
    fn int_lists(&mut self) -> Option<Vec<(i32, BrokerIds)>> {
        self.expect(b"{")?;
        let mut out: Vec<(i32, BrokerIds)> = Vec::new();
        if self.next_is(b'}') {
            return Some(out);
        }
        loop {
            self.expect(b"\"")?;
            let key = i32::try_from(self.int()?).ok()?;
            if out.last().is_some_and(|(last, _)| *last >= key) {
                return None;
            }
            self.expect(b"\":")?;
            out.push((key, self.int_list()?));
            if self.next_is(b'}') {
                return Some(out);
            }
            self.expect(b",")?;
        }
    }
}

/// `TopicZNode.decode` through a JSON value: any spelling, v1, missing maps.
fn decode_topic_value(data: &[u8]) -> Option<BTreeMap<i32, ReplicaAssignment>> {
    let v: Value = serde_json::from_slice(data).ok()?;
    let list = |m: Option<&Value>, p: &str| -> BrokerIds {
        m.and_then(|m| m.get(p))
            .and_then(|l| l.as_array())
            .map(|l| l.iter().filter_map(|b| b.as_i64()).map(|b| b as BrokerId).collect())
            .unwrap_or_default()
    };
    let mut out = BTreeMap::new();
    for (p, _) in v.get("partitions")?.as_object()? {
        let pid = p.parse::<i32>().ok()?;
        out.insert(
            pid,
            ReplicaAssignment {
                replicas: list(v.get("partitions"), p),
                adding: list(v.get("adding_replicas"), p),
                removing: list(v.get("removing_replicas"), p),
            },
        );
    }
    Some(out)
}

/// `{"version":1,"partitions":[{"topic":"t","partition":0},...]}`: the
/// ISR-change and preferred-election payloads.
pub fn encode_partitions(partitions: &[TopicPartition]) -> Vec<u8> {
    let list: Vec<Value> = partitions.iter().map(|tp| json!({"topic": tp.topic, "partition": tp.partition})).collect();
    serde_json::to_vec(&json!({"version": 1, "partitions": list})).unwrap_or_default()
}

pub fn decode_partitions(data: &[u8]) -> Option<Vec<TopicPartition>> {
    let v: Value = serde_json::from_slice(data).ok()?;
    v.get("partitions")?
        .as_array()?
        .iter()
        .map(|p| Some(TopicPartition { topic: p.get("topic")?.as_str()?.into(), partition: p.get("partition")?.as_i64()? as i32 }))
        .collect()
}

/// `/admin/reassign_partitions` (version 1).
pub fn encode_reassignment(moves: &BTreeMap<TopicPartition, Vec<BrokerId>>) -> Vec<u8> {
    let list: Vec<Value> = moves.iter().map(|(tp, r)| json!({"topic": tp.topic, "partition": tp.partition, "replicas": r})).collect();
    serde_json::to_vec(&json!({"version": 1, "partitions": list})).unwrap_or_default()
}

pub fn decode_reassignment(data: &[u8]) -> Option<BTreeMap<TopicPartition, Vec<BrokerId>>> {
    let v: Value = serde_json::from_slice(data).ok()?;
    let mut out = BTreeMap::new();
    for p in v.get("partitions")?.as_array()? {
        let tp = TopicPartition { topic: p.get("topic")?.as_str()?.into(), partition: p.get("partition")?.as_i64()? as i32 };
        let replicas = p.get("replicas")?.as_array()?.iter().map(|b| b.as_i64().map(|b| b as BrokerId)).collect::<Option<Vec<_>>>()?;
        out.insert(tp, replicas);
    }
    Some(out)
}

/// `/cluster/id`: note that the version is the string "1".
pub fn encode_cluster_id(id: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({"version": "1", "id": id})).unwrap_or_default()
}

/// `/feature` as a 2.8 controller at IBP below 2.7 writes it: Disabled.
pub fn encode_feature_disabled() -> Vec<u8> {
    serde_json::to_vec(&json!({"version": 1, "status": 0, "features": {}})).unwrap_or_default()
}

/// A sequence number from a sequential child name (`isr_change_0000000003` → 3).
pub fn sequence_number(name: &str, prefix: &str) -> Option<u64> {
    name.strip_prefix(prefix)?.parse().ok()
}

/// `ConfigEntityZNode.path`: `/config/<type>/<sanitized name>` (the name may
/// be hierarchical: `alice/clients/app-1`).
pub fn config_entity_path(entity_type: &str, sanitized_name: &str) -> String {
    ["/config/", entity_type, "/", sanitized_name].concat()
}

/// `ConfigEntityZNode.encode`: `{"version":1,"config":{...}}`, values as
/// strings (keys sorted here; Kafka's order is a hash map's).
pub fn encode_entity_config(config: &BTreeMap<String, String>) -> Vec<u8> {
    let cfg: Map<String, Value> = config.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    serde_json::to_vec(&json!({"version": 1, "config": Value::Object(cfg)})).unwrap_or_default()
}

/// `ConfigEntityZNode.decode`: not JSON (or empty) → no overrides; a
/// `config` whose values are not all strings is an error, as Kafka's
/// decoder throws on it.
pub fn decode_entity_config(data: &[u8]) -> Result<BTreeMap<String, String>, String> {
    // What every topic created without overrides holds, read by each of its
    // new logs (300,000 of them for 100,000 partitions of RF 3): no parse.
    if data == br#"{"version":1,"config":{}}"# {
        return Ok(BTreeMap::new());
    }
    let Ok(v) = serde_json::from_slice::<Value>(data) else { return Ok(BTreeMap::new()) };
    let Some(obj) = v.as_object() else {
        return if v.is_null() { Ok(BTreeMap::new()) } else { Err(format!("the config znode holds {v}, not a JSON object")) };
    };
    let Some(config) = obj.get("config").and_then(Value::as_object) else { return Ok(BTreeMap::new()) };
    // Inserted, not collected: collecting would compile a sort of its own.
    let mut out = BTreeMap::new();
    for (k, v) in config {
        let Some(s) = v.as_str() else { return Err(format!("the value of {k} is {v}, not a string")) };
        out.insert(k.clone(), s.to_string());
    }
    Ok(out)
}

/// `ConfigEntityChangeNotificationSequenceZNode.encode`: version 2.
pub fn encode_config_change(entity_path: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({"version": 2, "entity_path": entity_path})).unwrap_or_default()
}

#[cfg(test)]
mod tests {

    #[test]
    fn partition_state_paths_parse_back() {
        let tp = TopicPartition { topic: "orders-1".into(), partition: 12 };
        assert_eq!(parse_partition_state_path(&partition_state_path(&tp)), Some(("orders-1", 12)));
        for other in [
            "/brokers/topics/t/partitions/01/state",
            "/brokers/topics/t/partitions/+1/state",
            "/brokers/topics/t/partitions/1",
            "/brokers/topics/t/state",
            "/brokers/topics//partitions/1/state",
            "/brokers/topics/a/b/partitions/1/state",
            "/brokers/ids/1",
        ] {
            assert_eq!(parse_partition_state_path(other), None, "{other}");
        }
    }

    use super::*;

    #[test]
    fn an_empty_entity_config_decodes_as_the_parser_reads_it() {
        let empty = encode_entity_config(&BTreeMap::new());
        assert_eq!(empty, br#"{"version":1,"config":{}}"#);
        assert_eq!(decode_entity_config(&empty), decode_entity_config(br#"{"version":1, "config":{}}"#));
    }

    #[test]
    fn partition_state_decodes_alike_straight_or_through_a_value() {
        let s = LeaderIsrAndControllerEpoch { leader: 2, leader_epoch: 7, isr: [2, 0].into(), zk_version: 3, controller_epoch: 4 };
        assert_eq!(LeaderIsrAndControllerEpoch::decode(&s.encode(), 3), Some(s));
        // The last of a repeated field counts (a console `set` could write one).
        let twice = br#"{"leader":1,"leader":2,"leader_epoch":0,"isr":[2],"controller_epoch":1}"#;
        assert_eq!(LeaderIsrAndControllerEpoch::decode(twice, 0).map(|s| s.leader), Some(2));
        for bad in [&br#"[1,0,[1],1]"#[..], br#"{"leader":1.0,"leader_epoch":0,"isr":[1],"controller_epoch":1}"#, b"{}"] {
            assert_eq!(LeaderIsrAndControllerEpoch::decode(bad, 0), None);
        }
    }

    #[test]
    fn topic_znodes_read_alike_as_written_or_through_a_value() {
        let mut t = BTreeMap::new();
        t.insert(0, ReplicaAssignment::new(vec![1, 2, 3]));
        t.insert(7, ReplicaAssignment { replicas: [3, 1].into(), adding: [3].into(), removing: [2].into() });
        t.insert(10, ReplicaAssignment::new(vec![]));
        t.insert(-4, ReplicaAssignment::new(vec![-1, 2_000_000_000]));
        // Past the three ids a list holds inline, and a reassignment's.
        t.insert(11, ReplicaAssignment::new(vec![4, 0, 1, 2]));
        t.insert(12, ReplicaAssignment { replicas: [5, 6, 7, 8, 9, 1, 2].into(), adding: [5, 6, 7, 8].into(), removing: [1, 2].into() });
        let written = encode_topic(&t);
        // The bytes serde_json gives the same JSON object.
        let lists = |f: &dyn Fn(&ReplicaAssignment) -> &BrokerIds, skip_empty: bool| -> Value {
            Value::Object(t.iter().filter(|(_, a)| !(skip_empty && f(a).is_empty())).map(|(p, a)| (p.to_string(), json!(f(a)))).collect())
        };
        let value = json!({"version": 2, "partitions": lists(&|a| &a.replicas, false), "adding_replicas": lists(&|a| &a.adding, true), "removing_replicas": lists(&|a| &a.removing, true)});
        assert_eq!(written, serde_json::to_vec(&value).unwrap());
        let s = LeaderIsrAndControllerEpoch { leader: -1, leader_epoch: 12, isr: Default::default(), zk_version: 0, controller_epoch: 3 };
        let value = json!({"controller_epoch": 3, "leader": -1, "version": 1, "leader_epoch": 12, "isr": []});
        assert_eq!(s.encode(), serde_json::to_vec(&value).unwrap());
        assert!(decode_topic_as_written(&written).is_some());
        assert_eq!(decode_topic(&written), Some(t));
        for odd in [
            &br#"{"version":2,"partitions":{"0":[1,2]},"adding_replicas":{"0":[2],"5":[1]},"removing_replicas":{}}"#[..],
            br#"{"version":2,"partitions":{"1":[1],"0":[2]},"adding_replicas":{},"removing_replicas":{}}"#,
            br#"{"version":2,"partitions":{"0":[1],"0":[2]},"adding_replicas":{},"removing_replicas":{}}"#,
            br#"{"version":2,"partitions":{"01":[1],"1":[2]},"adding_replicas":{},"removing_replicas":{}}"#,
            br#"{"version":2,"partitions":{"0":[1.5,2,-0,1e2,99999999999999999999]},"adding_replicas":{},"removing_replicas":{}}"#,
            br#"{"version":2,"partitions":{"0":[4294967297]},"adding_replicas":{},"removing_replicas":{}}"#,
            br#"{"version":2,"partitions":{"3000000000":[1]},"adding_replicas":{},"removing_replicas":{}}"#,
            br#"{"version":2,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}} "#,
            br#"{"version":2,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}x"#,
            br#"{"version":1,"partitions":{"0":[1, 2]}}"#,
            br#"{"version":2,"partitions":{"0":[1]},"adding_replicas":[],"removing_replicas":{}}"#,
        ] {
            assert_eq!(decode_topic(odd), decode_topic_value(odd), "{}", String::from_utf8_lossy(odd));
        }
    }

    #[test]
    fn partition_state_reads_alike_as_written_or_through_serde() {
        let s = LeaderIsrAndControllerEpoch {
            leader: -1,
            leader_epoch: 2_000_000_000,
            isr: Default::default(),
            zk_version: 4,
            controller_epoch: 0,
        };
        assert_eq!(LeaderIsrAndControllerEpoch::decode_as_written(&s.encode(), 4), Some(s));
        for odd in [
            &br#"{"controller_epoch":1,"leader":4294967297,"version":1,"leader_epoch":0,"isr":[1,-4294967295]}"#[..],
            br#"{"controller_epoch":1,"leader":-0,"version":1,"leader_epoch":0,"isr":[1]}"#,
            br#"{"controller_epoch":1,"leader":1,"version":2,"leader_epoch":0,"isr":[1]}"#,
            br#"{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1.0]}"#,
            br#"{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1]}  "#,
            br#"{"controller_epoch":1,"leader":12345678901234567890,"version":1,"leader_epoch":0,"isr":[]}"#,
        ] {
            assert_eq!(
                LeaderIsrAndControllerEpoch::decode(odd, 1),
                LeaderIsrAndControllerEpoch::decode_with_serde(odd, 1),
                "{}",
                String::from_utf8_lossy(odd)
            );
        }
    }

    #[test]
    fn reassign_to_follows_kafkas_examples() {
        let a = ReplicaAssignment::new(vec![1, 2, 3, 4]).reassign_to(&[4, 2, 5, 3]);
        assert_eq!((a.replicas, a.adding, a.removing), ([4, 2, 5, 3, 1].into(), [5].into(), [1].into()));
        let a = ReplicaAssignment::new(vec![1, 2, 3]).reassign_to(&[4, 5, 6]);
        assert_eq!((a.replicas, a.adding, a.removing), ([4, 5, 6, 1, 2, 3].into(), [4, 5, 6].into(), [1, 2, 3].into()));
        let a = ReplicaAssignment::new(vec![1, 2, 3]).reassign_to(&[3, 1, 2]);
        assert!(!a.is_being_reassigned());
    }

    #[test]
    fn json_shapes() {
        let s = LeaderIsrAndControllerEpoch { leader: 0, leader_epoch: 0, isr: [0, 1, 2].into(), zk_version: 0, controller_epoch: 1 };
        assert_eq!(
            String::from_utf8(s.encode()).unwrap(),
            r#"{"controller_epoch":1,"leader":0,"version":1,"leader_epoch":0,"isr":[0,1,2]}"#
        );
        assert_eq!(LeaderIsrAndControllerEpoch::decode(&s.encode(), 3).unwrap().zk_version, 3);
        let b = BrokerInfo { id: 1, host: "broker1".into(), port: 9092, rack: None };
        assert_eq!(
            String::from_utf8(b.encode(ApiVersion::V2_6, 42)).unwrap(),
            r#"{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://broker1:9092"],"jmx_port":-1,"host":"broker1","timestamp":"42","port":9092,"version":4}"#
        );
        assert_eq!(BrokerInfo::decode(1, &b.encode(ApiVersion::V2_6, 1)), Some(b));
        let mut t = BTreeMap::new();
        t.insert(0, ReplicaAssignment::new(vec![1, 2]));
        assert_eq!(
            String::from_utf8(encode_topic(&t)).unwrap(),
            r#"{"version":2,"partitions":{"0":[1,2]},"adding_replicas":{},"removing_replicas":{}}"#
        );
        assert_eq!(decode_topic(&encode_topic(&t)).unwrap(), t);
        assert_eq!(String::from_utf8(encode_controller(1, 5)).unwrap(), r#"{"version":1,"brokerid":1,"timestamp":"5"}"#);
        assert_eq!(sequence_number("isr_change_0000000012", ISR_CHANGE_PREFIX), Some(12));
    }
}
