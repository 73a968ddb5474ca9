//! The timeline: every step reached so far, with keyframes so that seeking to
//! any step is a replay from the nearest keyframe before it — never a replay
//! from the start, and always the identical state.

use super::{Limits, RunError, Runner, StepOutcome};
use crate::scenario::Script;
use crate::trace::Trace;
use std::sync::Arc;

/// Keyframes kept at most; past this the interval doubles and every other
/// keyframe goes, so memory stays bounded however long the run.
const MAX_KEYFRAMES: usize = 128;
/// ... and at least, however big the cluster.
const MIN_KEYFRAMES: usize = 12;
/// What all keyframes together may weigh, in [`weight`] units (about a
/// znode, or one partition in one broker's caches; a few hundred bytes
/// each): a 50-broker cluster with 1,000 partitions weighs about 100,000
/// per snapshot, so it keeps [`MIN_KEYFRAMES`] — tens of megabytes — where
/// 128 snapshots took 700 MB in the browser (issue 9). Seeks then replay
/// more steps; small scenarios keep all 128.
const KEYFRAME_BUDGET: usize = 2_000_000;
const FIRST_INTERVAL: u64 = 32;

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

#[derive(Clone, Debug)]
pub struct Timeline {
    /// The state at `position()`.
    current: Runner,
    /// Snapshots at steps that are multiples of `interval` (step 0 first).
    keyframes: Vec<Runner>,
    interval: u64,
    trace: Trace,
    /// The step count at which the script ended, once reached.
    end: Option<u64>,
    /// A budget or script error met at the end of the known steps.
    error: Option<RunError>,
    /// Actions the learner took, at the step they were taken after.
    injections: Vec<(u64, String)>,
    /// `/` zxid after each step (index = step), for "what changed this step".
    zxids: Vec<i64>,
}

impl Timeline {
    pub fn new(script: Arc<Script>, limits: Limits) -> Timeline {
        let current = Runner::new(script, limits);
        Timeline {
            keyframes: vec![current.clone()],
            current,
            interval: FIRST_INTERVAL,
            trace: Trace::default(),
            end: None,
            error: None,
            injections: Vec::new(),
            zxids: vec![0],
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

    pub fn keyframe_count(&self) -> usize {
        self.keyframes.len()
    }

    /// One step forward. Returns false at the end of the script (or at an error).
    pub fn step_forward(&mut self) -> bool {
        if self.error.is_some() && self.position() >= self.known_steps() {
            return false;
        }
        // A step the trace already holds (a replay after a seek, or stepping
        // forward again after stepping back) is taken without building its
        // summary and detail: they would be thrown away, and building them
        // was a large share of a big cluster's replay (issue 9).
        self.current.set_records_read(self.position() >= self.known_steps());
        match self.current.step(&mut self.trace) {
            Ok(StepOutcome::Stepped) => {
                let pos = self.position() as usize;
                let zxid = self.current.sim().zk().last_zxid();
                if self.zxids.len() <= pos {
                    self.zxids.resize(pos + 1, zxid);
                }
                self.zxids[pos] = zxid;
                self.maybe_keyframe();
                self.apply_injections();
                true
            }
            Ok(StepOutcome::Finished) => {
                self.end = Some(self.position());
                false
            }
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }

    fn maybe_keyframe(&mut self) {
        let pos = self.position();
        if !pos.is_multiple_of(self.interval) {
            return;
        }
        let last = self.keyframes.last().map(|k| k.steps()).unwrap_or(0);
        if pos <= last {
            return;
        }
        self.keyframes.push(self.current.clone());
        let max = max_keyframes(weight(&self.current));
        while self.keyframes.len() > max {
            self.interval *= 2;
            let interval = self.interval;
            self.keyframes.retain(|k| k.steps().is_multiple_of(interval));
        }
    }

    /// Moves to step `n` (clamped to what the script reaches): from the
    /// nearest keyframe at or before `n`, replaying forward.
    pub fn seek(&mut self, n: u64) {
        if n < self.position() || n.saturating_sub(self.position()) > self.interval {
            let k = self.keyframes.iter().rposition(|k| k.steps() <= n).unwrap_or(0);
            self.current = self.keyframes[k].clone();
            self.apply_injections();
        }
        while self.position() < n {
            if !self.step_forward() {
                break;
            }
        }
    }

    /// The learner acts now: the action runs before the next step, and the
    /// future that was known after this step is forgotten (a new branch).
    pub fn inject(&mut self, text: &str) -> Result<(), crate::scenario::ScenarioError> {
        self.current.inject(text)?;
        let p = self.position();
        self.trace.truncate(p);
        self.zxids.truncate(p as usize + 1);
        self.keyframes.retain(|k| k.steps() <= p);
        self.injections.retain(|(s, _)| *s <= p);
        self.injections.push((p, text.to_string()));
        self.end = None;
        self.error = None;
        Ok(())
    }

    /// Re-applies the learner's actions taken at the current step when the
    /// timeline gets there again by replay.
    fn apply_injections(&mut self) {
        let p = self.position();
        let due: Vec<String> = self.injections.iter().filter(|(s, _)| *s == p).map(|(_, t)| t.clone()).collect();
        for text in due {
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
