//! Playing a scenario: the [`Runner`] walks the script line by line and hands
//! out one step at a time, so the command line, the tests and the browser all
//! see the same sequence of steps.

pub mod dump;
pub mod expect;
pub mod timeline;
pub mod validate;

use crate::console::DEFAULT_TIMEOUT_MS;
use crate::scenario::{Command, ScenarioError, Script};
use crate::sim::{Millis, Sim};
use crate::trace::{Trace, TraceEntry};
use expect::ExpectOutcome;
use std::rc::Rc;
use thiserror::Error;

pub use timeline::Timeline;
pub use validate::validate;

/// A limit on everything: no run can hang or eat the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Steps (trace entries) a run may take.
    pub max_steps: u64,
    /// Events a run may process, silent housekeeping included.
    pub max_events: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_steps: 2_000_000, max_events: 20_000_000 }
    }
}

/// How long the cluster plays on after an action taken once the script has
/// ended (longer than the default session timeout, so a crash is noticed).
pub const AFTER_END_MS: u64 = 60_000;

/// How long `run until-idle` waits when the line gives no `max`.
pub const DEFAULT_IDLE_MAX_MS: u64 = 10 * 60 * 1000;

/// Why a run stopped before the end of its script.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RunError {
    #[error("{line}:1: error: the step budget of {limit} steps is exhausted while running line {line} ('{text}'); shorten the run or split the scenario")]
    StepBudget { line: usize, text: String, limit: u64 },
    #[error("{line}:1: error: the budget of {limit} simulation events is exhausted while running line {line} ('{text}'); shorten the run")]
    EventBudget { line: usize, text: String, limit: u64 },
    #[error("{0}")]
    Script(ScenarioError),
}

impl RunError {
    /// `FILE:LINE:COL: error: ...`.
    pub fn render(&self, file: &str) -> String {
        format!("{file}:{self}")
    }

    pub fn line(&self) -> usize {
        match self {
            RunError::StepBudget { line, .. } | RunError::EventBudget { line, .. } => *line,
            RunError::Script(e) => e.line,
        }
    }
}

/// What the runner is doing between lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `start all`: until this broker has registered and tried the election.
    StartAll(crate::kafka::BrokerId),
    /// Ready to run the next line.
    NextLine,
    /// `run D`: process every event due up to the deadline.
    RunUntil(Millis),
    /// `run until-idle`: until only housekeeping remains, or the deadline.
    UntilIdle(Millis),
    /// `step N`: this many more steps.
    Steps(u64),
    /// A console line: until its reply and watch events are delivered.
    AwaitConsole,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepOutcome {
    /// One more step; its entry is the trace's newest.
    Stepped,
    /// The script has ended: nothing more will happen.
    Finished,
}

/// A scenario being played: the simulation, where the script is, and how the
/// expectations passed so far came out. `Clone` is a full snapshot (the
/// timeline's keyframes).
#[derive(Clone, Debug)]
pub struct Runner {
    script: Rc<Script>,
    pc: usize,
    sim: Sim,
    mode: Mode,
    /// The line being played (for budget errors).
    current_line: usize,
    expectations: Vec<ExpectOutcome>,
    limits: Limits,
    finished: bool,
    /// Brokers `start all` has still to start, in id order.
    start_queue: std::collections::VecDeque<crate::kafka::BrokerId>,
    /// Actions injected by the learner, run before the next step.
    injected: std::collections::VecDeque<crate::scenario::Line>,
    /// The script's mode, put aside while an injected action completes.
    resume_after: Option<Mode>,
}

impl Runner {
    /// A runner for a script that passed [`validate`].
    pub fn new(script: Rc<Script>, limits: Limits) -> Runner {
        let sim = Sim::new(script.seed);
        Runner {
            script,
            pc: 0,
            sim,
            mode: Mode::NextLine,
            current_line: 0,
            expectations: Vec::new(),
            limits,
            finished: false,
            start_queue: Default::default(),
            injected: Default::default(),
            resume_after: None,
        }
    }

    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// A copy to keep as a timeline's keyframe: the steps recorded but not
    /// yet handed out are kept undescribed ([`Sim::snapshot`]).
    pub fn snapshot(&mut self) -> Runner {
        Runner {
            script: self.script.clone(),
            pc: self.pc,
            sim: self.sim.snapshot(),
            mode: self.mode,
            current_line: self.current_line,
            expectations: self.expectations.clone(),
            limits: self.limits,
            finished: self.finished,
            start_queue: self.start_queue.clone(),
            injected: self.injected.clone(),
            resume_after: self.resume_after,
        }
    }

    /// Only the steps' count will be read, not the steps (`kzsim run --quiet`
    /// with no trace to write or search): they are counted, not described,
    /// and handed out to the trace as a count ([`Trace::count`]).
    pub fn set_records_unread(&mut self) {
        self.sim.set_records_unread();
    }

    /// Whether the next steps' summaries and details will be read: a
    /// timeline replaying steps its trace already holds says no.
    pub fn set_records_read(&mut self, read: bool) {
        self.sim.set_records_read(read);
    }

    /// The simulation itself, for tests that plant bugs on purpose.
    pub fn sim_mut(&mut self) -> &mut Sim {
        &mut self.sim
    }

    pub fn script(&self) -> &Rc<Script> {
        &self.script
    }

    pub fn steps(&self) -> u64 {
        self.sim.steps()
    }

    pub fn expectations(&self) -> &[ExpectOutcome] {
        &self.expectations
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The 1-based number of the line being played, or 0 before the first.
    pub fn current_line(&self) -> usize {
        self.current_line
    }

    fn line_text(&self) -> String {
        self.script.lines.iter().find(|l| l.line == self.current_line).map(|l| l.text.clone()).unwrap_or_default()
    }

    /// Plays until one more step is recorded (appended to `trace`) or the
    /// script ends.
    pub fn step(&mut self, trace: &mut Trace) -> Result<StepOutcome, RunError> {
        loop {
            if !self.sim.steps_read() {
                if self.sim.skip_step() {
                    self.count_step();
                    trace.count();
                    return Ok(StepOutcome::Stepped);
                }
            } else if let Some(entry) = self.sim.take_step() {
                self.hand_out(entry, trace);
                return Ok(StepOutcome::Stepped);
            }
            if self.finished {
                return Ok(StepOutcome::Finished);
            }
            if self.sim.steps() >= self.limits.max_steps {
                return Err(RunError::StepBudget { line: self.current_line, text: self.line_text(), limit: self.limits.max_steps });
            }
            if self.sim.events_processed() >= self.limits.max_events {
                return Err(RunError::EventBudget { line: self.current_line, text: self.line_text(), limit: self.limits.max_events });
            }
            if self.run_injected(trace)? {
                continue;
            }
            self.advance(trace)?;
        }
    }

    /// A step handed out: `step N` counts it.
    fn count_step(&mut self) {
        if let Mode::Steps(n) = self.mode {
            self.mode = if n <= 1 { Mode::NextLine } else { Mode::Steps(n - 1) };
        }
    }

    fn hand_out(&mut self, entry: TraceEntry, trace: &mut Trace) {
        self.count_step();
        // Replaying from a keyframe re-derives steps the trace already has
        // (undescribed, when the timeline said they would not be read).
        if trace.len() as u64 >= entry.step {
            let held = &trace.entries()[entry.step as usize - 1];
            let described = !entry.summary.is_empty() || !entry.detail.is_null();
            debug_assert!(
                if described {
                    *held == entry
                } else {
                    (&held.actor, &*held.kind, held.time_ms) == (&entry.actor, &*entry.kind, entry.time_ms)
                },
                "replay diverged at step {}: {held:?} then {entry:?}",
                entry.step
            );
        } else {
            trace.push(entry);
        }
    }

    /// One move of the state machine: process an event, or run a line.
    fn advance(&mut self, trace: &Trace) -> Result<(), RunError> {
        match self.mode {
            Mode::NextLine => self.next_line(trace),
            Mode::RunUntil(deadline) => {
                match self.sim.next_event_time() {
                    Some(t) if t <= deadline => {
                        self.sim.process_next();
                    }
                    _ => {
                        self.sim.advance_to(deadline);
                        self.mode = Mode::NextLine;
                    }
                }
                Ok(())
            }
            Mode::UntilIdle(deadline) => {
                match self.sim.next_event_time() {
                    Some(t) if self.sim.has_foreground_events() && t <= deadline => {
                        self.sim.process_next();
                    }
                    Some(_) if self.sim.has_foreground_events() => {
                        self.sim.advance_to(deadline);
                        self.mode = Mode::NextLine;
                    }
                    _ => self.mode = Mode::NextLine,
                }
                Ok(())
            }
            Mode::Steps(_) => {
                if !self.sim.process_next() {
                    self.mode = Mode::NextLine;
                }
                Ok(())
            }
            Mode::StartAll(id) => {
                if self.sim.broker_settled(id) {
                    self.mode = Mode::NextLine;
                    if let Some(next) = self.start_queue.pop_front() {
                        self.start(next)?;
                    }
                } else if !self.sim.process_next() {
                    self.mode = Mode::NextLine;
                }
                Ok(())
            }
            Mode::AwaitConsole => {
                if !(self.sim.has_console_events() && self.sim.process_next()) {
                    self.mode = Mode::NextLine;
                }
                Ok(())
            }
        }
    }

    fn next_line(&mut self, trace: &Trace) -> Result<(), RunError> {
        if let Some(mode) = self.resume_after.take() {
            // An injected action is done: the script's own mode resumes.
            self.mode = mode;
            return Ok(());
        }
        let Some(line) = self.script.lines.get(self.pc).cloned() else {
            self.finished = self.injected.is_empty();
            return Ok(());
        };
        self.pc += 1;
        self.execute(line, trace)
    }

    fn execute(&mut self, line: crate::scenario::Line, trace: &Trace) -> Result<(), RunError> {
        self.current_line = line.line;
        let now = self.sim.now();
        match line.command {
            Command::Seed(_) => {}
            Command::Run(ms) => self.mode = Mode::RunUntil(now.plus(ms)),
            Command::RunUntilIdle { max_ms } => self.mode = Mode::UntilIdle(now.plus(max_ms.unwrap_or(DEFAULT_IDLE_MAX_MS))),
            Command::Step(n) => self.mode = Mode::Steps(n),
            Command::ZkSession { name, timeout_ms } => {
                self.sim.console_open(&name, timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS));
                self.mode = Mode::AwaitConsole;
            }
            Command::Zk { session, op } => {
                self.sim.console_request(&session, op);
                self.mode = Mode::AwaitConsole;
            }
            Command::Expect(e) => {
                let (passed, actual) = expect::check(&self.sim, trace, &e);
                self.expectations.push(ExpectOutcome { line: line.line, text: line.text.clone(), step: self.sim.steps(), passed, actual });
            }
            Command::Start(crate::scenario::StartTarget::All) => {
                self.start_queue = self.sim.stopped_brokers().into();
                match self.start_queue.pop_front() {
                    Some(first) => self.start(first)?,
                    None => {
                        return Err(self.script_error(
                            "every declared broker is already running (or no cluster is declared: add a line such as cluster brokers=3)",
                        ))
                    }
                }
            }
            other => self.sim.act(&other).map_err(|e| self.script_error(&e))?,
        }
        Ok(())
    }

    fn start(&mut self, id: crate::kafka::BrokerId) -> Result<(), RunError> {
        self.sim.start_broker(id).map_err(|e| self.script_error(&e))?;
        self.mode = Mode::StartAll(id);
        Ok(())
    }

    fn script_error(&self, message: &str) -> RunError {
        RunError::Script(ScenarioError::at(self.current_line, 1, message))
    }

    /// Parses one command as a scenario line would be, checking it against
    /// the console sessions opened so far.
    fn parse_one(&self, text: &str, line_no: usize) -> Result<crate::scenario::Line, ScenarioError> {
        let relocate = |e: ScenarioError| ScenarioError { line: line_no, ..e };
        let mut parsed = crate::scenario::parse(text).map_err(relocate)?;
        let Some(mut line) = parsed.lines.pop() else {
            return Err(ScenarioError::at(line_no, 1, "expected a command"));
        };
        line.line = line_no;
        if let Command::Seed(_) = line.command {
            return Err(ScenarioError::at(line_no, 1, "the seed is fixed when the scenario starts"));
        }
        let mut check = Script { lines: vec![line.clone()], seed: 0 };
        for s in self.sim.console().sessions() {
            check.lines.insert(
                0,
                crate::scenario::Line {
                    line: 0,
                    text: String::new(),
                    command: Command::ZkSession { name: s.name.clone(), timeout_ms: None },
                },
            );
        }
        validate(&check).map_err(relocate)?;
        Ok(line)
    }

    /// Appends a command at the end of the script (the chaos driver records
    /// its run this way).
    pub fn append_line(&mut self, text: &str, line_no: usize) -> Result<(), ScenarioError> {
        let line = self.parse_one(text, line_no)?;
        Rc::make_mut(&mut self.script).lines.push(line);
        self.finished = false;
        Ok(())
    }

    /// An action taken now, in the middle of whatever the script is doing (a
    /// learner's click or console line): it runs before the next step, and
    /// the script then carries on where it was. Time commands are not
    /// actions: the learner moves time with the controls.
    pub fn inject(&mut self, text: &str) -> Result<(), ScenarioError> {
        let line = self.parse_action(text)?;
        self.inject_line(line);
        Ok(())
    }

    /// A learner's action, parsed and checked but not yet taken.
    pub fn parse_action(&self, text: &str) -> Result<crate::scenario::Line, ScenarioError> {
        let line = self.parse_one(text, 0)?;
        if matches!(line.command, Command::Run(_) | Command::RunUntilIdle { .. } | Command::Step(_)) {
            return Err(ScenarioError::at(0, 1, "time moves with the step and play controls; type an action or a zk command"));
        }
        Ok(line)
    }

    /// Takes an action from [`Runner::parse_action`] before the next step.
    pub fn inject_line(&mut self, line: crate::scenario::Line) {
        self.injected.push_back(line);
        self.finished = false;
    }

    /// Whether actions are waiting to run before the next step.
    pub fn has_injected(&self) -> bool {
        !self.injected.is_empty()
    }

    /// Runs the next injected action, keeping the script's mode for later.
    fn run_injected(&mut self, trace: &Trace) -> Result<bool, RunError> {
        if self.resume_after.is_some() {
            return Ok(false);
        }
        let Some(line) = self.injected.pop_front() else { return Ok(false) };
        // After the script's last line, time would stand still: an action
        // taken there lets the cluster play on for a while, so its
        // consequences (a session expiring, a new controller) show.
        let after_end = self.pc >= self.script.lines.len() && self.mode == Mode::NextLine;
        let saved = if after_end { Mode::RunUntil(self.sim.now().plus(AFTER_END_MS)) } else { self.mode };
        self.mode = Mode::NextLine;
        let saved_line = self.current_line;
        self.execute(line, trace)?;
        self.current_line = saved_line;
        if self.mode == Mode::NextLine {
            self.mode = saved;
        } else {
            self.resume_after = Some(saved);
        }
        Ok(true)
    }

    /// Plays to the end of the script.
    pub fn run_to_end(&mut self, trace: &mut Trace) -> Result<(), RunError> {
        while self.step(trace)? == StepOutcome::Stepped {}
        Ok(())
    }
}

/// Parses, validates and plays a whole scenario: what `kzsim run` does.
pub fn run_text(text: &str, limits: Limits) -> Result<(Runner, Trace), RunError> {
    let script = crate::scenario::parse(text).map_err(RunError::Script)?;
    validate(&script).map_err(RunError::Script)?;
    let mut runner = Runner::new(Rc::new(script), limits);
    let mut trace = Trace::default();
    runner.run_to_end(&mut trace)?;
    Ok((runner, trace))
}
