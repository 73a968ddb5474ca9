//! `kafka.controller.Election`: the four leader election strategies, as pure
//! functions of the assignment, the ISR and who is alive.

use crate::kafka::BrokerId;

/// `PartitionLeaderElectionStrategy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// A leader went offline (or a new partition had none): the first live
    /// replica in the ISR; else, when unclean election is allowed, the first
    /// live replica at all.
    Offline { allow_unclean: bool },
    /// A reassignment moves the leader into the target replicas.
    Reassign,
    /// Back to the preferred (first) replica.
    Preferred,
    /// The leader is shutting down: any ISR member that is not.
    ControlledShutdown,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Offline { .. } => "OfflinePartitionLeaderElectionStrategy",
            Strategy::Reassign => "ReassignPartitionLeaderElectionStrategy",
            Strategy::Preferred => "PreferredReplicaPartitionLeaderElectionStrategy",
            Strategy::ControlledShutdown => "ControlledShutdownPartitionLeaderElectionStrategy",
        }
    }
}

/// `offlinePartitionLeaderElection`: (leader, whether it was unclean).
pub fn offline_leader(
    assignment: &[BrokerId],
    isr: &[BrokerId],
    live: &dyn Fn(BrokerId) -> bool,
    unclean_enabled: bool,
) -> Option<(BrokerId, bool)> {
    if let Some(&l) = assignment.iter().find(|r| live(**r) && isr.contains(r)) {
        return Some((l, false));
    }
    if unclean_enabled {
        return assignment.iter().find(|r| live(**r)).map(|&l| (l, true));
    }
    None
}

/// `reassignPartitionLeaderElection`.
pub fn reassign_leader(target: &[BrokerId], isr: &[BrokerId], live: &dyn Fn(BrokerId) -> bool) -> Option<BrokerId> {
    target.iter().copied().find(|r| live(*r) && isr.contains(r))
}

/// `preferredReplicaPartitionLeaderElection`.
pub fn preferred_leader(assignment: &[BrokerId], isr: &[BrokerId], live: &dyn Fn(BrokerId) -> bool) -> Option<BrokerId> {
    assignment.first().copied().filter(|l| live(*l) && isr.contains(l))
}

/// `controlledShutdownPartitionLeaderElection`.
pub fn controlled_shutdown_leader(
    assignment: &[BrokerId],
    isr: &[BrokerId],
    live_or_shutting_down: &dyn Fn(BrokerId) -> bool,
    shutting_down: &dyn Fn(BrokerId) -> bool,
) -> Option<BrokerId> {
    assignment.iter().copied().find(|r| live_or_shutting_down(*r) && isr.contains(r) && !shutting_down(*r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offline_election_prefers_assignment_order_within_the_isr() {
        let live = |b: BrokerId| b != 1;
        assert_eq!(offline_leader(&[1, 2, 3], &[1, 3], &live, false), Some((3, false)));
        assert_eq!(offline_leader(&[1, 2, 3], &[1], &live, false), None);
        assert_eq!(offline_leader(&[1, 2, 3], &[1], &live, true), Some((2, true)));
    }

    #[test]
    fn the_other_strategies() {
        let live = |b: BrokerId| b != 4;
        assert_eq!(reassign_leader(&[4, 5, 2], &[2, 5], &live), Some(5));
        assert_eq!(preferred_leader(&[1, 2], &[2, 1], &live), Some(1));
        assert_eq!(preferred_leader(&[4, 2], &[2, 4], &live), None);
        assert_eq!(controlled_shutdown_leader(&[1, 2, 3], &[1, 2, 3], &|_| true, &|b| b == 1), Some(2));
    }
}
