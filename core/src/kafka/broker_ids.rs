//! `BrokerIds`: a partition's replicas, ISR, adding, removing or offline
//! replicas — Kafka's `Seq[Int]` — kept inline when there are at most
//! [`INLINE`] of them, which is every partition of a cluster with a
//! replication factor up to three.
//!
//! The reason is the scale of the simulation (issue 9). Every partition
//! state travels as copies: the controller's leadership into each
//! LeaderAndIsr and UpdateMetadata state, those into each broker's hosted
//! partition, the ISR into each znode write. As vectors, each copy was an
//! allocation (about 280,000 of the 913,000 of a 10,000-partition run), and
//! each `isr.contains(follower)` of a fetch a read of memory elsewhere. Inline,
//! the list is 16 bytes, two thirds of a `Vec`, and a copy is a copy of them.
//! A longer list is a vector behind a thin pointer (two hops to read, rare:
//! a replication factor above three, a reassignment's old and new replicas
//! together). With five inline, and a `Box<[BrokerId]>` beside, a list was
//! 24 bytes; a big failover holds 300,000 LeaderAndIsr states of two lists
//! each, and every hosted partition, assignment and leadership has some
//! (issue 9).
//!
//! It reads as the slice it holds (`Deref`), prints as a `Vec` does
//! (`[1, 2, 3]`) and serialises as a sequence, so that traces and views are
//! what they were with vectors.

use crate::kafka::BrokerId;
use std::fmt;

/// The longest list kept inline: a replication factor of three. With the
/// length and the tag, 16 bytes, as many as the thin pointer of a spilled
/// list and its tag.
pub const INLINE: usize = 3;

#[derive(Clone)]
pub struct BrokerIds(Repr);

#[derive(Clone)]
enum Repr {
    /// The first `len` ids are the list.
    Inline(u8, [BrokerId; INLINE]),
    /// More than [`INLINE`] (a replication factor above three, or a
    /// reassignment's union of old and new replicas). Boxed for the thin
    /// pointer: a `Vec` here would make every list 32 bytes.
    #[allow(clippy::box_collection)]
    Spilled(Box<Vec<BrokerId>>),
}

impl BrokerIds {
    /// No brokers (usable in statics).
    pub const fn new() -> BrokerIds {
        BrokerIds(Repr::Inline(0, [0; INLINE]))
    }

    pub fn as_slice(&self) -> &[BrokerId] {
        match &self.0 {
            Repr::Inline(len, ids) => &ids[..*len as usize],
            Repr::Spilled(ids) => ids,
        }
    }

    fn as_mut_slice(&mut self) -> &mut [BrokerId] {
        match &mut self.0 {
            Repr::Inline(len, ids) => &mut ids[..*len as usize],
            Repr::Spilled(ids) => ids,
        }
    }

    /// A full inline list and whatever else `rest` holds (nothing, or a
    /// replication factor above three, or a hostile znode's thousands). A
    /// vector only if there is more: a list of exactly three, a replication
    /// factor's of three, had been copied to one and back (10,000 of them
    /// as a topic of 10,000 partitions is created; issue 9).
    fn spill(inline: [BrokerId; INLINE], rest: &mut dyn Iterator<Item = BrokerId>) -> BrokerIds {
        let Some(next) = rest.next() else { return BrokerIds(Repr::Inline(INLINE as u8, inline)) };
        let mut v = inline.to_vec();
        v.push(next);
        v.extend(rest);
        BrokerIds::from(v)
    }

    /// Appends one id (a list past [`INLINE`] is copied: for building a
    /// list of many, collect it).
    pub fn push(&mut self, id: BrokerId) {
        match &mut self.0 {
            Repr::Inline(len, ids) if (*len as usize) < INLINE => {
                ids[*len as usize] = id;
                *len += 1;
            }
            _ => {
                let mut v = self.to_vec();
                v.push(id);
                *self = BrokerIds::from(v);
            }
        }
    }

    /// Keeps the ids for which `keep` is true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&BrokerId) -> bool) {
        *self = self.iter().copied().filter(|b| keep(b)).collect();
    }
}

impl Default for BrokerIds {
    fn default() -> Self {
        BrokerIds::new()
    }
}

impl std::ops::Deref for BrokerIds {
    type Target = [BrokerId];
    fn deref(&self) -> &[BrokerId] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for BrokerIds {
    fn deref_mut(&mut self) -> &mut [BrokerId] {
        self.as_mut_slice()
    }
}

impl From<&[BrokerId]> for BrokerIds {
    fn from(ids: &[BrokerId]) -> Self {
        if ids.len() <= INLINE {
            let mut inline = [0; INLINE];
            inline[..ids.len()].copy_from_slice(ids);
            BrokerIds(Repr::Inline(ids.len() as u8, inline))
        } else {
            BrokerIds(Repr::Spilled(Box::new(ids.to_vec())))
        }
    }
}

impl From<Vec<BrokerId>> for BrokerIds {
    fn from(ids: Vec<BrokerId>) -> Self {
        if ids.len() <= INLINE {
            BrokerIds::from(ids.as_slice())
        } else {
            BrokerIds(Repr::Spilled(Box::new(ids)))
        }
    }
}

impl<const N: usize> From<[BrokerId; N]> for BrokerIds {
    fn from(ids: [BrokerId; N]) -> Self {
        BrokerIds::from(&ids[..])
    }
}

/// Inline while they fit; past [`INLINE`] the rest go to a vector at once
/// ([`BrokerIds::spill`]). Each kind of iterator collected into a list
/// compiles its own copy of this, which the browser downloads (issue 9), so
/// it is only the loop.
impl FromIterator<BrokerId> for BrokerIds {
    fn from_iter<I: IntoIterator<Item = BrokerId>>(iter: I) -> Self {
        let mut iter = iter.into_iter();
        let mut inline = [0; INLINE];
        for (len, place) in inline.iter_mut().enumerate() {
            match iter.next() {
                Some(id) => *place = id,
                None => return BrokerIds(Repr::Inline(len as u8, inline)),
            }
        }
        BrokerIds::spill(inline, &mut iter)
    }
}

impl<'a> IntoIterator for &'a BrokerIds {
    type Item = &'a BrokerId;
    type IntoIter = std::slice::Iter<'a, BrokerId>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// The ids by value, in order.
pub struct IntoIter {
    ids: BrokerIds,
    at: usize,
}

impl Iterator for IntoIter {
    type Item = BrokerId;
    fn next(&mut self) -> Option<BrokerId> {
        let id = self.ids.as_slice().get(self.at).copied();
        self.at += 1;
        id
    }
}

impl IntoIterator for BrokerIds {
    type Item = BrokerId;
    type IntoIter = IntoIter;
    fn into_iter(self) -> IntoIter {
        IntoIter { ids: self, at: 0 }
    }
}

impl PartialEq for BrokerIds {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for BrokerIds {}

impl PartialEq<Vec<BrokerId>> for BrokerIds {
    fn eq(&self, other: &Vec<BrokerId>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<const N: usize> PartialEq<[BrokerId; N]> for BrokerIds {
    fn eq(&self, other: &[BrokerId; N]) -> bool {
        self.as_slice() == other
    }
}

/// As a `Vec` prints: `[1, 2, 3]`.
impl fmt::Debug for BrokerIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

/// As a `Vec` serialises: a sequence.
impl serde::Serialize for BrokerIds {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_reads_the_same_inline_and_spilled() {
        for n in 0..=(INLINE + 3) {
            let v: Vec<BrokerId> = (0..n as BrokerId).map(|b| b * 10 - 1).collect();
            let collected: BrokerIds = v.iter().copied().collect();
            let mut pushed = BrokerIds::new();
            for b in &v {
                pushed.push(*b);
            }
            for ids in [collected, pushed, BrokerIds::from(v.clone()), BrokerIds::from(v.as_slice())] {
                assert_eq!(ids, v, "{n} ids");
                assert_eq!(format!("{ids:?}"), format!("{v:?}"));
                assert_eq!(serde_json::to_string(&ids).unwrap(), serde_json::to_string(&v).unwrap());
                assert_eq!(ids.clone().into_iter().collect::<Vec<_>>(), v);
                assert_eq!(ids.contains(&9), v.contains(&9));
            }
        }
    }

    #[test]
    fn retain_and_sort_keep_a_list_either_way() {
        let mut ids = BrokerIds::from([3, 1, 4, 1, 5, 9, 2, 6]);
        ids.retain(|b| *b != 1);
        assert_eq!(ids, [3, 4, 5, 9, 2, 6]);
        ids.retain(|b| *b < 6);
        assert_eq!(ids, [3, 4, 5, 2]);
        ids.sort();
        assert_eq!(ids, [2, 3, 4, 5]);
        ids.push(7);
        ids.push(8);
        assert_eq!(ids, [2, 3, 4, 5, 7, 8]);
    }

    /// A znode anyone can write may list any number of replicas: collecting
    /// and filtering stay linear past the inline ones.
    #[test]
    fn a_hostile_list_of_many_is_built_at_once() {
        let mut many: BrokerIds = (0..200_000).collect();
        assert_eq!((many.len(), many[199_999]), (200_000, 199_999));
        many.retain(|b| b % 2 == 0);
        assert_eq!((many.len(), many[99_999]), (100_000, 199_998));
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn it_is_two_thirds_of_a_vec() {
        assert_eq!(std::mem::size_of::<BrokerIds>(), 16);
    }
}
