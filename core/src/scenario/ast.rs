//! A parsed scenario: one [`Command`] per non-blank line, with where it came from.

use serde_json::Value;

pub type BrokerId = i32;

/// A topic-partition, written `TOPIC-P`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TopicPartition {
    pub topic: Topic,
    pub partition: i32,
}

/// A topic name, interned: every `Topic` made from the same name shares one
/// allocation, so cloning one is a reference count and comparing two of the
/// same topic needs no look at the bytes. Brokers look partitions up in
/// ordered maps on every fetch; with a `String` per key, following the
/// pointers to the names dominated the run time of big clusters. Ordered and
/// compared by its bytes, exactly as the `String` it replaces. An `Rc`, not
/// an `Arc`: the simulation runs on one thread, and topic-partitions are
/// cloned into every request, response and map entry, where the atomic
/// counts cost a few percent of a 100,000-partition run (issue 9). A thin
/// pointer (to a boxed name), not an `Rc<str>` with its length beside it:
/// a `TopicPartition` is 16 bytes instead of 24, in every map, request and
/// list of a big cluster (11 MB less at 100,000 partitions, and 1.5% fewer
/// instructions), for a second hop when the name itself is read.
#[derive(Clone)]
pub struct Topic(std::rc::Rc<Box<str>>);

/// The interned names, and the size at which names no longer used anywhere
/// are dropped from the pool (so that a long fuzzing session or a stream of
/// generated scripts does not grow it without bound).
#[derive(Default)]
struct TopicPool {
    names: std::collections::HashSet<Interned>,
    prune_at: usize,
}

/// A pooled name, found in the pool by its text.
struct Interned(std::rc::Rc<Box<str>>);

impl std::borrow::Borrow<str> for Interned {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::hash::Hash for Interned {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        str::hash(&self.0, state)
    }
}

impl PartialEq for Interned {
    fn eq(&self, other: &Self) -> bool {
        **self.0 == **other.0
    }
}

impl Eq for Interned {}

thread_local! {
    static TOPICS: std::cell::RefCell<TopicPool> = Default::default();
}

impl Topic {
    pub fn new(name: &str) -> Topic {
        TOPICS.with(|pool| {
            let mut pool = pool.borrow_mut();
            if let Some(shared) = pool.names.get(name) {
                return Topic(shared.0.clone());
            }
            if pool.names.len() >= pool.prune_at {
                pool.names.retain(|n| std::rc::Rc::strong_count(&n.0) > 1);
                pool.prune_at = (2 * pool.names.len()).max(1024);
            }
            let shared = std::rc::Rc::new(Box::<str>::from(name));
            pool.names.insert(Interned(shared.clone()));
            Topic(shared)
        })
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The same allocation: the same name, known without reading it. Names
    /// are interned (one pool per thread), so equal names nearly always are
    /// (not after the pool dropped a name no longer used).
    #[inline]
    pub fn is_same(&self, other: &Topic) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

impl std::ops::Deref for Topic {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Topic {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Topic {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Topic {
    fn from(name: &str) -> Topic {
        Topic::new(name)
    }
}

impl From<String> for Topic {
    fn from(name: String) -> Topic {
        Topic::new(&name)
    }
}

impl From<&String> for Topic {
    fn from(name: &String) -> Topic {
        Topic::new(name)
    }
}

impl From<Topic> for String {
    fn from(t: Topic) -> String {
        t.0.to_string()
    }
}

impl PartialEq for Topic {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Eq for Topic {}

impl PartialEq<str> for Topic {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Topic {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Topic {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Ord for Topic {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if std::rc::Rc::ptr_eq(&self.0, &other.0) {
            return std::cmp::Ordering::Equal;
        }
        // Byte by byte, as slices compare: topic names are short, and the
        // ordered maps keyed by topic compare them at every look-up, where
        // a call to memcmp cost more than the comparison.
        let (a, b) = (self.0.as_bytes(), other.0.as_bytes());
        for (x, y) in a.iter().zip(b) {
            if x != y {
                return x.cmp(y);
            }
        }
        a.len().cmp(&b.len())
    }
}

impl PartialOrd for Topic {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::hash::Hash for Topic {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state)
    }
}

impl std::fmt::Display for Topic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Debug for Topic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for Topic {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl std::fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

/// The parsed script: every command with its line.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pub lines: Vec<Line>,
    pub seed: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// 1-based line number in the file.
    pub line: usize,
    /// The line as written, without its comment and surrounding spaces.
    pub text: String,
    pub command: Command,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StartTarget {
    All,
    Broker(BrokerId),
}

#[derive(Clone, Debug, PartialEq)]
pub enum TopicLayout {
    Count {
        partitions: i32,
        replication_factor: i32,
    },
    /// `assignment=0:1,2,3;1:2,3,1`: partition → ordered replicas.
    Assignment(Vec<(i32, Vec<BrokerId>)>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Seed(u64),
    BrokerConfig(Vec<(String, String)>),
    Cluster { brokers: u32, log_dirs: u32 },
    Start(StartTarget),
    Kill(BrokerId),
    Shutdown(BrokerId),
    Restart(BrokerId),
    ExpireSession(BrokerId),
    Pause(BrokerId),
    Resume(BrokerId),
    UpdateBroker { broker: BrokerId, listener: String },
    TopicCreate { name: String, layout: TopicLayout, config: Vec<(String, String)> },
    TopicDelete { name: String },
    Produce { tp: TopicPartition, messages: u64 },
    PauseFetch { broker: BrokerId, tp: Option<TopicPartition> },
    ResumeFetch { broker: BrokerId, tp: Option<TopicPartition> },
    FailLogDir { broker: BrokerId, dir: u32 },
    ConfigAlter { entity_type: String, entity_name: String, set: Vec<(String, String)>, delete: Vec<String> },
    Reassign { tp: TopicPartition, replicas: Vec<BrokerId> },
    ElectPreferred(Vec<TopicPartition>),
    Run(u64),
    RunUntilIdle { max_ms: Option<u64> },
    Step(u64),
    ZkSession { name: String, timeout_ms: Option<u64> },
    Zk { session: String, op: ConsoleOp },
    Expect(Expectation),
}

impl Command {
    /// Whether this build simulates the command (every command does now;
    /// kept for commands that arrive before their simulation).
    pub fn implemented(&self) -> bool {
        true
    }
}

/// A zkCli-style console operation.
#[derive(Clone, Debug, PartialEq)]
pub enum ConsoleOp {
    Create { path: String, data: String, ephemeral: bool, sequential: bool },
    Get { path: String, watch: bool },
    Set { path: String, data: String, version: i32 },
    Delete { path: String, version: i32 },
    Ls { path: String, watch: bool },
    Stat { path: String, watch: bool },
    Close,
    Expire,
}

impl ConsoleOp {
    pub fn name(&self) -> &'static str {
        match self {
            ConsoleOp::Create { .. } => "create",
            ConsoleOp::Get { .. } => "get",
            ConsoleOp::Set { .. } => "set",
            ConsoleOp::Delete { .. } => "delete",
            ConsoleOp::Ls { .. } => "ls",
            ConsoleOp::Stat { .. } => "stat",
            ConsoleOp::Close => "close",
            ConsoleOp::Expire => "expire",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    pub subject: Subject,
    pub op: ExpectOp,
    pub value: Value,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpectOp {
    Eq,
    Ne,
    Contains,
    In,
}

impl ExpectOp {
    pub fn symbol(self) -> &'static str {
        match self {
            ExpectOp::Eq => "==",
            ExpectOp::Ne => "!=",
            ExpectOp::Contains => "contains",
            ExpectOp::In => "in",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ZnodeAspect {
    Exists,
    Data,
    /// `data.a.b` / `data.config["retention.ms"]`: object keys, or array
    /// indexes where the value there is an array.
    DataField(Vec<String>),
    Version,
    Cversion,
    Ephemeral,
    Children,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartitionAspect {
    Leader,
    Isr,
    Replicas,
    LeaderEpoch,
    State,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrokerAspect {
    State,
    Epoch,
    LogDir(u32),
    TopicConfig {
        topic: String,
        key: String,
    },
    LastExecutedChange,
    Checkpoint(u32),
    /// `quota USER CLIENT-ID KEY`: the client quota a (user, client-id)
    /// connection gets, by Kafka's precedence.
    Quota {
        user: String,
        client: String,
        key: String,
    },
    /// `throttled-replicas TOPIC leader|follower`: the partitions of TOPIC
    /// this broker throttles on that side.
    ThrottledReplicas {
        topic: String,
        side: ThrottleSide,
    },
    /// `throttle-rate leader|follower|alter-log-dirs`: bytes/s.
    ThrottleRate(ThrottleSide),
}

/// Which replication quota.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThrottleSide {
    Leader,
    Follower,
    AlterLogDirs,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    Controller,
    ControllerEpoch,
    Znode {
        path: String,
        aspect: ZnodeAspect,
    },
    Partition {
        tp: TopicPartition,
        aspect: PartitionAspect,
    },
    Replica {
        tp: TopicPartition,
        broker: BrokerId,
    },
    Broker {
        broker: BrokerId,
        aspect: BrokerAspect,
    },
    /// `trace contains TEXT`: the op is part of the subject's grammar.
    Trace,
}

impl Subject {
    /// Whether this build can evaluate the subject (every subject now).
    pub fn implemented(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_order_and_compare_as_their_names() {
        let names = ["", "a", "a-b", "a.b", "ab", "b", "big", "big2", "é"];
        for x in names {
            for y in names {
                let (tx, ty) = (Topic::new(x), Topic::from(y.to_string()));
                assert_eq!(tx.cmp(&ty), x.cmp(y), "{x:?} {y:?}");
                assert_eq!(tx == ty, x == y, "{x:?} {y:?}");
                let (px, py) = (TopicPartition { topic: tx, partition: 1 }, TopicPartition { topic: ty, partition: 0 });
                assert_eq!(px.cmp(&py), (x, 1).cmp(&(y, 0)), "{x:?} {y:?}");
            }
        }
        assert!(std::rc::Rc::ptr_eq(&Topic::new("big").0, &Topic::from("big").0));
    }

    #[test]
    fn names_no_longer_used_leave_the_pool() {
        let kept = Topic::new("kept");
        for i in 0..10_000 {
            drop(Topic::new(&format!("gone-{i}")));
        }
        let size = TOPICS.with(|p| p.borrow().names.len());
        assert!(size <= 2048, "{size}");
        assert!(std::rc::Rc::ptr_eq(&kept.0, &Topic::new("kept").0));
    }
}
