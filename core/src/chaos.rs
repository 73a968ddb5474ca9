//! Chaos runs (TigerBeetle's VOPR, Jepsen): a seeded driver picks faults and
//! actions that make sense in the cluster's current state — kills, restarts,
//! pauses longer and shorter than the session timeout, session expiries,
//! controlled shutdowns, log-dir failures, produce bursts, paused fetching,
//! topic creation and deletion, reassignments, preferred elections, dynamic
//! config changes (topic overrides, quotas, throttles) — and the
//! invariants are checked after every step. What it did is recorded as a
//! scenario, so a failure is reproduced by `kzsim run` and can be shrunk.

use crate::invariants::{InvariantChecker, Violation};
use crate::runner::{Limits, RunError, Runner, StepOutcome};
use crate::scenario::parse;
use crate::sim::{Rng, Sim};
use crate::trace::Trace;
use std::rc::Rc;

/// How a chaos run ended.
#[derive(Clone, Debug)]
pub struct ChaosReport {
    pub seed: u64,
    pub steps: u64,
    pub actions: usize,
    /// The scenario that replays the run.
    pub scenario: String,
    pub failure: Option<ChaosFailure>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChaosFailure {
    Invariant {
        step: u64,
        violation: Violation,
    },
    /// The simulator rejected an action the driver chose (a driver bug, or
    /// a simulator bug in what it reports as possible).
    Run(String),
}

const BROKERS: i32 = 4;

fn header(seed: u64) -> String {
    format!(
        "seed {seed}\n\
         broker-config zookeeper.session.timeout.ms=6000 replica.lag.time.max.ms=10000 controlled.shutdown.retry.backoff.ms=1000 leader.imbalance.check.interval.seconds=30\n\
         cluster brokers={BROKERS} log-dirs=2\n\
         start all\n\
         topic create orders partitions=4 replication-factor=3\n\
         topic create audit partitions=2 replication-factor=2\n\
         zk-session admin\n\
         run 3s\n"
    )
}

/// Runs `actions` chaos actions from `seed`, stopping at `max_steps`.
pub fn run(seed: u64, actions: usize, max_steps: u64) -> ChaosReport {
    let mut scenario = header(seed);
    let limits = Limits { max_steps: max_steps.saturating_add(10_000), ..Limits::default() };
    let mut report = ChaosReport { seed, steps: 0, actions: 0, scenario: String::new(), failure: None };
    let script = match parse(&scenario) {
        Ok(s) => s,
        Err(e) => {
            report.failure = Some(ChaosFailure::Run(e.to_string()));
            return report;
        }
    };
    let mut runner = Runner::new(Rc::new(script), limits);
    let mut trace = Trace::default();
    let mut checker = InvariantChecker::default();
    let mut rng = Rng::seeded(seed ^ 0x5EED_C4A0_5000_0001);
    let mut line_no = scenario.lines().count();
    let mut topics = 0u32;
    let result = (|| -> Result<(), ChaosFailure> {
        play(&mut runner, &mut trace, &mut checker)?;
        for _ in 0..actions {
            if runner.steps() >= max_steps {
                break;
            }
            for line in choose(runner.sim(), &mut rng, &mut topics) {
                line_no += 1;
                runner.append_line(&line, line_no).map_err(|e| ChaosFailure::Run(format!("{line}: {e}")))?;
                scenario.push_str(&line);
                scenario.push('\n');
                play(&mut runner, &mut trace, &mut checker)?;
            }
            report.actions += 1;
        }
        Ok(())
    })();
    report.steps = runner.steps();
    report.scenario = scenario;
    report.failure = result.err();
    report
}

/// Plays the inserted lines, checking the invariants after every step.
fn play(runner: &mut Runner, trace: &mut Trace, checker: &mut InvariantChecker) -> Result<(), ChaosFailure> {
    loop {
        match runner.step(trace) {
            Ok(StepOutcome::Stepped) => {
                checker.check(runner.sim()).map_err(|violation| ChaosFailure::Invariant { step: runner.steps(), violation })?;
            }
            Ok(StepOutcome::Finished) => return Ok(()),
            Err(RunError::StepBudget { .. }) | Err(RunError::EventBudget { .. }) => return Ok(()),
            Err(e) => return Err(ChaosFailure::Run(e.to_string())),
        }
    }
}

/// One action that can apply now, then a pause of random length.
fn choose(sim: &Sim, rng: &mut Rng, topics: &mut u32) -> Vec<String> {
    let brokers = sim.brokers();
    let pick = |rng: &mut Rng, pred: &dyn Fn(&crate::kafka::server::Broker) -> bool| -> Option<i32> {
        let ids: Vec<i32> = brokers.values().filter(|b| pred(b)).map(|b| b.id).collect();
        (!ids.is_empty()).then(|| ids[rng.index(ids.len())])
    };
    let running = |b: &crate::kafka::server::Broker| b.state_name() == "running";
    let mut out = Vec::new();
    let action = match rng.range_inclusive(0, 18) {
        0 | 1 => pick(rng, &running).map(|b| format!("kill broker {b}")),
        2 | 3 => pick(rng, &|b| !b.is_alive()).map(|b| format!("restart broker {b}")),
        4 => pick(rng, &running).map(|b| format!("shutdown broker {b}")),
        5 => pick(rng, &running).map(|b| format!("pause broker {b}")),
        6 => pick(rng, &|b| b.is_alive() && b.paused).map(|b| format!("resume broker {b}")),
        7 => pick(rng, &running).map(|b| format!("expire-session broker {b}")),
        8 | 9 => Some(format!(
            "produce {}-{} messages={}",
            ["orders", "audit"][rng.index(2)],
            rng.range_inclusive(0, 1),
            rng.range_inclusive(1, 500)
        )),
        10 => {
            pick(rng, &running)
                .map(|b| if rng.chance(1, 2) { format!("pause-fetch broker {b}") } else { format!("resume-fetch broker {b}") })
        }
        11 => pick(rng, &running).map(|b| format!("fail-log-dir broker {b} dir {}", rng.range_inclusive(0, 1))),
        12 if sim.zk().tree().get("/admin/preferred_replica_election").is_none() => Some("elect-preferred".to_string()),
        13 if sim.zk().tree().get("/admin/reassign_partitions").is_none() => {
            let mut ids: Vec<i32> = (0..BROKERS).collect();
            let mut replicas = Vec::new();
            for _ in 0..3 {
                replicas.push(ids.remove(rng.index(ids.len())));
            }
            Some(format!(
                "reassign orders-{} replicas={}",
                rng.range_inclusive(0, 3),
                replicas.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(",")
            ))
        }
        14 if sim.zk().tree().get("/brokers/ids").map(|n| n.stat.num_children).unwrap_or(0) >= 2 => {
            *topics += 1;
            Some(format!("topic create chaos{topics} partitions={} replication-factor=2", rng.range_inclusive(1, 3)))
        }
        15 if *topics > 0
            && sim.zk().tree().get(&format!("/brokers/topics/chaos{topics}")).is_some()
            && sim.zk().tree().get(&format!("/admin/delete_topics/chaos{topics}")).is_none() =>
        {
            Some(format!("topic delete chaos{topics}"))
        }
        16 => Some(topic_config_change(sim, rng)),
        17 => Some(match rng.range_inclusive(0, 2) {
            0 => format!("config alter clients <default> set producer_byte_rate={}", rng.range_inclusive(1024, 1 << 20)),
            1 => format!("config alter users app-user clients <default> set consumer_byte_rate={}", rng.range_inclusive(1024, 1 << 20)),
            _ => format!(
                "config alter brokers {} set leader.replication.throttled.rate={}",
                rng.range_inclusive(0, BROKERS as u64 - 1),
                rng.range_inclusive(1024, 1 << 20)
            ),
        }),
        // An operator deletes /controller by hand to move the controller.
        18 if sim.zk().tree().get("/controller").is_some() => Some("zk admin delete /controller".to_string()),
        _ => None,
    };
    out.extend(action);
    // Pauses both shorter and longer than the 6 s session timeout.
    let wait = match rng.range_inclusive(0, 3) {
        0 => rng.range_inclusive(1, 200),
        1 => rng.range_inclusive(200, 3000),
        2 => rng.range_inclusive(3000, 8000),
        _ => rng.range_inclusive(8000, 20000),
    };
    out.push(format!("run {wait}ms"));
    out
}

/// A change to orders' overrides: set or delete retention.ms (a delete only
/// when it is set, as kafka-configs refuses otherwise), or throttle it; or
/// unclean leader election turned on or off for either topic, so that
/// leaders are elected without records their followers hold (truncation).
fn topic_config_change(sim: &Sim, rng: &mut Rng) -> String {
    let has_retention =
        sim.zk().tree().get("/config/topics/orders").map(|n| String::from_utf8_lossy(&n.data).contains("retention.ms")).unwrap_or(false);
    match rng.range_inclusive(0, 3) {
        0 if has_retention => "config alter topics orders delete retention.ms".into(),
        2 => format!("config alter topics orders set leader.replication.throttled.replicas=[0:{},1:{}]", rng.index(4), rng.index(4)),
        3 => format!("config alter topics {} set unclean.leader.election.enable={}", ["orders", "audit"][rng.index(2)], rng.chance(1, 2)),
        _ => format!("config alter topics orders set retention.ms={}", rng.range_inclusive(1000, 600_000)),
    }
}

/// Replays a scenario text with the invariants checked after every step.
pub fn replay(text: &str, max_steps: u64) -> Result<(), ChaosFailure> {
    let script = parse(text).map_err(|e| ChaosFailure::Run(e.to_string()))?;
    crate::runner::validate(&script).map_err(|e| ChaosFailure::Run(e.to_string()))?;
    let mut runner = Runner::new(Rc::new(script), Limits { max_steps, ..Limits::default() });
    let mut trace = Trace::default();
    play(&mut runner, &mut trace, &mut InvariantChecker::default())
}

/// Shrinks a failing scenario: drop action lines (after the header) one at a
/// time while the same invariant still fails.
pub fn minimize(text: &str, failure: &ChaosFailure, max_steps: u64) -> String {
    let same = |f: &ChaosFailure| match (f, failure) {
        (ChaosFailure::Invariant { violation: a, .. }, ChaosFailure::Invariant { violation: b, .. }) => a.invariant == b.invariant,
        _ => false,
    };
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let keep = header(0).lines().count();
    let mut i = lines.len();
    while i > keep {
        i -= 1;
        let mut candidate = lines.clone();
        candidate.remove(i);
        let joined = candidate.join("\n") + "\n";
        if let Err(f) = replay(&joined, max_steps) {
            if same(&f) {
                lines = candidate;
            }
        }
    }
    lines.join("\n") + "\n"
}
