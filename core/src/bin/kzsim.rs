//! `kzsim`: runs scenarios headless.
//!
//! ```text
//! kzsim run FILE.kzs [--dump-state OUT.json] [--trace OUT.jsonl] [--quiet]
//! kzsim check FILE.kzs
//! ```
//! Exit 0: every `expect` held. 1: an `expect` failed. 2: the script is
//! malformed or asks for something impossible.

use kzsim::runner::{dump, validate, Limits, RunError, Runner};
use kzsim::scenario::{self, ScenarioError};
use kzsim::trace::Trace;
use std::io::Write;
use std::process::ExitCode;
use std::rc::Rc;

/// mimalloc rather than the system's malloc: a run of 100,000 partitions
/// makes millions of small allocations, and glibc's malloc and free were a
/// third of its CPU time; with mimalloc a third less time in all (issue 9,
/// docs/performance.md). What the simulator does is the same.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage:
  kzsim run FILE.kzs [--dump-state OUT.json] [--trace OUT.jsonl] [--quiet]
  kzsim check FILE.kzs
  kzsim chaos [--seeds N] [--first-seed S] [--actions A] [--steps MAX_STEPS_PER_SEED]";

struct RunArgs {
    file: String,
    dump_state: Option<String>,
    trace: Option<String>,
    quiet: bool,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => match parse_run_args(&args[1..]) {
            Ok(a) => run(a),
            Err(e) => usage_error(&e),
        },
        Some("check") if args.len() == 2 => check(&args[1]),
        Some("chaos") => match parse_chaos_args(&args[1..]) {
            Ok(a) => chaos(a),
            Err(e) => usage_error(&e),
        },
        Some("--help") | Some("-h") | Some("help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => usage_error("expected a command"),
    }
}

struct ChaosArgs {
    seeds: u64,
    first: u64,
    actions: usize,
    steps: u64,
}

fn parse_chaos_args(args: &[String]) -> Result<ChaosArgs, String> {
    let mut a = ChaosArgs { seeds: 10, first: 1, actions: 100, steps: 20_000 };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a number"))?;
        let n: u64 = value.parse().map_err(|_| format!("{flag} needs a whole number, not {value}"))?;
        match flag.as_str() {
            "--seeds" => a.seeds = n,
            "--first-seed" => a.first = n,
            "--actions" => a.actions = n as usize,
            "--steps" => a.steps = n,
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(a)
}

/// Seeded chaos runs with the invariants checked after every step.
fn chaos(a: ChaosArgs) -> ExitCode {
    let (mut total_steps, mut total_actions) = (0u64, 0usize);
    for seed in a.first..a.first.saturating_add(a.seeds) {
        let r = kzsim::chaos::run(seed, a.actions, a.steps);
        total_steps += r.steps;
        total_actions += r.actions;
        if let Some(f) = &r.failure {
            eprintln!("chaos seed {seed} FAILED after {} steps: {f:?}", r.steps);
            let small = match f {
                kzsim::chaos::ChaosFailure::Invariant { .. } => kzsim::chaos::minimize(&r.scenario, f, a.steps + 10_000),
                kzsim::chaos::ChaosFailure::Run(_) => r.scenario.clone(),
            };
            eprintln!("--- a scenario that reproduces it (kzsim run it) ---\n{small}---");
            println!("{} passed, 1 failed", seed - a.first);
            return ExitCode::from(1);
        }
    }
    println!("chaos: {} seeds, {total_actions} actions, {total_steps} steps, every invariant held after every step", a.seeds);
    println!("{} passed, 0 failed", a.seeds);
    ExitCode::SUCCESS
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("kzsim: {msg}\n{USAGE}");
    ExitCode::from(2)
}

fn parse_run_args(args: &[String]) -> Result<RunArgs, String> {
    let mut a = RunArgs { file: String::new(), dump_state: None, trace: None, quiet: false };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--dump-state" => a.dump_state = Some(it.next().ok_or("--dump-state needs a file name")?.clone()),
            "--trace" => a.trace = Some(it.next().ok_or("--trace needs a file name")?.clone()),
            "--quiet" => a.quiet = true,
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            s if a.file.is_empty() => a.file = s.to_string(),
            s => return Err(format!("unexpected argument {s}")),
        }
    }
    if a.file.is_empty() {
        return Err("run needs a scenario file".into());
    }
    Ok(a)
}

/// Reads the scenario as UTF-8 text, locating the first invalid byte.
fn read_scenario(file: &str) -> Result<String, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("{file}:1:1: error: cannot read the scenario: {e}"))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = at - before.iter().rposition(|&b| b == b'\n').map(|p| p + 1).unwrap_or(0) + 1;
        format!("{file}:{line}:{col}: error: the scenario is not UTF-8 text (invalid byte 0x{:02x})", e.as_bytes()[at])
    })
}

fn parse_and_validate(file: &str) -> Result<scenario::Script, String> {
    let text = read_scenario(file)?;
    let script = scenario::parse(&text).map_err(|e: ScenarioError| e.render(file))?;
    validate(&script).map_err(|e| e.render(file))?;
    Ok(script)
}

fn check(file: &str) -> ExitCode {
    match parse_and_validate(file) {
        Ok(script) => {
            println!("{file}: ok ({} commands)", script.lines.len());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}

fn run(a: RunArgs) -> ExitCode {
    let script = match parse_and_validate(&a.file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    // Without `expect trace contains`, nothing looks back at a step once it
    // is printed and written: the trace lets go of it.
    let looks_back =
        script.lines.iter().any(|l| matches!(&l.command, scenario::Command::Expect(e) if e.subject == scenario::Subject::Trace));
    let mut out = TraceFile::create(a.trace.as_deref());
    let mut runner = Runner::new(Rc::new(script), Limits::default());
    // Nothing reads the steps at all: they are counted, not described nor held.
    if a.quiet && a.trace.is_none() && !looks_back {
        runner.set_records_unread();
    }
    let mut trace = Trace::default();
    let mut printed = 0;
    let result = loop {
        match runner.step(&mut trace) {
            Ok(kzsim::runner::StepOutcome::Stepped) => {
                // Steps only counted (records unread) are never held nor shown.
                let held_from = trace.len() - trace.entries().len();
                let new = &trace.entries()[printed.max(held_from) - held_from..];
                if !a.quiet {
                    for e in new {
                        println!(
                            "#{:<5} {:>10}  {:<28} {}  [{}]",
                            e.step,
                            kzsim::sim::Millis(e.time_ms).to_string(),
                            e.actor,
                            e.summary,
                            e.source
                        );
                    }
                }
                out.write(new);
                printed = trace.len();
                if !looks_back {
                    trace.forget();
                }
            }
            Ok(kzsim::runner::StepOutcome::Finished) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    if let Err(e) = out.finish().and_then(|()| write_dump(&a, &runner)) {
        eprintln!("kzsim: {e}");
        return ExitCode::from(2);
    }
    if let Err(e) = result {
        eprintln!("{}", RunError::render(&e, &a.file));
        return ExitCode::from(2);
    }
    let failed: Vec<_> = runner.expectations().iter().filter(|x| !x.passed).collect();
    for f in &failed {
        eprintln!("{}:{}: expect failed: {} (actual: {})", a.file, f.line, f.text, f.actual);
    }
    if !a.quiet {
        let total = runner.expectations().len();
        println!("{} steps, virtual time {}, {}/{} expectations held", runner.steps(), runner.sim().now(), total - failed.len(), total);
    }
    let code = if failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    // The process ends here: freeing a big cluster's state one allocation
    // at a time would take a noticeable share of the run, for nothing.
    std::mem::forget(runner);
    code
}

/// `--trace`: each step's JSON line, written as the step is handed out.
/// An error (the file cannot be created or written) is kept and reported
/// when the run is over, after the steps printed.
struct TraceFile {
    path: String,
    out: Option<Result<std::io::BufWriter<std::fs::File>, String>>,
}

impl TraceFile {
    fn create(path: Option<&str>) -> TraceFile {
        let out = path.map(|p| std::fs::File::create(p).map(std::io::BufWriter::new).map_err(|e| format!("cannot write {p}: {e}")));
        TraceFile { path: path.unwrap_or_default().to_string(), out }
    }

    fn write(&mut self, entries: &[kzsim::trace::TraceEntry]) {
        let Some(Ok(w)) = &mut self.out else { return };
        for e in entries {
            if let Err(err) = writeln!(w, "{}", e.to_json_line()) {
                self.out = Some(Err(format!("cannot write {}: {err}", self.path)));
                return;
            }
        }
    }

    fn finish(self) -> Result<(), String> {
        match self.out {
            None => Ok(()),
            Some(Ok(mut w)) => w.flush().map_err(|e| format!("cannot write {}: {e}", self.path)),
            Some(Err(e)) => Err(e),
        }
    }
}

fn write_dump(a: &RunArgs, runner: &Runner) -> Result<(), String> {
    if let Some(path) = &a.dump_state {
        std::fs::write(path, dump::dump_json(runner.sim())).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    Ok(())
}
