//! `AdminZkClient` and the command-line tools' writes (kafka-topics,
//! kafka-reassign-partitions, kafka-preferred-replica-election): what a
//! scenario's admin commands do to ZooKeeper, through the tools' own session.

use super::dynamic_config::{self, DEFAULT_ENTITY};
use super::io::Io;
use super::kafka_zk_client::{self as kzk, PERSISTENT};
use super::log_config;
use super::sanitizer::sanitize_entity;
use super::zk_data::{self, ReplicaAssignment};
use super::zookeeper_client::ZooKeeperClient;
use super::BrokerId;
use crate::scenario::{TopicLayout, TopicPartition};
use crate::sim::Rng;
use crate::trace::Detail;
use crate::zookeeper::{KeeperError, Request};
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
        // Allocated at its size, at most one replica per broker (a topic's
        // 10,000 lists grown one replica at a time were copied twice each).
        let mut replicas = Vec::with_capacity((rf as usize).clamp(1, n));
        replicas.push(brokers[first]);
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
    ids.sort();
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
    let config = super::ordered_map(config.iter().map(|(k, v)| (k.trim().to_string(), v.trim().to_string())));
    log_config::validate(&config).map_err(|e| format!("{e} (ConfigException)"))?;
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
            super::ordered_map(a.iter().cloned())
        }
    };
    let config_json = zk_data::encode_entity_config(&config);
    set_or_create(zkc, io, "AdminZkClient.setOrCreateEntityConfigs", &zk_data::topic_config_path(name), config_json)?;
    let full = super::ordered_map(assignment.into_iter().map(|(p, r)| (p, ReplicaAssignment::new(r))));
    zkc.create_recursive(io, ACTOR, "AdminZkClient.createTopicWithAssignment", &zk_data::topic_path(name), zk_data::encode_topic(&full))
        .map_err(|e| format!("creating the topic znode failed: {e}"))
}

/// The znode name kafka-configs gives an entity (`ConfigEntity.fullSanitizedName`):
/// a topic as named, a broker id or `<default>`, client ids and user
/// principals sanitized, `users U clients C` as `U/clients/C`.
fn sanitized_entity_name(entity_type: &str, name: &str) -> Result<String, String> {
    let sanitized = |n: &str| {
        if n.is_empty() {
            Err(format!("an empty entity name in '{name}'; name the {entity_type} entity, or use <default>"))
        } else {
            Ok(sanitize_entity(n))
        }
    };
    match entity_type {
        "topics" => {
            crate::scenario::parser::validate_topic_name(name).map_err(|e| format!("invalid topic name '{name}': {e} (InvalidTopicException)"))?;
            Ok(name.to_string())
        }
        "brokers" if name == DEFAULT_ENTITY || name.trim().parse::<i32>().is_ok() => Ok(name.trim().to_string()),
        "brokers" => Err(format!(
            "Error parsing broker {name}. The broker's Entity Name must be a single integer value (IllegalArgumentException); use a broker id or <default>"
        )),
        "clients" => sanitized(name),
        "users" => match name.split_once("/clients/") {
            Some((user, client)) => Ok(format!("{}/clients/{}", sanitized(user)?, sanitized(client)?)),
            None => sanitized(name),
        },
        other => Err(format!("{other} is not a known entity type; use topics, clients, users or brokers")),
    }
}

/// `kafka-configs --alter` (`ConfigCommand.alterConfigWithZk` →
/// `AdminZkClient.changeConfigs`): read the entity's current overrides,
/// refuse to delete one that is not there, merge, validate the whole set,
/// write it (replacing the node's config), and only then create the change
/// notification — the brokers re-read the entity's node when they see it.
pub fn change_configs(
    zkc: &mut ZooKeeperClient,
    io: &mut Io,
    entity_type: &str,
    entity_name: &str,
    set: &[(String, String)],
    delete: &[String],
) -> AdminResult {
    let name = sanitized_entity_name(entity_type, entity_name)?;
    let path = zk_data::config_entity_path(entity_type, &name);
    let mut configs = kzk::get_entity_configs(zkc, io, ACTOR, "AdminZkClient.fetchEntityConfig", entity_type, &name)?;
    let missing: Vec<&str> = delete.iter().map(|k| k.trim()).filter(|k| !configs.contains_key(*k)).collect();
    if !missing.is_empty() {
        return Err(format!(
            "Invalid config(s): {} (InvalidConfigurationException): {path} has no such override to delete",
            missing.join(",")
        ));
    }
    for (k, v) in set {
        configs.insert(k.trim().to_string(), v.trim().to_string());
    }
    for k in delete {
        configs.remove(k.trim());
    }
    if entity_type == "topics" && !topic_exists(zkc, io, &name) {
        return Err(format!("topic '{name}' does not exist (UnknownTopicOrPartitionException)"));
    }
    dynamic_config::validate(entity_type, &configs).map_err(|e| format!("{e} (ConfigException)"))?;
    set_or_create(zkc, io, "AdminZkClient.setOrCreateEntityConfigs", &path, zk_data::encode_entity_config(&configs))?;
    let entity_path = format!("{entity_type}/{name}");
    let created = kzk::create_config_change_notification(zkc, io, ACTOR, &entity_path)
        .map_err(|e| format!("creating the config change notification failed: {e}"))?;
    let shown = crate::kafka::show(configs.iter().map(|(k, v)| format!("{k}={v}")));
    io.record(
        ACTOR,
        "admin",
        "AdminZkClient.changeConfigs",
        format!("kafka-configs --alter {entity_type} {entity_name}: {path} now holds {shown}; notification {created}"),
        Detail::new().with("entity_path", &entity_path).with("path", &path).with("config", &configs).with("notification", &created),
    );
    Ok(())
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
                    zk_data::decode_topic(&data).unwrap_or_default().keys().map(|p| TopicPartition { topic: (&t).into(), partition: *p }),
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
    use crate::runner::{run_text, Limits};

    const SETUP: &str = "cluster brokers=2\nstart all\ntopic create orders partitions=1 replication-factor=2\nrun 1s\n";

    /// Runs SETUP then `line` (line 5); the script error it must cause.
    fn rejected(line: &str) -> String {
        match run_text(&format!("{SETUP}{line}\n"), Limits::default()) {
            Err(e) => {
                assert_eq!(e.line(), 5, "{e}");
                e.to_string()
            }
            Ok(_) => panic!("'{line}' was accepted"),
        }
    }

    #[test]
    fn invalid_values_name_the_key_and_the_rule() {
        for (line, key, rule) in [
            ("config alter topics orders set retention.ms=soon", "retention.ms", "Not a number of type LONG"),
            ("config alter topics orders set retention.ms=-5", "retention.ms", "Value must be at least -1"),
            ("config alter topics orders set min.insync.replicas=0", "min.insync.replicas", "Value must be at least 1"),
            ("config alter topics orders set cleanup.policy=shred", "cleanup.policy", "String must be one of: compact, delete"),
            ("config alter topics orders set min.cleanable.dirty.ratio=1.5", "min.cleanable.dirty.ratio", "Value must be no more than 1"),
            ("config alter topics orders set unclean.leader.election.enable=yes", "unclean.leader.election.enable", "either true or false"),
            ("config alter topics orders set compression.type=brotli", "compression.type", "String must be one of: uncompressed"),
            ("config alter topics orders set message.format.version=3.0", "message.format.version", "is not a valid version"),
            (
                "config alter topics orders set leader.replication.throttled.replicas=0-1",
                "leader.replication.throttled.replicas",
                "[partitionId]:[brokerId]",
            ),
            ("config alter topics orders set retention.mss=1", "retention.mss", "Unknown topic config name: retention.mss"),
            (
                "config alter topics orders set min.compaction.lag.ms=10,max.compaction.lag.ms=5",
                "min.compaction.lag.ms",
                "conflict topic config setting",
            ),
            ("config alter clients app set producer_byte_rate=fast", "producer_byte_rate", "Not a number of type LONG"),
            ("config alter users alice set retention.ms=1", "retention.ms", "Unknown Dynamic Configuration"),
            (
                "config alter brokers 1 set leader.replication.throttled.rate=-1",
                "leader.replication.throttled.rate",
                "Value must be at least 0",
            ),
            ("config alter brokers <default> set log.segment.bytes=10", "log.segment.bytes", "Value must be at least 14"),
            ("topic create other partitions=1 replication-factor=1 config retention.ms=x", "retention.ms", "Not a number of type LONG"),
        ] {
            let e = rejected(line);
            assert!(e.contains(key) && e.contains(rule), "{line}: {e}");
        }
    }

    #[test]
    fn other_refusals() {
        assert!(rejected("config alter topics nope set retention.ms=1").contains("UnknownTopicOrPartition"));
        assert!(rejected("config alter topics orders delete retention.ms").contains("Invalid config(s): retention.ms"));
        assert!(rejected("config alter brokers one set log.retention.ms=1").contains("must be a single integer value"));
        assert!(rejected("config alter topics <default> set retention.ms=1").contains("InvalidTopicException"));
    }

    #[test]
    fn a_refused_change_writes_nothing() {
        let text =
            format!("{SETUP}config alter topics orders set retention.ms=1000\nrun 1s\nconfig alter topics orders set retention.ms=-9\n");
        let script = crate::scenario::parse(&text).unwrap();
        let mut runner = crate::runner::Runner::new(std::rc::Rc::new(script), Limits::default());
        let e = runner.run_to_end(&mut crate::trace::Trace::default()).unwrap_err();
        assert_eq!(e.line(), 7);
        let tree = runner.sim().zk().tree();
        assert_eq!(tree.get("/config/changes").map(|n| n.stat.num_children), Some(1), "no second notification");
        let config = tree.get("/config/topics/orders").unwrap();
        assert_eq!(
            (config.stat.version, String::from_utf8_lossy(&config.data).as_ref()),
            (1, r#"{"version":1,"config":{"retention.ms":"1000"}}"#)
        );
    }

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
