//! `AdminZkClient` and the command-line tools' writes (kafka-topics,
//! kafka-reassign-partitions, kafka-preferred-replica-election): what a
//! scenario's admin commands do to ZooKeeper, through the tools' own session.

use super::io::Io;
use super::kafka_zk_client::PERSISTENT;
use super::zk_data::{self, ReplicaAssignment};
use super::zookeeper_client::ZooKeeperClient;
use super::BrokerId;
use crate::scenario::{TopicLayout, TopicPartition};
use crate::sim::Rng;
use crate::zookeeper::{KeeperError, Request};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub const ACTOR: &str = "admin";

/// `AdminUtils.assignReplicasToBrokersRackUnaware`, seeded.
pub fn assign_replicas_rack_unaware(partitions: i32, rf: i32, brokers: &[BrokerId], rng: &mut Rng) -> BTreeMap<i32, Vec<BrokerId>> {
    let n = brokers.len();
    let mut out = BTreeMap::new();
    if n == 0 {
        return out;
    }
    let start = rng.index(n);
    let mut shift = rng.index(n);
    for p in 0..partitions {
        if p > 0 && (p as usize).is_multiple_of(n) {
            shift += 1;
        }
        let first = (p as usize + start) % n;
        let mut replicas = vec![brokers[first]];
        for j in 0..(rf as usize).saturating_sub(1) {
            let s = 1 + (shift + j) % (n - 1).max(1);
            replicas.push(brokers[(first + s) % n]);
        }
        out.insert(p, replicas);
    }
    out
}

/// Why an admin command cannot apply: a script error (exit 2).
pub type AdminResult = Result<(), String>;

fn registered_brokers(zkc: &mut ZooKeeperClient, io: &mut Io) -> Result<Vec<BrokerId>, String> {
    let mut ids: Vec<BrokerId> = zkc
        .get_children(io, ACTOR, "AdminZkClient.getBrokerMetadatas", zk_data::BROKER_IDS)
        .map_err(|e| format!("cannot list brokers: {e}"))?
        .iter()
        .filter_map(|c| c.parse().ok())
        .collect();
    ids.sort_unstable();
    Ok(ids)
}

fn topic_exists(zkc: &mut ZooKeeperClient, io: &mut Io, topic: &str) -> bool {
    matches!(zkc.exists(io, ACTOR, "KafkaZkClient.topicExists", &zk_data::topic_path(topic)), Ok(Some(_)))
}

/// `kafka-topics --create`: validate, write the topic's config (no change
/// notification), then the assignment (`createTopicWithAssignment`).
pub fn create_topic(
    zkc: &mut ZooKeeperClient,
    io: &mut Io,
    declared: &[BrokerId],
    name: &str,
    layout: &TopicLayout,
    config: &[(String, String)],
) -> AdminResult {
    if topic_exists(zkc, io, name) {
        return Err(format!("topic '{name}' already exists (TopicExistsException)"));
    }
    let assignment = match layout {
        TopicLayout::Count { partitions, replication_factor } => {
            let brokers = registered_brokers(zkc, io)?;
            if brokers.is_empty() {
                return Err("no broker is registered; start the cluster before creating topics".into());
            }
            if *replication_factor as usize > brokers.len() {
                return Err(format!("replication factor {replication_factor} is larger than the {} available brokers {brokers:?} (InvalidReplicationFactorException)", brokers.len()));
            }
            assign_replicas_rack_unaware(*partitions, *replication_factor, &brokers, io.rng)
        }
        TopicLayout::Assignment(a) => {
            for (p, replicas) in a {
                if let Some(b) = replicas.iter().find(|b| !declared.contains(b)) {
                    return Err(format!("partition {p} names broker {b}, which is not in this cluster (brokers {declared:?})"));
                }
            }
            a.iter().cloned().collect()
        }
    };
    let mut cfg = Map::new();
    for (k, v) in config {
        cfg.insert(k.clone(), json!(v));
    }
    let config_json = serde_json::to_vec(&json!({"version": 1, "config": Value::Object(cfg)})).unwrap_or_default();
    set_or_create(zkc, io, "AdminZkClient.setOrCreateEntityConfigs", &zk_data::topic_config_path(name), config_json)?;
    let full: BTreeMap<i32, ReplicaAssignment> = assignment.into_iter().map(|(p, r)| (p, ReplicaAssignment::new(r))).collect();
    zkc.create_recursive(io, ACTOR, "AdminZkClient.createTopicWithAssignment", &zk_data::topic_path(name), zk_data::encode_topic(&full))
        .map_err(|e| format!("creating the topic znode failed: {e}"))
}

/// `setData(-1)`, or `createRecursive` when the node is missing.
pub fn set_or_create(zkc: &mut ZooKeeperClient, io: &mut Io, source: &'static str, path: &str, data: Vec<u8>) -> AdminResult {
    match zkc.call(io, ACTOR, source, Request::SetData { path: path.into(), data: data.clone(), version: -1 }) {
        Ok(_) => Ok(()),
        Err(e) if e.code() == KeeperError::NoNode => {
            zkc.create_recursive(io, ACTOR, source, path, data).map_err(|e| format!("writing {path} failed: {e}"))
        }
        Err(e) => Err(format!("writing {path} failed: {}", e.code())),
    }
}

/// `AdminZkClient.deleteTopic`: the marker under `/admin/delete_topics`.
pub fn delete_topic(zkc: &mut ZooKeeperClient, io: &mut Io, name: &str) -> AdminResult {
    if !topic_exists(zkc, io, name) {
        return Err(format!("topic '{name}' does not exist (UnknownTopicOrPartitionException)"));
    }
    match zkc.create_recursive(io, ACTOR, "AdminZkClient.deleteTopic", &zk_data::delete_topic_path(name), Vec::new()) {
        Ok(()) => Ok(()),
        Err(KeeperError::NodeExists) => {
            Err(format!("topic '{name}' is already marked for deletion (TopicAlreadyMarkedForDeletionException)"))
        }
        Err(e) => Err(format!("marking '{name}' for deletion failed: {e}")),
    }
}

fn partition_exists(zkc: &mut ZooKeeperClient, io: &mut Io, tp: &TopicPartition) -> Result<BTreeMap<i32, ReplicaAssignment>, String> {
    let (data, _) = zkc
        .get_data(io, ACTOR, "KafkaZkClient.getReplicaAssignmentForTopics", &zk_data::topic_path(&tp.topic))
        .map_err(|_| format!("topic '{}' does not exist", tp.topic))?;
    let a = zk_data::decode_topic(&data).unwrap_or_default();
    if !a.contains_key(&tp.partition) {
        return Err(format!("topic '{}' has no partition {}", tp.topic, tp.partition));
    }
    Ok(a)
}

/// `kafka-reassign-partitions --execute` (ZooKeeper path): write
/// `/admin/reassign_partitions`.
pub fn reassign(zkc: &mut ZooKeeperClient, io: &mut Io, declared: &[BrokerId], tp: &TopicPartition, replicas: &[BrokerId]) -> AdminResult {
    partition_exists(zkc, io, tp)?;
    if let Some(b) = replicas.iter().find(|b| !declared.contains(b)) {
        return Err(format!("broker {b} is not in this cluster (brokers {declared:?})"));
    }
    let mut moves = BTreeMap::new();
    moves.insert(tp.clone(), replicas.to_vec());
    match zkc.create(
        io,
        ACTOR,
        "KafkaZkClient.createPartitionReassignment",
        zk_data::REASSIGN_PARTITIONS,
        zk_data::encode_reassignment(&moves),
        PERSISTENT,
    ) {
        Ok(_) => Ok(()),
        Err(KeeperError::NodeExists) => {
            Err("a reassignment is still in progress (/admin/reassign_partitions exists); wait for it to finish".into())
        }
        Err(e) => Err(format!("writing /admin/reassign_partitions failed: {e}")),
    }
}

/// `kafka-preferred-replica-election`: write `/admin/preferred_replica_election`
/// (every partition when none are named).
pub fn elect_preferred(zkc: &mut ZooKeeperClient, io: &mut Io, partitions: &[TopicPartition]) -> AdminResult {
    let list: Vec<TopicPartition> = if partitions.is_empty() {
        let topics = zkc.get_children(io, ACTOR, "KafkaZkClient.getAllTopicsInCluster", zk_data::BROKER_TOPICS).unwrap_or_default();
        let mut all = Vec::new();
        for t in topics {
            if let Ok((data, _)) = zkc.get_data(io, ACTOR, "KafkaZkClient.getReplicaAssignmentForTopics", &zk_data::topic_path(&t)) {
                all.extend(
                    zk_data::decode_topic(&data).unwrap_or_default().keys().map(|p| TopicPartition { topic: t.clone(), partition: *p }),
                );
            }
        }
        all
    } else {
        for tp in partitions {
            partition_exists(zkc, io, tp)?;
        }
        partitions.to_vec()
    };
    match zkc.create(
        io,
        ACTOR,
        "KafkaZkClient.createPreferredReplicaElection",
        zk_data::PREFERRED_REPLICA_ELECTION,
        zk_data::encode_partitions(&list),
        PERSISTENT,
    ) {
        Ok(_) => Ok(()),
        Err(KeeperError::NodeExists) => {
            Err("a preferred replica election is still in progress (/admin/preferred_replica_election exists)".into())
        }
        Err(e) => Err(format!("writing /admin/preferred_replica_election failed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rack_unaware_assignment_spreads_leaders_and_followers() {
        let mut rng = Rng::seeded(0);
        let a = assign_replicas_rack_unaware(6, 3, &[0, 1, 2], &mut rng);
        assert_eq!(a.len(), 6);
        for r in a.values() {
            let mut s = r.clone();
            s.sort_unstable();
            s.dedup();
            assert_eq!(s.len(), 3, "no broker twice in {r:?}");
        }
        let leaders: Vec<_> = a.values().map(|r| r[0]).collect();
        for b in 0..3 {
            assert_eq!(leaders.iter().filter(|l| **l == b).count(), 2, "each broker leads two of six: {leaders:?}");
        }
    }
}
