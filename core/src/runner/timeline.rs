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
const FIRST_INTERVAL: u64 = 32;

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
}

impl Timeline {
    pub fn new(script: Arc<Script>, limits: Limits) -> Timeline {
        let current = Runner::new(script, limits);
        Timeline { keyframes: vec![current.clone()], current, interval: FIRST_INTERVAL, trace: Trace::default(), end: None, error: None }
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
        match self.current.step(&mut self.trace) {
            Ok(StepOutcome::Stepped) => {
                self.maybe_keyframe();
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
        if self.keyframes.len() > MAX_KEYFRAMES {
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
        }
        while self.position() < n {
            if !self.step_forward() {
                break;
            }
        }
    }

    /// Runs to the end of the script (or the budget).
    pub fn run_to_end(&mut self) {
        while self.step_forward() {}
    }
}
