//! `Sandbox`: what the browser app drives — a scenario on a timeline, moved
//! by step, seek and learner actions, seen through [`crate::view::View`].

use crate::runner::{validate, Limits, Timeline};
use crate::scenario::{parse, ScenarioError};
use crate::trace::TraceEntry;
use crate::view::{self, View, ViewCache, Window};
use std::cell::RefCell;
use std::rc::Rc;

/// The budget of a sandbox: smaller than the command line's, so that a
/// runaway scenario stops with a message instead of eating the tab.
pub const BROWSER_LIMITS: Limits = Limits { max_steps: 200_000, max_events: 5_000_000 };

#[derive(Clone, Debug)]
pub struct Sandbox {
    timeline: Timeline,
    /// What each view lends the next (a step on a big cluster rebuilds only
    /// what changed); dropped when the learner acts and the future branches.
    views: RefCell<ViewCache>,
}

impl Sandbox {
    /// Parses and validates a scenario; errors carry their line.
    pub fn load(text: &str) -> Result<Sandbox, ScenarioError> {
        let script = parse(text)?;
        validate(&script)?;
        Ok(Sandbox { timeline: Timeline::new(Rc::new(script), BROWSER_LIMITS), views: RefCell::default() })
    }

    pub fn position(&self) -> u64 {
        self.timeline.position()
    }

    pub fn known_steps(&self) -> u64 {
        self.timeline.known_steps()
    }

    pub fn end(&self) -> Option<u64> {
        self.timeline.end()
    }

    /// One step forward; false at the end.
    pub fn step_forward(&mut self) -> bool {
        self.timeline.step_forward()
    }

    /// The housekeeping the last step left for later: the keyframe it
    /// earned ([`Timeline::settle`]). The page calls it once the step's
    /// frame is drawn; any move does it first otherwise.
    pub fn settle(&mut self) {
        self.timeline.settle();
    }

    /// Whether [`Sandbox::settle`] has nothing to do.
    pub fn is_settled(&self) -> bool {
        self.timeline.is_settled()
    }

    pub fn step_back(&mut self) {
        let p = self.position();
        self.timeline.seek(p.saturating_sub(1));
    }

    pub fn seek(&mut self, n: u64) {
        self.timeline.seek(n);
    }

    /// Up to `max` steps forward; returns how many were taken.
    pub fn run_for(&mut self, max: u64) -> u64 {
        let mut n = 0;
        while n < max && self.timeline.step_forward() {
            n += 1;
        }
        n
    }

    /// A learner's action (a scenario command) taken at the current step.
    pub fn act(&mut self, command: &str) -> Result<(), ScenarioError> {
        *self.views.get_mut() = ViewCache::default();
        self.timeline.inject(command)
    }

    /// The view with every partition.
    pub fn view(&self) -> View {
        self.view_window(&Window::default())
    }

    /// The view with the partitions `window` asks for (what a page draws).
    pub fn view_window(&self, window: &Window) -> View {
        view::view_cached(&self.timeline, &mut self.views.borrow_mut(), window)
    }

    pub fn trace(&self) -> &[TraceEntry] {
        self.timeline.trace().entries()
    }

    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }
}
