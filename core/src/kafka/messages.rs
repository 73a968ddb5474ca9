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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderAndIsrPartitionState {
    pub topic: crate::scenario::Topic,
    pub partition: i32,
    pub controller_epoch: i32,
    pub leader: BrokerId,
    pub leader_epoch: i32,
    pub isr: BrokerIds,
    pub zk_version: i32,
    pub replicas: BrokerIds,
    /// `addingReplicas` and `removingReplicas`.
    pub reassigning: Reassigning,
    pub is_new: bool,
}

impl LeaderAndIsrPartitionState {
    pub fn tp(&self) -> TopicPartition {
        TopicPartition { topic: self.topic.clone(), partition: self.partition }
    }
}

/// Serialised as Kafka's request spells it, the two lists as two fields.
impl Serialize for LeaderAndIsrPartitionState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("LeaderAndIsrPartitionState", 11)?;
        st.serialize_field("topic", &self.topic)?;
        st.serialize_field("partition", &self.partition)?;
        st.serialize_field("controller_epoch", &self.controller_epoch)?;
        st.serialize_field("leader", &self.leader)?;
        st.serialize_field("leader_epoch", &self.leader_epoch)?;
        st.serialize_field("isr", &self.isr)?;
        st.serialize_field("zk_version", &self.zk_version)?;
        st.serialize_field("replicas", &self.replicas)?;
        st.serialize_field("adding_replicas", self.reassigning.adding())?;
        st.serialize_field("removing_replicas", self.reassigning.removing())?;
        st.serialize_field("is_new", &self.is_new)?;
        st.end()
    }
}

/// A partition's adding and removing replicas, kept out of line: only a
/// partition being reassigned has any, and the states of a LeaderAndIsr
/// request are many (a failover of 100,000 partitions of RF 3 sends
/// 300,000). Inline, the two empty lists were 48 of each state's 136 bytes;
/// here they are one pointer, null when both are empty (issue 9).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reassigning(Option<Box<[BrokerIds; 2]>>);

impl Reassigning {
    pub fn new(adding: &BrokerIds, removing: &BrokerIds) -> Reassigning {
        if adding.is_empty() && removing.is_empty() {
            Reassigning(None)
        } else {
            Reassigning(Some(Box::new([adding.clone(), removing.clone()])))
        }
    }

    pub fn adding(&self) -> &[BrokerId] {
        self.0.as_ref().map_or(&[], |l| &l[0])
    }

    pub fn removing(&self) -> &[BrokerId] {
        self.0.as_ref().map_or(&[], |l| &l[1])
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leader_and_isr_state_keeps_its_reassignment_out_of_line() {
        // 136 bytes with the two lists inline (on a 64-bit target); 72
        // since the lists of brokers and the topic's name are thinner.
        assert!(std::mem::size_of::<LeaderAndIsrPartitionState>() <= 72);
        let none = Reassigning::new(&BrokerIds::new(), &BrokerIds::new());
        assert_eq!(none, Reassigning::default());
        let some = Reassigning::new(&[4].into(), &[1, 2].into());
        assert_eq!((some.adding(), some.removing()), (&[4][..], &[1, 2][..]));
    }

    #[test]
    fn a_leader_and_isr_state_serialises_both_lists_as_kafka_names_them() {
        let state = LeaderAndIsrPartitionState {
            topic: "t".into(),
            partition: 0,
            controller_epoch: 1,
            leader: 1,
            leader_epoch: 2,
            isr: [1].into(),
            zk_version: 3,
            replicas: [1, 4].into(),
            reassigning: Reassigning::new(&[4].into(), &BrokerIds::new()),
            is_new: false,
        };
        assert_eq!(
            serde_json::to_string(&state).unwrap(),
            r#"{"topic":"t","partition":0,"controller_epoch":1,"leader":1,"leader_epoch":2,"isr":[1],"zk_version":3,"replicas":[1,4],"adding_replicas":[4],"removing_replicas":[],"is_new":false}"#
        );
    }
}
