//! Determinism: the same scenario gives byte-identical traces and states, and
//! seeking to step n on the timeline gives exactly the state reached by
//! stepping n times from the start.

mod support;

use kzsim::runner::dump::dump_json;
use kzsim::runner::{run_text, validate, Limits, Runner, StepOutcome, Timeline};
use kzsim::scenario::parse;
use kzsim::sim::Rng;
use kzsim::trace::Trace;
use std::rc::Rc;

fn trace_text(trace: &Trace) -> String {
    trace.entries().iter().map(|e| e.to_json_line() + "\n").collect()
}

#[test]
fn the_same_scenario_gives_byte_identical_trace_and_state() {
    let builtin = include_str!("../static/scenarios/zk-basics.kzs").to_string();
    for text in [builtin, support::random_console_scenario(7, 300)] {
        let (r1, t1) = run_text(&text, Limits::default()).unwrap();
        let (r2, t2) = run_text(&text, Limits::default()).unwrap();
        assert!(!t1.is_empty());
        assert_eq!(trace_text(&t1), trace_text(&t2));
        assert_eq!(dump_json(r1.sim()), dump_json(r2.sim()));
    }
}

/// The state after exactly `n` steps from a fresh start.
fn state_after(script: &Rc<kzsim::scenario::Script>, n: u64) -> (String, u64) {
    let mut runner = Runner::new(script.clone(), Limits::default());
    let mut trace = Trace::default();
    while runner.steps() < n {
        if runner.step(&mut trace).unwrap() == StepOutcome::Finished {
            break;
        }
    }
    (dump_json(runner.sim()), runner.steps())
}

#[test]
fn seek_equals_stepping_from_the_start() {
    // A property over random scenarios and random seek orders.
    for seed in 0..12u64 {
        let text = support::random_console_scenario(seed, 120);
        let script = parse(&text).unwrap();
        validate(&script).unwrap();
        let script = Rc::new(script);
        let mut timeline = Timeline::new(script.clone(), Limits::default());
        timeline.run_to_end();
        let total = timeline.known_steps();
        assert!(total > 50, "seed {seed}: only {total} steps");
        let mut rng = Rng::seeded(seed);
        for _ in 0..15 {
            let n = rng.range_inclusive(0, total);
            timeline.seek(n);
            assert_eq!(timeline.position(), n);
            let (expected, steps) = state_after(&script, n);
            assert_eq!(steps, n);
            assert_eq!(dump_json(timeline.current().sim()), expected, "seed {seed}: seek({n}) differs from stepping {n} times");
        }
    }
}

/// The page settles the timeline after each step's frame; a headless run
/// lets each move settle the one before. Both keep the same keyframes, and
/// a seek from them reaches the same states, actions included.
#[test]
fn a_keyframe_taken_late_is_the_keyframe_taken_at_once() {
    for seed in 0..4u64 {
        let text = support::random_console_scenario(seed + 40, 150);
        let script = Rc::new(parse(&text).unwrap());
        let (mut eager, mut lazy) = (Timeline::new(script.clone(), Limits::default()), Timeline::new(script, Limits::default()));
        let mut rng = Rng::seeded(seed);
        let mut unsettled = 0;
        loop {
            let (a, b) = (eager.step_forward(), lazy.step_forward());
            assert_eq!(a, b);
            unsettled += usize::from(!eager.is_settled());
            eager.settle();
            if !a {
                break;
            }
            if rng.range_inclusive(0, 40) == 0 {
                let back = rng.range_inclusive(0, eager.position());
                for t in [&mut eager, &mut lazy] {
                    t.seek(back);
                    t.inject("kill broker 1").unwrap();
                }
            }
        }
        assert!(unsettled > 3, "seed {seed}: only {unsettled} keyframes earned");
        lazy.settle();
        assert_eq!(eager.keyframe_steps(), lazy.keyframe_steps(), "seed {seed}");
        for _ in 0..8 {
            let n = rng.range_inclusive(0, eager.known_steps());
            eager.seek(n);
            lazy.seek(n);
            assert_eq!(dump_json(eager.current().sim()), dump_json(lazy.current().sim()), "seed {seed}: seek({n})");
        }
    }
}

#[test]
fn keyframes_stay_bounded_on_long_runs() {
    let text = support::random_console_scenario(99, 9000);
    let script = Rc::new(parse(&text).unwrap());
    let mut timeline = Timeline::new(script, Limits::default());
    timeline.run_to_end();
    assert!(timeline.known_steps() > 4096, "{} steps: too few to thin the keyframes", timeline.known_steps());
    assert!(timeline.keyframe_count() <= 129, "{} keyframes", timeline.keyframe_count());
    let last = timeline.known_steps();
    timeline.seek(last / 3);
    timeline.seek(last);
    assert_eq!(timeline.position(), last);
}

#[test]
fn acting_branches_and_replays_identically() {
    use kzsim::sandbox::Sandbox;
    let text =
        "broker-config zookeeper.session.timeout.ms=6000\ncluster brokers=3\nstart all\ntopic create t assignment=0:1,2,0\nrun 30s\n";
    let mut sb = Sandbox::load(text).unwrap();
    sb.run_for(150);
    let p = sb.position();
    sb.act("kill broker 1").unwrap();
    assert_eq!(sb.known_steps(), p, "acting forgets the old future");
    sb.run_for(10_000);
    let end = sb.position();
    // The state "after step n" is the one right after that step: move off the
    // end (where the script's last run went on to its deadline) and back.
    sb.seek(end - 1);
    sb.seek(end);
    let after = dump_json(sb.timeline().current().sim());
    assert!(after.contains("\"leader\": 2"), "the kill took effect");
    // Back before the action and forward again: the action is replayed.
    sb.seek(p / 2);
    sb.seek(end);
    let again = dump_json(sb.timeline().current().sim());
    if again != after {
        let diff: Vec<String> = after
            .lines()
            .zip(again.lines())
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .take(8)
            .map(|(i, (a, b))| format!("line {i}: {a} | {b}"))
            .collect();
        panic!("replay after acting differs:\n{}", diff.join("\n"));
    }
    assert!(sb.act("run 5s").is_err(), "time moves with the controls");
    assert!(sb.act("kill broker 9").is_ok(), "a bad action is only found when it runs");
}

#[test]
fn an_action_after_the_end_lets_the_cluster_play_on() {
    use kzsim::sandbox::Sandbox;
    let mut sb = Sandbox::load("cluster brokers=3\nstart all\nrun 2s\n").unwrap();
    sb.run_for(100_000);
    assert!(sb.end().is_some());
    let t0 = sb.view().time_ms;
    sb.act("kill broker 0").unwrap();
    sb.run_for(100_000);
    let v = sb.view();
    assert!(v.time_ms >= t0 + 60_000, "time went on: {} → {}", t0, v.time_ms);
    assert_ne!(v.controller, Some(0), "the session expired and another broker took over");
}

/// The view cache lends a view only what cannot have changed: wherever the
/// timeline goes (forward, back, far seeks, a branch after an action), the
/// sandbox's cached view is the view built afresh, window or not.
#[test]
fn a_cached_view_is_the_view_built_afresh() {
    cached_views_match_fresh_ones(include_str!("../static/scenarios/controller-failover.kzs"), 600);
}

/// The same with a topic big enough for the metadata caches to share the
/// controller's request lists (a run, and brokers with one layout).
#[test]
fn a_cached_view_of_shared_metadata_is_the_view_built_afresh() {
    let text = "cluster brokers=4\nstart all\ntopic create big partitions=100 replication-factor=3\nrun 5s\nkill broker 1\nrun 8s\nstart broker 1\nrun 8s\n";
    cached_views_match_fresh_ones(text, 2_000);
}

/// The same across a topic deleted and created again under its name: the
/// cache keeps the decoded znodes a view did not read, and the old topic's
/// must never pass for the new one's (other replicas, other leaders).
#[test]
fn a_cached_view_across_a_topic_made_again_is_the_view_built_afresh() {
    let text = "cluster brokers=3\nstart all\ntopic create t partitions=4 replication-factor=2\nrun 3s\ntopic delete t\nrun 5s\ntopic create t partitions=6 replication-factor=3\nrun 5s\n";
    cached_views_match_fresh_ones(text, 520);
}

fn cached_views_match_fresh_ones(text: &str, seek_within: u64) {
    use kzsim::sandbox::Sandbox;
    use kzsim::view::{view, Window};
    let mut sandbox = Sandbox::load(text).unwrap();
    let mut rng = Rng::seeded(11);
    let page = Window { filter: "-1".into(), limit: 3 };
    for round in 0..120 {
        match rng.index(6) {
            _ if round % 40 == 7 => sandbox.act(["kill broker 1", "start broker 1", "kill broker 2"][round / 40]).unwrap(),
            0 => sandbox.seek(rng.range_inclusive(0, seek_within)),
            1 => sandbox.step_back(),
            _ => {
                sandbox.run_for(rng.range_inclusive(1, 20));
            }
        }
        let fresh = view(sandbox.timeline());
        assert_eq!(sandbox.view(), fresh, "round {round}, step {}", sandbox.position());
        let windowed = sandbox.view_window(&page);
        let wanted: Vec<_> = fresh.partitions.iter().filter(|p| p.tp.contains("-1")).take(3).cloned().collect();
        assert_eq!(
            (windowed.partitions, windowed.partition_matches),
            (wanted, fresh.partitions.iter().filter(|p| p.tp.contains("-1")).count())
        );
        assert_eq!(windowed.znodes, fresh.znodes);
        assert_eq!(windowed.brokers, fresh.brokers);
        assert_eq!(windowed.belief_partitions, fresh.belief_partitions);
    }
}

/// Whatever path the learner takes — steps, steps back, seeks, actions — the
/// trace holds exactly what a straight walk forward, acting at the same
/// steps, records: every new step described, even when it comes from an
/// event that began in a replay (whose known steps were not described).
#[test]
fn every_path_records_the_trace_a_straight_walk_records() {
    use kzsim::sandbox::Sandbox;
    let failover = include_str!("../static/scenarios/controller-failover.kzs");
    // Broker 3 is the learner's: the script never touches it.
    let cluster = "cluster brokers=4\nstart all\ntopic create big partitions=60 replication-factor=3\nrun 5s\nkill broker 1\nrun 8s\n";
    for (seed, text, acts) in [(1u64, failover, false), (2, cluster, true), (3, failover, false), (4, cluster, true), (5, cluster, true)] {
        let mut rng = Rng::seeded(seed);
        let mut sandbox = Sandbox::load(text).unwrap();
        for round in 0..60 {
            match rng.index(8) {
                _ if acts && round % 20 == 10 => {
                    let stopped = sandbox.view().brokers.iter().any(|b| b.id == 3 && b.state == "stopped");
                    sandbox.act(if stopped { "start broker 3" } else { "kill broker 3" }).unwrap();
                }
                0 => sandbox.seek(rng.range_inclusive(0, sandbox.known_steps())),
                1 | 2 => {
                    for _ in 0..rng.range_inclusive(1, 4) {
                        sandbox.step_back();
                    }
                }
                _ => {
                    sandbox.run_for(rng.range_inclusive(1, 40));
                }
            }
        }
        let known = sandbox.known_steps();
        assert_eq!(!sandbox.timeline().injections().is_empty(), acts, "seed {seed}: the actions were taken");
        // The straight walk: forward only, acting where the learner's
        // actions stand.
        let mut walk = Sandbox::load(text).unwrap();
        for (at, action) in sandbox.timeline().injections().to_vec() {
            while walk.position() < at && walk.step_forward() {}
            walk.act(&action).unwrap();
        }
        while walk.position() < known && walk.step_forward() {}
        assert_eq!(sandbox.trace().len(), walk.trace().len(), "seed {seed}");
        for (a, b) in sandbox.trace().iter().zip(walk.trace()) {
            assert_eq!(a, b, "seed {seed}: step {} differs from the straight walk's", a.step);
        }
    }
}

/// An action taken where the timeline stopped (the script over, its last
/// `run` gone on to its deadline) runs at that time whether the timeline
/// got there by "run to the end", by a replay, or by a permalink's walk
/// that only steps to the end.
#[test]
fn an_action_at_the_end_runs_the_same_however_the_timeline_got_there() {
    use kzsim::sandbox::Sandbox;
    let text = "cluster brokers=3\nstart all\nrun 2s\n";
    let mut first = Sandbox::load(text).unwrap();
    first.run_for(100_000);
    let end = first.position();
    first.act("kill broker 1").unwrap();
    first.run_for(200);
    let known = first.known_steps();
    let acted = first.trace()[end as usize].clone();
    assert!(acted.time_ms > first.trace()[end as usize - 1].time_ms, "the action runs at the last run's deadline: {acted:?}");
    // Back before it and forward again: the same steps (a replay that
    // diverged would also trip the runner's debug check).
    first.seek(end / 2);
    first.seek(known);
    assert_eq!(first.trace()[end as usize], acted);
    // A permalink's walk: to the step, then the action.
    let mut walk = Sandbox::load(text).unwrap();
    walk.seek(end);
    walk.act("kill broker 1").unwrap();
    walk.seek(known);
    assert_eq!(walk.trace(), first.trace());
}
