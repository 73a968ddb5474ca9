//! `PartitionSet`: a set of topic-partitions as one bit per partition
//! number of each topic, iterated in `TopicPartition` order. It holds the
//! partitions an UpdateMetadata batch will carry
//! (`updateMetadataRequestPartitionInfoMap`, a map in Kafka). A failover
//! adds each partition once per replica, broker by broker: 300,000 adds
//! for 100,000 partitions. Kept as a list, they were sorted and
//! deduplicated when the batch was built, a merge of fifty runs that cost
//! 1.5% of a 100,000-partition run and a 12 MB list at its peak of memory
//! (issue 9). Here an add sets a bit, and the set comes out in order.
//!
//! Partition numbers come from znodes anyone may write, so numbers outside
//! `0..DENSE` are kept in an ordered set beside the bits, as
//! [`PartitionMap`](super::partition_map) does: a hostile number costs no
//! memory.

use crate::scenario::{Topic, TopicPartition};
use std::collections::BTreeSet;

/// Partition numbers below this have a bit; the others are kept ordered.
const DENSE: i32 = 1 << 17;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartitionSet {
    /// Sorted by topic name.
    topics: Vec<(Topic, Members)>,
    /// Where in `topics` the last add was: adds come in runs of one topic.
    last: usize,
    len: usize,
}

/// One topic's partitions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Members {
    /// Bit `p % 64` of word `p / 64` is partition `p`, for `0 <= p < DENSE`.
    words: Vec<u64>,
    /// The numbers outside `0..DENSE`.
    others: BTreeSet<i32>,
}

impl Members {
    /// Adds `p`; whether it was new.
    fn insert(&mut self, p: i32) -> bool {
        if !(0..DENSE).contains(&p) {
            return self.others.insert(p);
        }
        let (word, bit) = (p as usize / 64, 1u64 << (p % 64));
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let new = self.words[word] & bit == 0;
        self.words[word] |= bit;
        new
    }

    /// The partitions in ascending order: negative numbers, the bits, then
    /// the big numbers.
    fn iter(&self) -> impl Iterator<Item = i32> + '_ {
        let bits = self.words.iter().enumerate().flat_map(|(w, &word)| Ones(word).map(move |b| (w * 64 + b) as i32));
        self.others.range(..0).copied().chain(bits).chain(self.others.range(DENSE..).copied())
    }
}

/// The set bits of a word, lowest first.
struct Ones(u64);

impl Iterator for Ones {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(b)
    }
}

impl PartitionSet {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds the partition; whether it was new.
    pub fn insert(&mut self, tp: &TopicPartition) -> bool {
        let at = self.topic_at(&tp.topic);
        let new = self.topics[at].1.insert(tp.partition);
        self.len += usize::from(new);
        new
    }

    /// The topic's place in `topics`, added if new: the last one if it is
    /// the same allocation (names are interned), else by name.
    fn topic_at(&mut self, topic: &Topic) -> usize {
        if self.topics.get(self.last).is_some_and(|(t, _)| t.is_same(topic)) {
            return self.last;
        }
        let at = match self.topics.binary_search_by(|(t, _)| t.as_str().cmp(topic.as_str())) {
            Ok(at) => at,
            Err(at) => {
                self.topics.insert(at, (topic.clone(), Members::default()));
                at
            }
        };
        self.last = at;
        at
    }

    /// In `TopicPartition` order.
    pub fn iter(&self) -> impl Iterator<Item = TopicPartition> + '_ {
        self.topics.iter().flat_map(|(topic, m)| m.iter().map(|partition| TopicPartition { topic: topic.clone(), partition }))
    }
}

impl<'a> Extend<&'a TopicPartition> for PartitionSet {
    fn extend<I: IntoIterator<Item = &'a TopicPartition>>(&mut self, tps: I) {
        for tp in tps {
            self.insert(tp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(t: &str, p: i32) -> TopicPartition {
        TopicPartition { topic: Topic::new(t), partition: p }
    }

    #[test]
    fn iterates_in_topic_partition_order_each_once() {
        let mut set = PartitionSet::default();
        for (t, p) in [("b", 3), ("a", 70), ("b", 3), ("a", 0), ("b", -5), ("a", DENSE), ("a", 64), ("c", i32::MAX)] {
            set.insert(&tp(t, p));
        }
        let got: Vec<_> = set.iter().map(|tp| tp.to_string()).collect();
        assert_eq!(got, ["a-0", "a-64", "a-70", "a-131072", "b--5", "b-3", "c-2147483647"]);
        assert_eq!(set.len(), 7);
        assert!(!set.insert(&tp("a", 64)), "already there");
        assert!(set.insert(&tp("a", 65)));
    }

    #[test]
    fn agrees_with_an_ordered_set() {
        // A small deterministic generator: the same draws every run.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let topics = ["t", "big", "a-b", "z"];
        let mut set = PartitionSet::default();
        let mut model = BTreeSet::new();
        for _ in 0..20_000 {
            let r = next();
            let topic = topics[(r % 4) as usize];
            let partition = match (r >> 8) % 10 {
                0 => -(((r >> 16) % 1000) as i32),
                1 => DENSE + ((r >> 16) % 1000) as i32,
                _ => ((r >> 16) % 3000) as i32,
            };
            let x = tp(topic, partition);
            assert_eq!(set.insert(&x), model.insert(x));
        }
        assert_eq!(set.len(), model.len());
        assert!(set.iter().eq(model.into_iter()));
    }
}
