//! `ControllerEvent`s: everything the controller does is one of these, taken
//! one at a time from its single queue (`ControllerEventManager`).

use crate::kafka::messages::Errors;
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use std::collections::{BTreeMap, BTreeSet};

/// Why a leader election was asked for (`ElectionTrigger`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElectionTrigger {
    ZkTriggered,
    AutoTriggered,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControllerEvent {
    Startup,
    ControllerChange,
    Reelect,
    RegisterBrokerAndReelect,
    Expire,
    BrokerChange,
    BrokerModifications(BrokerId),
    TopicChange,
    PartitionModifications(String),
    TopicDeletion,
    TopicDeletionStopReplicaResponseReceived { replica: BrokerId, partition_errors: BTreeMap<TopicPartition, Errors> },
    ZkPartitionReassignment,
    PartitionReassignmentIsrChange(TopicPartition),
    AutoPreferredReplicaLeaderElection,
    ReplicaLeaderElection { partitions: Option<BTreeSet<TopicPartition>>, trigger: ElectionTrigger },
    ControlledShutdown { broker: BrokerId, broker_epoch: i64 },
    IsrChangeNotification,
    LeaderAndIsrResponseReceived { broker: BrokerId, error: Errors, partition_errors: BTreeMap<TopicPartition, Errors> },
    UpdateMetadataResponseReceived { broker: BrokerId, error: Errors },
    LogDirEventNotification,
    TopicUncleanLeaderElectionEnable(String),
}

impl ControllerEvent {
    /// Kafka's class name for the event, as the app shows it.
    pub fn name(&self) -> &'static str {
        match self {
            ControllerEvent::Startup => "Startup",
            ControllerEvent::ControllerChange => "ControllerChange",
            ControllerEvent::Reelect => "Reelect",
            ControllerEvent::RegisterBrokerAndReelect => "RegisterBrokerAndReelect",
            ControllerEvent::Expire => "Expire",
            ControllerEvent::BrokerChange => "BrokerChange",
            ControllerEvent::BrokerModifications(_) => "BrokerModifications",
            ControllerEvent::TopicChange => "TopicChange",
            ControllerEvent::PartitionModifications(_) => "PartitionModifications",
            ControllerEvent::TopicDeletion => "TopicDeletion",
            ControllerEvent::TopicDeletionStopReplicaResponseReceived { .. } => "TopicDeletionStopReplicaResponseReceived",
            ControllerEvent::ZkPartitionReassignment => "ZkPartitionReassignment",
            ControllerEvent::PartitionReassignmentIsrChange(_) => "PartitionReassignmentIsrChange",
            ControllerEvent::AutoPreferredReplicaLeaderElection => "AutoPreferredReplicaLeaderElection",
            ControllerEvent::ReplicaLeaderElection { .. } => "ReplicaLeaderElection",
            ControllerEvent::ControlledShutdown { .. } => "ControlledShutdown",
            ControllerEvent::IsrChangeNotification => "IsrChangeNotification",
            ControllerEvent::LeaderAndIsrResponseReceived { .. } => "LeaderAndIsrResponseReceived",
            ControllerEvent::UpdateMetadataResponseReceived { .. } => "UpdateMetadataResponseReceived",
            ControllerEvent::LogDirEventNotification => "LogDirEventNotification",
            ControllerEvent::TopicUncleanLeaderElectionEnable(_) => "TopicUncleanLeaderElectionEnable",
        }
    }

    /// Whether only the active controller acts on it (the others return).
    pub fn needs_active(&self) -> bool {
        !matches!(
            self,
            ControllerEvent::Startup
                | ControllerEvent::ControllerChange
                | ControllerEvent::Reelect
                | ControllerEvent::RegisterBrokerAndReelect
                | ControllerEvent::Expire
                | ControllerEvent::ControlledShutdown { .. }
        )
    }

    /// `ControllerState`: what the controller reports while processing it.
    pub fn state(&self) -> &'static str {
        match self {
            ControllerEvent::Startup
            | ControllerEvent::ControllerChange
            | ControllerEvent::Reelect
            | ControllerEvent::RegisterBrokerAndReelect
            | ControllerEvent::Expire => "ControllerChange",
            ControllerEvent::BrokerChange | ControllerEvent::BrokerModifications(_) => "BrokerChange",
            ControllerEvent::TopicChange | ControllerEvent::PartitionModifications(_) => "TopicChange",
            ControllerEvent::TopicDeletion | ControllerEvent::TopicDeletionStopReplicaResponseReceived { .. } => "TopicDeletion",
            ControllerEvent::ZkPartitionReassignment | ControllerEvent::PartitionReassignmentIsrChange(_) => "AlterPartitionReassignment",
            ControllerEvent::AutoPreferredReplicaLeaderElection => "AutoLeaderBalance",
            ControllerEvent::ReplicaLeaderElection { .. } => "ManualLeaderBalance",
            ControllerEvent::ControlledShutdown { .. } => "ControlledShutdown",
            ControllerEvent::IsrChangeNotification => "IsrChange",
            ControllerEvent::LeaderAndIsrResponseReceived { .. } => "LeaderAndIsrResponseReceived",
            ControllerEvent::UpdateMetadataResponseReceived { .. } => "UpdateMetadataResponseReceived",
            ControllerEvent::LogDirEventNotification => "LogDirChange",
            ControllerEvent::TopicUncleanLeaderElectionEnable(_) => "TopicUncleanLeaderElectionEnable",
        }
    }
}
