//! `MetadataCache`: what a broker believes about the cluster, as the last
//! UpdateMetadata told it. It lags ZooKeeper between a change and its
//! propagation — the lesson of seed 002.

use crate::kafka::messages::{UpdateMetadataPartitionState, UpdateMetadataPartitions};
use crate::kafka::zk_data::{BrokerInfo, LEADER_DURING_DELETE};
use crate::kafka::BrokerId;
use crate::scenario::{Topic, TopicPartition};
use crate::small_map::SmallMap;
use std::collections::BTreeMap;
use std::rc::Rc;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MetadataCache {
    pub controller_id: Option<BrokerId>,
    pub controller_epoch: i32,
    pub live_brokers: SmallMap<BrokerId, BrokerInfo>,
    /// The partitions, read through [`MetadataCache::partitions`] and
    /// [`MetadataCache::partition`].
    partitions: CachedPartitions,
    /// Counts the UpdateMetadata requests applied, so that a picture of the
    /// cache (the browser's belief tables) can be kept while it stays the
    /// same. A restarted broker's empty cache carries its count on (see
    /// [`MetadataCache::cleared`]).
    pub updates: u64,
}

/// What a cache's partitions are made of, compared by identity: caches
/// with one layout (the same request lists, the same overlay) hold the same
/// partitions, as the fifty brokers that applied one failover's
/// UpdateMetadata do, so an observer's picture of one serves for all.
/// Holding a layout keeps its lists alive: an address compared is never
/// one reused by another list.
#[derive(Clone, Debug)]
pub struct Layout(CachedPartitions);

impl PartialEq for Layout {
    fn eq(&self, other: &Layout) -> bool {
        let (a, b) = (&self.0, &other.0);
        let same_overlay = Rc::ptr_eq(&a.overlay, &b.overlay) || (a.overlay.is_empty() && b.overlay.is_empty());
        same_overlay
            && a.runs.len() == b.runs.len()
            && a.runs.iter().zip(&b.runs).all(|(x, y)| Rc::ptr_eq(&x.list, &y.list) && (x.start, x.end) == (y.start, y.end))
    }
}

impl MetadataCache {
    /// See [`Layout`].
    pub fn layout(&self) -> Layout {
        Layout(self.partitions.clone())
    }

    /// The empty cache a broker starts again with; its count goes on, so no
    /// two different caches of one broker share a count.
    pub fn cleared(&self) -> MetadataCache {
        MetadataCache { updates: self.updates + 1, ..MetadataCache::default() }
    }

    /// Every cached partition, in `TopicPartition` order.
    pub fn partitions(&self) -> impl Iterator<Item = (TopicPartition, &UpdateMetadataPartitionState)> {
        self.partitions.iter().map(|p| (TopicPartition { topic: p.topic.clone(), partition: p.partition }, &**p))
    }

    pub fn partition(&self, tp: &TopicPartition) -> Option<&UpdateMetadataPartitionState> {
        self.partitions.get(tp).map(|p| &**p)
    }

    /// `updateMetadata`: partitions of topics being deleted (leader −2) are
    /// removed; the others replace what was cached.
    pub fn update(&mut self, controller_id: BrokerId, controller_epoch: i32, live: &[BrokerInfo], partitions: &UpdateMetadataPartitions) {
        self.updates += 1;
        self.controller_id = Some(controller_id);
        self.controller_epoch = controller_epoch;
        self.live_brokers = live.iter().map(|b| (b.id, b.clone())).collect();
        self.partitions.update(partitions);
    }
}

type State = Rc<UpdateMetadataPartitionState>;

/// The cached partitions, kept so that the requests' own lists are shared
/// rather than copied: fifty brokers each building a map of 100,000
/// partitions, at creation and again at a failover, were a fifth of a big
/// run (issue 9). `runs` are slices of request lists, each strictly sorted,
/// their ranges disjoint and in order; `overlay` holds the later changes
/// that did not fit as a run (`None`: removed). What the cache holds is the
/// same whatever the layout.
#[derive(Clone, Debug, Default)]
struct CachedPartitions {
    runs: Vec<Run>,
    /// Shared with the timeline's snapshots of this cache until changed
    /// (copy on write).
    overlay: Rc<BTreeMap<TopicPartition, Option<State>>>,
}

/// `list[start..end]`, never empty.
#[derive(Clone, Debug)]
struct Run {
    list: Rc<Vec<State>>,
    start: usize,
    end: usize,
}

impl Run {
    fn slice(&self) -> &[State] {
        &self.list[self.start..self.end]
    }

    /// `slice()[from..to]`, or nothing if that is empty.
    fn part(&self, from: usize, to: usize) -> Option<Run> {
        (from < to).then(|| Run { list: Rc::clone(&self.list), start: self.start + from, end: self.start + to })
    }
}

/// Equal when they hold the same partitions, however laid out.
impl PartialEq for CachedPartitions {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for CachedPartitions {}

impl CachedPartitions {
    /// The request's partitions replace or remove the cached ones. A big
    /// request in order that holds every cached partition of its range (a
    /// failover's holds them all, a new topic's lies between the cached
    /// ones) becomes a run in place of those; the others go to the overlay.
    fn update(&mut self, request: &UpdateMetadataPartitions) {
        if request.len() >= RUN_FROM {
            if self.runs.len() >= MAX_RUNS {
                self.compact();
            }
            if self.replace_range(request) {
                return;
            }
        }
        for p in request.iter() {
            self.apply(p);
        }
        if self.overlay.len() > COMPACT_FROM.max(self.runs.iter().map(|r| r.end - r.start).sum::<usize>() / 2) {
            self.compact();
        }
    }

    /// The request as a run, if it may be one (strictly sorted, removing
    /// nothing: [`may_be_a_run`]) and holds every cached partition between
    /// its first and its last (none of them in the overlay). Runs
    /// straddling its ends are cut there.
    fn replace_range(&mut self, request: &UpdateMetadataPartitions) -> bool {
        let (Some(first), Some(last)) = (request.first(), request.last()) else { return false };
        if !request.may_be_a_run() {
            return false;
        }
        let (lo, hi) = (key(first), key(last));
        let from = TopicPartition { topic: first.topic.clone(), partition: first.partition };
        if self.overlay.range(from..).next().is_some_and(|(k, _)| (&k.topic, k.partition) <= hi) {
            return false;
        }
        let (mut runs, mut after, mut inside) = (Vec::new(), Vec::new(), Vec::new());
        for run in &self.runs {
            let s = run.slice();
            let (a, b) = (s.partition_point(|p| key(p) < lo), s.partition_point(|p| key(p) <= hi));
            runs.extend(run.part(0, a));
            inside.push(&s[a..b]);
            after.extend(run.part(b, s.len()));
        }
        let mut offered = request.iter().peekable();
        let covered = inside.iter().flat_map(|s| s.iter()).all(|p| {
            while offered.next_if(|o| key(o) < key(p)).is_some() {}
            offered.next_if(|o| key(o) == key(p)).is_some()
        });
        if !covered {
            return false;
        }
        runs.push(Run { list: Rc::clone(request.list()), start: 0, end: request.len() });
        runs.append(&mut after);
        self.runs = runs;
        true
    }

    /// One partition of a request: replaced, added or removed.
    fn apply(&mut self, p: &State) {
        let tp = TopicPartition { topic: p.topic.clone(), partition: p.partition };
        Rc::make_mut(&mut self.overlay).insert(tp, (p.leader != LEADER_DURING_DELETE).then(|| Rc::clone(p)));
    }

    /// The runs and the overlay merged into one run.
    fn compact(&mut self) {
        let merged: Rc<Vec<State>> = Rc::new(self.iter().cloned().collect());
        let runs = if merged.is_empty() { Vec::new() } else { vec![Run { start: 0, end: merged.len(), list: Rc::clone(&merged) }] };
        *self = CachedPartitions { runs, overlay: Rc::default() };
    }

    fn get(&self, tp: &TopicPartition) -> Option<&State> {
        if let Some(changed) = self.overlay.get(tp) {
            return changed.as_ref();
        }
        let k = (&tp.topic, tp.partition);
        let i = self.runs.partition_point(|run| key(&run.slice()[0]) <= k).checked_sub(1)?;
        let run = self.runs[i].slice();
        run.binary_search_by(|p| key(p).cmp(&k)).ok().map(|j| &run[j])
    }

    /// In `TopicPartition` order: the runs one after the other, merged with
    /// the overlay.
    fn iter(&self) -> impl Iterator<Item = &State> {
        let mut base = self.runs.iter().flat_map(|run| run.slice().iter()).peekable();
        let mut overlay = self.overlay.iter().peekable();
        std::iter::from_fn(move || loop {
            let next_base = base.peek().copied().map(|p| key(p));
            match (next_base, overlay.peek()) {
                (None, None) => return None,
                (Some(b), Some((k, _))) if b < (&k.topic, k.partition) => return base.next(),
                (Some(_), None) => return base.next(),
                (b, Some((k, _))) => {
                    if b == Some((&k.topic, k.partition)) {
                        base.next(); // replaced or removed by the overlay
                    }
                    if let Some((_, Some(p))) = overlay.next() {
                        return Some(p);
                    }
                }
            }
        })
    }
}

/// Requests smaller than this go to the overlay.
const RUN_FROM: usize = 64;

/// Past this many runs, they are merged into one before the next big request.
const MAX_RUNS: usize = 64;

/// The overlay is merged into a run when it holds more than this many
/// partitions and more than half of the cache.
const COMPACT_FROM: usize = 1024;

/// A partition's place in `TopicPartition` order.
fn key(p: &UpdateMetadataPartitionState) -> (&Topic, i32) {
    (&p.topic, p.partition)
}

/// Whether a request's partitions may be cached as a run: in
/// `TopicPartition` order, none twice, none removed (of a topic being
/// deleted, leader −2). One pass over them.
pub(crate) fn may_be_a_run(partitions: &[State]) -> bool {
    let mut previous: Option<&State> = None;
    partitions.iter().all(|p| {
        let fits = p.leader != LEADER_DURING_DELETE && previous.is_none_or(|q| key(q) < key(p));
        previous = Some(p);
        fits
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(topic: &str, partition: i32, leader: BrokerId) -> Rc<UpdateMetadataPartitionState> {
        Rc::new(UpdateMetadataPartitionState {
            topic: topic.into(),
            partition,
            controller_epoch: 1,
            leader,
            leader_epoch: 0,
            isr: [leader].into(),
            zk_version: 0,
            replicas: [leader].into(),
            offline_replicas: Default::default(),
        })
    }

    #[test]
    fn a_big_sorted_request_merges_as_one_partition_at_a_time_would() {
        let first: Vec<_> = (0..100).map(|p| state("b", p, 1)).collect();
        // Replaced, removed (leader −2) and new partitions, in order.
        let mut second: Vec<_> = (0..80).map(|p| state("a", p, 2)).collect();
        second.extend((0..100).step_by(2).map(|p| state("b", p, if p % 4 == 0 { LEADER_DURING_DELETE } else { 3 })));
        let (mut merged, mut one_by_one) = (MetadataCache::default(), MetadataCache::default());
        merged.update(0, 1, &[], &UpdateMetadataPartitions::new(first.clone()));
        merged.update(0, 1, &[], &UpdateMetadataPartitions::new(second.clone()));
        for p in first.iter().chain(&second) {
            one_by_one.update(0, 1, &[], &UpdateMetadataPartitions::new(vec![Rc::clone(p)]));
        }
        assert_eq!(merged.partitions, one_by_one.partitions);
        assert_eq!((merged.controller_id, merged.controller_epoch), (one_by_one.controller_id, one_by_one.controller_epoch));
        assert_eq!(merged.partitions().count(), 80 + 75);
    }

    /// Random requests of every kind (a new topic's, a failover's covering
    /// all, partial, unsorted, with deletions) leave the cache holding what
    /// applying them to an ordered map partition by partition would, and
    /// every partition reads back.
    #[test]
    fn any_request_sequence_agrees_with_an_ordered_map() {
        let mut rng = crate::sim::Rng::seeded(9);
        let (mut cache, mut model) = (MetadataCache::default(), BTreeMap::new());
        for round in 0..200 {
            let topic = ["a", "b", "c", "d"][rng.index(4)];
            let partitions = 1 + rng.index(1000) as i32;
            let leader = round as BrokerId;
            let mut request: Vec<_> = match rng.index(5) {
                0 => (0..partitions).map(|p| state(topic, p, leader)).collect(),
                1 => model.keys().map(|tp: &TopicPartition| state(&tp.topic, tp.partition, leader)).collect(),
                2 => (0..partitions).filter(|_| rng.chance(1, 3)).map(|p| state(topic, p, leader)).collect(),
                3 => (0..rng.index(40) as i32).map(|_| state(topic, rng.index(1000) as i32, leader)).collect(),
                _ => (0..partitions).map(|p| state(topic, p, if rng.chance(1, 2) { LEADER_DURING_DELETE } else { leader })).collect(),
            };
            if rng.chance(1, 10) {
                request.reverse();
            }
            for p in &request {
                let tp = TopicPartition { topic: p.topic.clone(), partition: p.partition };
                if p.leader == LEADER_DURING_DELETE {
                    model.remove(&tp);
                } else {
                    model.insert(tp, Rc::clone(p));
                }
            }
            cache.update(0, 1, &[], &UpdateMetadataPartitions::new(request));
            let listed: Vec<_> = cache.partitions().map(|(tp, p)| (tp, p.clone())).collect();
            let expected: Vec<_> = model.iter().map(|(tp, p)| (tp.clone(), (**p).clone())).collect();
            assert_eq!(listed, expected, "round {round}");
            for (tp, p) in &model {
                assert_eq!(cache.partition(tp), Some(&**p));
            }
            assert_eq!(cache.partition(&TopicPartition { topic: "a".into(), partition: -1 }), None);
        }
    }
}
