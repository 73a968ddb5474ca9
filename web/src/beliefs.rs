//! "What each actor believes": ZooKeeper's truth beside the controller's
//! cache and each live broker's metadata cache. They diverge between a change
//! and its propagation (seed 002's lesson); the differences are what the
//! panel highlights.

pub use kzsim::view::Leadership;
use kzsim::view::{BrokerView, PartitionView, ZnodeView};
use kzsim::zookeeper::data_tree::tree_order;
use std::rc::Rc;

/// One actor's idea of a partition's leadership.
#[derive(Clone, Debug, PartialEq)]
pub struct Belief {
    /// `zk`, `controller` or `broker-N`.
    pub who: String,
    /// The broker whose colour the row carries.
    pub broker: Option<i32>,
    /// (leader, leader epoch, ISR); `None`: it knows nothing of the partition.
    pub claim: Option<Leadership>,
    /// Which of leader, epoch and ISR differ from ZooKeeper's.
    pub differs: [bool; 3],
}

impl Belief {
    pub fn any_difference(&self) -> bool {
        self.differs.iter().any(|d| *d)
    }
}

fn compare(truth: &Option<Leadership>, claim: &Option<Leadership>) -> [bool; 3] {
    match (truth, claim) {
        (Some(t), Some(c)) => [t.0 != c.0, t.1 != c.1, t.2 != c.2],
        (None, None) => [false; 3],
        _ => [true; 3],
    }
}

/// ZooKeeper's leadership of `p` (`None` before its state znode exists).
fn truth(p: &PartitionView) -> Option<Leadership> {
    Some((p.leader?, p.leader_epoch?, p.isr.clone()))
}

/// What broker `b`'s metadata cache holds for `p`: the view lists only the
/// partitions where it differs from ZooKeeper (`None` there: unknown to it).
fn believed(b: &BrokerView, p: &PartitionView, truth: &Option<Leadership>) -> Option<Leadership> {
    match b.metadata.get(&p.topic, p.partition) {
        Some(claim) => claim.clone(),
        None => truth.clone(),
    }
}

/// ZooKeeper first, then the active controller's context, then every live
/// broker's metadata cache.
pub fn partition_beliefs(p: &PartitionView, brokers: &[BrokerView], controller: Option<i32>) -> Vec<Belief> {
    let truth = truth(p);
    let mut out = vec![Belief { who: "zk".into(), broker: None, claim: truth.clone(), differs: [false; 3] }];
    if let Some(c) = controller {
        out.push(Belief {
            who: "controller".into(),
            broker: Some(c),
            differs: compare(&truth, &p.controller_view),
            claim: p.controller_view.clone(),
        });
    }
    for b in brokers.iter().filter(|b| b.state != "stopped") {
        let claim = believed(b, p, &truth);
        out.push(Belief { who: format!("broker-{}", b.id), broker: Some(b.id), differs: compare(&truth, &claim), claim });
    }
    out
}

/// A belief table: the partition, its rows, and how many brokers' rows were
/// left out.
pub type Table<'a> = (&'a PartitionView, Vec<Belief>, Hidden);

/// The brokers a table counts instead of drawing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hidden {
    /// Their caches agree with ZooKeeper.
    pub agreeing: usize,
    /// Their caches disagree too, past [`SHOWN_DIFFERING`].
    pub differing: usize,
}

/// With many brokers, at most this many caches that disagree with ZooKeeper
/// get a row of their own in a table (besides the partition's replicas and
/// the controller); the rest are counted. Just after a failover all fifty
/// disagree, and fifty rows of chips per table were most of what a seek
/// into it redrew (issue 9).
pub const SHOWN_DIFFERING: usize = 6;

/// With more brokers than this, a table lists only the partition's own
/// replicas and the brokers that disagree; the rest are counted.
pub const ALL_ROWS_UP_TO: usize = 8;

/// The belief tables of `partitions` — (partition, rows, brokers left out
/// because they agree) — in their order. The view chose them
/// (`View::belief_partitions`: those where an actor disagrees with ZooKeeper
/// first, at most `kzsim::view::BELIEF_TABLES`); a big cluster would
/// otherwise draw (brokers + 2) rows for every partition at every step:
/// 52,000 rows for 1,000 partitions (issue 9).
pub fn tables<'a>(partitions: &'a [PartitionView], brokers: &[BrokerView], controller: Option<i32>) -> Vec<Table<'a>> {
    let mut tables: Vec<Table> = Vec::new();
    for part in partitions {
        let rows = partition_beliefs(part, brokers, controller);
        if brokers.len() <= ALL_ROWS_UP_TO {
            tables.push((part, rows, Hidden::default()));
            continue;
        }
        let (mut kept, mut hidden, mut shown_differing) = (Vec::new(), Hidden::default(), 0);
        for b in rows {
            let own = b.broker.is_none() || b.who == "controller" || b.broker.is_some_and(|id| part.replicas.contains(&id));
            if own {
                kept.push(b);
            } else if !b.any_difference() {
                hidden.agreeing += 1;
            } else if shown_differing < SHOWN_DIFFERING {
                shown_differing += 1;
                kept.push(b);
            } else {
                hidden.differing += 1;
            }
        }
        tables.push((part, kept, hidden));
    }
    tables
}

/// The brokers registered in ZooKeeper (`/brokers/ids` children). The
/// rows come in tree order, so the registrations are one run of them, found
/// by a binary search (a big cluster's tree has 30,000 rows, read at each
/// step).
pub fn registered_brokers(znodes: &[Rc<ZnodeView>]) -> Vec<i32> {
    const IDS: &str = "/brokers/ids/";
    let from = znodes.partition_point(|z| tree_order(&z.path, IDS).is_lt());
    let mut ids: Vec<i32> = znodes[from..]
        .iter()
        .take_while(|z| z.path.starts_with(IDS))
        .filter(|z| z.change != "deleted" && z.depth == 3)
        .filter_map(|z| z.path.strip_prefix(IDS)?.parse().ok())
        .collect();
    ids.sort();
    ids
}

/// (broker, the live brokers its metadata cache lists, whether that differs
/// from ZooKeeper's registrations).
pub type LiveBelief = (i32, Vec<i32>, bool);

/// ZooKeeper's registered brokers, and each live broker's belief about them.
pub fn live_broker_beliefs(znodes: &[Rc<ZnodeView>], brokers: &[BrokerView]) -> (Vec<i32>, Vec<LiveBelief>) {
    let registered = registered_brokers(znodes);
    let rows = brokers
        .iter()
        .filter(|b| b.state != "stopped")
        .map(|b| {
            let mut live = b.metadata_live_brokers.clone();
            live.sort();
            let differs = live != registered;
            (b.id, live, differs)
        })
        .collect();
    (registered, rows)
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use kzsim::sandbox::Sandbox;
    use kzsim::view::View;

    /// A real view of a small running cluster, for tests to adjust (built
    /// by the simulator, so new fields in the core's view need no change here).
    pub fn sample_view() -> View {
        let mut sandbox = Sandbox::load("cluster brokers=4\nstart all\ntopic create t assignment=0:0,1,2\nrun 1s\n").unwrap();
        while sandbox.step_forward() {}
        sandbox.view()
    }

    /// `t-0` → topic `t`, partition 0.
    fn tp(name: &str) -> kzsim::scenario::TopicPartition {
        let (topic, partition) = name.rsplit_once('-').unwrap();
        kzsim::scenario::TopicPartition { topic: kzsim::scenario::Topic::new(topic), partition: partition.parse().unwrap() }
    }

    pub fn broker(id: i32, state: &'static str, metadata: &[(&str, Leadership)], live: &[i32]) -> BrokerView {
        let mut b = sample_view().brokers.into_iter().next().unwrap();
        b.id = id;
        b.state = state;
        b.controller = false;
        b.zombie = false;
        b.session = None;
        b.fetch_paused = false;
        b.metadata = std::rc::Rc::new(metadata.iter().map(|(k, v)| (tp(k), Some(v.clone()))).collect());
        b.metadata_live_brokers = live.to_vec();
        b
    }

    pub fn partition(tp: &str, leader: i32, epoch: i32, isr: &[i32], controller_view: Option<Leadership>) -> PartitionView {
        let mut p = sample_view().partitions.into_iter().next().unwrap();
        p.tp = tp.into();
        p.leader = Some(leader);
        p.leader_epoch = Some(epoch);
        p.isr = isr.into();
        p.controller_view = controller_view;
        p
    }

    #[test]
    fn a_stale_cache_is_flagged_field_by_field() {
        // Seed 002: the leader shrank the ISR in ZooKeeper; the controller
        // and broker 0 have not heard yet, broker 1 has.
        let p = partition("t-0", 0, 0, &[0, 1], Some((0, 0, [0, 1, 2].into())));
        let brokers = vec![
            broker(0, "running", &[("t-0", (0, 0, [0, 1, 2].into()))], &[0, 1, 2]),
            broker(1, "running", &[("t-0", (0, 0, [0, 1].into()))], &[0, 1, 2]),
            broker(2, "stopped", &[("t-0", (0, 0, [0, 1, 2].into()))], &[0, 1, 2]),
            broker(3, "paused", &[], &[0, 1, 2]),
        ];
        // The view lists a partition a cache does not know as `None`.
        let mut brokers = brokers;
        std::rc::Rc::make_mut(&mut brokers[3].metadata).insert(tp("t-0"), None);
        let beliefs = partition_beliefs(&p, &brokers, Some(0));
        let who: Vec<_> = beliefs.iter().map(|b| b.who.as_str()).collect();
        assert_eq!(who, ["zk", "controller", "broker-0", "broker-1", "broker-3"]);
        assert_eq!(beliefs[0].differs, [false; 3]);
        assert_eq!(beliefs[1].differs, [false, false, true]);
        assert_eq!(beliefs[2].differs, [false, false, true]);
        assert!(!beliefs[3].any_difference());
        // Broker 3 knows nothing of t-0 yet.
        assert_eq!(beliefs[4].claim, None);
        assert_eq!(beliefs[4].differs, [true; 3]);
        // No controller: no controller row.
        assert_eq!(partition_beliefs(&p, &brokers, None).len(), 4);
    }

    #[test]
    fn a_settled_cluster_agrees_everywhere() {
        let view = sample_view();
        let controller = view.brokers.iter().find(|b| b.controller).map(|b| b.id);
        assert!(controller.is_some());
        for p in &view.partitions {
            for b in partition_beliefs(p, &view.brokers, controller) {
                assert!(!b.any_difference(), "{} on {}: {:?}", b.who, p.tp, b.claim);
            }
        }
        let (registered, rows) = live_broker_beliefs(&view.znodes, &view.brokers);
        assert_eq!(registered, [0, 1, 2, 3]);
        assert!(rows.iter().all(|(_, _, differs)| !differs), "{rows:?}");
    }

    #[test]
    fn live_brokers_compared_with_registrations() {
        let mut znodes = (*sample_view().znodes).clone();
        // Broker 0's registration was deleted this step; 3's is gone.
        znodes.retain(|z| &*z.path != "/brokers/ids/3");
        for z in &mut znodes {
            if &*z.path == "/brokers/ids/0" {
                Rc::make_mut(z).change = "deleted";
            }
        }
        assert_eq!(registered_brokers(&znodes), [1, 2]);
        let brokers = vec![broker(1, "running", &[], &[2, 1]), broker(2, "running", &[], &[0, 1, 2])];
        let (registered, rows) = live_broker_beliefs(&znodes, &brokers);
        assert_eq!(registered, [1, 2]);
        assert_eq!(rows, vec![(1, vec![1, 2], false), (2, vec![0, 1, 2], true)]);
    }

    /// Just after a failover on a big cluster: the replicas and the
    /// controller keep their rows, [`SHOWN_DIFFERING`] of the stale caches
    /// get one, and the rest are counted, agreeing and disagreeing apart.
    #[test]
    fn many_stale_caches_are_counted_past_a_few() {
        let mut p = partition("t-0", 1, 1, &[1, 2], Some((1, 1, [1, 2].into())));
        p.replicas = [1, 2, 3].into();
        let stale = [("t-0", (0, 0, [0, 1, 2].into()))];
        let brokers: Vec<BrokerView> = (1..=20).map(|id| broker(id, "running", if id <= 15 { &stale } else { &[] }, &[])).collect();
        let tables = tables(std::slice::from_ref(&p), &brokers, Some(1));
        let (_, rows, hidden) = &tables[0];
        let who: Vec<_> = rows.iter().map(|b| b.who.as_str()).collect();
        assert_eq!(
            who,
            [
                "zk",
                "controller",
                "broker-1",
                "broker-2",
                "broker-3",
                "broker-4",
                "broker-5",
                "broker-6",
                "broker-7",
                "broker-8",
                "broker-9"
            ]
        );
        assert_eq!(*hidden, Hidden { agreeing: 5, differing: 15 - 3 - SHOWN_DIFFERING });
    }
}
