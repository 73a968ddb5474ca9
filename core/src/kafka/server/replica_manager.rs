//! `ReplicaManager`: the partitions a broker hosts, as leader or follower,
//! with the leader epoch and zkVersion the controller last sent.
//! `becomeLeaderOrFollower` and `stopReplicas` apply the controller's
//! requests with Kafka's epoch fencing.

use crate::copy_on_write::CopyOnWrite;
use crate::kafka::broker_ids::BrokerIds;
use crate::kafka::messages::{Errors, LeaderAndIsrPartitionState, StopReplicaPartitionState};
use crate::kafka::partition_map::PartitionMap;
use crate::kafka::zk_data::LEADER_DURING_DELETE;
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use crate::sim::event::{FetchPartitions, FetchResults};
use crate::small_map::SmallMap;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Leader,
    Follower,
}

/// What the leader knows of a follower (`Replica`). While the follower's
/// fetch rounds are idle, `last_caught_up_ms` and `last_fetch_time_ms` lag
/// behind until `HostedPartitions` applies the rounds (see [`IdleFetch`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoteReplica {
    /// The follower's log end offset, -1 until its first fetch.
    pub leo: i64,
    pub last_caught_up_ms: u64,
    pub last_fetch_leader_leo: u64,
    pub last_fetch_time_ms: u64,
}

impl RemoteReplica {
    fn new(now: u64, in_isr: bool) -> RemoteReplica {
        RemoteReplica { leo: -1, last_caught_up_ms: if in_isr { now } else { 0 }, last_fetch_leader_leo: 0, last_fetch_time_ms: 0 }
    }

    /// `Replica.updateFetchState`: caught up if the fetch reached the
    /// leader's LEO now, or the LEO the leader had at the previous fetch.
    pub fn update_fetch_state(&mut self, fetch_offset: u64, now: u64, leader_leo: u64) {
        if fetch_offset >= leader_leo {
            self.last_caught_up_ms = self.last_caught_up_ms.max(now);
        } else if fetch_offset >= self.last_fetch_leader_leo {
            self.last_caught_up_ms = self.last_caught_up_ms.max(self.last_fetch_time_ms);
        }
        self.leo = fetch_offset as i64;
        self.last_fetch_leader_leo = leader_leo;
        self.last_fetch_time_ms = now;
    }

    /// Caught up within `lag_ms` of `now`. Kafka's 0 for "never caught up"
    /// (`makeLeader` gives it to a follower outside the ISR) is 1970 on its
    /// wall clock, outside any lag; the simulation's clock starts at 0, so
    /// 0 is read as never here, not as the first moment of the run.
    pub fn caught_up_within(&self, now: u64, lag_ms: u64) -> bool {
        self.last_caught_up_ms != 0 && now.saturating_sub(self.last_caught_up_ms) <= lag_ms
    }
}

/// The followers' fetch state by broker id, in id order: a map of a few
/// entries kept sorted. Up to [`INLINE_REMOTES`] of them (RF 3) live in the
/// hosted partition itself, more in a vector: every fetch round reads the
/// follower's entry of each partition it fetches, and kept apart it was a
/// cache miss of its own per partition (issue 9).
#[derive(Clone, Debug)]
pub struct Remotes(RemotesRepr);

/// The ids and their states side by side, not as pairs: a pair pads its
/// four-byte id to eight, and the inline two would take 88 bytes of every
/// hosted partition instead of 80.
#[derive(Clone, Debug)]
enum RemotesRepr {
    /// The first `.0` of each are the followers.
    Inline(u8, [BrokerId; INLINE_REMOTES], [RemoteReplica; INLINE_REMOTES]),
    Spilled(Vec<BrokerId>, Vec<RemoteReplica>),
}

/// Followers kept inline: a replication factor of three.
const INLINE_REMOTES: usize = 2;

const NO_REMOTE: RemoteReplica = RemoteReplica { leo: -1, last_caught_up_ms: 0, last_fetch_leader_leo: 0, last_fetch_time_ms: 0 };

impl Default for Remotes {
    fn default() -> Remotes {
        Remotes(RemotesRepr::Inline(0, [-1; INLINE_REMOTES], [NO_REMOTE; INLINE_REMOTES]))
    }
}

impl PartialEq for Remotes {
    fn eq(&self, other: &Remotes) -> bool {
        self.parts() == other.parts()
    }
}

impl Eq for Remotes {}

impl Remotes {
    fn parts(&self) -> (&[BrokerId], &[RemoteReplica]) {
        match &self.0 {
            RemotesRepr::Inline(n, ids, states) => (&ids[..*n as usize], &states[..*n as usize]),
            RemotesRepr::Spilled(ids, states) => (ids, states),
        }
    }

    fn parts_mut(&mut self) -> (&[BrokerId], &mut [RemoteReplica]) {
        match &mut self.0 {
            RemotesRepr::Inline(n, ids, states) => (&ids[..*n as usize], &mut states[..*n as usize]),
            RemotesRepr::Spilled(ids, states) => (ids, states),
        }
    }

    pub fn get(&self, id: &BrokerId) -> Option<&RemoteReplica> {
        let (ids, states) = self.parts();
        ids.iter().position(|b| b == id).and_then(|i| states.get(i))
    }

    pub fn get_mut(&mut self, id: &BrokerId) -> Option<&mut RemoteReplica> {
        let (ids, states) = self.parts_mut();
        ids.iter().position(|b| b == id).and_then(|i| states.get_mut(i))
    }

    pub fn iter(&self) -> impl Iterator<Item = (&BrokerId, &RemoteReplica)> {
        self.into_iter()
    }
}

impl FromIterator<(BrokerId, RemoteReplica)> for Remotes {
    /// As `BTreeMap` collects: sorted by id, a repeated id keeps its last value.
    fn from_iter<I: IntoIterator<Item = (BrokerId, RemoteReplica)>>(iter: I) -> Remotes {
        let mut v: Vec<(BrokerId, RemoteReplica)> = Vec::new();
        for (b, r) in iter {
            match v.binary_search_by_key(&b, |(k, _)| *k) {
                Ok(i) => v[i].1 = r,
                Err(i) => v.insert(i, (b, r)),
            }
        }
        if v.len() > INLINE_REMOTES {
            let (ids, states) = v.into_iter().unzip();
            return Remotes(RemotesRepr::Spilled(ids, states));
        }
        let (mut ids, mut states) = ([-1; INLINE_REMOTES], [NO_REMOTE; INLINE_REMOTES]);
        for (i, (b, r)) in v.iter().enumerate() {
            (ids[i], states[i]) = (*b, *r);
        }
        Remotes(RemotesRepr::Inline(v.len() as u8, ids, states))
    }
}

impl<'a> IntoIterator for &'a Remotes {
    type Item = (&'a BrokerId, &'a RemoteReplica);
    type IntoIter = std::iter::Zip<std::slice::Iter<'a, BrokerId>, std::slice::Iter<'a, RemoteReplica>>;
    fn into_iter(self) -> Self::IntoIter {
        let (ids, states) = self.parts();
        ids.iter().zip(states)
    }
}

/// A partition this broker hosts (`Partition` + its `Log`). Laid out as
/// written (`repr(C)`): the fields every fetch reads — the log's offsets,
/// the role, the followers' state, the ISR — come first and share cache
/// lines, ahead of those only a LeaderAndIsr reads. A big cluster's fetch
/// sessions walk hundreds of thousands of these (issue 9). 160 bytes, with
/// its key 176, no padding.
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct HostedPartition {
    /// The log: end offset and high watermark.
    pub leo: u64,
    pub hw: u64,
    pub role: Role,
    /// An ISR write failed (2.8's pending isrState): no more ISR changes
    /// until the next LeaderAndIsr.
    pub isr_update_pending: bool,
    /// Here, in what would be the padding before `remote`.
    pub leader: BrokerId,
    /// Leader only: the followers' fetch state.
    pub remote: Remotes,
    /// The ISR as this broker knows it (the leader maintains it).
    pub isr: BrokerIds,
    pub replicas: BrokerIds,
    /// The leader's LEO when it became leader (`leaderEpochStartOffset`).
    pub leader_epoch_start_offset: u64,
    pub leader_epoch: i32,
    pub zk_version: i32,
    pub controller_epoch: i32,
    pub log_dir: u32,
}

impl HostedPartition {
    /// `maybeIncrementLeaderHW`: the smallest LEO among the leader and the
    /// followers that are in the ISR or caught up within the lag; only forward.
    pub fn maybe_increment_hw(&mut self, me: BrokerId, now: u64, lag_ms: u64) -> bool {
        let mut candidate = self.leo;
        for (b, r) in &self.remote {
            if *b == me {
                continue;
            }
            let eligible = r.caught_up_within(now, lag_ms) || self.isr.contains(b);
            if eligible && r.leo >= 0 && (r.leo as u64) < candidate {
                candidate = r.leo as u64;
            } else if eligible && r.leo < 0 && self.isr.contains(b) {
                candidate = candidate.min(self.hw);
            }
        }
        if candidate > self.hw {
            self.hw = candidate;
            true
        } else {
            false
        }
    }

    /// `getOutOfSyncReplicas`: ISR followers whose LEO differs from the
    /// leader's and that have not caught up for longer than the lag.
    pub fn out_of_sync_replicas(&self, me: BrokerId, now: u64, lag_ms: u64) -> BrokerIds {
        self.isr
            .iter()
            .copied()
            .filter(|b| *b != me)
            .filter(|b| self.remote.get(b).map(|r| r.leo != self.leo as i64 && !r.caught_up_within(now, lag_ms)).unwrap_or(false))
            .collect()
    }
}

/// A follower's fetch rounds that changed nothing but the times at the
/// leader: it asked again for the same partitions at the same offsets, each
/// at the leader's LEO with the HW there too and the follower in the ISR. Such
/// a round would only set the follower's `last_caught_up_ms` and
/// `last_fetch_time_ms` to now on every partition (`updateFetchState`); the
/// leader notes the time of the latest one here instead and applies it to
/// the partitions when anything reads or changes them. A big cluster spends
/// most of its rounds this way, so they cost one event each and no
/// per-partition work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdleFetch {
    /// The request the rounds repeat (compared by address).
    pub request: FetchPartitions,
    /// When the latest of them reached the leader.
    pub round_ms: u64,
}

/// The partitions a broker hosts, by name, as an ordered map — with the
/// idle fetch rounds it has not yet applied to its followers' state, and a
/// version that moves whenever something a cached fetch request or
/// response depends on may have changed.
///
/// Reads see every field as it is, except the followers' fetch times, which
/// only `maybe_increment_hw` and `out_of_sync_replicas` read, and neither
/// needs the idle rounds applied: a follower in one is in the ISR and at
/// the leader's LEO ([`HostedPartitions::idle_followers_at_leo`]), so the
/// HW counts it and it is in sync whatever its times. Every change through
/// `get_mut`, `insert` or `remove` first applies and ends the idle rounds:
/// the per-session state ends exactly where per-partition updates would have
/// stopped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostedPartitions {
    /// Indexed by partition number per topic: every fetch looks its
    /// partitions up here, and a LeaderAndIsr of a failover all of them.
    /// Shared with the timeline's snapshots until written: idle fetch
    /// rounds leave it as it is.
    map: CopyOnWrite<PartitionMap<HostedPartition>>,
    /// Followers whose fetch rounds are idle, by follower id.
    idle: SmallMap<BrokerId, IdleFetch>,
    version: u64,
}

impl HostedPartitions {
    pub fn get(&self, tp: &TopicPartition) -> Option<&HostedPartition> {
        self.map.get(tp)
    }

    pub fn contains_key(&self, tp: &TopicPartition) -> bool {
        self.map.contains_key(tp)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&TopicPartition, &HostedPartition)> {
        self.map.iter()
    }

    pub fn keys(&self) -> impl Iterator<Item = &TopicPartition> {
        self.map.keys()
    }

    pub fn values(&self) -> impl Iterator<Item = &HostedPartition> {
        self.map.values()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// A partition to change: the idle rounds end first.
    pub fn get_mut(&mut self, tp: &TopicPartition) -> Option<&mut HostedPartition> {
        self.end_idle_rounds();
        self.map.get_mut(tp)
    }

    pub fn insert(&mut self, tp: TopicPartition, h: HostedPartition) -> Option<HostedPartition> {
        self.end_idle_rounds();
        self.map.insert(tp, h)
    }

    /// See [`PartitionMap::reserve_topic`]. A failover's LeaderAndIsr
    /// changes few of a broker's partitions: the map stays shared with the
    /// timeline's keyframes unless room is really made.
    pub fn reserve_topic(&mut self, topic: &str, total: usize) {
        if self.map.lacks_room(topic, total) {
            self.map.reserve_topic(topic, total);
        }
    }

    pub fn remove(&mut self, tp: &TopicPartition) -> Option<HostedPartition> {
        self.end_idle_rounds();
        self.map.remove(tp)
    }

    /// A partition for the fetch paths, which change only what they say:
    /// the follower's own fetch state at a leader (no other follower's idle
    /// rounds depend on it), or a follower's log; they call `touch` when a
    /// LEO or HW moves.
    pub(super) fn fetch_state_mut(&mut self, tp: &TopicPartition) -> Option<&mut HostedPartition> {
        self.map.get_mut(tp)
    }

    /// Something a cached fetch request or response depends on changed.
    pub(super) fn touch(&mut self) {
        self.version += 1;
    }

    pub(super) fn version(&self) -> u64 {
        self.version
    }

    /// While a follower's fetch rounds are idle, its LEO at the leader is
    /// the leader's on every partition of the rounds (what lets the
    /// isr-expiration task read the partitions without applying them).
    pub fn idle_followers_at_leo(&self) -> bool {
        self.idle.iter().all(|(f, idle)| {
            idle.request.iter().all(|(tp, _)| self.map.get(tp).is_none_or(|h| h.remote.get(f).is_none_or(|r| r.leo == h.leo as i64)))
        })
    }

    /// Applies and ends every idle round: something is about to change.
    fn end_idle_rounds(&mut self) {
        self.version += 1;
        while let Some((&f, _)) = self.idle.first_key_value() {
            self.end_idle_round(f);
        }
    }

    /// Ends `follower`'s idle rounds, leaving what their per-partition
    /// updates would have: `updateFetchState` at the latest round's time.
    pub(super) fn end_idle_round(&mut self, follower: BrokerId) {
        let Some(idle) = self.idle.remove(&follower) else { return };
        for (tp, offset) in idle.request.iter() {
            if let Some(h) = self.map.get_mut(tp) {
                let leader_leo = h.leo;
                if let Some(r) = h.remote.get_mut(&follower) {
                    r.update_fetch_state(*offset, idle.round_ms, leader_leo);
                }
            }
        }
    }

    /// Another round of `follower`'s idle fetch: true if `request` is the
    /// one its idle rounds repeat (the round is then noted, nothing else).
    pub(super) fn repeat_idle_round(&mut self, follower: BrokerId, request: &FetchPartitions, now: u64) -> bool {
        match self.idle.get_mut(&follower) {
            Some(idle) if Rc::ptr_eq(&idle.request, request) => {
                idle.round_ms = now;
                true
            }
            _ => false,
        }
    }

    /// `follower`'s round at `now` changed nothing but its fetch times: the
    /// next rounds like it are idle rounds.
    pub(super) fn start_idle_rounds(&mut self, follower: BrokerId, request: FetchPartitions, now: u64) {
        self.idle.insert(follower, IdleFetch { request, round_ms: now });
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplicaManager {
    pub controller_epoch: i32,
    pub partitions: HostedPartitions,
    /// Partitions in a failed log dir (`HostedPartition.Offline`).
    pub offline: BTreeSet<TopicPartition>,
    pub log_dirs: Vec<bool>,
    /// Whether the first LeaderAndIsr has arrived (starts the HW checkpoints).
    pub received_leader_and_isr: bool,
    /// Partitions whose ISR changed since the last propagation.
    pub isr_change_set: BTreeSet<TopicPartition>,
    pub last_isr_change_ms: u64,
    pub last_isr_propagation_ms: u64,
    /// `replication-offset-checkpoint` per log dir, as last written.
    pub checkpoints: SmallMap<u32, Rc<str>>,
    /// The replica fetchers: one fetch session per leader broker.
    pub fetchers: SmallMap<BrokerId, FetchSession>,
    /// `pause-fetch`: every partition (None) or these.
    pub fetch_paused_all: bool,
    pub fetch_paused: BTreeSet<TopicPartition>,
    /// Fetches a leader holds back because there was nothing new
    /// (follower → the partitions it asked for and the session generation).
    /// A follower whose parked fetch was answered keeps its entry, empty:
    /// a fetch is parked and answered twice a second per follower, and the
    /// map no longer changes shape each time.
    pub delayed_fetches: SmallMap<BrokerId, Option<ParkedFetch>>,
    /// The last answer to each follower, reused while its request and the
    /// partitions are unchanged (the follower then knows it by address).
    pub fetch_responses: SmallMap<BrokerId, CachedResponse>,
    /// `LogDirFailureChannel`: dirs reported failed, not yet handled.
    pub offline_dir_queue: Vec<u32>,
    pub next_token: u64,
    /// Logs left on disk by an earlier run of this broker: dir and LEO.
    pub disk: BTreeMap<TopicPartition, (u32, u64)>,
    /// The high watermarks last checkpointed, read back at restart. Made
    /// anew at a checkpoint after a change, and shared with the timeline's
    /// keyframes in between (a big cluster's broker checkpoints thousands).
    pub checkpointed: CopyOnWrite<BTreeMap<TopicPartition, u64>>,
    /// The partitions' version (`HostedPartitions`) when `checkpoints` and
    /// `checkpointed` were last written: every partition, its log dir and HW,
    /// the online dirs and the offline partitions were the same as now if
    /// it still stands.
    pub checkpointed_version: Option<u64>,
}

/// A fetch a leader holds: the session generation, the follower's
/// incarnation, and the (partition, fetch offset) pairs it asked for.
pub type ParkedFetch = (u64, u32, FetchPartitions);

/// A fetch response as sent: the request it answered, the partitions'
/// version then, and the results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedResponse {
    pub request: FetchPartitions,
    pub version: u64,
    pub results: FetchResults,
}

/// `ReplicaFetcherThread`: what a follower fetches from one leader.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FetchSession {
    /// Shared with the timeline's keyframes until a LeaderAndIsr changes
    /// them: a big cluster's broker follows thousands of partitions, and
    /// its sessions were copied whole into every keyframe (issue 9).
    pub partitions: CopyOnWrite<BTreeSet<TopicPartition>>,
    /// A fetch is on the wire (or parked at the leader).
    pub in_flight: bool,
    /// Responses to an older request are ignored.
    pub generation: u64,
    /// The last request sent and the partitions' version it was built at:
    /// sent again as it is while the version stands.
    pub sent: Option<(u64, FetchPartitions)>,
    /// The last response applied without error and the version after it:
    /// the same response again at that version changes nothing.
    pub applied: Option<(u64, FetchResults)>,
}

/// What `becomeLeaderOrFollower` did, for the trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeaderAndIsrOutcome {
    pub error: Option<Errors>,
    pub partition_errors: BTreeMap<TopicPartition, Errors>,
    pub became_leader: Vec<TopicPartition>,
    pub became_follower: Vec<TopicPartition>,
    pub first: bool,
    /// The logs created (`Partition.createLog`: neither hosted nor on disk
    /// before), in the request's order.
    pub created: Vec<TopicPartition>,
}

impl ReplicaManager {
    pub fn new(log_dirs: u32, now: u64) -> ReplicaManager {
        ReplicaManager {
            log_dirs: vec![true; log_dirs as usize],
            last_isr_change_ms: now,
            last_isr_propagation_ms: now,
            ..ReplicaManager::default()
        }
    }

    /// `checkpointHighWatermarks`: per online log dir, Kafka's text format
    /// (version 0, the count, then `topic partition offset` lines; sorted).
    pub fn checkpoint_text(&self, dir: u32) -> String {
        let entries: Vec<_> = self.partitions.iter().filter(|(tp, h)| h.log_dir == dir && !self.offline.contains(*tp)).collect();
        let mut s = format!("0\n{}\n", entries.len());
        // Appended into the one string: a big broker writes thousands of
        // lines at every checkpoint after a change, and formatting each
        // line cost several times the appending.
        s.reserve(entries.iter().map(|(tp, _)| tp.topic.len() + 16).sum());
        for (tp, h) in entries {
            s.push_str(&tp.topic);
            s.push(' ');
            s.push_str(itoa::Buffer::new().format(tp.partition));
            s.push(' ');
            s.push_str(itoa::Buffer::new().format(h.hw));
            s.push('\n');
        }
        s
    }

    /// `removeFetcherForPartitions`: the partitions `leaving` picks leave
    /// every fetch session. A session that holds none of them is not
    /// written, so it stays shared with the timeline's keyframes.
    pub fn remove_fetcher_for_partitions(&mut self, leaving: impl Fn(&TopicPartition) -> bool) {
        for s in self.fetchers.values_mut() {
            let left: Vec<TopicPartition> = s.partitions.iter().filter(|tp| leaving(tp)).cloned().collect();
            if !left.is_empty() {
                let partitions = &mut *s.partitions;
                for tp in &left {
                    partitions.remove(tp);
                }
            }
        }
    }

    pub fn is_fetch_paused(&self, tp: &TopicPartition) -> bool {
        self.fetch_paused_all || self.fetch_paused.contains(tp)
    }

    /// LogManager's rule: the online dir with the fewest partitions, ties in
    /// dir order.
    pub fn choose_log_dir(&self) -> Option<u32> {
        self.choose_log_dir_among(&self.partitions_per_dir())
    }

    /// How many hosted partitions each log dir holds.
    fn partitions_per_dir(&self) -> Vec<usize> {
        let mut counts = vec![0usize; self.log_dirs.len()];
        for p in self.partitions.values() {
            if let Some(c) = counts.get_mut(p.log_dir as usize) {
                *c += 1;
            }
        }
        counts
    }

    /// `choose_log_dir` with the counts kept up to date by the caller (a
    /// LeaderAndIsr creating thousands of logs would count them all again
    /// for each one).
    fn choose_log_dir_among(&self, counts: &[usize]) -> Option<u32> {
        (0..self.log_dirs.len()).filter(|d| self.log_dirs[*d]).min_by_key(|d| counts[*d]).map(|d| d as u32)
    }

    /// `becomeLeaderOrFollower`.
    pub fn become_leader_or_follower(
        &mut self,
        me: BrokerId,
        now: u64,
        controller_epoch: i32,
        partitions: &[LeaderAndIsrPartitionState],
    ) -> LeaderAndIsrOutcome {
        let mut out = LeaderAndIsrOutcome::default();
        if controller_epoch < self.controller_epoch {
            out.error = Some(Errors::STALE_CONTROLLER_EPOCH);
            return out;
        }
        self.controller_epoch = controller_epoch;
        out.first = !self.received_leader_and_isr;
        self.received_leader_and_isr = true;
        let mut per_dir = self.partitions_per_dir();
        // In the request's order, then made a map at once: a failover's
        // request lists thousands of partitions, and a map built from them
        // in order costs a fraction of one insertion each.
        let mut errors = Vec::with_capacity(partitions.len());
        for run in partitions.chunk_by(|a, b| a.topic == b.topic) {
            for (i, p) in run.iter().enumerate() {
                let tp = p.tp();
                let error = self.become_one(me, now, p, &tp, &mut per_dir, &mut out);
                if i == 0 {
                    // The first of a topic's partitions is in: room for the rest.
                    self.partitions.reserve_topic(&p.topic, run.len());
                }
                errors.push((tp, error));
            }
        }
        out.partition_errors = errors.into_iter().collect();
        out
    }

    /// One partition of `becomeLeaderOrFollower`: its error code.
    fn become_one(
        &mut self,
        me: BrokerId,
        now: u64,
        p: &LeaderAndIsrPartitionState,
        tp: &TopicPartition,
        per_dir: &mut [usize],
        out: &mut LeaderAndIsrOutcome,
    ) -> Errors {
        if self.offline.contains(tp) {
            return Errors::KAFKA_STORAGE_ERROR;
        }
        // Read once: what is hosted now (most partitions of a failover's
        // request are, and answer that their leader epoch is not newer).
        let current = self.partitions.get(tp);
        if p.leader_epoch <= current.map_or(-1, |h| h.leader_epoch) {
            return Errors::STALE_CONTROLLER_EPOCH;
        }
        if !p.replicas.contains(&me) {
            return Errors::UNKNOWN_TOPIC_OR_PARTITION;
        }
        let on_disk = if current.is_none() { self.disk.get(tp) } else { None };
        let log_dir = match current.map(|h| h.log_dir).or_else(|| on_disk.map(|d| d.0)) {
            Some(d) => d,
            None => match self.choose_log_dir_among(per_dir) {
                Some(d) => d,
                None => return Errors::KAFKA_STORAGE_ERROR,
            },
        };
        let role = if p.leader == me { Role::Leader } else { Role::Follower };
        let isr = if role == Role::Leader { p.isr.clone() } else { BrokerIds::new() };
        let (leo, hw, was_leader, old_remote) = match current {
            Some(h) => (h.leo, h.hw, h.role == Role::Leader, h.remote.clone()),
            // A log from before a restart: its HW comes from the checkpoint.
            None => match on_disk {
                Some((_, leo)) => (*leo, self.checkpointed.get(tp).copied().unwrap_or(0).min(*leo), false, Remotes::default()),
                None => (0, 0, false, Remotes::default()),
            },
        };
        // Partition.createLog: a new log, neither hosted nor on disk.
        if current.is_none() && on_disk.is_none() {
            out.created.push(tp.clone());
        }
        // makeLeader: every follower's caught-up time restarts (now if in
        // the ISR); a new leader forgets the followers' LEOs.
        let remote: Remotes = if role == Role::Leader {
            p.replicas
                .iter()
                .filter(|b| **b != me)
                .map(|b| {
                    let mut r = RemoteReplica::new(now, p.isr.contains(b));
                    if let (true, Some(old)) = (was_leader, old_remote.get(b)) {
                        r.leo = old.leo;
                    }
                    (*b, r)
                })
                .collect()
        } else {
            Remotes::default()
        };
        let mut hosted = HostedPartition {
            role,
            leader: p.leader,
            leader_epoch: p.leader_epoch,
            zk_version: p.zk_version,
            controller_epoch: p.controller_epoch,
            replicas: p.replicas.clone(),
            isr,
            log_dir,
            leo,
            hw,
            leader_epoch_start_offset: leo,
            remote,
            isr_update_pending: false,
        };
        // makeLeader's `maybeIncrementLeaderHW`: the ISR may be down to one.
        // Every follower was just given `now` (in the ISR) or never, so any
        // lag gives the same answer.
        if role == Role::Leader {
            hosted.maybe_increment_hw(me, now, u64::MAX);
        }
        if self.partitions.insert(tp.clone(), hosted).is_none() {
            if let Some(c) = per_dir.get_mut(log_dir as usize) {
                *c += 1;
            }
        }
        match role {
            Role::Leader => out.became_leader.push(tp.clone()),
            Role::Follower => out.became_follower.push(tp.clone()),
        }
        Errors::NONE
    }

    /// `stopReplicas`: per partition, stop (and delete) unless the request's
    /// leader epoch is not newer than ours.
    pub fn stop_replicas(
        &mut self,
        controller_epoch: i32,
        partitions: &[StopReplicaPartitionState],
    ) -> (Option<Errors>, BTreeMap<TopicPartition, Errors>) {
        if controller_epoch < self.controller_epoch {
            return (Some(Errors::STALE_CONTROLLER_EPOCH), BTreeMap::new());
        }
        self.controller_epoch = controller_epoch;
        let mut errors = BTreeMap::new();
        for p in partitions {
            let tp = TopicPartition { topic: p.topic.clone(), partition: p.partition };
            if self.offline.contains(&tp) {
                errors.insert(tp, Errors::KAFKA_STORAGE_ERROR);
                continue;
            }
            let current = self.partitions.get(&tp).map(|h| h.leader_epoch);
            let stop = match current {
                None => true,
                Some(cur) => p.leader_epoch == LEADER_DURING_DELETE || p.leader_epoch == -1 || p.leader_epoch > cur,
            };
            if !stop {
                errors.insert(tp, Errors::FENCED_LEADER_EPOCH);
                continue;
            }
            if p.delete_partition {
                self.partitions.remove(&tp);
                self.disk.remove(&tp);
                self.checkpointed.remove(&tp);
            } else if let Some(h) = self.partitions.get_mut(&tp) {
                // The replica stops fetching; it stays on disk.
                h.role = Role::Follower;
                h.leader = -1;
            }
            errors.insert(tp, Errors::NONE);
        }
        (None, errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(leo: i64) -> RemoteReplica {
        RemoteReplica { leo, ..RemoteReplica::new(0, true) }
    }

    #[test]
    fn remotes_are_by_id_kept_inline_up_to_rf_3_and_the_last_of_an_id_wins() {
        let two: Remotes = [(7, remote(1)), (3, remote(2)), (7, remote(5))].into_iter().collect();
        assert!(matches!(two.0, RemotesRepr::Inline(2, ..)));
        assert_eq!(two.iter().map(|(b, r)| (*b, r.leo)).collect::<Vec<_>>(), [(3, 2), (7, 5)]);
        let mut three: Remotes = [(9, remote(1)), (3, remote(2)), (5, remote(3))].into_iter().collect();
        assert!(matches!(three.0, RemotesRepr::Spilled(..)));
        assert_eq!(three.iter().map(|(b, _)| *b).collect::<Vec<_>>(), [3, 5, 9]);
        three.get_mut(&5).unwrap().leo = 42;
        assert_eq!((three.get(&5).map(|r| r.leo), three.get(&4)), (Some(42), None));
        assert_eq!(Remotes::default(), std::iter::empty().collect());
        assert_ne!(two, three);
    }

    /// `makeLeader` gives a follower outside the ISR a last caught-up time
    /// of 0, "never": it does not hold the high watermark back, even within
    /// the first lag of the run (chaos seed 7446), and once it catches up
    /// it counts for the lag like any other.
    #[test]
    fn a_follower_that_never_caught_up_does_not_hold_the_high_watermark() {
        let mut leader = HostedPartition {
            role: Role::Leader,
            leader: 2,
            leader_epoch: 1,
            zk_version: 1,
            controller_epoch: 1,
            replicas: [2, 1].into(),
            isr: [2].into(),
            log_dir: 0,
            leo: 421,
            hw: 0,
            leader_epoch_start_offset: 0,
            remote: [(1, RemoteReplica { leo: 0, ..RemoteReplica::new(8_088, false) })].into_iter().collect(),
            isr_update_pending: false,
        };
        assert!(!leader.remote.get(&1).unwrap().caught_up_within(9_042, 10_000));
        assert!(leader.maybe_increment_hw(2, 9_042, 10_000));
        assert_eq!(leader.hw, 421);
        let r = leader.remote.get_mut(&1).unwrap();
        r.update_fetch_state(421, 9_500, 421);
        assert!(r.caught_up_within(19_500, 10_000) && !r.caught_up_within(19_501, 10_000));
    }

    /// A keyframe's copy of the hosted partitions shares their map until
    /// one of them writes; room already there is not a write.
    #[test]
    fn reserving_room_that_is_there_keeps_the_map_shared() {
        let follower = HostedPartition {
            role: Role::Follower,
            leader: 1,
            leader_epoch: 0,
            zk_version: 0,
            controller_epoch: 1,
            replicas: [1, 2].into(),
            isr: BrokerIds::new(),
            log_dir: 0,
            leo: 0,
            hw: 0,
            leader_epoch_start_offset: 0,
            remote: Remotes::default(),
            isr_update_pending: false,
        };
        let mut live = HostedPartitions::default();
        for p in 0..3 {
            live.insert(TopicPartition { topic: "t".into(), partition: p }, follower.clone());
        }
        let keyframe = live.clone();
        let shared = |a: &HostedPartitions, b: &HostedPartitions| std::ptr::eq(&*a.map, &*b.map);
        live.reserve_topic("t", 3);
        assert!(shared(&live, &keyframe));
        live.reserve_topic("t", 100);
        assert!(!shared(&live, &keyframe));
        assert_eq!(live, keyframe);
    }
}
#[cfg(test)]
mod layout {
    use super::HostedPartition as H;
    use std::mem::offset_of;

    /// What every fetch reads of a hosted partition lies in its first two
    /// cache lines; the follower's side (role, LEO, HW) in the first.
    #[test]
    fn the_fields_a_fetch_reads_come_first() {
        assert!(offset_of!(H, role) < 64 && offset_of!(H, leo) < 64 && offset_of!(H, hw) + 8 <= 64);
        assert!(offset_of!(H, remote) + std::mem::size_of::<super::Remotes>() <= 128);
        assert!(offset_of!(H, isr) + std::mem::size_of::<crate::kafka::broker_ids::BrokerIds>() <= 128);
        assert!(offset_of!(H, leader_epoch) >= 128);
    }

    /// The leader (an id) sits in what would be the padding before the
    /// followers' state, whose ids sit beside each other, not each padded.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_hosted_partition_with_its_key_is_176_bytes() {
        assert_eq!(std::mem::size_of::<super::Remotes>(), 80);
        assert_eq!(std::mem::size_of::<(crate::scenario::TopicPartition, H)>(), 176);
    }
}
