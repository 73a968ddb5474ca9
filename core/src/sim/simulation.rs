//! `Sim`: the whole simulated world — the ZooKeeper server and its clients —
//! with the clock, the event queue and the PRNG. It processes one event at a
//! time; what an event records becomes steps, handed out one by one.

use super::effect::{Effect, Effects};
use super::event::{Client, Event};
use super::queue::EventQueue;
use super::rng::Rng;
use super::time::Millis;
use crate::console::{self, Console};
use crate::kafka::io::Io;
use crate::kafka::server::Broker;
use crate::kafka::zookeeper_client::ZooKeeperClient;
use crate::kafka::BrokerId;
use crate::scenario::ConsoleOp;
use crate::trace::{Detail, Record, TraceEntry};
use crate::zookeeper::server::SessionEnd;
use crate::zookeeper::{Notification, SessionId, ZooKeeper};
use std::collections::VecDeque;

/// What a ZooKeeper request weighs in [`Sim::work`] against an event or an
/// effect: the request, and the state machines and records around it. A
/// quiet fetch round (an event and an effect) replays natively in about
/// 0.3 µs, a request of a topic creation or a failover in 2-5 µs; a heavier
/// weight put more keyframes among the brokers' start-ups, whose requests
/// are cheap, than the seeks gained (issue 9).
const ZK_REQUEST_WORK: u64 = 8;

#[derive(Clone, Debug)]
pub struct Sim {
    pub(crate) now: Millis,
    seed: u64,
    pub(crate) rng: Rng,
    queue: EventQueue<Event>,
    pub(crate) zk: ZooKeeper,
    console: Console,
    /// Records of the last event not yet handed out as steps.
    pending: VecDeque<(Millis, Record)>,
    /// Steps of the last event not yet handed out and kept as a count
    /// alone, their records never made ([`Sim::set_records_unread`]).
    pending_counted: usize,
    steps: u64,
    events: u64,
    /// Effects applied so far (see [`Sim::work`]).
    effects: u64,
    /// The declared brokers (`cluster brokers=N`), running or not. A
    /// `SmallMap`, whose look-up searches the ids alone: every event is a
    /// broker's, and finding it in a B-tree was a tenth of an idle run.
    pub(crate) brokers: crate::small_map::SmallMap<BrokerId, Broker>,
    /// `broker-config` settings, applied to every broker at its next start.
    pub(crate) broker_settings: Vec<(String, String)>,
    /// The admin tools' ZooKeeper session (kafka-topics, kafka-configs, ...).
    pub(crate) admin: ZooKeeperClient,
    /// Whether the steps' summaries and details will be read (`Io::record_with`).
    pub(crate) records_read: bool,
    /// Whether the steps will be read at all, or only counted.
    pub(crate) steps_read: bool,
    /// An emptied first chunk of effects, lent to the next handler and taken
    /// back once its effects are applied: most events have one or two, and
    /// their list was an allocation and a free per event (issue 9).
    room: Vec<Effect>,
}

/// The largest emptied chunk kept to lend (in effects).
const ROOM_KEPT: usize = 64;

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
            pending_counted: 0,
            steps: 0,
            events: 0,
            effects: 0,
            brokers: crate::small_map::SmallMap::new(),
            broker_settings: Vec::new(),
            admin: ZooKeeperClient::default(),
            records_read: true,
            steps_read: true,
            room: Vec::new(),
        }
    }

    /// Nobody will read the steps, only count them: the busiest steps skip
    /// building their summaries and details (`Io::record_with`), and the
    /// brokers' steps are counted without making their records (`Io::record`;
    /// a failover's three hundred thousand waited as 48 MB of records).
    pub fn set_records_unread(&mut self) {
        self.records_read = false;
        self.steps_read = false;
    }

    /// Whether steps are only counted (see [`Sim::set_records_unread`]):
    /// then hand them out with [`Sim::skip_step`].
    pub fn steps_read(&self) -> bool {
        self.steps_read
    }

    /// Whether the coming steps' summaries and details are read (see
    /// [`Sim::set_records_unread`]): a timeline replaying steps it already
    /// holds reads none of them.
    pub fn set_records_read(&mut self, read: bool) {
        self.records_read = read;
    }

    pub fn records_read(&self) -> bool {
        self.records_read
    }

    /// Plants a bug on purpose, to show the invariant checker catching it:
    /// ZooKeeper serves expired sessions, and the running brokers'
    /// controllers skip their epoch fences (the `/controller_epoch` check on
    /// every write and the controller epoch stored in partition states).
    /// Only for tests of the checker; processes started later are not
    /// affected.
    pub fn plant_bug_without_fencing(&mut self) {
        self.zk.serve_expired_sessions = true;
        for b in self.brokers.values_mut() {
            b.zkc.fencing_disabled = true;
        }
    }

    pub fn brokers(&self) -> &crate::small_map::SmallMap<BrokerId, Broker> {
        &self.brokers
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

    /// The work done so far, in a unit that needs no clock: events processed,
    /// the effects they returned (a step recorded, an event scheduled) and
    /// the ZooKeeper requests served. Replaying from a snapshot costs about
    /// the work done since it, so the timeline spaces its keyframes by work
    /// rather than by steps: a big cluster's topic creation or failover is
    /// one step that does the work of thousands. (Natively, one unit is
    /// 0.2-2 µs: a rough measure, but heavy events stand out by orders of
    /// magnitude.)
    pub fn work(&self) -> u64 {
        self.events + self.effects + ZK_REQUEST_WORK * self.zk.requests_served()
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
        let (time, mut r) = self.pending.pop_front()?;
        self.steps += 1;
        let (mut summary, mut detail) = r.take_text();
        // The entry lives as long as the timeline: its texts give back the
        // room they grew into while they were written.
        detail.shrink_to_fit();
        summary.shrink_to_fit();
        Some(TraceEntry {
            step: self.steps,
            time_ms: time.as_u64(),
            actor: r.actor,
            kind: r.kind.into(),
            summary,
            source: r.source.into(),
            detail,
        })
    }

    /// `take_step` for a step nobody reads: counted alike, its record (if
    /// it was made) dropped without making an entry of it. False if none is
    /// pending.
    pub fn skip_step(&mut self) -> bool {
        if self.pending.pop_front().is_none() {
            if self.pending_counted == 0 {
                return false;
            }
            self.pending_counted -= 1;
        }
        self.steps += 1;
        true
    }

    pub fn has_pending_steps(&self) -> bool {
        self.pending_steps() > 0
    }

    /// Steps recorded but not yet handed out.
    pub fn pending_steps(&self) -> usize {
        self.pending.len() + self.pending_counted
    }

    /// A copy of the whole world whose steps not yet handed out keep their
    /// actor, kind and source but not their summary and detail: what a
    /// timeline keeps as a keyframe. It replays from a keyframe only the
    /// steps its trace already holds, described there, and a big event's
    /// pending steps (a topic creation's thirty thousand) were most of a
    /// snapshot's copy.
    pub fn snapshot(&mut self) -> Sim {
        let pending = std::mem::take(&mut self.pending);
        let mut copy = self.clone();
        copy.pending = pending
            .iter()
            .map(|(t, r)| {
                (
                    *t,
                    Record {
                        actor: r.actor.clone(),
                        kind: r.kind,
                        summary: String::new(),
                        source: r.source,
                        detail: Detail::none(),
                        later: None,
                    },
                )
            })
            .collect();
        self.pending = pending;
        copy
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

    pub(crate) fn apply(&mut self, fx: Effects) {
        // A broker's event is applied as it is handled (`with_broker`), and
        // what reaches here after it is empty: half the events of a big run.
        if fx.is_empty() {
            self.take_back(fx.into_parts().0.into_first_and_more().0);
            return;
        }
        // Room for every step at once: a big event records hundreds of
        // thousands, and the queue would otherwise be copied at each doubling.
        self.pending.reserve(fx.records_len());
        self.pending_counted += fx.counted_steps();
        self.effects += fx.len() as u64;
        // Chunk by chunk, in the order they were added.
        let (effects, records) = fx.into_parts();
        let (mut first, more) = effects.into_first_and_more();
        for effect in first.drain(..) {
            self.apply_one(effect);
        }
        for chunk in more {
            for effect in chunk {
                self.apply_one(effect);
            }
        }
        if let Some(records) = records {
            let (first_records, more_records) = (*records).into_first_and_more();
            let now = self.now;
            self.pending.extend(first_records.into_iter().map(|r| (now, r)));
            for chunk in more_records {
                self.pending.extend(chunk.into_iter().map(|r| (now, r)));
            }
        }
        self.take_back(first);
    }

    fn apply_one(&mut self, effect: Effect) {
        match effect {
            Effect::Schedule { after_ms, event } => self.queue.push(self.now.plus(after_ms), event),
        }
    }

    /// An applied handler's first chunk comes back, to be lent again.
    fn take_back(&mut self, room: Vec<Effect>) {
        if room.capacity() > self.room.capacity() && room.capacity() <= ROOM_KEPT {
            self.room = room;
        }
    }

    fn handle(&mut self, event: Event) -> Effects {
        let event = match event {
            Event::Broker { id, incarnation, what } => return self.handle_broker(id, incarnation, what),
            other => other,
        };
        let mut fx = Effects::in_room(&mut self.room);
        let now = self.now;
        match event {
            Event::ConsoleOpen { name, timeout_ms } => self.console.open(&mut self.zk, now, &name, timeout_ms, &mut fx),
            Event::ConsoleRequest { name, op } => {
                let (record, notifications) = self.console.request(&mut self.zk, now, &name, &op);
                fx.record(record);
                self.deliver(notifications, &mut fx);
            }
            Event::WatchDelivery { to, notification } => {
                if let Client::Console(name) = to {
                    if self.console.hears_watches(&name) {
                        fx.record(console::watch_record(&name, &notification));
                    }
                }
            }
            // Handled above, in the broker's own room.
            Event::Broker { .. } => {}
            Event::Ping { to_session } => self.console.ping(&mut self.zk, now, to_session, &mut fx),
            Event::SessionCheck { session } => self.check_session(session, &mut fx),
        }
        fx
    }

    /// Watch notifications travel to their clients. Console sessions are on
    /// this machine: they get them at once, before the console's next line;
    /// brokers get them over the network, 1-3 ms later.
    pub(crate) fn deliver(&mut self, notifications: Vec<Notification>, fx: &mut Effects) {
        for n in notifications {
            match self.client_of(n.session) {
                Some(Client::Console(name)) => fx.schedule(0, Event::WatchDelivery { to: Client::Console(name), notification: n }),
                Some(Client::Broker(id, incarnation)) => {
                    let delay = self.rng.range_inclusive(1, 3);
                    fx.schedule(delay, Event::Broker { id, incarnation, what: crate::sim::event::BrokerEvent::Watch(n) });
                }
                Some(Client::Admin) | None => {}
            }
        }
    }

    /// Who holds a session.
    pub(crate) fn client_of(&self, session: SessionId) -> Option<Client> {
        if let Some(c) = console::client_of(&self.console, session) {
            return Some(c);
        }
        if self.admin.session == Some(session) {
            return Some(Client::Admin);
        }
        self.brokers.values().find(|b| b.is_alive() && b.zkc.session == Some(session)).map(|b| Client::Broker(b.id, b.incarnation))
    }

    /// Runs `f` on broker `id` with an `Io`, then applies what it did.
    pub(crate) fn with_broker<R>(&mut self, id: BrokerId, f: impl FnOnce(&mut Broker, &mut Io) -> R) -> Option<R> {
        self.with_broker_if(id, |_| true, f)
    }

    /// `with_broker` if `accept` takes the broker as it is: one look-up of
    /// the broker for both (every event of a run is a broker's).
    fn with_broker_if<R>(
        &mut self,
        id: BrokerId,
        accept: impl FnOnce(&Broker) -> bool,
        f: impl FnOnce(&mut Broker, &mut Io) -> R,
    ) -> Option<R> {
        let broker = self.brokers.get_mut(&id).filter(|b| accept(b))?;
        let mut io = Io::new(self.now, &mut self.zk, &mut self.rng, id, Effects::in_room(&mut self.room));
        io.records_read = self.records_read;
        io.steps_read = self.steps_read;
        let r = f(broker, &mut io);
        let Io { fx, notifications, .. } = io;
        let mut fx = fx;
        if !notifications.is_empty() {
            self.deliver(notifications, &mut fx);
        }
        self.apply(fx);
        Some(r)
    }

    fn handle_broker(&mut self, id: BrokerId, incarnation: u32, what: crate::sim::event::BrokerEvent) -> Effects {
        let current = |b: &Broker| b.is_alive() && (incarnation == crate::sim::event::ANY_INCARNATION || incarnation == b.incarnation);
        self.with_broker_if(id, current, |b, io| b.handle(what, io));
        Effects::default()
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
        let owner = self.client_of(session);
        let notifications = self.zk.end_session(self.now, session, SessionEnd::Expired).unwrap_or_default();
        self.console.session_ended(session, SessionEnd::Expired);
        if let Some(Client::Broker(id, incarnation)) = owner {
            // The client learns of it when it next talks to the server.
            fx.schedule(
                self.rng.range_inclusive(1, 3),
                Event::Broker { id, incarnation, what: crate::sim::event::BrokerEvent::SessionExpired { session } },
            );
        }
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
            detail: Detail::new()
                .with("session", &console::session_hex(session))
                .with("owner", &s.owner)
                .with("timeout_ms", &s.timeout_ms)
                .with("deleted", &ephemerals),
            later: None,
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
