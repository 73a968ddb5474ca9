//! Replication on a broker (seeds 002 and 004): followers fetch from leaders,
//! one fetch session per leader broker; leaders track their followers,
//! advance the high watermark, shrink and expand the ISR by writing the
//! partition state znode themselves (the ZooKeeper ISR path of IBP < 2.7),
//! and run ReplicaManager's three scheduled tasks. A failed log dir goes
//! through the LogDirFailureChannel to the LogDirFailureHandler.

use super::replica_manager::{CachedResponse, FetchSession, Role};
use super::Broker;
use crate::copy_on_write::CopyOnWrite;
use crate::kafka::broker_ids::BrokerIds;
use crate::kafka::config::ApiVersion;
use crate::kafka::io::Io;
use crate::kafka::kafka_zk_client::PERSISTENT_SEQUENTIAL;
use crate::kafka::messages::Errors;
use crate::kafka::zk_data::{self, LeaderIsrAndControllerEpoch};
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use crate::sim::event::{BrokerEvent, Event, FetchPartitions, FetchResult, FetchResults, ReplicaTask, ANY_INCARNATION};
use crate::small_map::SmallMap;
use crate::trace::Detail;
use crate::zookeeper::{KeeperError, Request, Response};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::rc::Rc;

/// No parked fetch's token: the tokens handed out start at 1.
const NO_TOKEN: u64 = 0;

/// `replica.fetch.backoff.ms`.
const FETCH_BACKOFF_MS: u64 = 1000;
/// ZkIsrManager's numbers (2.8): check every 2.5 s, publish after 5 s of
/// quiet or 60 s since the last publication.
pub const ISR_PROPAGATION_CHECK_MS: u64 = 2500;
pub const ISR_CHANGE_LINGER_MS: u64 = 5000;
pub const ISR_PROPAGATION_MAX_DELAY_MS: u64 = 60_000;

impl Broker {
    fn rm_actor(&self) -> String {
        crate::kafka::actor_name(self.id, "/replica-manager")
    }

    pub(super) fn schedule_task(&self, io: &mut Io, task: ReplicaTask, after_ms: u64) {
        io.fx.schedule(after_ms, Event::Broker { id: self.id, incarnation: self.incarnation, what: BrokerEvent::ReplicaTask(task) });
    }

    /// `ReplicaManager.startup`: isr-expiration and isr-change-propagation
    /// start now (the checkpoint task waits for the first LeaderAndIsr).
    pub(super) fn replica_manager_startup(&mut self, io: &mut Io) {
        self.schedule_task(io, ReplicaTask::IsrExpiration, 0);
        self.schedule_task(io, ReplicaTask::IsrChangePropagation, 0);
    }

    /// After a LeaderAndIsr: followers fetch from their new leaders, leaders
    /// stop fetching; the first one starts the HW checkpoint task.
    pub(super) fn after_leader_and_isr(
        &mut self,
        io: &mut Io,
        became_leader: &[TopicPartition],
        became_follower: &[TopicPartition],
        first: bool,
    ) {
        let rm = &mut self.replica_manager;
        // The changed partitions leave every fetch session. A session holds
        // a few of them, a failover's request thousands: each session is
        // walked once against the changed ones (in the request's order,
        // which is sorted), rather than asked about each of them.
        let (leader, follower) = (sorted(became_leader), sorted(became_follower));
        rm.remove_fetcher_for_partitions(|tp| leader.binary_search(tp).is_ok() || follower.binary_search(tp).is_ok());
        // The new followers join their leaders' sessions, gathered per
        // leader first: a session that had none is made at once from them
        // (a new topic's request brings thousands, in order), rather than
        // each inserted.
        let mut joining: SmallMap<BrokerId, Vec<TopicPartition>> = SmallMap::new();
        for tp in became_follower {
            if let Some(h) = rm.partitions.get(tp) {
                if h.leader >= 0 {
                    joining.entry(h.leader).or_default().push(tp.clone());
                }
            }
        }
        for (leader, tps) in joining {
            let session = &mut rm.fetchers.entry(leader).or_default().partitions;
            if session.is_empty() {
                *session = tps.into_iter().collect();
            } else {
                session.extend(tps);
            }
        }
        rm.fetchers.retain(|_, s| !s.partitions.is_empty() || s.in_flight);
        rm.partitions.touch();
        if first {
            self.schedule_task(io, ReplicaTask::HighwatermarkCheckpoint, 0);
        }
        self.kick_fetchers(io);
    }

    /// Starts a fetch on every idle session that has something to fetch.
    pub(super) fn kick_fetchers(&mut self, io: &mut Io) {
        let leaders: Vec<BrokerId> = self.replica_manager.fetchers.iter().filter(|(_, s)| !s.in_flight).map(|(l, _)| *l).collect();
        for leader in leaders {
            self.send_fetch(io, leader);
        }
    }

    fn send_fetch(&mut self, io: &mut Io, leader: BrokerId) {
        let Some(partitions) = self.fetch_request_partitions(leader) else { return };
        let session = self.replica_manager.fetchers.get_mut(&leader).expect("checked by fetch_request_partitions");
        if partitions.is_empty() {
            session.in_flight = false;
            return;
        }
        session.in_flight = true;
        session.generation += 1;
        let generation = session.generation;
        let delay = io.departure_delay_ms();
        io.fx.schedule(
            delay,
            Event::Broker {
                id: leader,
                incarnation: ANY_INCARNATION,
                what: BrokerEvent::FetchRequest { from: self.id, from_incarnation: self.incarnation, generation, partitions },
            },
        );
    }

    /// What a fetch to `leader` asks for: every partition of the session
    /// that is not paused, at its LEO. The last request again (the same
    /// list, by address) while nothing it depends on has changed. None
    /// without a session.
    fn fetch_request_partitions(&mut self, leader: BrokerId) -> Option<FetchPartitions> {
        let rm = &mut self.replica_manager;
        let version = rm.partitions.version();
        let session = rm.fetchers.get(&leader)?;
        if let Some((v, sent)) = &session.sent {
            if *v == version {
                return Some(Rc::clone(sent));
            }
        }
        let partitions: FetchPartitions = Rc::new(
            session
                .partitions
                .iter()
                .filter(|tp| !rm.fetch_paused_all && !rm.fetch_paused.contains(*tp))
                .filter_map(|tp| rm.partitions.get(tp).map(|h| (tp.clone(), h.leo)))
                .collect(),
        );
        let session = rm.fetchers.get_mut(&leader)?;
        session.sent = Some((version, Rc::clone(&partitions)));
        Some(partitions)
    }

    /// The leader side of a fetch (`ReplicaManager.fetchMessages` with
    /// `updateFollowerFetchState`): record the follower's progress, maybe
    /// expand the ISR and advance the HW; hold the fetch up to
    /// replica.fetch.wait.max.ms when there is nothing new.
    pub(super) fn handle_fetch_request(
        &mut self,
        io: &mut Io,
        follower: BrokerId,
        follower_incarnation: u32,
        generation: u64,
        partitions: FetchPartitions,
    ) {
        let now = io.now.as_u64();
        let any_new = if self.replica_manager.partitions.repeat_idle_round(follower, &partitions, now) {
            false
        } else {
            self.update_follower_fetch_state(io, follower, &partitions)
        };
        if any_new || self.config.replica_fetch_wait_max_ms == 0 {
            self.respond_fetch(io, follower, follower_incarnation, generation, &partitions);
        } else {
            self.replica_manager.next_token += 1;
            let token = self.replica_manager.next_token;
            self.replica_manager.delayed_fetches.insert(follower, Some((generation, follower_incarnation, partitions)));
            io.fx.schedule(
                self.config.replica_fetch_wait_max_ms,
                Event::Broker { id: self.id, incarnation: self.incarnation, what: BrokerEvent::DelayedFetchExpired { follower, token } },
            );
            // An expiry carrying an older token finds its fetch replaced.
            self.parked_tokens.insert(follower, token);
        }
    }

    /// `updateFollowerFetchState` on every partition of a fetch that is not
    /// a repeated idle round; true if the follower is behind somewhere. If
    /// the round changed nothing but the follower's fetch times, the same
    /// request next time is an idle round.
    fn update_follower_fetch_state(&mut self, io: &mut Io, follower: BrokerId, partitions: &FetchPartitions) -> bool {
        let now = io.now.as_u64();
        let lag = self.config.replica_lag_time_max_ms;
        let hosted = &mut self.replica_manager.partitions;
        // The fetch times of this follower's earlier idle rounds first.
        hosted.end_idle_round(follower);
        let mut any_new = false;
        let mut idle = true;
        let mut hw_moved = false;
        let mut expand = Vec::new();
        for (tp, offset) in partitions.iter() {
            let Some(h) = hosted.fetch_state_mut(tp) else {
                idle = false;
                continue;
            };
            if h.role != Role::Leader {
                idle = false;
                continue;
            }
            let leader_leo = h.leo;
            if *offset > leader_leo {
                // The follower is ahead of this leader's log: its records
                // were never this leader's (elected without them). Kafka's
                // read fails (OFFSET_OUT_OF_RANGE) and `updateFollowerFetchState`
                // skips a failed read, so the follower gains no fetch state and
                // no ISR place; the answer goes at once, and the follower
                // truncates to this leader's LEO (its truncation phase) first.
                any_new = true;
                idle = false;
                continue;
            }
            let has_remote = match h.remote.get_mut(&follower) {
                Some(r) => {
                    r.update_fetch_state(*offset, now, leader_leo);
                    true
                }
                None => false,
            };
            if *offset < leader_leo {
                any_new = true;
            }
            let in_isr = h.isr.contains(&follower);
            if !in_isr
                && !h.isr_update_pending
                && *offset >= h.hw
                && *offset >= h.leader_epoch_start_offset
                && h.replicas.contains(&follower)
            {
                expand.push(tp.clone());
            }
            hw_moved |= h.maybe_increment_hw(self.id, now, lag);
            // Again at another time, this would only move the fetch times.
            idle &= has_remote && *offset == leader_leo && in_isr && h.hw == leader_leo;
        }
        if hw_moved {
            hosted.touch();
        }
        for tp in expand {
            self.maybe_expand_isr(io, &tp, follower);
        }
        if idle && !hw_moved {
            self.replica_manager.partitions.start_idle_rounds(follower, Rc::clone(partitions), now);
        }
        any_new
    }

    /// A parked fetch's wait is over.
    pub(super) fn on_delayed_fetch_expired(&mut self, io: &mut Io, follower: BrokerId, token: u64) {
        if self.parked_tokens.get(&follower) != Some(&token) {
            return;
        }
        self.answer_parked_fetch(io, follower);
    }

    /// Answers the follower's parked fetch, if it has one. An expiry still
    /// on its way then finds no token of its own: the token stays (as
    /// [`NO_TOKEN`]), like the parked fetch's entry (empty), rather than
    /// leave their maps and come back with the next fetch parked, twice a
    /// second per follower.
    fn answer_parked_fetch(&mut self, io: &mut Io, follower: BrokerId) {
        if let Some(token) = self.parked_tokens.get_mut(&follower) {
            *token = NO_TOKEN;
        }
        if let Some((generation, incarnation, partitions)) = self.replica_manager.delayed_fetches.get_mut(&follower).and_then(Option::take)
        {
            self.respond_fetch(io, follower, incarnation, generation, &partitions);
        }
    }

    fn respond_fetch(&mut self, io: &mut Io, follower: BrokerId, follower_incarnation: u32, generation: u64, partitions: &FetchPartitions) {
        let results = self.fetch_results(follower, partitions);
        let delay = io.departure_delay_ms();
        io.fx.schedule(
            delay,
            Event::Broker {
                id: follower,
                incarnation: follower_incarnation,
                what: BrokerEvent::FetchResponse { from: self.id, generation, partitions: results },
            },
        );
    }

    /// Per partition of a fetch, the leader's LEO and HW (or an error). The
    /// last answer to this follower again (the same list, by address) if it
    /// answered the same request and nothing has changed since.
    fn fetch_results(&mut self, follower: BrokerId, partitions: &FetchPartitions) -> FetchResults {
        let rm = &mut self.replica_manager;
        let version = rm.partitions.version();
        if let Some(c) = rm.fetch_responses.get(&follower) {
            if c.version == version && Rc::ptr_eq(&c.request, partitions) {
                return Rc::clone(&c.results);
            }
        }
        let results: FetchResults = Rc::new(
            partitions
                .iter()
                .map(|(tp, _)| {
                    let r = match rm.partitions.get(tp) {
                        Some(h) if h.role == Role::Leader => FetchResult { error: Errors::NONE, leader_leo: h.leo, hw: h.hw },
                        _ if rm.offline.contains(tp) => FetchResult { error: Errors::KAFKA_STORAGE_ERROR, leader_leo: 0, hw: 0 },
                        _ => FetchResult { error: Errors::NOT_LEADER_OR_FOLLOWER, leader_leo: 0, hw: 0 },
                    };
                    (tp.clone(), r)
                })
                .collect(),
        );
        rm.fetch_responses.insert(follower, CachedResponse { request: Rc::clone(partitions), version, results: Rc::clone(&results) });
        results
    }

    /// The follower side: take the leader's data (appending, or truncating
    /// after an unclean election), follow its HW, fetch again.
    pub(super) fn handle_fetch_response(&mut self, io: &mut Io, leader: BrokerId, generation: u64, results: FetchResults) {
        let Some(session) = self.replica_manager.fetchers.get(&leader) else { return };
        if session.generation != generation {
            return;
        }
        let version = self.replica_manager.partitions.version();
        let repeated = matches!(&session.applied, Some((v, r)) if *v == version && Rc::ptr_eq(r, &results));
        let (errors, moved) = if repeated { (false, Vec::new()) } else { self.apply_fetch_results(leader, &results) };
        for (tp, from, to) in moved {
            let actor = self.rm_actor();
            let verb = if to < from { "truncated" } else { "fetched" };
            io.record(
                &actor,
                "replica-fetch",
                "ReplicaFetcherThread.processPartitionData",
                format!("{tp}: {verb} from leader {leader}: LEO {from} → {to}"),
                Detail::new().with("partition", &tp.to_string()).with("leader", &leader).with("from", &from).with("to", &to),
            );
        }
        if let Some(s) = self.replica_manager.fetchers.get_mut(&leader) {
            s.in_flight = false;
        }
        if errors {
            if let Some(s) = self.replica_manager.fetchers.get_mut(&leader) {
                s.in_flight = true;
            }
            io.fx.schedule(
                FETCH_BACKOFF_MS,
                Event::Broker { id: self.id, incarnation: self.incarnation, what: BrokerEvent::FetchBackoff { leader, generation } },
            );
        } else {
            self.send_fetch(io, leader);
        }
    }

    /// `processPartitionData` for every partition of a response that is not
    /// the one last applied (which, applied again, would change nothing):
    /// returns whether any partition had an error, and the LEOs that moved.
    fn apply_fetch_results(&mut self, leader: BrokerId, results: &FetchResults) -> (bool, Vec<(TopicPartition, u64, u64)>) {
        let rm = &mut self.replica_manager;
        let Some(session) = rm.fetchers.get(&leader) else { return (false, Vec::new()) };
        let mut errors = false;
        let mut changed = false;
        let mut moved = Vec::new();
        let mut in_session = InSession::new(&session.partitions);
        for (tp, r) in results.iter() {
            let in_session = in_session.contains(tp);
            let Some(h) = rm.partitions.fetch_state_mut(tp) else { continue };
            if !in_session || h.role != Role::Follower {
                continue;
            }
            if r.error != Errors::NONE {
                errors = true;
                continue;
            }
            if r.leader_leo != h.leo {
                moved.push((tp.clone(), h.leo, r.leader_leo));
                h.leo = r.leader_leo;
            }
            let hw = r.hw.min(h.leo);
            changed |= hw != h.hw;
            h.hw = hw;
        }
        if changed || !moved.is_empty() {
            rm.partitions.touch();
        }
        let version = rm.partitions.version();
        if let Some(s) = rm.fetchers.get_mut(&leader) {
            s.applied = if errors { None } else { Some((version, Rc::clone(results))) };
        }
        (errors, moved)
    }

    pub(super) fn on_fetch_backoff(&mut self, io: &mut Io, leader: BrokerId, generation: u64) {
        if self.replica_manager.fetchers.get(&leader).map(|s| s.generation) == Some(generation) {
            if let Some(s) = self.replica_manager.fetchers.get_mut(&leader) {
                s.in_flight = false;
            }
            self.send_fetch(io, leader);
        }
    }

    /// `produce TOPIC-P messages=N` on the leader (acks=1).
    pub fn append_as_leader(&mut self, io: &mut Io, tp: &TopicPartition, messages: u64) {
        let now = io.now.as_u64();
        let lag = self.config.replica_lag_time_max_ms;
        let actor = self.actor();
        let Some(h) = self.replica_manager.partitions.get_mut(tp).filter(|h| h.role == Role::Leader) else { return };
        let from = h.leo;
        h.leo += messages;
        h.maybe_increment_hw(self.id, now, lag);
        let (leo, hw) = (h.leo, h.hw);
        io.record(
            &actor,
            "produce",
            "ReplicaManager.appendRecords",
            format!("{tp}: appended {messages} records as leader: LEO {from} → {leo}, HW {hw}"),
            Detail::new().with("partition", &tp.to_string()).with("messages", &messages).with("leo", &leo).with("hw", &hw),
        );
        // Complete the fetches parked on this partition.
        let waiting: Vec<BrokerId> = self
            .replica_manager
            .delayed_fetches
            .iter()
            .filter(|(_, d)| d.as_ref().is_some_and(|d| d.2.iter().any(|(t, _)| t == tp)))
            .map(|(f, _)| *f)
            .collect();
        for f in waiting {
            self.answer_parked_fetch(io, f);
        }
    }

    /// `pause-fetch` / `resume-fetch`.
    pub fn set_fetch_paused(&mut self, io: &mut Io, tp: Option<&TopicPartition>, paused: bool) {
        let rm = &mut self.replica_manager;
        match (tp, paused) {
            (None, p) => {
                rm.fetch_paused_all = p;
                if !p {
                    rm.fetch_paused.clear();
                }
            }
            (Some(tp), true) => {
                rm.fetch_paused.insert(tp.clone());
            }
            (Some(tp), false) => {
                rm.fetch_paused.remove(tp);
            }
        }
        rm.partitions.touch();
        let actor = self.rm_actor();
        let what = tp.map(|t| t.to_string()).unwrap_or_else(|| "every partition".into());
        io.record(
            &actor,
            "replica-fetch",
            "ReplicaFetcherManager",
            format!("{} fetching {what}", if paused { "stop" } else { "resume" }),
            Detail::new().with("partition", &tp.map(|t| t.to_string())).with("paused", &paused),
        );
        if !paused {
            self.kick_fetchers(io);
        }
    }

    /// One run of a scheduled task; each reschedules itself (fixed rate).
    pub(super) fn run_replica_task(&mut self, io: &mut Io, task: ReplicaTask) {
        match task {
            ReplicaTask::IsrExpiration => {
                self.maybe_shrink_isr(io);
                self.schedule_task(io, task, self.config.isr_expiration_period_ms());
            }
            ReplicaTask::IsrChangePropagation => {
                self.maybe_propagate_isr_changes(io);
                self.schedule_task(io, task, ISR_PROPAGATION_CHECK_MS);
            }
            ReplicaTask::HighwatermarkCheckpoint => {
                self.checkpoint_high_watermarks(io);
                self.schedule_task(io, task, self.config.replica_high_watermark_checkpoint_interval_ms);
            }
        }
    }

    /// `isr-expiration` → `maybeShrinkIsr` on every partition this broker leads.
    fn maybe_shrink_isr(&mut self, io: &mut Io) {
        let now = io.now.as_u64();
        let lag = self.config.replica_lag_time_max_ms;
        // Counted, and only the out-of-sync ones kept: every 15 s each
        // broker checks the thousands it leads, nearly all in sync. Read as
        // the map stands, the idle fetch rounds not applied: a follower in
        // one fetched at the leader's LEO, and an out-of-sync replica is one
        // whose LEO differs, whatever its fetch times.
        debug_assert!(self.replica_manager.partitions.idle_followers_at_leo());
        let me = self.id;
        let mut led = 0usize;
        let mut shrinking: Vec<(TopicPartition, BrokerIds)> = Vec::new();
        for (tp, h) in self.replica_manager.partitions.iter() {
            if h.role == Role::Leader && !h.isr_update_pending {
                led += 1;
                let osr = h.out_of_sync_replicas(me, now, lag);
                if !osr.is_empty() {
                    shrinking.push((tp.clone(), osr));
                }
            }
        }
        if led == 0 {
            return;
        }
        let actor = self.rm_actor();
        io.record(
            &actor,
            "scheduled-task",
            "ReplicaManager.maybeShrinkIsr",
            if shrinking.is_empty() {
                format!("isr-expiration: all {led} led partitions are in sync (a follower is out of sync when its LEO differs and it has not caught up for {lag} ms)")
            } else {
                format!("isr-expiration: out-of-sync followers {}", shrinking.iter().map(|(tp, o)| format!("{tp} {o:?}")).collect::<Vec<_>>().join(", "))
            },
            Detail::new().with("led", &led).with_value("out_of_sync", shrinking.iter().map(|(tp, o)| (tp.to_string(), json!(o))).collect::<serde_json::Map<_, _>>()),
        );
        for (tp, osr) in shrinking {
            let Some(h) = self.replica_manager.partitions.get(&tp) else { continue };
            let new_isr: BrokerIds = h.isr.iter().copied().filter(|b| !osr.contains(b)).collect();
            if self.write_isr(io, &tp, new_isr, "Partition.shrinkIsr") {
                if let Some(h) = self.replica_manager.partitions.get_mut(&tp) {
                    h.maybe_increment_hw(self.id, now, lag);
                }
            }
        }
    }

    /// `maybeExpandIsr`: a caught-up follower rejoins the ISR.
    fn maybe_expand_isr(&mut self, io: &mut Io, tp: &TopicPartition, follower: BrokerId) {
        let Some(h) = self.replica_manager.partitions.get(tp) else { return };
        let mut new_isr = h.isr.clone();
        new_isr.push(follower);
        self.write_isr(io, tp, new_isr, "Partition.expandIsr");
    }

    /// The leader's conditional write of the state znode (same leader epoch,
    /// new ISR, expected version = cached zkVersion). On BadVersion the
    /// stored value is re-read: equal to ours counts as success.
    fn write_isr(&mut self, io: &mut Io, tp: &TopicPartition, new_isr: BrokerIds, source: &'static str) -> bool {
        let Some(h) = self.replica_manager.partitions.get(tp) else { return false };
        let intended = LeaderIsrAndControllerEpoch {
            leader: self.id,
            leader_epoch: h.leader_epoch,
            isr: new_isr.clone(),
            zk_version: h.zk_version,
            controller_epoch: h.controller_epoch,
        };
        let old_isr = h.isr.clone();
        let actor = self.rm_actor();
        let path = zk_data::partition_state_path(tp);
        let result = self.zkc.call(
            io,
            &actor,
            "ZkIsrManager.submit → KafkaZkClient.conditionalUpdatePath",
            Request::SetData { path: path.clone(), data: intended.encode(), version: intended.zk_version },
        );
        let version = match result {
            Ok(Response::SetData { stat }) => Some(stat.version),
            Err(e) if e.code() == KeeperError::BadVersion => {
                match self.zkc.get_data(io, &actor, "ReplicationUtils.checkLeaderAndIsrZkData", &path) {
                    Ok((data, stat)) => LeaderIsrAndControllerEpoch::decode(&data, stat.version)
                        .filter(|s| {
                            s.leader == intended.leader
                                && s.leader_epoch == intended.leader_epoch
                                && s.isr == intended.isr
                                && s.controller_epoch == intended.controller_epoch
                        })
                        .map(|s| s.zk_version),
                    Err(_) => None,
                }
            }
            _ => None,
        };
        let now = io.now.as_u64();
        let Some(h) = self.replica_manager.partitions.get_mut(tp) else { return false };
        match version {
            Some(v) => {
                h.isr = new_isr.clone();
                h.zk_version = v;
                self.replica_manager.isr_change_set.insert(tp.clone());
                self.replica_manager.last_isr_change_ms = now;
                io.record(
                    &actor,
                    "isr-change",
                    source,
                    format!(
                        "{tp}: ISR {old_isr:?} → {new_isr:?} written to {path} (zkVersion {v}, leader epoch unchanged at {})",
                        h.leader_epoch
                    ),
                    Detail::new()
                        .with("partition", &tp.to_string())
                        .with("old_isr", &old_isr)
                        .with("new_isr", &new_isr)
                        .with("zk_version", &v)
                        .with("leader_epoch", &h.leader_epoch),
                );
                true
            }
            None => {
                h.isr_update_pending = true;
                io.record(
                    &actor,
                    "isr-change",
                    source,
                    format!("{tp}: cached zkVersion {} is not the one in ZooKeeper: skip updating the ISR (it stays {old_isr:?} until the next LeaderAndIsr)", h.zk_version),
                    Detail::new().with("partition", &tp.to_string()).with("failed", &true),
                );
                false
            }
        }
    }

    /// `isr-change-propagation`: publish the changed partitions once the
    /// changes have been quiet for 5 s, or 60 s after the last publication.
    fn maybe_propagate_isr_changes(&mut self, io: &mut Io) {
        let now = io.now.as_u64();
        let rm = &self.replica_manager;
        if rm.isr_change_set.is_empty() {
            return;
        }
        let quiet = now.saturating_sub(rm.last_isr_change_ms);
        let since = now.saturating_sub(rm.last_isr_propagation_ms);
        let due = rm.last_isr_change_ms + ISR_CHANGE_LINGER_MS < now || rm.last_isr_propagation_ms + ISR_PROPAGATION_MAX_DELAY_MS < now;
        let partitions: Vec<TopicPartition> = rm.isr_change_set.iter().cloned().collect();
        let names: Vec<String> = partitions.iter().map(|t| t.to_string()).collect();
        let actor = self.rm_actor();
        let names_list = crate::kafka::show(&names);
        if !due {
            io.record(
                &actor,
                "scheduled-task",
                "ZkIsrManager.maybePropagateIsrChanges",
                format!("isr-change-propagation: {names_list} changed {quiet} ms ago (not yet {ISR_CHANGE_LINGER_MS} ms quiet) and the last publication was {since} ms ago (< {ISR_PROPAGATION_MAX_DELAY_MS} ms): wait"),
                Detail::new().with("pending", &names).with("since_last_change_ms", &quiet).with("since_last_propagation_ms", &since),
            );
            return;
        }
        let data = zk_data::encode_partitions(&partitions);
        let path = format!("{}/{}", zk_data::ISR_CHANGE_NOTIFICATION, zk_data::ISR_CHANGE_PREFIX);
        let created = self.zkc.create(io, &actor, "KafkaZkClient.propagateIsrChanges", &path, data, PERSISTENT_SEQUENTIAL);
        let names_list = crate::kafka::show(&names);
        io.record(
            &actor,
            "scheduled-task",
            "ZkIsrManager.maybePropagateIsrChanges",
            format!(
                "isr-change-propagation: publish {names_list} as {} ({quiet} ms since the last change, {since} ms since the last publication)",
                created.as_deref().unwrap_or("(failed)")
            ),
            Detail::new().with("partitions", &names).with("created", &created.ok()),
        );
        self.replica_manager.isr_change_set.clear();
        self.replica_manager.last_isr_propagation_ms = now;
    }

    /// `highwatermark-checkpoint`: `replication-offset-checkpoint` in every
    /// online log dir.
    fn checkpoint_high_watermarks(&mut self, io: &mut Io) {
        let actor = self.rm_actor();
        let dirs: Vec<u32> = (0..self.log_dirs).filter(|d| self.replica_manager.log_dirs[*d as usize]).collect();
        let version = self.replica_manager.partitions.version();
        // Unchanged partitions (same version) would write the same files.
        if self.replica_manager.checkpointed_version != Some(version) {
            for d in &dirs {
                let text = self.replica_manager.checkpoint_text(*d);
                self.replica_manager.checkpoints.insert(*d, text.into());
            }
            let rm = &mut self.replica_manager;
            rm.checkpointed = CopyOnWrite::new(with_hws(&rm.checkpointed, &rm.partitions));
            rm.checkpointed_version = Some(version);
        }
        let checkpoints = &self.replica_manager.checkpoints;
        io.record_with(&actor, "scheduled-task", "ReplicaManager.checkpointHighWatermarks", || {
            let shown: Vec<String> = dirs.iter().map(|d| format!("{}: {}", log_dir_path(*d), checkpoints[d].replace('\n', "⏎"))).collect();
            (
                format!("highwatermark-checkpoint: wrote replication-offset-checkpoint in {}", shown.join("; ")),
                Detail::new().with_value(
                    "files",
                    dirs.iter()
                        .map(|d| (format!("{}/replication-offset-checkpoint", log_dir_path(*d)), Value::from(&*checkpoints[d])))
                        .collect::<serde_json::Map<_, _>>(),
                ),
            )
        });
    }

    /// `fail-log-dir`: an IOException in dir `dir`; the LogDirFailureChannel
    /// reports each dir once.
    pub fn report_log_dir_failure(&mut self, io: &mut Io, dir: u32) {
        let actor = self.actor();
        let already = !self.replica_manager.log_dirs.get(dir as usize).copied().unwrap_or(false)
            || self.replica_manager.offline_dir_queue.contains(&dir);
        if already {
            io.record(
                &actor,
                "log-dir",
                "LogDirFailureChannel.maybeAddOfflineLogDir",
                format!("IOException in {}: the dir is already offline (reported once)", log_dir_path(dir)),
                Detail::new().with("dir", &dir),
            );
            return;
        }
        self.replica_manager.offline_dir_queue.push(dir);
        io.record(
            &actor,
            "log-dir",
            "LogDirFailureChannel.maybeAddOfflineLogDir",
            format!("IOException in {}: the dir goes on the offline queue", log_dir_path(dir)),
            Detail::new().with("dir", &dir).with("path", &log_dir_path(dir)),
        );
        io.fx.schedule(0, Event::Broker { id: self.id, incarnation: self.incarnation, what: BrokerEvent::LogDirFailureHandler });
    }

    /// The LogDirFailureHandler thread: halt below IBP 1.0 or with no dir
    /// left; otherwise stop the dir's replicas and tell the controller
    /// through `/log_dir_event_notification`.
    pub(super) fn handle_log_dir_failure(&mut self, io: &mut Io) {
        if self.replica_manager.offline_dir_queue.is_empty() {
            return;
        }
        let dir = self.replica_manager.offline_dir_queue.remove(0);
        let actor = format!("broker-{}/log-dir-failure-handler", self.id);
        if self.config.inter_broker_protocol_version < ApiVersion::V1_0 {
            io.record(
                &actor,
                "log-dir",
                "ReplicaManager.LogDirFailureHandler.doWork",
                format!(
                    "Halting broker because dir {} is offline (inter.broker.protocol.version {} < 1.0)",
                    log_dir_path(dir),
                    self.config.inter_broker_protocol_version
                ),
                Detail::new().with("dir", &dir).with("halt", &true),
            );
            self.stop(io, "halted (Exit.halt(1)) after a log dir failure");
            return;
        }
        let in_dir: Vec<TopicPartition> =
            self.replica_manager.partitions.iter().filter(|(_, h)| h.log_dir == dir).map(|(tp, _)| tp.clone()).collect();
        for tp in &in_dir {
            self.replica_manager.partitions.remove(tp);
            self.replica_manager.offline.insert(tp.clone());
        }
        // In the hosted partitions' order: sorted.
        self.replica_manager.remove_fetcher_for_partitions(|tp| in_dir.binary_search(tp).is_ok());
        self.replica_manager.partitions.touch();
        if let Some(d) = self.replica_manager.log_dirs.get_mut(dir as usize) {
            *d = false;
        }
        self.replica_manager.checkpoints.remove(&dir);
        let names: Vec<String> = in_dir.iter().map(|t| t.to_string()).collect();
        let names_list = crate::kafka::show(&names);
        io.record(
            &actor,
            "log-dir",
            "ReplicaManager.handleLogDirFailure",
            format!("{} is offline: stop fetching and serving {names_list}, stop checkpointing the dir", log_dir_path(dir)),
            Detail::new().with("dir", &dir).with("partitions", &names),
        );
        if !self.replica_manager.log_dirs.iter().any(|d| *d) {
            io.record(
                &actor,
                "log-dir",
                "LogManager.handleLogDirFailure",
                "no log dir is left online: halting the broker".into(),
                Detail::new().with("halt", &true),
            );
            self.stop(io, "halted (Exit.halt(1)): every log dir is offline");
            return;
        }
        let notification = Detail::new().with("version", &1).with("broker", &self.id).with("event", &1);
        let data = serde_json::to_vec(&notification).unwrap_or_default();
        let path = format!("{}/{}", zk_data::LOG_DIR_EVENT_NOTIFICATION, zk_data::LOG_DIR_EVENT_PREFIX);
        let created = self.zkc.create(io, &actor, "KafkaZkClient.propagateLogDirEvent", &path, data, PERSISTENT_SEQUENTIAL);
        io.record(
            &actor,
            "log-dir",
            "ReplicaManager.handleLogDirFailure",
            format!("told the controller through {}", created.as_deref().unwrap_or("(failed)")),
            Detail::new().with("created", &created.ok()).with("notification", &notification),
        );
    }

    /// The fetch sessions, for display: leader → partitions.
    pub fn fetch_sessions(&self) -> Vec<(BrokerId, BTreeSet<TopicPartition>)> {
        self.replica_manager.fetchers.iter().map(|(l, s): (&BrokerId, &FetchSession)| (*l, (*s.partitions).clone())).collect()
    }
}

/// `/var/kafka/data-K`.
pub fn log_dir_path(dir: u32) -> String {
    format!("/var/kafka/data-{dir}")
}

/// The HWs checkpointed before, each hosted partition's now in place of
/// its old one (a stopped replica's stays until it is deleted). Both are in
/// partition order, so they are merged in one pass and the map is built at
/// once, rather than each hosted partition inserted (thousands per broker
/// at every checkpoint after a change).
fn with_hws(
    old: &std::collections::BTreeMap<TopicPartition, u64>,
    hosted: &super::replica_manager::HostedPartitions,
) -> std::collections::BTreeMap<TopicPartition, u64> {
    let mut old = old.iter().map(|(tp, hw)| (tp.clone(), *hw)).peekable();
    let mut merged = Vec::with_capacity(hosted.len());
    for (tp, h) in hosted.iter() {
        while let Some(before) = old.next_if(|(o, _)| o < tp) {
            merged.push(before);
        }
        old.next_if(|(o, _)| o == tp);
        merged.push((tp.clone(), h.hw));
    }
    merged.extend(old);
    merged.into_iter().collect()
}

/// `partitions` in order: as they are when they already are (the lists of a
/// LeaderAndIsr follow its request, which the controller sends sorted).
fn sorted(partitions: &[TopicPartition]) -> std::borrow::Cow<'_, [TopicPartition]> {
    if partitions.is_sorted() {
        std::borrow::Cow::Borrowed(partitions)
    } else {
        let mut owned = partitions.to_vec();
        owned.sort();
        std::borrow::Cow::Owned(owned)
    }
}

/// Membership in a fetch session for the partitions of a response, which
/// come in the session's order (its request listed them so): one walk of
/// the session beside the response instead of a descent of the set per
/// partition, each a few cache misses on a broker following thousands. A
/// partition out of order is looked up.
struct InSession<'s, 'r> {
    set: &'s BTreeSet<TopicPartition>,
    walk: std::iter::Peekable<std::collections::btree_set::Iter<'s, TopicPartition>>,
    last: Option<&'r TopicPartition>,
}

impl<'s, 'r> InSession<'s, 'r> {
    fn new(set: &'s BTreeSet<TopicPartition>) -> Self {
        InSession { set, walk: set.iter().peekable(), last: None }
    }

    fn contains(&mut self, tp: &'r TopicPartition) -> bool {
        if self.last.is_some_and(|last| tp <= last) {
            return self.set.contains(tp);
        }
        self.last = Some(tp);
        while self.walk.next_if(|s| *s < tp).is_some() {}
        self.walk.peek() == Some(&tp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(topic: &str, partition: i32) -> TopicPartition {
        TopicPartition { topic: topic.into(), partition }
    }

    #[test]
    fn session_membership_walked_in_order_agrees_with_the_set_in_any_order() {
        let session: BTreeSet<TopicPartition> = [tp("a", 1), tp("a", 3), tp("b", 0), tp("c", 2)].into_iter().collect();
        let asked = [tp("a", 0), tp("a", 1), tp("a", 3), tp("b", 0), tp("b", 1), tp("a", 3), tp("a", 1), tp("c", 2), tp("d", 0)];
        let mut walk = InSession::new(&session);
        for t in &asked {
            assert_eq!(walk.contains(t), session.contains(t), "{t}");
        }
    }
}
