//! `ControllerContext`: what the active controller believes about the
//! cluster — live brokers and their epochs, assignments, leaders and ISRs,
//! and the two state machines' states.

use crate::copy_on_write::CopyOnWrite;
use crate::kafka::broker_ids::BrokerIds;
use crate::kafka::partition_map::PartitionMap;
use crate::kafka::zk_data::{BrokerInfo, LeaderIsrAndControllerEpoch, ReplicaAssignment};
use crate::kafka::BrokerId;
use crate::scenario::{Topic, TopicPartition};
use crate::small_map::{SmallMap, SmallSet};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum PartitionState {
    NewPartition,
    OnlinePartition,
    OfflinePartition,
    NonExistentPartition,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum ReplicaState {
    NewReplica,
    OnlineReplica,
    OfflineReplica,
    ReplicaDeletionStarted,
    ReplicaDeletionSuccessful,
    ReplicaDeletionIneligible,
    NonExistentReplica,
}

impl PartitionState {
    pub fn name(self) -> &'static str {
        match self {
            PartitionState::NewPartition => "NewPartition",
            PartitionState::OnlinePartition => "OnlinePartition",
            PartitionState::OfflinePartition => "OfflinePartition",
            PartitionState::NonExistentPartition => "NonExistentPartition",
        }
    }

    /// `PartitionState.validPreviousStates`.
    pub fn valid_previous(self) -> &'static [PartitionState] {
        use PartitionState::*;
        match self {
            NewPartition => &[NonExistentPartition],
            OnlinePartition | OfflinePartition => &[NewPartition, OnlinePartition, OfflinePartition],
            NonExistentPartition => &[OfflinePartition],
        }
    }
}

impl ReplicaState {
    pub fn name(self) -> &'static str {
        match self {
            ReplicaState::NewReplica => "NewReplica",
            ReplicaState::OnlineReplica => "OnlineReplica",
            ReplicaState::OfflineReplica => "OfflineReplica",
            ReplicaState::ReplicaDeletionStarted => "ReplicaDeletionStarted",
            ReplicaState::ReplicaDeletionSuccessful => "ReplicaDeletionSuccessful",
            ReplicaState::ReplicaDeletionIneligible => "ReplicaDeletionIneligible",
            ReplicaState::NonExistentReplica => "NonExistentReplica",
        }
    }

    /// `ReplicaState.validPreviousStates`.
    pub fn valid_previous(self) -> &'static [ReplicaState] {
        use ReplicaState::*;
        match self {
            NewReplica => &[NonExistentReplica],
            OnlineReplica | OfflineReplica => &[NewReplica, OnlineReplica, OfflineReplica, ReplicaDeletionIneligible],
            ReplicaDeletionStarted => &[OfflineReplica],
            ReplicaDeletionSuccessful => &[ReplicaDeletionStarted],
            ReplicaDeletionIneligible => &[OfflineReplica, ReplicaDeletionStarted],
            NonExistentReplica => &[ReplicaDeletionSuccessful],
        }
    }
}

/// `PartitionAndReplica`.
pub type Replica = (TopicPartition, BrokerId);

/// `ReplicaStateMachine`'s states: per partition (indexed, see
/// [`PartitionMap`]) the replicas' brokers in ascending order with their
/// states. A failover reads and marks every replica, 300,000 of them for
/// 100,000 partitions of RF 3.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplicaStates(PartitionMap<BrokerStates>);

/// Replicas kept inline in a partition's entry: every replication factor
/// up to four.
const INLINE_STATES: usize = 4;

/// One partition's replicas with their states, brokers ascending. Inline up
/// to [`INLINE_STATES`], so that a replica's state is read from the
/// partition's entry itself: a failover reads them broker by broker, each
/// read a step across the entries, and a list kept elsewhere in memory made
/// each a second cache miss (a sixteenth of the 100,000-partition run's
/// cycles were these reads and writes; issue 9).
#[derive(Clone, Debug)]
enum BrokerStates {
    /// The first `len` of each array.
    Inline(u8, [BrokerId; INLINE_STATES], [ReplicaState; INLINE_STATES]),
    /// More replicas than fit (a big replication factor, or a
    /// reassignment's old and new replicas together).
    Spilled(Vec<(BrokerId, ReplicaState)>),
}

impl BrokerStates {
    fn one(b: BrokerId, state: ReplicaState) -> BrokerStates {
        let mut brokers = [0; INLINE_STATES];
        let mut states = [ReplicaState::NonExistentReplica; INLINE_STATES];
        (brokers[0], states[0]) = (b, state);
        BrokerStates::Inline(1, brokers, states)
    }

    /// Where broker `b` is, or where it would go.
    fn position(&self, b: BrokerId) -> Result<usize, usize> {
        match self {
            BrokerStates::Inline(len, brokers, _) => brokers[..*len as usize].binary_search(&b),
            BrokerStates::Spilled(list) => list.binary_search_by_key(&b, |(r, _)| *r),
        }
    }

    fn get(&self, b: BrokerId) -> Option<&ReplicaState> {
        let i = self.position(b).ok()?;
        Some(match self {
            BrokerStates::Inline(_, _, states) => &states[i],
            BrokerStates::Spilled(list) => &list[i].1,
        })
    }

    fn pairs(&self) -> Vec<(BrokerId, ReplicaState)> {
        match self {
            BrokerStates::Inline(len, brokers, states) => brokers.iter().copied().zip(states.iter().copied()).take(*len as usize).collect(),
            BrokerStates::Spilled(list) => list.clone(),
        }
    }

    /// Sets broker `b`'s state, returning the one it replaces.
    fn replace(&mut self, b: BrokerId, state: ReplicaState) -> Option<ReplicaState> {
        let at = self.position(b);
        match (self, at) {
            (BrokerStates::Inline(_, _, states), Ok(i)) => Some(std::mem::replace(&mut states[i], state)),
            (BrokerStates::Spilled(list), Ok(i)) => Some(std::mem::replace(&mut list[i].1, state)),
            (BrokerStates::Inline(len, brokers, states), Err(i)) if (*len as usize) < INLINE_STATES => {
                let n = *len as usize;
                brokers.copy_within(i..n, i + 1);
                states.copy_within(i..n, i + 1);
                (brokers[i], states[i], *len) = (b, state, *len + 1);
                None
            }
            (this @ BrokerStates::Inline(..), Err(i)) => {
                let mut list = this.pairs();
                list.insert(i, (b, state));
                *this = BrokerStates::Spilled(list);
                None
            }
            (BrokerStates::Spilled(list), Err(i)) => {
                list.insert(i, (b, state));
                None
            }
        }
    }

    /// Forgets broker `b`'s state, returning it.
    fn remove(&mut self, b: BrokerId) -> Option<ReplicaState> {
        let i = self.position(b).ok()?;
        match self {
            BrokerStates::Inline(len, brokers, states) => {
                let (n, state) = (*len as usize, states[i]);
                brokers.copy_within(i + 1..n, i);
                states.copy_within(i + 1..n, i);
                *len -= 1;
                Some(state)
            }
            BrokerStates::Spilled(list) => Some(list.remove(i).1),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            BrokerStates::Inline(len, ..) => *len == 0,
            BrokerStates::Spilled(list) => list.is_empty(),
        }
    }
}

/// Equal when they hold the same states, inline or not (the slots past an
/// inline list's length are not part of it).
impl PartialEq for BrokerStates {
    fn eq(&self, other: &Self) -> bool {
        self.pairs() == other.pairs()
    }
}

impl Eq for BrokerStates {}

impl ReplicaStates {
    pub fn get(&self, (tp, b): &Replica) -> Option<&ReplicaState> {
        self.state(tp, *b)
    }

    /// The state of broker `b`'s replica of `tp`, without building a [`Replica`].
    pub fn state(&self, tp: &TopicPartition, b: BrokerId) -> Option<&ReplicaState> {
        self.0.get(tp)?.get(b)
    }

    pub fn insert(&mut self, (tp, b): Replica, state: ReplicaState) {
        self.replace(&tp, b, state);
    }

    /// Sets the state of broker `b`'s replica of `tp`, returning the one it
    /// replaces (None if it had none). One look-up of the partition when it
    /// has states already — a failover sets every replica's twice — and
    /// the key is cloned only for a new partition.
    pub fn replace(&mut self, tp: &TopicPartition, b: BrokerId, state: ReplicaState) -> Option<ReplicaState> {
        if let Some(brokers) = self.0.get_mut(tp) {
            return brokers.replace(b, state);
        }
        self.0.insert(tp.clone(), BrokerStates::one(b, state));
        None
    }

    pub fn remove(&mut self, (tp, b): &Replica) -> Option<ReplicaState> {
        let brokers = self.0.get_mut(tp)?;
        let state = brokers.remove(*b)?;
        if brokers.is_empty() {
            self.0.remove(tp);
        }
        Some(state)
    }

    pub fn remove_topic(&mut self, topic: &str) {
        self.0.remove_topic(topic);
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControllerContext {
    pub epoch: i32,
    pub epoch_zk_version: i32,
    /// Live (or shutting-down) brokers with their epochs (czxid); changed
    /// only through the methods below, which count the changes.
    live_brokers: SmallMap<BrokerId, (BrokerInfo, i64)>,
    /// Moves on every change of `live_brokers`: a request batch adding
    /// UpdateMetadata for every live broker, once per replica of a big
    /// failover, checks its recipients only when the live set may differ
    /// from the one it last covered (`RequestBatch`).
    live_brokers_version: u64,
    pub shutting_down: SmallSet<BrokerId>,
    pub all_topics: BTreeSet<String>,
    /// Indexed by partition (a failover reads every replica's). The
    /// per-partition maps are shared with the timeline's snapshots until
    /// written: between the controller's events they stay as they are.
    pub assignments: CopyOnWrite<PartitionMap<ReplicaAssignment>>,
    pub leadership: CopyOnWrite<PartitionMap<LeaderIsrAndControllerEpoch>>,
    pub partitions_being_reassigned: BTreeSet<TopicPartition>,
    pub partition_states: CopyOnWrite<PartitionMap<PartitionState>>,
    pub replica_states: CopyOnWrite<ReplicaStates>,
    pub replicas_on_offline_dirs: SmallMap<BrokerId, BTreeSet<TopicPartition>>,
    pub topics_to_be_deleted: BTreeSet<String>,
    pub topics_with_deletion_started: BTreeSet<String>,
    pub topics_ineligible_for_deletion: BTreeSet<String>,
}

impl ControllerContext {
    /// Live (or shutting-down) brokers with their epochs (czxid).
    pub fn live_brokers(&self) -> &SmallMap<BrokerId, (BrokerInfo, i64)> {
        &self.live_brokers
    }

    /// Counts the changes of [`ControllerContext::live_brokers`].
    pub fn live_brokers_version(&self) -> u64 {
        self.live_brokers_version
    }

    pub fn set_live_brokers(&mut self, brokers: SmallMap<BrokerId, (BrokerInfo, i64)>) {
        self.live_brokers_version += 1;
        self.live_brokers = brokers;
    }

    pub fn add_live_broker(&mut self, b: BrokerId, info_and_epoch: (BrokerInfo, i64)) {
        self.live_brokers_version += 1;
        self.live_brokers.insert(b, info_and_epoch);
    }

    pub fn remove_live_broker(&mut self, b: BrokerId) {
        self.live_brokers_version += 1;
        self.live_brokers.remove(&b);
    }

    /// A live broker's registration (its endpoints change).
    pub fn live_broker_mut(&mut self, b: BrokerId) -> Option<&mut (BrokerInfo, i64)> {
        self.live_brokers_version += 1;
        self.live_brokers.get_mut(&b)
    }

    /// `liveOrShuttingDownBrokerIds`.
    pub fn live_or_shutting_down(&self) -> SmallSet<BrokerId> {
        self.live_brokers.keys().copied().collect()
    }

    /// `liveBrokerIds` = live or shutting down, minus shutting down.
    pub fn live_broker_ids(&self) -> SmallSet<BrokerId> {
        self.live_brokers.keys().copied().filter(|b| !self.shutting_down.contains(b)).collect()
    }

    pub fn broker_epoch(&self, b: BrokerId) -> Option<i64> {
        self.live_brokers.get(&b).map(|(_, e)| *e)
    }

    /// `isReplicaOnline`.
    pub fn is_replica_online(&self, b: BrokerId, tp: &TopicPartition, include_shutting_down: bool) -> bool {
        let live = if include_shutting_down {
            self.live_brokers.contains_key(&b)
        } else {
            self.live_brokers.contains_key(&b) && !self.shutting_down.contains(&b)
        };
        live && !self.replicas_on_offline_dirs.get(&b).map(|s| s.contains(tp)).unwrap_or(false)
    }

    pub fn assignment(&self, tp: &TopicPartition) -> Option<&ReplicaAssignment> {
        self.assignments.get(tp)
    }

    pub fn assignment_mut(&mut self, tp: &TopicPartition) -> Option<&mut ReplicaAssignment> {
        self.assignments.get_mut(tp)
    }

    /// The topic's assignment by partition number, as its znode holds it.
    pub fn topic_assignment(&self, topic: &str) -> BTreeMap<i32, ReplicaAssignment> {
        crate::kafka::ordered_map(self.assignments.topic(topic).map(|(tp, a)| (tp.partition, a.clone())))
    }

    /// Replaces the topic's whole assignment.
    /// A topic's partitions, all at once: its name is interned once for all
    /// of them, and room for them made after the first (a new topic's
    /// 10,000 entries grown one by one were copied a dozen times).
    pub fn set_topic_assignment(&mut self, topic: &str, assignment: BTreeMap<i32, ReplicaAssignment>) {
        self.assignments.remove_topic(topic);
        let (name, total) = (Topic::new(topic), assignment.len());
        for (i, (partition, a)) in assignment.into_iter().enumerate() {
            self.assignments.insert(TopicPartition { topic: name.clone(), partition }, a);
            if i == 0 {
                self.assignments.reserve_topic(topic, total);
            }
        }
    }

    pub fn replicas(&self, tp: &TopicPartition) -> BrokerIds {
        self.assignment(tp).map(|a| a.replicas.clone()).unwrap_or_default()
    }

    pub fn all_partitions(&self) -> Vec<TopicPartition> {
        self.assignments.keys().cloned().collect()
    }

    pub fn partitions_for_topic(&self, topic: &str) -> Vec<TopicPartition> {
        self.assignments.topic(topic).map(|(tp, _)| tp.clone()).collect()
    }

    /// `replicasOnBrokers`: every replica hosted on the given brokers.
    pub fn replicas_on_brokers(&self, brokers: &SmallSet<BrokerId>) -> Vec<Replica> {
        let mut out = Vec::new();
        for (tp, a) in self.assignments.iter() {
            for r in &a.replicas {
                if brokers.contains(r) {
                    out.push((tp.clone(), *r));
                }
            }
        }
        out
    }

    pub fn replicas_for_topic(&self, topic: &str) -> Vec<Replica> {
        self.partitions_for_topic(topic).into_iter().flat_map(|tp| self.replicas(&tp).into_iter().map(move |r| (tp.clone(), r))).collect()
    }

    pub fn partition_state(&self, tp: &TopicPartition) -> PartitionState {
        self.partition_states.get(tp).copied().unwrap_or(PartitionState::NonExistentPartition)
    }

    pub fn replica_state(&self, (tp, b): &Replica) -> ReplicaState {
        self.replica_state_of(tp, *b)
    }

    /// `replica_state` without building a [`Replica`].
    pub fn replica_state_of(&self, tp: &TopicPartition, b: BrokerId) -> ReplicaState {
        self.replica_states.state(tp, b).copied().unwrap_or(ReplicaState::NonExistentReplica)
    }

    pub fn is_topic_queued_for_deletion(&self, topic: &str) -> bool {
        self.topics_to_be_deleted.contains(topic)
    }

    /// `partitionsWithOfflineLeader`.
    pub fn partitions_with_offline_leader(&self) -> Vec<TopicPartition> {
        self.leadership
            .iter()
            .filter(|(tp, l)| !self.is_replica_online(l.leader, tp, false) && !self.is_topic_queued_for_deletion(&tp.topic))
            .map(|(tp, _)| tp.clone())
            .collect()
    }

    /// `partitionLeadersOnBroker`: led by `b`, replication factor > 1, not being deleted.
    pub fn partition_leaders_on_broker(&self, b: BrokerId) -> Vec<TopicPartition> {
        self.leadership
            .iter()
            .filter(|(tp, l)| l.leader == b && self.replicas(tp).len() > 1 && !self.is_topic_queued_for_deletion(&tp.topic))
            .map(|(tp, _)| tp.clone())
            .collect()
    }

    pub fn remove_topic(&mut self, topic: &str) {
        self.all_topics.remove(topic);
        self.assignments.remove_topic(topic);
        self.leadership.remove_topic(topic);
        self.partition_states.remove_topic(topic);
        self.replica_states.remove_topic(topic);
        self.partitions_being_reassigned.retain(|tp| tp.topic != topic);
        self.topics_to_be_deleted.remove(topic);
        self.topics_with_deletion_started.remove(topic);
        self.topics_ineligible_for_deletion.remove(topic);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replica_states_inline_or_spilled_agree_with_an_ordered_map() {
        const STATES: [ReplicaState; 3] = [ReplicaState::NewReplica, ReplicaState::OnlineReplica, ReplicaState::OfflineReplica];
        let mut rng = crate::sim::Rng::seeded(7);
        let (mut states, mut model) = (ReplicaStates::default(), BTreeMap::new());
        for _ in 0..20_000 {
            // Up to seven brokers, so that some partitions spill and shrink back.
            let tp = TopicPartition { topic: "t".into(), partition: rng.index(20) as i32 };
            let b = rng.index(7) as BrokerId;
            let key = (tp.clone(), b);
            if rng.chance(1, 3) {
                assert_eq!(states.remove(&key), model.remove(&key));
            } else {
                let state = STATES[rng.index(STATES.len())];
                assert_eq!(states.replace(&tp, b, state), model.insert(key, state));
            }
            for b in 0..7 {
                let key = (tp.clone(), b);
                assert_eq!(states.get(&key), model.get(&key));
            }
        }
        // The same states, however each partition's are kept, are equal.
        let mut rebuilt = ReplicaStates::default();
        for ((tp, b), s) in &model {
            rebuilt.replace(tp, *b, *s);
        }
        assert_eq!(states, rebuilt);
    }

    #[test]
    fn a_partitions_replica_states_stay_inline_up_to_four() {
        let mut list = BrokerStates::one(3, ReplicaState::NewReplica);
        for b in [1, 4, 2] {
            list.replace(b, ReplicaState::OnlineReplica);
        }
        assert!(matches!(list, BrokerStates::Inline(4, [1, 2, 3, 4], _)));
        list.replace(0, ReplicaState::OfflineReplica);
        assert!(matches!(&list, BrokerStates::Spilled(l) if l.len() == 5));
        assert_eq!(list.get(0), Some(&ReplicaState::OfflineReplica));
        assert_eq!(list.get(3), Some(&ReplicaState::NewReplica));
    }
}
