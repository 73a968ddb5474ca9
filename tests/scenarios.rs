//! Every scenario file is a specification: each `expect` line must hold.
//! Runs `tests/scenarios/**/*.kzs` and the built-in `static/scenarios/*.kzs`.

use kzsim::runner::{run_text, Limits};
use std::path::{Path, PathBuf};

fn scenario_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            scenario_files(&p, out);
        } else if p.extension().and_then(|e| e.to_str()) == Some("kzs") {
            out.push(p);
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run_all(dir: &str) -> usize {
    let mut files = Vec::new();
    scenario_files(&root().join(dir), &mut files);
    let mut failures = Vec::new();
    for f in &files {
        let name = f.strip_prefix(root()).unwrap_or(f).display().to_string();
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{name}: {e}"));
        match run_text(&text, Limits::default()) {
            Err(e) => failures.push(e.render(&name)),
            Ok((runner, _)) => {
                for x in runner.expectations().iter().filter(|x| !x.passed) {
                    failures.push(format!("{name}:{}: expect failed: {} (actual: {})", x.line, x.text, x.actual));
                }
                if runner.expectations().is_empty() {
                    failures.push(format!("{name}: a scenario test must expect something"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    files.len()
}

#[test]
fn specification_scenarios_hold() {
    assert!(run_all("tests/scenarios") >= 4);
}

#[test]
fn built_in_scenarios_hold() {
    assert!(run_all("static/scenarios") >= 1);
}

/// `createTopicPartitionStatesRaw`, as Kafka 2.8.2 orders it: `/partitions`
/// once for each topic of the batch, then every `/partitions/<p>`, then every
/// `/state`; each a fenced create.
#[test]
fn a_new_topic_creates_partitions_then_each_partition_then_each_state() {
    let text = "cluster brokers=3\nstart all\ntopic create t partitions=3 replication-factor=2\nrun 2s\n";
    let (_, trace) = run_text(text, Limits::default()).expect("runs");
    let creates: Vec<&str> = trace
        .entries()
        .iter()
        .filter(|e| e.source == "KafkaZkClient.createTopicPartitionStatesRaw")
        .map(|e| e.summary.split(" → ").next().unwrap_or_default())
        .collect();
    let p = "create /brokers/topics/t/partitions";
    assert_eq!(
        creates,
        [
            p.to_string(),
            format!("{p}/0"),
            format!("{p}/1"),
            format!("{p}/2"),
            format!("{p}/0/state"),
            format!("{p}/1/state"),
            format!("{p}/2/state")
        ]
    );
}

/// A follower ahead of its leader (after an unclean election) truncates
/// before it rejoins the ISR: its first fetch, beyond the leader's LEO, is a
/// failed read that gives it no fetch state (`updateFollowerFetchState`
/// skips it) and is answered at once, not parked.
#[test]
fn a_follower_ahead_of_its_leader_truncates_before_it_rejoins_the_isr() {
    let text = std::fs::read_to_string(root().join("tests/scenarios/replica/truncation.kzs")).expect("the scenario");
    let (_, trace) = run_text(&text, Limits::default()).expect("runs");
    let step =
        |needle: &str| trace.entries().iter().position(|e| e.summary.contains(needle)).unwrap_or_else(|| panic!("no step says {needle:?}"));
    let truncated = step("t-0: truncated from leader 1: LEO 10 → 3");
    let rejoined = step("t-0: ISR [1] → [1, 0]");
    assert!(truncated < rejoined, "broker 0 rejoined the ISR (step {rejoined}) before it truncated (step {truncated})");
    let gap = trace.entries()[rejoined].time_ms - trace.entries()[truncated].time_ms;
    assert!(gap < 100, "the out-of-range fetch was parked: {gap} ms between truncation and ISR");
}
