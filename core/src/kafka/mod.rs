//! The Kafka side of the simulation: brokers as Kafka 2.8.2 servers running
//! with inter.broker.protocol.version=2.6, talking to the simulated ZooKeeper
//! only through requests, sessions and watches, and to each other through
//! control requests.

pub mod admin_zk_client;
pub mod broker_ids;
pub mod config;
pub mod config_def;
pub mod controller;
pub mod dynamic_config;
pub mod io;
pub mod kafka_zk_client;
pub mod log_config;
pub mod messages;
pub mod partition_map;
pub mod partition_set;
pub mod sanitizer;
pub mod server;
pub mod zk_data;
pub mod zookeeper_client;

/// A broker id (`broker.id`).
pub type BrokerId = i32;

/// `broker-ID` followed by `part` (`/controller`, ...): who a step is by.
/// Appended rather than formatted: every handler names its actor, a big
/// run some millions of times.
pub(crate) fn actor_name(id: BrokerId, part: &str) -> String {
    ["broker-", itoa::Buffer::new().format(id), part].concat()
}

/// `[a, b, c]` without quotes: how summaries list topics, partitions and
/// brokers (a `trace contains` check then matches the text as shown).
pub fn show<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    format!("[{}]", items.into_iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", "))
}

/// `pairs.collect::<BTreeMap<_, _>>()`, inserted one by one: the same map
/// (a key given twice keeps its last value), but `collect` compiles a sort
/// of its own for every kind of iterator it is given, some 1.7 KB of the
/// browser's download each (issue 9).
pub fn ordered_map<K: Ord, V>(pairs: impl IntoIterator<Item = (K, V)>) -> std::collections::BTreeMap<K, V> {
    let mut map = std::collections::BTreeMap::new();
    map.extend(pairs);
    map
}

/// The partitions a LeaderAndIsr or StopReplica response answered with an
/// error, by name (in the order of their names, as the steps list them).
pub(crate) fn errors_by_name(
    partition_errors: &std::collections::BTreeMap<crate::scenario::TopicPartition, messages::Errors>,
) -> std::collections::BTreeMap<String, messages::Errors> {
    ordered_map(partition_errors.iter().filter(|(_, e)| **e != messages::Errors::NONE).map(|(tp, e)| (tp.to_string(), *e)))
}

/// `[t-1: NOT_LEADER_OR_FOLLOWER, ...]`: [`errors_by_name`] in a summary.
pub(crate) fn show_errors(errors: &std::collections::BTreeMap<String, messages::Errors>) -> String {
    show(errors.iter().map(|(t, e)| format!("{t}: {e:?}")))
}
