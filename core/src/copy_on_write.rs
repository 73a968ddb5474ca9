//! `CopyOnWrite<T>`: a value that snapshots of the simulation share until
//! one of them writes to it.
//!
//! The browser's timeline keeps snapshots of the whole simulation
//! (`runner::timeline`'s keyframes), taking hundreds of them in a big run
//! and restoring one at every seek. Most of a big cluster's state sits in a
//! few per-partition maps that stay as they are for long stretches: the
//! active controller's context between its events, the partitions a broker
//! hosts while its fetches are idle. Copied at every snapshot, they were
//! most of its cost (issue 9: 10,000 partitions, the controller's maps
//! 2.6 ms of a 3.8 ms snapshot). Shared instead, a snapshot costs a
//! reference count for each, and the first write after it copies the one
//! map written.
//!
//! Reads go through `Deref`; every `&mut` access (`DerefMut`) first makes
//! the value this owner's own (`Rc::make_mut`), so no snapshot ever sees
//! another's writes.

use std::ops::{Deref, DerefMut};
use std::rc::Rc;

#[derive(Default)]
pub struct CopyOnWrite<T>(Rc<T>);

impl<T> CopyOnWrite<T> {
    pub fn new(value: T) -> CopyOnWrite<T> {
        CopyOnWrite(Rc::new(value))
    }
}

/// A copy shares the value.
impl<T> Clone for CopyOnWrite<T> {
    fn clone(&self) -> Self {
        CopyOnWrite(Rc::clone(&self.0))
    }
}

impl<T> Deref for CopyOnWrite<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A write makes the value this owner's own first.
impl<T: Clone> DerefMut for CopyOnWrite<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        Rc::make_mut(&mut self.0)
    }
}

impl<T: PartialEq> PartialEq for CopyOnWrite<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0) || *self.0 == *other.0
    }
}

impl<T: Eq> Eq for CopyOnWrite<T> {}

impl<T: std::fmt::Debug> std::fmt::Debug for CopyOnWrite<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<A, T: FromIterator<A>> FromIterator<A> for CopyOnWrite<T> {
    fn from_iter<I: IntoIterator<Item = A>>(iter: I) -> Self {
        CopyOnWrite::new(iter.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_shares_until_either_writes_and_never_sees_the_others_writes() {
        let mut a = CopyOnWrite::new(vec![1, 2]);
        let snapshot = a.clone();
        assert!(std::ptr::eq(&*a, &*snapshot), "one value, shared");
        a.push(3);
        assert!(!std::ptr::eq(&*a, &*snapshot), "the write copied it first");
        assert_eq!((&a[..], &snapshot[..]), (&[1, 2, 3][..], &[1, 2][..]));
        // The snapshot restored and written: the live value is untouched.
        let mut restored = snapshot.clone();
        restored[0] = 9;
        assert_eq!((&a[..], &snapshot[..], &restored[..]), (&[1, 2, 3][..], &[1, 2][..], &[9, 2][..]));
        // The only owner writes in place.
        let before = a.as_ptr();
        a[0] = 7;
        assert_eq!(a.as_ptr(), before);
        assert_eq!(CopyOnWrite::new(vec![7, 2, 3]), a);
    }
}
