//! The invariants checked after every step of a chaos run (and by the
//! property tests): what must hold in any reachable state of the cluster,
//! however the faults are timed.
//!
//! 1. `one-controller-per-epoch`: at most one broker believes it is the active
//!    controller for any controller epoch.
//! 2. `leader-in-isr`: every partition state znode with a leader has it in
//!    its ISR; the ISR is never empty and lies within the replicas.
//! 3. `epochs-never-decrease`: `/controller_epoch`, every partition's leader
//!    epoch and the controller epoch recorded in its state only grow (a
//!    deleted and re-created topic starts over).
//! 4. `ephemerals-have-live-sessions`: every ephemeral znode's owner session
//!    is open.
//! 5. `hw-never-decreases`: a leader's high watermark only grows within its
//!    leader epoch (followers take what their leader sends, and may go back).
//! 6. `hw-within-isr`: the current leader's high watermark never passes the
//!    LEO of any ISR member (the leader and ISR ZooKeeper holds; a paused,
//!    stale leader's frozen view is not the cluster's).
//! 7. `hw-within-leo`: no replica's high watermark passes its own log end
//!    offset (`Log.updateHighWatermark` holds it there: a follower that
//!    truncates takes its HW down with its log).

use crate::kafka::server::replica_manager::Role;
use crate::kafka::zk_data::{self, LeaderIsrAndControllerEpoch};
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use crate::sim::Sim;
use std::collections::BTreeMap;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub invariant: &'static str,
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invariant {} violated: {}", self.invariant, self.detail)
    }
}

/// Remembers what "never decreases" compares against.
#[derive(Clone, Debug, Default)]
pub struct InvariantChecker {
    controller_epoch: i64,
    /// State znode path → (its czxid, the highest leader epoch and the
    /// highest controller epoch seen in it).
    leader_epochs: BTreeMap<String, (i64, i32, i32)>,
    /// (broker, incarnation, partition) → (HW, leader epoch if leading,
    /// else -1) last seen.
    high_watermarks: BTreeMap<(BrokerId, u32, TopicPartition), (u64, i32)>,
}

fn fail(invariant: &'static str, detail: String) -> Result<(), Violation> {
    Err(Violation { invariant, detail })
}

impl InvariantChecker {
    pub fn check(&mut self, sim: &Sim) -> Result<(), Violation> {
        self.one_controller_per_epoch(sim)?;
        self.partition_states(sim)?;
        self.ephemerals(sim)?;
        self.high_watermarks(sim)
    }

    fn one_controller_per_epoch(&mut self, sim: &Sim) -> Result<(), Violation> {
        let mut by_epoch: BTreeMap<i32, BrokerId> = BTreeMap::new();
        for b in sim.brokers().values().filter(|b| b.is_alive()) {
            if b.controller.is_active() {
                if let Some(other) = by_epoch.insert(b.controller.ctx.epoch, b.id) {
                    return fail(
                        "one-controller-per-epoch",
                        format!("brokers {other} and {} both act as controller for epoch {}", b.id, b.controller.ctx.epoch),
                    );
                }
            }
        }
        let tree = sim.zk().tree();
        if let Some(epoch) = tree.get(zk_data::CONTROLLER_EPOCH).and_then(|n| zk_data::decode_controller_epoch(&n.data)) {
            if (epoch as i64) < self.controller_epoch {
                return fail("epochs-never-decrease", format!("/controller_epoch went from {} to {epoch}", self.controller_epoch));
            }
            self.controller_epoch = epoch as i64;
        }
        Ok(())
    }

    fn partition_states(&mut self, sim: &Sim) -> Result<(), Violation> {
        let tree = sim.zk().tree();
        for topic in tree.children(zk_data::BROKER_TOPICS) {
            let Some(assignment) = tree.get(&zk_data::topic_path(topic)).and_then(|n| zk_data::decode_topic(&n.data)) else { continue };
            for (p, a) in assignment {
                let tp = TopicPartition { topic: topic.into(), partition: p };
                let path = zk_data::partition_state_path(&tp);
                let Some(node) = tree.get(&path) else { continue };
                let Some(s) = LeaderIsrAndControllerEpoch::decode(&node.data, node.stat.version) else {
                    return fail("leader-in-isr", format!("{path} holds unreadable data"));
                };
                if s.isr.is_empty() {
                    return fail("leader-in-isr", format!("{tp} has an empty ISR"));
                }
                if s.leader >= 0 && !s.isr.contains(&s.leader) {
                    return fail("leader-in-isr", format!("{tp}: leader {} is not in its ISR {:?}", s.leader, s.isr));
                }
                if let Some(b) = s.isr.iter().find(|b| !a.replicas.contains(b)) {
                    return fail("leader-in-isr", format!("{tp}: ISR member {b} is not among the replicas {:?}", a.replicas));
                }
                let entry = self.leader_epochs.entry(path.clone()).or_insert((node.stat.czxid, s.leader_epoch, s.controller_epoch));
                if entry.0 != node.stat.czxid {
                    *entry = (node.stat.czxid, s.leader_epoch, s.controller_epoch);
                } else if s.leader_epoch < entry.1 {
                    return fail("epochs-never-decrease", format!("{tp}: leader epoch went from {} to {}", entry.1, s.leader_epoch));
                } else if s.controller_epoch < entry.2 {
                    return fail(
                        "epochs-never-decrease",
                        format!(
                            "{tp}: its state was written by controller epoch {} after epoch {} (a zombie controller)",
                            s.controller_epoch, entry.2
                        ),
                    );
                } else {
                    entry.1 = s.leader_epoch;
                    entry.2 = s.controller_epoch;
                }
            }
        }
        Ok(())
    }

    fn ephemerals(&self, sim: &Sim) -> Result<(), Violation> {
        let zk = sim.zk();
        for (path, n) in zk.tree().iter() {
            if n.is_ephemeral() && zk.session(n.stat.ephemeral_owner).is_none() {
                return fail(
                    "ephemerals-have-live-sessions",
                    format!("{path} belongs to session {:#x}, which is closed", n.stat.ephemeral_owner),
                );
            }
        }
        Ok(())
    }

    fn high_watermarks(&mut self, sim: &Sim) -> Result<(), Violation> {
        let tree = sim.zk().tree();
        let leos: BTreeMap<(BrokerId, &TopicPartition), u64> = sim
            .brokers()
            .values()
            .filter(|b| b.is_alive())
            .flat_map(|b| b.replica_manager.partitions.iter().map(move |(tp, h)| ((b.id, tp), h.leo)))
            .collect();
        for b in sim.brokers().values().filter(|b| b.is_alive()) {
            for (tp, h) in b.replica_manager.partitions.iter() {
                if h.hw > h.leo {
                    return fail("hw-within-leo", format!("broker {}'s {tp}: high watermark {} passes its LEO {}", b.id, h.hw, h.leo));
                }
                // A leader's HW only grows within its leader epoch (a
                // follower takes whatever its leader sends, and may go back).
                let key = (b.id, b.incarnation, tp.clone());
                if let Some((hw, epoch)) = self.high_watermarks.get(&key) {
                    if h.role == Role::Leader && *epoch == h.leader_epoch && h.hw < *hw {
                        return fail(
                            "hw-never-decreases",
                            format!("broker {} leads {tp}: its high watermark went from {hw} to {} in leader epoch {epoch}", b.id, h.hw),
                        );
                    }
                }
                let epoch = if h.role == Role::Leader { h.leader_epoch } else { -1 };
                self.high_watermarks.insert(key, (h.hw, epoch));
                // The current leader (the one ZooKeeper names, awake) never
                // commits past what every ISR member in ZooKeeper has.
                let Some(state) =
                    tree.get(&zk_data::partition_state_path(tp)).and_then(|n| LeaderIsrAndControllerEpoch::decode(&n.data, n.stat.version))
                else {
                    continue;
                };
                if h.role != Role::Leader || b.paused || state.leader != b.id || state.leader_epoch != h.leader_epoch {
                    continue;
                }
                for m in &state.isr {
                    if let Some(leo) = leos.get(&(*m, tp)) {
                        if h.hw > *leo {
                            return fail(
                                "hw-within-isr",
                                format!("{tp}: leader {}'s high watermark {} passes ISR member {m}'s LEO {leo}", b.id, h.hw),
                            );
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
