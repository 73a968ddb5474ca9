//! The control-plane requests between the controller and the brokers
//! (LeaderAndIsr, UpdateMetadata, StopReplica, ControlledShutdown), with the
//! fields the simulator uses, and Kafka's error codes for them.

use super::broker_ids::BrokerIds;
use super::zk_data::BrokerInfo;
use super::BrokerId;
use crate::scenario::TopicPartition;
use serde::Serialize;
use std::collections::BTreeMap;
use std::rc::Rc;

/// `org.apache.kafka.common.protocol.Errors`, the codes the control plane uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
pub enum Errors {
    NONE,
    STALE_CONTROLLER_EPOCH,
    STALE_BROKER_EPOCH,
    FENCED_LEADER_EPOCH,
    KAFKA_STORAGE_ERROR,
    UNKNOWN_TOPIC_OR_PARTITION,
    NOT_CONTROLLER,
    BROKER_NOT_AVAILABLE,
    ELECTION_NOT_NEEDED,
    PREFERRED_LEADER_NOT_AVAILABLE,
    INVALID_TOPIC_EXCEPTION,
    NOT_LEADER_OR_FOLLOWER,
}

/// Per partition in a LeaderAndIsr request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LeaderAndIsrPartitionState {
    pub topic: crate::scenario::Topic,
    pub partition: i32,
    pub controller_epoch: i32,
    pub leader: BrokerId,
    pub leader_epoch: i32,
    pub isr: BrokerIds,
    pub zk_version: i32,
    pub replicas: BrokerIds,
    pub adding_replicas: BrokerIds,
    pub removing_replicas: BrokerIds,
    pub is_new: bool,
}

impl LeaderAndIsrPartitionState {
    pub fn tp(&self) -> TopicPartition {
        TopicPartition { topic: self.topic.clone(), partition: self.partition }
    }
}

/// Per partition in an UpdateMetadata request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UpdateMetadataPartitionState {
    pub topic: crate::scenario::Topic,
    pub partition: i32,
    pub controller_epoch: i32,
    pub leader: BrokerId,
    pub leader_epoch: i32,
    pub isr: BrokerIds,
    pub zk_version: i32,
    pub replicas: BrokerIds,
    pub offline_replicas: BrokerIds,
}

/// An UpdateMetadata request's partitions, shared by every broker it goes
/// to, with what each of them would otherwise work out alike: whether a
/// metadata cache may keep the list as one run (in `TopicPartition` order,
/// none twice, none of a topic being deleted; see `MetadataCache`). Worked
/// out once, when the request is made: fifty brokers each walking the
/// 100,000 partitions of a failover's request to find it were a few
/// percent of the run (issue 9).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpdateMetadataPartitions {
    list: Rc<Vec<Rc<UpdateMetadataPartitionState>>>,
    may_be_a_run: bool,
}

impl UpdateMetadataPartitions {
    pub fn new(list: Vec<Rc<UpdateMetadataPartitionState>>) -> UpdateMetadataPartitions {
        let may_be_a_run = super::server::metadata_cache::may_be_a_run(&list);
        UpdateMetadataPartitions { list: Rc::new(list), may_be_a_run }
    }

    /// The list itself (shared: a metadata cache keeps it as it is).
    pub fn list(&self) -> &Rc<Vec<Rc<UpdateMetadataPartitionState>>> {
        &self.list
    }

    pub fn may_be_a_run(&self) -> bool {
        self.may_be_a_run
    }
}

impl std::ops::Deref for UpdateMetadataPartitions {
    type Target = [Rc<UpdateMetadataPartitionState>];
    fn deref(&self) -> &Self::Target {
        &self.list
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StopReplicaPartitionState {
    pub topic: crate::scenario::Topic,
    pub partition: i32,
    pub leader_epoch: i32,
    pub delete_partition: bool,
}

/// A control request. Its payloads are shared (`Rc`): one UpdateMetadata
/// goes to every broker, and a request travels back with its response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlRequest {
    LeaderAndIsr {
        controller_id: BrokerId,
        controller_epoch: i32,
        broker_epoch: i64,
        partitions: Rc<Vec<LeaderAndIsrPartitionState>>,
        live_leaders: Vec<BrokerId>,
    },
    UpdateMetadata {
        controller_id: BrokerId,
        controller_epoch: i32,
        broker_epoch: i64,
        partitions: UpdateMetadataPartitions,
        live_brokers: Rc<Vec<BrokerInfo>>,
    },
    StopReplica {
        controller_id: BrokerId,
        controller_epoch: i32,
        broker_epoch: i64,
        partitions: Rc<Vec<StopReplicaPartitionState>>,
    },
    /// Broker → controller: "I am shutting down, move my leaders".
    ControlledShutdown {
        broker_id: BrokerId,
        broker_epoch: i64,
    },
}

impl ControlRequest {
    pub fn name(&self) -> &'static str {
        match self {
            ControlRequest::LeaderAndIsr { .. } => "LeaderAndIsr",
            ControlRequest::UpdateMetadata { .. } => "UpdateMetadata",
            ControlRequest::StopReplica { .. } => "StopReplica",
            ControlRequest::ControlledShutdown { .. } => "ControlledShutdown",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlResponse {
    LeaderAndIsr { error: Errors, partition_errors: BTreeMap<TopicPartition, Errors> },
    UpdateMetadata { error: Errors },
    StopReplica { error: Errors, partition_errors: BTreeMap<TopicPartition, Errors> },
    ControlledShutdown { error: Errors, remaining: Vec<TopicPartition> },
}
