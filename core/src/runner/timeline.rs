//! The timeline: every step reached so far, with keyframes so that seeking to
//! any step is a replay from the nearest keyframe before it — never a replay
//! from the start, and always the identical state.
//!
//! Keyframes are spaced by the work the simulation did between them
//! ([`crate::sim::Sim::work`]), not by steps: on a big cluster one step (a
//! topic's creation, a controller's failover) can do the work of ten
//! thousand quiet ones, and a seek costs the work it replays. A heavy step
//! therefore gets a keyframe right after it, and quiet stretches share one.
//!
//! Steps the trace already holds are replayed without their summaries and
//! details ([`Runner::set_records_read`]); the one event that made the last
//! known step may have steps still to come, so it is always replayed
//! described (`describe_from`), and the state at the known end is kept while
//! the timeline is elsewhere (`frontier`), so going back there costs nothing.

use super::{Limits, RunError, Runner, StepOutcome};
use crate::scenario::Script;
use crate::trace::Trace;
use std::rc::Rc;

/// Keyframes kept at most; past this the two cheapest neighbouring stretches
/// are merged, so memory stays bounded however long the run.
const MAX_KEYFRAMES: usize = 128;
/// ... and at least, however big the cluster: a 50-broker cluster with a
/// 10,000-partition topic keeps 32 snapshots of 10-15 MB each (issue 9:
/// with 12, a seek into its failover replayed 100-200 ms natively; with 32
/// placed by cost, the worst stretch replays in about 30 ms).
const MIN_KEYFRAMES: usize = 32;
/// What all keyframes together may weigh, in [`weight`] units (about a
/// znode, or one partition in one broker's caches; a few hundred bytes
/// each): a 50-broker cluster with 1,000 partitions weighs about 100,000
/// per snapshot, so it keeps [`MIN_KEYFRAMES`] — a few hundred megabytes
/// at most — where 128 snapshots took 700 MB in the browser (issue 9).
/// Seeks then replay more work; small scenarios keep all 128.
const KEYFRAME_BUDGET: usize = 2_000_000;

/// How heavy one snapshot of the simulation is, at most: the znodes, once
/// in ZooKeeper and once more per broker (each broker caches about as many
/// partition entries as ZooKeeper holds partition znodes). ZooKeeper's tree
/// and the metadata caches are shared with the snapshot before until they
/// are written (copy on write), so a snapshot taken while the cluster is
/// quiet weighs less; counting it whole keeps the keyframes few, which is
/// what kept "run to the end" fast when the sharing was counted instead
/// (twice as many keyframes, each making the next write copy its maps).
fn weight(runner: &Runner) -> usize {
    let sim = runner.sim();
    sim.zk().tree().len() * (1 + sim.brokers().len())
}

/// The keyframes a timeline of snapshots this heavy may keep.
fn max_keyframes(weight: usize) -> usize {
    (KEYFRAME_BUDGET / weight.max(1)).clamp(MIN_KEYFRAMES, MAX_KEYFRAMES)
}

/// The event whose steps the timeline is handing out: where it began, and
/// whether its steps were described when it ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EventInHand {
    start: u64,
    described: bool,
}

#[derive(Clone, Debug)]
struct Keyframe {
    /// The state after `runner.steps()` steps, its pending steps undescribed.
    runner: Runner,
    /// [`crate::sim::Sim::work`] at that state.
    work: u64,
    /// Where the event it was handing out began.
    event_start: u64,
}

impl Keyframe {
    fn steps(&self) -> u64 {
        self.runner.steps()
    }

    /// Whether a replay may start here: the steps it holds undescribed must
    /// all be in the trace already.
    fn usable(&self, known: u64) -> bool {
        self.steps() + self.runner.sim().pending_steps() as u64 <= known
    }
}

#[derive(Clone, Debug)]
pub struct Timeline {
    /// The state at `position()`.
    current: Runner,
    /// Where `current`'s event in hand began.
    event: EventInHand,
    /// Snapshots in step order, step 0 first.
    keyframes: Vec<Keyframe>,
    trace: Trace,
    /// The step count at which the script ended, once reached.
    end: Option<u64>,
    /// A budget or script error met at the end of the known steps.
    error: Option<RunError>,
    /// Actions the learner took, at the step they were taken after.
    injections: Vec<(u64, String)>,
    /// Whether `current` has tried the step after its position and
    /// stopped there: the script ended (its last `run` went on to its
    /// deadline) or the step failed. The clock has moved on.
    tried: bool,
    /// The steps at which the learner acted on such a stopped state: a
    /// replay tries the step again before taking the action, so that it
    /// runs at the same time as it first did.
    acted_after_stop: Vec<u64>,
    /// `/` zxid after each step (index = step), for "what changed this step".
    zxids: Vec<i64>,
    /// Replayed events that begin at or after this step are described: the
    /// event that made the last known step, whose further steps are new.
    describe_from: u64,
    /// The state at the known end while `current` is elsewhere.
    frontier: Option<(Runner, EventInHand)>,
    /// Whether the last step earned a keyframe not yet taken: `current`,
    /// its work and its event in hand are that keyframe's until the
    /// timeline moves ([`Timeline::settle`]).
    keyframe_due: bool,
}

impl Timeline {
    pub fn new(script: Rc<Script>, limits: Limits) -> Timeline {
        let current = Runner::new(script, limits);
        Timeline {
            keyframes: vec![Keyframe { runner: current.clone(), work: 0, event_start: 0 }],
            current,
            event: EventInHand { start: 0, described: true },
            trace: Trace::default(),
            end: None,
            error: None,
            injections: Vec::new(),
            tried: false,
            acted_after_stop: Vec::new(),
            zxids: vec![0],
            describe_from: 0,
            frontier: None,
            keyframe_due: false,
        }
    }

    /// The step the timeline is at (0 = before the first step).
    pub fn position(&self) -> u64 {
        self.current.steps()
    }

    /// Steps known so far (the slider's range).
    pub fn known_steps(&self) -> u64 {
        self.trace.len() as u64
    }

    pub fn end(&self) -> Option<u64> {
        self.end
    }

    pub fn error(&self) -> Option<&RunError> {
        self.error.as_ref()
    }

    pub fn current(&self) -> &Runner {
        &self.current
    }

    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The keyframes taken so far (one earned by the last step is taken
    /// when the timeline next moves, or at [`Timeline::settle`]).
    pub fn keyframe_count(&self) -> usize {
        self.keyframes.len()
    }

    /// The steps at which keyframes stand, in order.
    pub fn keyframe_steps(&self) -> Vec<u64> {
        self.keyframes.iter().map(Keyframe::steps).collect()
    }

    /// Whether a keyframe earned by the last step is still to be taken.
    pub fn is_settled(&self) -> bool {
        !self.keyframe_due
    }

    /// Takes the keyframe the last step earned, if any, and merges old
    /// ones past the budget. The heaviest steps earn one (a topic's
    /// creation, a failover's elections), and copying the state and
    /// dropping a merged keyframe was a fifth of such a step (natively,
    /// 50 brokers × 10,000 partitions, issue 9); left for when the page is
    /// idle, the step's frame is drawn first. Every move of the timeline
    /// settles before it changes `current`, so the keyframe is the same
    /// state, taken at the same place, whenever it is taken.
    pub fn settle(&mut self) {
        if !std::mem::take(&mut self.keyframe_due) {
            return;
        }
        let now = (self.current.sim().work(), self.position());
        let runner = self.current.snapshot();
        self.keyframes.push(Keyframe { runner, work: now.0, event_start: self.event.start });
        let max = max_keyframes(weight(&self.current));
        while self.keyframes.len() > max {
            self.merge_cheapest(now);
        }
    }

    /// One step forward. Returns false at the end of the script (or at an error).
    pub fn step_forward(&mut self) -> bool {
        self.settle();
        let (p, known) = (self.position(), self.known_steps());
        if self.error.is_some() && p >= known {
            return false;
        }
        // A step the trace already holds (a replay after a seek, or stepping
        // forward again after stepping back) is taken without building its
        // summary and detail: they would be thrown away, and building them
        // was a large share of a big cluster's replay (issue 9). Only an
        // event can be described or not, as it runs: the one that made the
        // last known step may make new ones, so it runs described.
        let fresh = !self.current.sim().has_pending_steps();
        let described = if fresh { p >= self.describe_from } else { self.event.described };
        self.current.set_records_read(described);
        let outcome = self.current.step(&mut self.trace);
        self.tried = !matches!(outcome, Ok(StepOutcome::Stepped));
        match outcome {
            Ok(StepOutcome::Stepped) => {
                if fresh {
                    self.event = EventInHand { start: p, described };
                }
                let pos = p + 1;
                let zxid = self.current.sim().zk().last_zxid();
                if self.zxids.len() <= pos as usize {
                    self.zxids.resize(pos as usize + 1, zxid);
                }
                self.zxids[pos as usize] = zxid;
                if pos > known {
                    self.describe_from = self.event.start;
                    self.maybe_keyframe();
                } else if pos == known && self.rejoin_frontier() {
                    return true; // the kept state already holds its actions
                }
                self.apply_injections();
                true
            }
            Ok(StepOutcome::Finished) => {
                self.end = Some(p);
                false
            }
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }

    /// A keyframe once the stretch since the last one costs its share of
    /// the budget (see [`Timeline::stretch_cost`]), taken at
    /// [`Timeline::settle`]; past the budget, the two neighbouring
    /// stretches that together cost the least become one.
    fn maybe_keyframe(&mut self) {
        let now = (self.current.sim().work(), self.position());
        let last = self.keyframes.last().map_or((0, 0), |k| (k.work, k.steps()));
        let max = max_keyframes(weight(&self.current));
        // A new stretch twice the average (the whole run's cost over `max`)
        // outweighs the cheapest pair of old ones, which merge instead: one
        // only as long as the average would be merged away at once.
        if Self::stretch_cost(last, now, now) * max as u128 >= 2 * Self::stretch_cost((0, 0), now, now) {
            self.keyframe_due = true;
        }
    }

    /// What replaying from (work, steps) `from` to `to` costs, against the
    /// whole run so far (`now`): twice its share of the work done plus its
    /// share of the steps, scaled by both totals to stay in integers. Work
    /// is what a replay costs, but the measure is rough (a scheduled task
    /// that walks every partition is one event), and a stretch of many
    /// cheap-looking steps is seldom cheap. (Measured natively on 50 brokers
    /// × 10,000 partitions, issue 9: work alone left a stretch of 60,000
    /// quiet-looking steps that replayed in 60 ms; work and steps alike put
    /// too few keyframes among the failover's heavy steps.)
    fn stretch_cost(from: (u64, u64), to: (u64, u64), now: (u64, u64)) -> u128 {
        let (work, steps) = (u128::from(now.0.max(1)), u128::from(now.1.max(1)));
        2 * u128::from(to.0 - from.0) * steps + u128::from(to.1 - from.1) * work
    }

    /// Drops the keyframe (never the first) whose two stretches together
    /// cost the least, `now` closing the last stretch.
    fn merge_cheapest(&mut self, now: (u64, u64)) {
        let at = |i: usize| self.keyframes.get(i).map_or(now, |k| (k.work, k.steps()));
        let cost = |i: usize| Self::stretch_cost(at(i - 1), at(i + 1), now);
        if let Some(i) = (1..self.keyframes.len()).min_by_key(|&i| (cost(i), i)) {
            self.keyframes.remove(i);
        }
    }

    /// Back at the known end by replay: takes the state kept there, whose
    /// steps to come are described (the replayed one's may not be).
    fn rejoin_frontier(&mut self) -> bool {
        match self.frontier.take() {
            Some((runner, event)) => {
                self.current = runner;
                self.event = event;
                self.tried = false;
                true
            }
            None => false,
        }
    }

    /// Moves to step `n` (clamped to what the script reaches): from the
    /// nearest keyframe at or before `n`, replaying forward, or from the
    /// kept known end.
    pub fn seek(&mut self, n: u64) {
        self.settle();
        let known = self.known_steps();
        if n >= known && self.position() < known && self.frontier.is_some() {
            self.rejoin_frontier();
        }
        let p = self.position();
        if n != p {
            let k = self.keyframes.iter().rposition(|k| k.steps() <= n && k.usable(known)).unwrap_or(0);
            if n < p || self.keyframes[k].steps() > p {
                self.load_keyframe(k);
            }
        }
        while self.position() < n {
            if !self.step_forward() {
                break;
            }
        }
    }

    /// Starts again from keyframe `k`, keeping the state at the known end
    /// if that is where the timeline was.
    fn load_keyframe(&mut self, k: usize) {
        let keyframe = &self.keyframes[k];
        let pending = keyframe.runner.sim().has_pending_steps();
        let old = std::mem::replace(&mut self.current, keyframe.runner.clone());
        let old_event = std::mem::replace(&mut self.event, EventInHand { start: keyframe.event_start, described: !pending });
        // Kept only as it stood right after its last step: one that has
        // tried the next has moved its clock on, which the same step
        // reached by a replay has not.
        if old.steps() == self.known_steps() && !self.tried && self.frontier.is_none() {
            self.frontier = Some((old, old_event));
        }
        self.tried = false;
        self.apply_injections();
    }

    /// The learner acts now: the action runs before the next step, and the
    /// future that was known after this step is forgotten (a new branch).
    pub fn inject(&mut self, text: &str) -> Result<(), crate::scenario::ScenarioError> {
        self.settle();
        let line = self.current.parse_action(text)?;
        let p = self.position();
        if p == self.known_steps() && !self.tried && !self.current.has_injected() {
            self.try_next_step();
        }
        if self.tried && !self.acted_after_stop.contains(&p) {
            self.acted_after_stop.push(p);
        }
        self.current.inject_line(line.clone());
        self.tried = false;
        self.trace.truncate(p);
        self.zxids.truncate(p as usize + 1);
        self.frontier = None;
        self.injections.retain(|(s, _)| *s <= p);
        self.acted_after_stop.retain(|s| *s <= p);
        self.end = None;
        self.error = None;
        let pending = self.current.sim().has_pending_steps();
        self.describe_from = if pending { self.event.start } else { p };
        self.keyframes.retain(|k| k.usable(p));
        if pending && !self.event.described {
            // The event in hand was replayed undescribed, and its steps to
            // come are new now: run it again, described, then act.
            let k = self.keyframes.iter().rposition(|k| k.steps() <= p).unwrap_or(0);
            self.load_keyframe(k);
            self.frontier = None; // it is the undescribed state being replaced
            while self.position() < p && self.step_forward() {}
            self.current.inject_line(line);
        }
        self.injections.push((p, text.to_string()));
        Ok(())
    }

    /// At the known end with no step in hand, whether the timeline stops
    /// here (the script is over, or its next step fails) is known only by
    /// trying the next step: if it stops, the learner's action runs on the
    /// stopped state, as it does after "run to the end", however the
    /// timeline got here (a replay, or a permalink's, only steps to it).
    fn try_next_step(&mut self) {
        if self.current.sim().has_pending_steps() {
            return;
        }
        let mut probe = self.current.clone();
        if !matches!(probe.step(&mut Trace::default()), Ok(StepOutcome::Stepped)) {
            self.current = probe;
            self.tried = true;
        }
    }

    /// Re-applies the learner's actions taken at the current step when the
    /// timeline gets there again by replay.
    fn apply_injections(&mut self) {
        let p = self.position();
        let actions: Vec<String> = self.injections.iter().filter(|(s, _)| *s == p).map(|(_, t)| t.clone()).collect();
        if actions.is_empty() {
            return;
        }
        // A keyframe holds the state before its step's actions (a replay
        // from it takes them again).
        self.settle();
        if self.acted_after_stop.contains(&p) && !self.tried {
            let _ = self.current.step(&mut Trace::default());
        }
        for text in actions {
            let _ = self.current.inject(&text);
        }
    }

    /// The last zxid as it stood after step `n`.
    pub fn zxid_after(&self, n: u64) -> i64 {
        self.zxids.get(n as usize).copied().unwrap_or(0)
    }

    pub fn injections(&self) -> &[(u64, String)] {
        &self.injections
    }

    /// Runs to the end of the script (or the budget).
    pub fn run_to_end(&mut self) {
        while self.step_forward() {}
    }
}
