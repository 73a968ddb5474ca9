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
use std::sync::Arc;
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
    script: Arc<Script>,
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
}

impl Runner {
    /// A runner for a script that passed [`validate`].
    pub fn new(script: Arc<Script>, limits: Limits) -> Runner {
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
        }
    }

    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    pub fn script(&self) -> &Arc<Script> {
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
            if let Some(entry) = self.sim.take_step() {
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
            self.advance(trace)?;
        }
    }

    fn hand_out(&mut self, entry: TraceEntry, trace: &mut Trace) {
        if let Mode::Steps(n) = self.mode {
            self.mode = if n <= 1 { Mode::NextLine } else { Mode::Steps(n - 1) };
        }
        // Replaying from a keyframe re-derives steps the trace already has.
        if trace.len() as u64 >= entry.step {
            debug_assert_eq!(trace.entries()[entry.step as usize - 1], entry, "replay diverged");
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
        let Some(line) = self.script.lines.get(self.pc).cloned() else {
            self.finished = true;
            return Ok(());
        };
        self.pc += 1;
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

    /// Inserts a command to run next, before the rest of the script (an
    /// action taken at the app's console, or by the chaos driver). The text
    /// is parsed and validated like a scenario line; its line number is the
    /// one given.
    pub fn insert_next(&mut self, text: &str, line_no: usize) -> Result<(), ScenarioError> {
        let mut parsed = crate::scenario::parse(text).map_err(|e| ScenarioError { line: line_no, ..e })?;
        let Some(mut line) = parsed.lines.pop() else {
            return Err(ScenarioError::at(line_no, 1, "expected a command"));
        };
        line.line = line_no;
        if let Command::Seed(_) = line.command {
            return Err(ScenarioError::at(line_no, 1, "the seed is fixed when the scenario starts"));
        }
        let mut check = Script { lines: vec![line.clone()], seed: 0 };
        // Console sessions opened earlier count as known.
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
        validate(&check).map_err(|e| ScenarioError { line: line_no, ..e })?;
        std::sync::Arc::make_mut(&mut self.script).lines.insert(self.pc, line);
        self.finished = false;
        Ok(())
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
    let mut runner = Runner::new(Arc::new(script), limits);
    let mut trace = Trace::default();
    runner.run_to_end(&mut trace)?;
    Ok((runner, trace))
}
