//! A parsed scenario: one [`Command`] per non-blank line, with where it came from.

use serde_json::Value;

pub type BrokerId = i32;

/// A topic-partition, written `TOPIC-P`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TopicPartition {
    pub topic: String,
    pub partition: i32,
}

/// The derived order (topic bytes, then partition), written out so that the
/// topic comparison is inlined: brokers look partitions up in ordered maps on
/// every fetch, and a call to `memcmp` for a short topic name dominated.
impl Ord for TopicPartition {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let (a, b) = (self.topic.as_bytes(), other.topic.as_bytes());
        if !(a.len() == b.len() && a.as_ptr() == b.as_ptr()) {
            for (x, y) in a.iter().zip(b) {
                if x != y {
                    return x.cmp(y);
                }
            }
            if a.len() != b.len() {
                return a.len().cmp(&b.len());
            }
        }
        self.partition.cmp(&other.partition)
    }
}

impl PartialOrd for TopicPartition {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
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
