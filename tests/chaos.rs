//! Property tests over random fault schedules: seeded chaos runs (kills,
//! restarts, pauses longer and shorter than the session timeout, session
//! expiries, controlled shutdowns, log-dir failures, produce bursts, paused
//! fetching, topic creation and deletion, reassignments, preferred
//! elections), with every invariant of `kzsim::invariants` checked after
//! every step. A failure prints the seed and a shrunk scenario to replay.

use kzsim::chaos::{minimize, replay, run, ChaosFailure};

#[test]
fn invariants_hold_under_random_fault_schedules() {
    let mut steps = 0;
    for seed in 1..=8 {
        let r = run(seed, 60, 12_000);
        steps += r.steps;
        if let Some(f) = &r.failure {
            let small = match f {
                ChaosFailure::Invariant { .. } => minimize(&r.scenario, f, 25_000),
                ChaosFailure::Run(_) => r.scenario.clone(),
            };
            panic!("chaos seed {seed}: {f:?}\n--- replay with kzsim run ---\n{small}");
        }
        assert!(r.actions > 0);
    }
    assert!(steps > 20_000, "the runs took only {steps} steps");
}

#[test]
fn a_chaos_run_replays_from_its_scenario() {
    let r = run(5, 20, 5_000);
    assert!(r.failure.is_none(), "{:?}", r.failure);
    assert!(r.scenario.lines().count() > 20);
    replay(&r.scenario, 20_000).expect("the recorded scenario replays with every invariant");
}

/// Chaos failures, shrunk, become regression scenarios: each must now play
/// with every invariant holding after every step.
#[test]
fn chaos_regressions_replay_with_every_invariant() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/chaos_regressions");
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "kzs")).collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        if let Err(e) = replay(&text, 50_000) {
            panic!("{}: {e:?}", f.display());
        }
    }
}
