//! `SmallMap` and `SmallSet`: an ordered map and set kept as a vector sorted
//! by key, for the maps and sets that hold one entry per broker (a cluster
//! has at most 200) and other small ones.
//!
//! They iterate in order exactly as the `BTreeMap` and `BTreeSet` they stand
//! in for, and have the part of their interface these uses need. The reason
//! is the browser's download (issue 9): every key and value type of a
//! `BTreeMap` compiles its own copy of the tree's code — insertion, node
//! splits, removal with its rebalancing, iteration — some 2-3 KB gzipped
//! each, where a sorted vector needs a binary search and a `Vec::insert` or
//! `Vec::remove`. For a few dozen entries the vector is as fast, and a
//! look-up touches one allocation instead of a tree of them.

use std::borrow::Borrow;
use std::fmt;

/// The keys and the values in two vectors, so that a look-up searches the
/// keys alone: the brokers' fetch paths look a follower or a leader up in
/// several maps of some fifty entries at every event (its session, its
/// parked fetch and token, its idle rounds, its cached answer), and a search
/// through entries a hundred bytes apart touched a cache line at each of its
/// steps, where fifty keys of four bytes fit in four (issue 9).
#[derive(Clone, PartialEq, Eq)]
pub struct SmallMap<K, V> {
    /// Sorted, no key twice.
    keys: Vec<K>,
    /// `values[i]` is the value of `keys[i]`.
    values: Vec<V>,
}

impl<K, V> Default for SmallMap<K, V> {
    fn default() -> Self {
        SmallMap { keys: Vec::new(), values: Vec::new() }
    }
}

/// As a `BTreeMap` shows: `{k: v, ...}`.
impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SmallMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// As a `BTreeMap` serialises: a map, in key order.
impl<K: serde::Serialize, V: serde::Serialize> serde::Serialize for SmallMap<K, V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

pub type Iter<'a, K, V> = std::iter::Zip<std::slice::Iter<'a, K>, std::slice::Iter<'a, V>>;
pub type IterMut<'a, K, V> = std::iter::Zip<std::slice::Iter<'a, K>, std::slice::IterMut<'a, V>>;

impl<K, V> SmallMap<K, V> {
    pub fn new() -> Self {
        SmallMap::default()
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn clear(&mut self) {
        self.keys.clear();
        self.values.clear();
    }

    /// In key order.
    pub fn iter(&self) -> Iter<'_, K, V> {
        self.keys.iter().zip(self.values.iter())
    }

    pub fn iter_mut(&mut self) -> IterMut<'_, K, V> {
        self.keys.iter().zip(self.values.iter_mut())
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator + Clone {
        self.keys.iter()
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator + Clone {
        self.values.iter()
    }

    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + ExactSizeIterator {
        self.values.iter_mut()
    }

    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.keys.first().zip(self.values.first())
    }

    pub fn last_key_value(&self) -> Option<(&K, &V)> {
        self.keys.last().zip(self.values.last())
    }

    /// Keeps the entries for which `keep` is true, in order, in place: each
    /// kept entry moves down past the dropped ones before it.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        let mut kept = 0;
        for i in 0..self.keys.len() {
            if keep(&self.keys[i], &mut self.values[i]) {
                self.keys.swap(kept, i);
                self.values.swap(kept, i);
                kept += 1;
            }
        }
        self.keys.truncate(kept);
        self.values.truncate(kept);
    }
}

impl<K: Ord, V> SmallMap<K, V> {
    /// Where `key` is, or where it would go.
    fn search<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.keys.binary_search_by(|k| k.borrow().cmp(key))
    }

    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.search(key).ok().map(|i| &self.values[i])
    }

    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.search(key).ok().map(|i| &mut self.values[i])
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.search(key).is_ok()
    }

    /// The value the key had, if it had one (the key stays the one stored).
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.search(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.values[i], value)),
            Err(i) => {
                self.keys.insert(i, key);
                self.values.insert(i, value);
                None
            }
        }
    }

    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let i = self.search(key).ok()?;
        self.keys.remove(i);
        Some(self.values.remove(i))
    }

    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        let at = self.search(&key);
        Entry { map: self, key, at }
    }
}

/// [`SmallMap::entry`]: a key's place, filled or not.
pub struct Entry<'a, K, V> {
    map: &'a mut SmallMap<K, V>,
    key: K,
    at: Result<usize, usize>,
}

impl<'a, K, V> Entry<'a, K, V> {
    pub fn or_insert_with(self, value: impl FnOnce() -> V) -> &'a mut V {
        let i = match self.at {
            Ok(i) => i,
            Err(i) => {
                let value = value();
                self.map.keys.insert(i, self.key);
                self.map.values.insert(i, value);
                i
            }
        };
        &mut self.map.values[i]
    }

    pub fn or_insert(self, value: V) -> &'a mut V {
        self.or_insert_with(|| value)
    }

    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }
}

/// By inserting one by one (a key given twice keeps its last value, as
/// `BTreeMap` keeps it).
impl<K: Ord, V> FromIterator<(K, V)> for SmallMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = SmallMap::new();
        map.extend(iter);
        map
    }
}

impl<K: Ord, V> Extend<(K, V)> for SmallMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<'a, K, V> IntoIterator for &'a SmallMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;

    fn into_iter(self) -> Iter<'a, K, V> {
        self.iter()
    }
}

impl<'a, K, V> IntoIterator for &'a mut SmallMap<K, V> {
    type Item = (&'a K, &'a mut V);
    type IntoIter = IterMut<'a, K, V>;

    fn into_iter(self) -> IterMut<'a, K, V> {
        self.iter_mut()
    }
}

impl<K, V> IntoIterator for SmallMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::iter::Zip<std::vec::IntoIter<K>, std::vec::IntoIter<V>>;

    fn into_iter(self) -> Self::IntoIter {
        self.keys.into_iter().zip(self.values)
    }
}

impl<K: Ord + Borrow<Q>, Q: Ord + ?Sized, V> std::ops::Index<&Q> for SmallMap<K, V> {
    type Output = V;

    /// Panics if the key is absent, as `BTreeMap`'s does.
    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("no entry for the key")
    }
}

/// A set kept as a sorted vector: see the module's documentation.
#[derive(Clone, PartialEq, Eq)]
pub struct SmallSet<T> {
    /// Sorted, no item twice.
    items: Vec<T>,
}

impl<T> Default for SmallSet<T> {
    fn default() -> Self {
        SmallSet { items: Vec::new() }
    }
}

/// As a `BTreeSet` shows: `{a, b}`.
impl<T: fmt::Debug> fmt::Debug for SmallSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// As a `BTreeSet` serialises: a sequence, in order.
impl<T: serde::Serialize> serde::Serialize for SmallSet<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(&self.items)
    }
}

impl<T> SmallSet<T> {
    pub fn new() -> Self {
        SmallSet::default()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn clear(&mut self) {
        self.items.clear();
    }

    /// In order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    pub fn first(&self) -> Option<&T> {
        self.items.first()
    }

    pub fn last(&self) -> Option<&T> {
        self.items.last()
    }

    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.items.retain(keep);
    }
}

impl<T: Ord> SmallSet<T> {
    pub fn contains<Q: Ord + ?Sized>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.items.binary_search_by(|i| i.borrow().cmp(item)).is_ok()
    }

    /// Whether the item was new.
    pub fn insert(&mut self, item: T) -> bool {
        match self.items.binary_search(&item) {
            Ok(_) => false,
            Err(i) => {
                self.items.insert(i, item);
                true
            }
        }
    }

    /// Whether the item was there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        match self.items.binary_search_by(|i| i.borrow().cmp(item)) {
            Ok(i) => {
                self.items.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    /// The items not in `other`, in order.
    pub fn difference<'a>(&'a self, other: &'a SmallSet<T>) -> impl Iterator<Item = &'a T> + 'a {
        self.items.iter().filter(move |i| !other.contains(*i))
    }

    /// The items also in `other`, in order.
    pub fn intersection<'a>(&'a self, other: &'a SmallSet<T>) -> impl Iterator<Item = &'a T> + 'a {
        self.items.iter().filter(move |i| other.contains(*i))
    }
}

/// Sorted once (with the stable sort that the rest of the code already
/// compiles for these types), then without repeats.
impl<T: Ord> FromIterator<T> for SmallSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut items: Vec<T> = iter.into_iter().collect();
        items.sort();
        items.dedup();
        SmallSet { items }
    }
}

impl<T: Ord> Extend<T> for SmallSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.insert(item);
        }
    }
}

impl<'a, T> IntoIterator for &'a SmallSet<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> std::slice::Iter<'a, T> {
        self.items.iter()
    }
}

impl<T> IntoIterator for SmallSet<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> std::vec::IntoIter<T> {
        self.items.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn agrees_with_an_ordered_map() {
        let mut rng = crate::sim::Rng::seeded(9);
        let (mut map, mut model) = (SmallMap::new(), BTreeMap::new());
        for i in 0..3000 {
            let k = rng.index(40) as i32 - 5;
            match rng.index(5) {
                0 => assert_eq!(map.remove(&k), model.remove(&k)),
                1 => {
                    *map.entry(k).or_insert(0) += i;
                    *model.entry(k).or_insert(0) += i;
                }
                2 => {
                    map.retain(|k, v| (k + *v) % 7 != 0);
                    model.retain(|k, v| (k + *v) % 7 != 0);
                }
                _ => assert_eq!(map.insert(k, i), model.insert(k, i)),
            }
            assert_eq!(map.get(&k), model.get(&k));
            assert_eq!(map.len(), model.len());
        }
        assert!(map.iter().eq(model.iter()));
        assert_eq!(map.first_key_value(), model.first_key_value());
        assert_eq!(format!("{map:?}"), format!("{model:?}"));
        assert_eq!(serde_json::to_string(&map).unwrap(), serde_json::to_string(&model).unwrap());
        let pairs = [(3, 'c'), (1, 'a'), (3, 'd')];
        assert!(pairs.into_iter().collect::<SmallMap<_, _>>().into_iter().eq(pairs.into_iter().collect::<BTreeMap<_, _>>()));
    }

    #[test]
    fn set_agrees_with_an_ordered_set() {
        let mut rng = crate::sim::Rng::seeded(10);
        let (mut set, mut model) = (SmallSet::new(), std::collections::BTreeSet::new());
        for _ in 0..3000 {
            let k = rng.index(40) as i32 - 5;
            if rng.chance(1, 3) {
                assert_eq!(set.remove(&k), model.remove(&k));
            } else {
                assert_eq!(set.insert(k), model.insert(k));
            }
            assert_eq!(set.contains(&k), model.contains(&k));
        }
        assert!(set.iter().eq(model.iter()));
        assert_eq!(format!("{set:?}"), format!("{model:?}"));
        let other: SmallSet<i32> = [7, 3, 3, 30, -1].into_iter().collect();
        let model_other: std::collections::BTreeSet<i32> = [7, 3, 3, 30, -1].into_iter().collect();
        assert!(other.iter().eq(model_other.iter()));
        assert!(set.difference(&other).eq(model.difference(&model_other)));
        assert!(set.intersection(&other).eq(model.intersection(&model_other)));
        assert_eq!(serde_json::to_string(&other).unwrap(), serde_json::to_string(&model_other).unwrap());
    }
}
