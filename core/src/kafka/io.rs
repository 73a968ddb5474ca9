//! `Io`: what a broker handler may touch while it handles one event — the
//! ZooKeeper server (only through requests), the PRNG, the clock — and where
//! its effects go. The simulator builds one per event and applies the
//! effects afterwards.

use super::BrokerId;
use crate::sim::effect::Effects;
use crate::sim::{Millis, Rng};
use crate::trace::{Describe, Detail, Later, Record};
use crate::zookeeper::{Notification, ZooKeeper};
use std::rc::Rc;

/// One ZooKeeper round trip from a broker: 1-3 ms on a local network.
pub const ZK_ROUND_TRIP_US: (u64, u64) = (1_000, 3_000);
/// Server time of one request in a pipelined batch (ZooKeeper handles some
/// tens of thousands of small requests a second).
pub const ZK_PIPELINED_US: u64 = 20;
/// One broker-to-broker request: 1-3 ms.
pub const NETWORK_US: (u64, u64) = (1_000, 3_000);

pub struct Io<'a> {
    pub now: Millis,
    pub zk: &'a mut ZooKeeper,
    pub rng: &'a mut Rng,
    pub broker_id: BrokerId,
    pub fx: Effects,
    /// Watch notifications the broker's writes triggered, for the simulator to deliver.
    pub notifications: Vec<Notification>,
    /// Virtual time the handling thread has spent so far (ZooKeeper round
    /// trips), in microseconds: messages leave after it.
    pub cost_us: u64,
    /// Inside a pipelined batch: requests cost server time, not round trips.
    batch_depth: u32,
    /// Whether anyone will read the steps' summaries and details (see
    /// [`Io::record_with`]).
    pub records_read: bool,
    /// Whether anyone will read the steps at all, or only count them (see
    /// [`Io::record`]).
    pub steps_read: bool,
    /// The last actor a record named, shared by the records that follow
    /// (a handler's records are nearly all its own actor's).
    actor: Option<Rc<str>>,
}

impl<'a> Io<'a> {
    /// An `Io` whose handler adds to `fx` (the simulator lends each handler
    /// the list the last one used).
    pub fn new(now: Millis, zk: &'a mut ZooKeeper, rng: &'a mut Rng, broker_id: BrokerId, fx: Effects) -> Io<'a> {
        Io {
            now,
            zk,
            rng,
            broker_id,
            fx,
            notifications: Vec::new(),
            cost_us: 0,
            batch_depth: 0,
            records_read: true,
            steps_read: true,
            actor: None,
        }
    }

    /// `actor` as the records share it: the last one's, when it is the same.
    fn actor_shared(&mut self, actor: &str) -> Rc<str> {
        match &self.actor {
            Some(last) if &**last == actor => last.clone(),
            _ => self.actor.insert(Rc::from(actor)).clone(),
        }
    }

    pub fn cost_ms(&self) -> u64 {
        self.cost_us.div_ceil(1000)
    }

    /// A step. Counted only, with no record made, when nobody reads the
    /// steps (`kzsim run --quiet` with no trace to write or search).
    pub fn record(&mut self, actor: &str, kind: &'static str, source: &'static str, summary: String, detail: impl Into<Detail>) {
        if !self.steps_read {
            return self.fx.count_step();
        }
        let actor = self.actor_shared(actor);
        self.fx.record(Record { actor, kind, summary, source, detail: detail.into(), later: None });
    }

    /// A step whose summary and detail are built only if someone will read
    /// them: `kzsim run --quiet` without `--trace` or `expect trace contains`
    /// counts its steps and reads none, and building the JSON detail of
    /// every ZooKeeper request and control request was a large share of a
    /// big run. Unread, the step is still recorded (steps are counted and
    /// handed out alike), with an empty summary and a null detail.
    pub fn record_with<D: Into<Detail>>(
        &mut self,
        actor: &str,
        kind: &'static str,
        source: &'static str,
        build: impl FnOnce() -> (String, D),
    ) {
        if !self.records_read {
            return self.record(actor, kind, source, String::new(), Detail::none());
        }
        let (summary, detail) = build();
        self.record(actor, kind, source, summary, detail);
    }

    /// A step whose summary and detail are written when the step is handed
    /// out ([`Later`]): `keep` gathers, only if someone will read them, what
    /// they are written from. For the steps one event records by the
    /// thousand, whose texts made that event the longest task of a page.
    pub fn record_later<T: Describe + 'static>(&mut self, actor: &str, kind: &'static str, source: &'static str, keep: impl FnOnce() -> T) {
        if !self.steps_read {
            return self.fx.count_step();
        }
        let later = self.records_read.then(|| Later::new(keep()));
        let actor = self.actor_shared(actor);
        self.fx.record(Record { actor, kind, summary: String::new(), source, detail: Detail::none(), later });
    }

    /// A network delay in milliseconds after the thread's current cost.
    pub fn departure_delay_ms(&mut self) -> u64 {
        let (lo, hi) = NETWORK_US;
        (self.cost_us + self.rng.range_inclusive(lo, hi)).div_ceil(1000)
    }

    pub fn zk_round_trip(&mut self) {
        if self.batch_depth > 0 {
            self.cost_us += ZK_PIPELINED_US;
        } else {
            let (lo, hi) = ZK_ROUND_TRIP_US;
            self.cost_us += self.rng.range_inclusive(lo, hi);
        }
    }

    /// Runs `f` as Kafka runs its bulk ZooKeeper operations
    /// (`retryRequestsUntilConnected` on a sequence): every request is sent
    /// at once, so the batch costs one round trip plus the server's time.
    pub fn pipelined<R>(&mut self, f: impl FnOnce(&mut Io<'a>) -> R) -> R {
        self.begin_pipeline();
        let r = f(self);
        self.end_pipeline();
        r
    }

    /// `pipelined` for loops that need more than the `Io` (pair with
    /// `end_pipeline`).
    pub fn begin_pipeline(&mut self) {
        if self.batch_depth == 0 {
            self.zk_round_trip();
        }
        self.batch_depth += 1;
    }

    pub fn end_pipeline(&mut self) {
        self.batch_depth = self.batch_depth.saturating_sub(1);
    }
}
