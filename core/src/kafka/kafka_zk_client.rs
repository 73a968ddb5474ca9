//! `kafka.zk.KafkaZkClient`: the named operations Kafka performs on
//! ZooKeeper, built from single requests on the broker's session. Each request
//! is recorded as a step, with the Kafka method that made it.

use super::io::Io;
use super::zk_data::{self, BrokerInfo, LeaderIsrAndControllerEpoch, ReplicaAssignment};
use super::zookeeper_client::{WriteError, ZooKeeperClient};
use super::BrokerId;
use crate::scenario::TopicPartition;
use crate::small_map::SmallMap;
use crate::zookeeper::{CreateMode, KeeperError, Request, Response, Stat};
use std::collections::BTreeMap;

pub const PERSISTENT: CreateMode = CreateMode { ephemeral: false, sequential: false };
pub const EPHEMERAL: CreateMode = CreateMode { ephemeral: true, sequential: false };
pub const PERSISTENT_SEQUENTIAL: CreateMode = CreateMode { ephemeral: false, sequential: true };

/// `getControllerId`: who `/controller` names (re-arming its watch).
pub fn get_controller_id(zkc: &mut ZooKeeperClient, io: &mut Io, actor: &str) -> Result<Option<BrokerId>, KeeperError> {
    match zkc.get_data(io, actor, "KafkaZkClient.getControllerId", zk_data::CONTROLLER) {
        Ok((data, _)) => Ok(zk_data::decode_controller(&data)),
        Err(KeeperError::NoNode) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads many znodes as one pipelined batch (Kafka's bulk reads), keeping
/// what `decode` accepts, in the order of `items`; nodes that are gone are
/// left out. Each caller makes its map (see `get_topic_partition_states`).
fn read_all<K, V>(
    zkc: &mut ZooKeeperClient,
    io: &mut Io,
    actor: &str,
    source: &'static str,
    items: impl IntoIterator<Item = (K, String)>,
    decode: impl Fn(&K, &[u8], Stat) -> Option<V>,
) -> Result<Vec<(K, V)>, KeeperError> {
    let items = items.into_iter();
    io.pipelined(|io| {
        // Room for every answer up front: a failover reads 100,000 states.
        let mut out = Vec::with_capacity(items.size_hint().0);
        for (key, path) in items {
            // Decoded where the request's record keeps the data (no copy).
            match zkc.get_data_then(io, actor, source, &path, |read| read.map(|(data, stat)| decode(&key, data, stat))) {
                Ok(Some(v)) => out.push((key, v)),
                Ok(None) | Err(KeeperError::NoNode) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    })
}

/// `getAllBrokerAndEpochsInCluster`: every registered broker with its epoch
/// (the czxid of its registration), re-arming the child watch.
pub fn get_all_broker_and_epochs(
    zkc: &mut ZooKeeperClient,
    io: &mut Io,
    actor: &str,
) -> Result<SmallMap<BrokerId, (BrokerInfo, i64)>, KeeperError> {
    let src = "KafkaZkClient.getAllBrokerAndEpochsInCluster";
    let mut ids: Vec<BrokerId> = zkc.get_children(io, actor, src, zk_data::BROKER_IDS)?.iter().filter_map(|c| c.parse().ok()).collect();
    ids.sort();
    let items = ids.into_iter().map(|id| (id, zk_data::broker_path(id)));
    let brokers = read_all(zkc, io, actor, src, items, |id, data, stat| BrokerInfo::decode(*id, data).map(|info| (info, stat.czxid)))?;
    Ok(brokers.into_iter().collect())
}

/// `getBroker`.
pub fn get_broker(zkc: &mut ZooKeeperClient, io: &mut Io, actor: &str, id: BrokerId) -> Result<Option<BrokerInfo>, KeeperError> {
    match zkc.get_data(io, actor, "KafkaZkClient.getBroker", &zk_data::broker_path(id)) {
        Ok((data, _)) => Ok(BrokerInfo::decode(id, &data)),
        Err(KeeperError::NoNode) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `getAllTopicsInCluster` (with the child watch when a handler is registered).
pub fn get_all_topics(zkc: &mut ZooKeeperClient, io: &mut Io, actor: &str) -> Result<Vec<String>, KeeperError> {
    match zkc.get_children(io, actor, "KafkaZkClient.getAllTopicsInCluster", zk_data::BROKER_TOPICS) {
        Err(KeeperError::NoNode) => Ok(Vec::new()),
        other => other,
    }
}

/// `getFullReplicaAssignmentForTopics`.
pub fn get_replica_assignment(
    zkc: &mut ZooKeeperClient,
    io: &mut Io,
    actor: &str,
    topics: &[String],
) -> Result<BTreeMap<String, BTreeMap<i32, ReplicaAssignment>>, KeeperError> {
    let items = topics.iter().map(|t| (t.clone(), zk_data::topic_path(t)));
    let topics =
        read_all(zkc, io, actor, "KafkaZkClient.getFullReplicaAssignmentForTopics", items, |_, data, _| zk_data::decode_topic(data))?;
    Ok(super::ordered_map(topics))
}

/// `getTopicPartitionStates`: partitions without a state znode are left out.
pub fn get_topic_partition_states(
    zkc: &mut ZooKeeperClient,
    io: &mut Io,
    actor: &str,
    tps: &[TopicPartition],
) -> Result<BTreeMap<TopicPartition, LeaderIsrAndControllerEpoch>, KeeperError> {
    let items = tps.iter().map(|tp| (tp.clone(), zk_data::partition_state_path(tp)));
    let states = read_all(zkc, io, actor, "KafkaZkClient.getTopicPartitionStates", items, |_, data, stat| {
        LeaderIsrAndControllerEpoch::decode(data, stat.version)
    })?;
    // Made at once, not inserted one by one: a failover reads every
    // partition's state, in order (at 100,000 partitions inserting cost 0.8%
    // of the run's instructions). `collect` into a `BTreeMap` compiles a sort
    // of its own per map type (issue 9), so the few topics or brokers that
    // the other bulk reads return are inserted.
    Ok(states.into_iter().collect())
}

/// `createTopicPartitionStatesRaw`: `/partitions` once for each topic of
/// the batch, then every `/partitions/<p>`, then every `/state`, each create
/// fenced by the controller epoch. Kafka ignores the first two kinds'
/// results (a NodeExists, or a NoNode the state's create then reports too),
/// except that the controller moved. One result per state, in order.
pub fn create_topic_partition_states(
    zkc: &mut ZooKeeperClient,
    io: &mut Io,
    actor: &str,
    states: &[(TopicPartition, LeaderIsrAndControllerEpoch)],
    epoch_zk_version: i32,
) -> Result<Vec<Result<(), KeeperError>>, WriteError> {
    let src = "KafkaZkClient.createTopicPartitionStatesRaw";
    // Only whether each create was done: the answers stay in their records.
    let mut create = |io: &mut Io, path: String, data: Vec<u8>| match zkc.fenced(
        io,
        actor,
        src,
        epoch_zk_version,
        Request::Create { path, data, mode: PERSISTENT },
        |_| (),
    ) {
        Ok(_) => Ok(Ok(())),
        Err(WriteError::Keeper(e)) => Ok(Err(e)),
        Err(WriteError::ControllerMoved) => Err(WriteError::ControllerMoved),
    };
    let mut topics: Vec<&str> = Vec::new();
    for (tp, _) in states {
        // A batch lists a topic's partitions together, mostly.
        if topics.last() != Some(&tp.topic.as_str()) && !topics.contains(&tp.topic.as_str()) {
            topics.push(&tp.topic);
        }
    }
    for topic in topics {
        let _ = create(io, zk_data::partitions_path(topic), Vec::new())?;
    }
    for (tp, _) in states {
        let _ = create(io, zk_data::partition_path(tp), Vec::new())?;
    }
    states.iter().map(|(tp, l)| create(io, zk_data::partition_state_path(tp), l.encode())).collect()
}

/// `updateLeaderAndIsr` for one partition: a conditional set on the cached
/// zkVersion, fenced. Ok(new zkVersion); BadVersion means "re-read and retry".
pub fn update_leader_and_isr(
    zkc: &mut ZooKeeperClient,
    io: &mut Io,
    actor: &str,
    source: &'static str,
    tp: &TopicPartition,
    l: &LeaderIsrAndControllerEpoch,
    epoch_zk_version: i32,
) -> Result<i32, WriteError> {
    let req = Request::SetData { path: zk_data::partition_state_path(tp), data: l.encode(), version: l.zk_version };
    zkc.fenced(io, actor, source, epoch_zk_version, req, |r| match r {
        Response::SetData { stat } => stat.version,
        _ => l.zk_version + 1,
    })
}

/// A fenced delete (`deletePath` with the controller epoch check).
pub fn fenced_delete(
    zkc: &mut ZooKeeperClient,
    io: &mut Io,
    actor: &str,
    source: &'static str,
    path: &str,
    epoch_zk_version: i32,
) -> Result<(), WriteError> {
    match zkc.fenced(io, actor, source, epoch_zk_version, Request::Delete { path: path.into(), version: -1 }, |_| ()) {
        Ok(_) | Err(WriteError::Keeper(KeeperError::NoNode)) => Ok(()),
        Err(e) => Err(e),
    }
}

/// `deleteRecursive`, fenced: children first.
pub fn fenced_delete_recursive(
    zkc: &mut ZooKeeperClient,
    io: &mut Io,
    actor: &str,
    source: &'static str,
    path: &str,
    epoch_zk_version: i32,
) -> Result<(), WriteError> {
    let children = match zkc.get_children(io, actor, source, path) {
        Ok(c) => c,
        Err(KeeperError::NoNode) => return Ok(()),
        Err(e) => return Err(WriteError::Keeper(e)),
    };
    for c in children {
        fenced_delete_recursive(zkc, io, actor, source, &crate::zookeeper::path::join(path, &c), epoch_zk_version)?;
    }
    fenced_delete(zkc, io, actor, source, path, epoch_zk_version)
}

/// `registerBroker`: the two-op multi (create the ephemeral empty, then set
/// its data) so that the broker epoch is the czxid; returns that epoch.
pub fn register_broker(zkc: &mut ZooKeeperClient, io: &mut Io, actor: &str, path: &str, data: Vec<u8>) -> Result<i64, KeeperError> {
    let src = "KafkaZkClient.registerBroker";
    let multi = Request::Multi(vec![
        Request::Create { path: path.into(), data: Vec::new(), mode: EPHEMERAL },
        Request::SetData { path: path.into(), data, version: 0 },
    ]);
    match zkc.call(io, actor, src, multi) {
        Ok(Response::Multi(rs)) => match rs.last() {
            Some(Response::SetData { stat }) => Ok(stat.czxid),
            _ => Err(KeeperError::BadArguments),
        },
        Ok(_) => Err(KeeperError::BadArguments),
        Err(e) if e.code() == KeeperError::NodeExists => {
            // Ours already (the same session): success with the existing stat.
            let stat = zkc.exists(io, actor, src, path)?.ok_or(KeeperError::NoNode)?;
            if Some(stat.ephemeral_owner) == zkc.session {
                Ok(stat.czxid)
            } else {
                Err(KeeperError::NodeExists)
            }
        }
        Err(e) => Err(e.code()),
    }
}

/// `getEntityConfigs`: the overrides in `/config/<type>/<name>`; a missing
/// node is an entity without overrides.
pub fn get_entity_configs(
    zkc: &mut ZooKeeperClient,
    io: &mut Io,
    actor: &str,
    source: &'static str,
    entity_type: &str,
    sanitized_name: &str,
) -> Result<BTreeMap<String, String>, String> {
    let path = zk_data::config_entity_path(entity_type, sanitized_name);
    match zkc.get_data(io, actor, source, &path) {
        Ok((data, _)) => zk_data::decode_entity_config(&data).map_err(|e| format!("{path}: {e}")),
        Err(KeeperError::NoNode) => Ok(BTreeMap::new()),
        Err(e) => Err(format!("reading {path} failed: {e}")),
    }
}

/// `getAllEntitiesWithConfig`: the children of `/config/<type>` (none when
/// it is missing), sorted.
pub fn get_all_entities_with_config(zkc: &mut ZooKeeperClient, io: &mut Io, actor: &str, path: &str) -> Result<Vec<String>, KeeperError> {
    match zkc.get_children(io, actor, "KafkaZkClient.getAllEntitiesWithConfig", path) {
        Ok(mut c) => {
            c.sort();
            Ok(c)
        }
        Err(KeeperError::NoNode) => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// `createConfigChangeNotification`: make sure `/config/changes` exists,
/// then a PERSISTENT_SEQUENTIAL `config_change_` with the entity path.
pub fn create_config_change_notification(
    zkc: &mut ZooKeeperClient,
    io: &mut Io,
    actor: &str,
    entity_path: &str,
) -> Result<String, KeeperError> {
    let src = "KafkaZkClient.createConfigChangeNotification";
    match zkc.create_recursive(io, actor, src, zk_data::CONFIG_CHANGES, Vec::new()) {
        Ok(()) | Err(KeeperError::NodeExists) => {}
        Err(e) => return Err(e),
    }
    let path = format!("{}/{}", zk_data::CONFIG_CHANGES, zk_data::CONFIG_CHANGE_PREFIX);
    zkc.create(io, actor, src, &path, zk_data::encode_config_change(entity_path), PERSISTENT_SEQUENTIAL)
}

/// `deletePath` → `deleteRecursive`, unfenced: list the children, delete
/// them, then the node; a node already gone is fine.
pub fn delete_recursive(zkc: &mut ZooKeeperClient, io: &mut Io, actor: &str, path: &str) -> Result<(), KeeperError> {
    let src = "KafkaZkClient.deleteRecursive";
    let children = match zkc.get_children(io, actor, src, path) {
        Ok(c) => c,
        Err(KeeperError::NoNode) => return Ok(()),
        Err(e) => return Err(e),
    };
    for c in children {
        delete_recursive(zkc, io, actor, &crate::zookeeper::path::join(path, &c))?;
    }
    match zkc.call(io, actor, src, Request::Delete { path: path.into(), version: -1 }) {
        Ok(_) => Ok(()),
        Err(e) if e.code() == KeeperError::NoNode => Ok(()),
        Err(e) => Err(e.code()),
    }
}
