//! `Sim`: the whole simulated world — the ZooKeeper server and its clients —
//! with the clock, the event queue and the PRNG. It processes one event at a
//! time; what an event records becomes steps, handed out one by one.

use super::effect::{Effect, Effects};
use super::event::{Client, Event};
use super::queue::EventQueue;
use super::rng::Rng;
use super::time::Millis;
use crate::console::{self, Console};
use crate::scenario::ConsoleOp;
use crate::trace::{Record, TraceEntry};
use crate::zookeeper::server::SessionEnd;
use crate::zookeeper::{Notification, SessionId, ZooKeeper};
use serde_json::json;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Sim {
    now: Millis,
    seed: u64,
    rng: Rng,
    queue: EventQueue<Event>,
    zk: ZooKeeper,
    console: Console,
    /// Records of the last event not yet handed out as steps.
    pending: VecDeque<(Millis, Record)>,
    steps: u64,
    events: u64,
}

impl Sim {
    pub fn new(seed: u64) -> Sim {
        Sim {
            now: Millis::ZERO,
            seed,
            rng: Rng::seeded(seed),
            queue: EventQueue::default(),
            zk: ZooKeeper::default(),
            console: Console::default(),
            pending: VecDeque::new(),
            steps: 0,
            events: 0,
        }
    }

    pub fn now(&self) -> Millis {
        self.now
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    pub fn zk(&self) -> &ZooKeeper {
        &self.zk
    }

    pub fn console(&self) -> &Console {
        &self.console
    }

    /// Steps handed out so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Events processed so far, silent ones included.
    pub fn events_processed(&self) -> u64 {
        self.events
    }

    pub fn next_event_time(&self) -> Option<Millis> {
        self.queue.peek_time()
    }

    pub fn pending_events(&self) -> usize {
        self.queue.len()
    }

    /// Whether anything but background housekeeping is queued.
    pub fn has_foreground_events(&self) -> bool {
        self.queue.any(|e| !e.is_background())
    }

    /// Whether a console line's round trip is still in flight.
    pub fn has_console_events(&self) -> bool {
        self.queue.any(Event::is_console)
    }

    /// Moves the clock forward to `t` (never backward) without processing.
    pub fn advance_to(&mut self, t: Millis) {
        self.now = self.now.max(t);
    }

    /// Enqueues an event at the current time (a scenario action).
    pub fn inject(&mut self, event: Event) {
        self.queue.push(self.now, event);
    }

    /// The next step recorded but not yet handed out, stamped with its number.
    pub fn take_step(&mut self) -> Option<TraceEntry> {
        let (time, r) = self.pending.pop_front()?;
        self.steps += 1;
        Some(TraceEntry {
            step: self.steps,
            time_ms: time.as_u64(),
            actor: r.actor,
            kind: r.kind.to_string(),
            summary: r.summary,
            source: r.source.to_string(),
            detail: r.detail,
        })
    }

    pub fn has_pending_steps(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Processes the next event. Returns false when the queue is empty.
    pub fn process_next(&mut self) -> bool {
        let Some((time, event)) = self.queue.pop() else {
            return false;
        };
        self.now = self.now.max(time);
        self.events += 1;
        let fx = self.handle(event);
        self.apply(fx);
        true
    }

    fn apply(&mut self, fx: Effects) {
        for effect in fx.0 {
            match effect {
                Effect::Schedule { after_ms, event } => self.queue.push(self.now.plus(after_ms), event),
                Effect::Record(r) => self.pending.push_back((self.now, r)),
            }
        }
    }

    fn handle(&mut self, event: Event) -> Effects {
        let mut fx = Effects::default();
        let now = self.now;
        match event {
            Event::ConsoleOpen { name, timeout_ms } => self.console.open(&mut self.zk, now, &name, timeout_ms, &mut fx),
            Event::ConsoleRequest { name, op } => {
                let (record, notifications) = self.console.request(&mut self.zk, now, &name, &op);
                fx.record(record);
                self.deliver(notifications, &mut fx);
            }
            Event::WatchDelivery { to: Client::Console(name), notification } => {
                if self.console.is_connected(&name) {
                    fx.record(console::watch_record(&name, &notification));
                }
            }
            Event::Ping { to_session } => self.console.ping(&mut self.zk, now, to_session, &mut fx),
            Event::SessionCheck { session } => self.check_session(session, &mut fx),
        }
        fx
    }

    /// Watch notifications travel to their clients. Console sessions are on
    /// this machine: they get them at once, before the console's next line.
    fn deliver(&self, notifications: Vec<Notification>, fx: &mut Effects) {
        for n in notifications {
            if let Some(to) = console::client_of(&self.console, n.session) {
                fx.schedule(0, Event::WatchDelivery { to, notification: n });
            }
        }
    }

    /// SessionTracker: a session the server has not heard from for its whole
    /// timeout expires; its ephemerals go, and the watches on them fire.
    fn check_session(&mut self, session: SessionId, fx: &mut Effects) {
        let Some(s) = self.zk.session(session).cloned() else {
            return;
        };
        if s.expires_at() > self.now {
            fx.schedule(s.expires_at().since(self.now), Event::SessionCheck { session });
            return;
        }
        let ephemerals = self.zk.tree().ephemerals_of(session);
        let notifications = self.zk.end_session(self.now, session).unwrap_or_default();
        self.console.session_ended(session, SessionEnd::Expired);
        fx.record(Record {
            actor: "zk".into(),
            kind: "session-expired",
            summary: format!(
                "session {} of {} expired after {} ms without a heartbeat; deleted {} ephemeral znode(s)",
                console::session_hex(session),
                s.owner,
                s.timeout_ms,
                ephemerals.len()
            ),
            source: "SessionTrackerImpl.run → ZooKeeperServer.expire",
            detail: json!({"session": console::session_hex(session), "owner": s.owner, "timeout_ms": s.timeout_ms, "deleted": ephemerals}),
        });
        self.deliver(notifications, fx);
    }

    /// `zk-session NAME` and `zk NAME ...` lines enter here.
    pub fn console_open(&mut self, name: &str, timeout_ms: u64) {
        self.inject(Event::ConsoleOpen { name: name.to_string(), timeout_ms });
    }

    pub fn console_request(&mut self, name: &str, op: ConsoleOp) {
        self.inject(Event::ConsoleRequest { name: name.to_string(), op });
    }
}
