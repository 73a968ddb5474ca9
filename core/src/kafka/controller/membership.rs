//! Cluster membership (seed 001): `processBrokerChange` with its nine steps,
//! `onBrokerStartup` with its seven, `onBrokerFailure`,
//! `onReplicasBecomeOffline`, and `processBrokerModification` → `onBrokerUpdate`.

use super::context::{Replica, ReplicaState};
use super::election::Strategy;
use super::{CResult, ControllerError, Cx, KafkaController};
use crate::kafka::kafka_zk_client as kzk;
use crate::kafka::zk_data;
use crate::kafka::BrokerId;
use crate::small_map::SmallSet;
use crate::trace::Detail;
use serde_json::Value;
use std::collections::BTreeSet;

const CHANGE: &str = "KafkaController.processBrokerChange";
const STARTUP: &str = "KafkaController.onBrokerStartup";

impl KafkaController {
    /// `processBrokerChange`: compare `/brokers/ids` with the context and
    /// handle new, bounced and dead brokers.
    pub(super) fn process_broker_change(&mut self, cx: &mut Cx) -> CResult<()> {
        if !self.is_active() {
            return Ok(());
        }
        let actor = self.actor();
        self.numbered(cx, CHANGE, 1, 9, "read the registered brokers and their epochs from /brokers/ids".into(), Detail::new());
        let cur = kzk::get_all_broker_and_epochs(cx.zkc, cx.io, &actor).map_err(ControllerError::Zk)?;
        let cur_ids: SmallSet<BrokerId> = cur.keys().copied().collect();
        let known = self.ctx.live_or_shutting_down();
        self.numbered(
            cx,
            CHANGE,
            2,
            9,
            format!("the controller's live-or-shutting-down brokers: {:?}", known),
            Detail::new().with("known", &known),
        );
        let new: SmallSet<BrokerId> = cur_ids.difference(&known).copied().collect();
        let dead: SmallSet<BrokerId> = known.difference(&cur_ids).copied().collect();
        let bounced: SmallSet<BrokerId> =
            cur_ids.intersection(&known).copied().filter(|b| cur[b].1 > self.ctx.broker_epoch(*b).unwrap_or(i64::MAX)).collect();
        let mut parts = Vec::new();
        for (name, set) in [("new brokers", &new), ("dead brokers", &dead), ("bounced brokers", &bounced)] {
            if !set.is_empty() {
                parts.push(format!("{name} {:?}", set.iter().collect::<Vec<_>>()));
            }
        }
        let summary = if parts.is_empty() { "no change".to_string() } else { parts.join(", ") };
        let actor_c = self.actor();
        cx.io.record(
            &actor_c,
            "controller-event",
            CHANGE,
            format!("processBrokerChange: {summary}"),
            Detail::new()
                .with("step", &3)
                .with("of", &9)
                .with("new", &new)
                .with("dead", &dead)
                .with("bounced", &bounced)
                .with("live", &cur_ids)
                .with_value("epochs", cur.iter().map(|(b, (_, e))| (b.to_string(), Value::from(*e))).collect::<serde_json::Map<_, _>>()),
        );
        self.numbered(
            cx,
            CHANGE,
            4,
            9,
            format!("add a channel (RequestSendThread) for each new broker {:?}", new),
            Detail::new().with("new", &new),
        );
        for b in &new {
            self.channel.add_broker(*b);
        }
        self.numbered(
            cx,
            CHANGE,
            5,
            9,
            format!("remove and re-add the channel of each bounced broker {:?}", bounced),
            Detail::new().with("bounced", &bounced),
        );
        for b in &bounced {
            self.channel.remove_broker(*b);
            self.channel.add_broker(*b);
        }
        self.numbered(cx, CHANGE, 6, 9, format!("remove the channel of each dead broker {:?}", dead), Detail::new().with("dead", &dead));
        for b in &dead {
            self.channel.remove_broker(*b);
        }
        self.numbered(
            cx,
            CHANGE,
            7,
            9,
            format!("new brokers {:?}: add them to the context, onBrokerStartup", new),
            Detail::new().with("new", &new),
        );
        if !new.is_empty() {
            for b in &new {
                self.ctx.add_live_broker(*b, cur[b].clone());
            }
            self.on_broker_startup(cx, &new.iter().copied().collect::<Vec<_>>())?;
        }
        self.numbered(
            cx,
            CHANGE,
            8,
            9,
            format!("bounced brokers {:?}: onBrokerFailure then onBrokerStartup with the new epoch", bounced),
            Detail::new().with("bounced", &bounced),
        );
        if !bounced.is_empty() {
            let list: Vec<_> = bounced.iter().copied().collect();
            for b in &list {
                self.ctx.remove_live_broker(*b);
            }
            self.on_broker_failure(cx, &list)?;
            for b in &list {
                self.ctx.add_live_broker(*b, cur[b].clone());
            }
            self.on_broker_startup(cx, &list)?;
        }
        self.numbered(
            cx,
            CHANGE,
            9,
            9,
            format!("dead brokers {:?}: remove them from the context, onBrokerFailure", dead),
            Detail::new().with("dead", &dead),
        );
        if !dead.is_empty() {
            let list: Vec<_> = dead.iter().copied().collect();
            for b in &list {
                self.ctx.remove_live_broker(*b);
            }
            self.on_broker_failure(cx, &list)?;
        }
        Ok(())
    }

    /// `onBrokerStartup`, seven steps.
    pub(crate) fn on_broker_startup(&mut self, cx: &mut Cx, new_brokers: &[BrokerId]) -> CResult<()> {
        let new_set: SmallSet<BrokerId> = new_brokers.iter().copied().collect();
        self.numbered(
            cx,
            STARTUP,
            1,
            7,
            format!("forget offline log dirs recorded for {new_brokers:?}"),
            Detail::new().with("brokers", &new_brokers),
        );
        for b in new_brokers {
            self.ctx.replicas_on_offline_dirs.remove(b);
        }
        let existing: Vec<BrokerId> = self.ctx.live_or_shutting_down().difference(&new_set).copied().collect();
        self.numbered(
            cx,
            STARTUP,
            2,
            7,
            format!("UpdateMetadata to the existing brokers {existing:?} so they learn of the new ones"),
            Detail::new().with("existing", &existing),
        );
        self.send_update_metadata(cx, &existing, &[]);
        let with_leaders: Vec<_> = self.ctx.leadership.keys().cloned().collect();
        self.numbered(
            cx,
            STARTUP,
            3,
            7,
            format!("UpdateMetadata with all {} partition states to the new brokers", with_leaders.len()),
            Detail::new().with("partitions", &with_leaders.len()),
        );
        self.send_update_metadata(cx, new_brokers, &with_leaders);
        let replicas = self.ctx.replicas_on_brokers(&new_set);
        self.numbered(
            cx,
            STARTUP,
            4,
            7,
            format!(
                "their {} replicas → OnlineReplica (LeaderAndIsr to them), then elect leaders for New and Offline partitions",
                replicas.len()
            ),
            Detail::new().with("replicas", &replicas.len()),
        );
        self.replica_state_changes(cx, &replicas, ReplicaState::OnlineReplica)?;
        self.trigger_online_partition_state_change(cx)?;
        self.numbered(cx, STARTUP, 5, 7, "resume reassignments whose target replicas include a new broker".into(), Detail::new());
        self.maybe_resume_reassignments(cx, &new_set)?;
        let deleting: BTreeSet<String> = replicas
            .iter()
            .filter(|(tp, _)| self.ctx.is_topic_queued_for_deletion(&tp.topic))
            .map(|(tp, _)| tp.topic.to_string())
            .collect();
        let deleting_list = crate::kafka::show(&deleting);
        self.numbered(
            cx,
            STARTUP,
            6,
            7,
            format!("resume deletion of queued topics with replicas on them: {deleting_list}"),
            Detail::new().with("topics", &deleting),
        );
        if !deleting.is_empty() {
            self.resume_deletion_for_topics(cx, &deleting)?;
        }
        self.numbered(
            cx,
            STARTUP,
            7,
            7,
            format!("register a BrokerModificationsHandler on /brokers/ids/<id> for {new_brokers:?}"),
            Detail::new().with("brokers", &new_brokers),
        );
        self.register_broker_modifications_handlers(cx, new_brokers);
        Ok(())
    }

    /// `onBrokerFailure`.
    pub(crate) fn on_broker_failure(&mut self, cx: &mut Cx, dead: &[BrokerId]) -> CResult<()> {
        for b in dead {
            self.ctx.replicas_on_offline_dirs.remove(b);
            self.ctx.shutting_down.remove(b);
        }
        let set: SmallSet<BrokerId> = dead.iter().copied().collect();
        let replicas = self.ctx.replicas_on_brokers(&set);
        self.step(
            cx,
            "KafkaController.onBrokerFailure",
            format!("brokers {dead:?} failed: their {} replicas go offline", replicas.len()),
            Detail::new().with("brokers", &dead).with("replicas", &replicas.len()),
        );
        self.on_replicas_become_offline(cx, &replicas)?;
        for b in dead {
            cx.zkc.unregister_node_handler(&zk_data::broker_path(*b));
        }
        Ok(())
    }

    /// `onReplicasBecomeOffline`: partitions whose leader went → Offline, then
    /// elect; the replicas → OfflineReplica (removed from ISRs); replicas of
    /// topics being deleted fail their deletion.
    pub(crate) fn on_replicas_become_offline(&mut self, cx: &mut Cx, replicas: &[Replica]) -> CResult<()> {
        let (deleting, live): (Vec<Replica>, Vec<Replica>) =
            replicas.iter().cloned().partition(|(tp, _)| self.ctx.is_topic_queued_for_deletion(&tp.topic));
        let offline_leader = self.ctx.partitions_with_offline_leader();
        self.step(
            cx,
            "KafkaController.onReplicasBecomeOffline",
            format!("{} partitions lost their leader → OfflinePartition, then elect new leaders", offline_leader.len()),
            Detail::new().with("partitions_with_offline_leader", &offline_leader.iter().map(|tp| tp.to_string()).collect::<Vec<_>>()),
        );
        self.partition_state_changes(cx, &offline_leader, super::context::PartitionState::OfflinePartition, None)?;
        self.trigger_online_partition_state_change(cx)?;
        self.replica_state_changes(cx, &live, ReplicaState::OfflineReplica)?;
        if !deleting.is_empty() {
            self.fail_replica_deletion(cx, &deleting)?;
        }
        if offline_leader.is_empty() {
            let all: Vec<_> = self.ctx.live_or_shutting_down().into_iter().collect();
            self.send_update_metadata(cx, &all, &[]);
        }
        Ok(())
    }

    /// `processBrokerModification` → `onBrokerUpdate`.
    pub(super) fn process_broker_modification(&mut self, cx: &mut Cx, b: BrokerId) -> CResult<()> {
        if !self.is_active() {
            return Ok(());
        }
        let actor = self.actor();
        const SRC: &str = "KafkaController.processBrokerModification";
        let new = kzk::get_broker(cx.zkc, cx.io, &actor, b).map_err(ControllerError::Zk)?;
        self.numbered(cx, SRC, 1, 3, format!("read /brokers/ids/{b}"), Detail::new().with("broker", &b));
        let old = self.ctx.live_brokers().get(&b).map(|(i, _)| i.clone());
        self.numbered(cx, SRC, 2, 3, format!("the cached registration of broker {b}"), Detail::new().with("broker", &b));
        match (new, old) {
            (Some(new), Some(old)) if new.endpoint() != old.endpoint() => {
                self.numbered(
                    cx,
                    SRC,
                    3,
                    3,
                    format!("endpoints changed {} → {}: update the context, onBrokerUpdate", old.endpoint(), new.endpoint()),
                    Detail::new().with("old", &old.endpoint()).with("new", &new.endpoint()),
                );
                if let Some(entry) = self.ctx.live_broker_mut(b) {
                    entry.0 = new;
                }
                let all: Vec<_> = self.ctx.live_or_shutting_down().into_iter().collect();
                self.step(
                    cx,
                    "KafkaController.onBrokerUpdate",
                    format!("UpdateMetadata to every broker {all:?} with broker {b}'s new endpoints"),
                    Detail::new().with("brokers", &all),
                );
                self.send_update_metadata(cx, &all, &[]);
            }
            _ => self.numbered(cx, SRC, 3, 3, "endpoints unchanged: nothing to do".into(), Detail::new()),
        }
        Ok(())
    }

    /// `triggerOnlinePartitionStateChange`: every New or Offline partition
    /// (not being deleted) → Online with a clean election.
    pub(crate) fn trigger_online_partition_state_change(&mut self, cx: &mut Cx) -> CResult<()> {
        use super::context::PartitionState::*;
        let partitions: Vec<_> = self
            .ctx
            .partition_states
            .iter()
            .filter(|(tp, s)| matches!(s, NewPartition | OfflinePartition) && !self.ctx.is_topic_queued_for_deletion(&tp.topic))
            .map(|(tp, _)| tp.clone())
            .collect();
        if partitions.is_empty() {
            return Ok(());
        }
        self.partition_state_changes(cx, &partitions, OnlinePartition, Some(Strategy::Offline { allow_unclean: false }))
    }
}
