//! Bad input never panics: random bytes, token soup and mutated scenarios all
//! give either a script or an error located at a real line and column. Those
//! that parse are also played under a small budget, which must not panic.

mod support;

use kzsim::runner::{run_text, Limits};
use kzsim::scenario::parse;
use kzsim::sim::Rng;

const WORDS: &[&str] = &[
    "zk",
    "zk-session",
    "a",
    "create",
    "-e",
    "-s",
    "-w",
    "-v",
    "get",
    "set",
    "delete",
    "ls",
    "stat",
    "close",
    "expire",
    "/",
    "/a",
    "/a/",
    "//",
    "run",
    "5s",
    "until-idle",
    "max",
    "step",
    "expect",
    "znode",
    "data",
    "data.x",
    "data[\"a.b\"]",
    "==",
    "!=",
    "in",
    "contains",
    "[1,",
    "2]",
    "\"",
    "\"a b\"",
    "#",
    "seed",
    "42",
    "-1",
    "99999999999999999999",
    "cluster",
    "brokers=3",
    "topic",
    "trace",
    "controller",
    "null",
    "true",
    "{",
    "}",
    "\u{0}",
    "\u{7f}",
    "é",
    "😀",
    "timeout=1",
    "=",
    "broker",
    "1",
];

/// Parses `text` and, if it parses, plays it under a small budget; true if it was played.
fn check(text: &str) -> bool {
    let lines = text.split('\n').count();
    match parse(text) {
        Ok(_) => {
            let limits = Limits { max_steps: 2_000, max_events: 20_000 };
            if let Err(e) = run_text(text, limits) {
                assert!(e.line() >= 1 && e.line() <= lines, "run error outside the text: {e}");
            }
            true
        }
        Err(e) => {
            assert!(e.line >= 1 && e.line <= lines, "line {} outside 1..={lines}: {e}", e.line);
            assert!(e.col >= 1, "column 0: {e}");
            assert!(!e.message.is_empty());
            false
        }
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng::seeded(1);
    for _ in 0..3000 {
        let len = rng.range_inclusive(0, 200) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        check(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn token_soup_never_panics() {
    let mut rng = Rng::seeded(2);
    for _ in 0..5000 {
        let n = rng.range_inclusive(1, 8);
        let mut text = String::new();
        for i in 0..n {
            text.push_str(WORDS[rng.index(WORDS.len())]);
            text.push(if i % 3 == 2 { '\n' } else { ' ' });
        }
        check(&text);
    }
}

#[test]
fn mutated_scenarios_never_panic() {
    let base = [include_str!("../static/scenarios/zk-basics.kzs").to_string(), support::random_console_scenario(3, 60)];
    let mut rng = Rng::seeded(3);
    for _ in 0..1500 {
        let mut chars: Vec<char> = base[rng.index(base.len())].chars().collect();
        for _ in 0..rng.range_inclusive(1, 6) {
            let i = rng.index(chars.len().max(1));
            match rng.range_inclusive(0, 3) {
                0 if !chars.is_empty() => {
                    chars.remove(i.min(chars.len() - 1));
                }
                1 => chars.insert(i.min(chars.len()), ['"', ' ', '\n', '#', '-', '[', '\u{1}', '9'][rng.index(8)]),
                2 if !chars.is_empty() => {
                    let (a, b) = (i.min(chars.len() - 1), rng.index(chars.len()));
                    chars.swap(a, b);
                }
                _ => {
                    let w = WORDS[rng.index(WORDS.len())];
                    let at = i.min(chars.len());
                    chars.splice(at..at, w.chars());
                }
            }
        }
        check(&chars.into_iter().collect::<String>());
    }
}

/// Whole lines of the Kafka commands, some of them with numbers out of range
/// or names that do not exist, for splicing into the built-in scenarios.
const KAFKA_LINES: &[&str] = &[
    "kill broker 0",
    "kill broker 7",
    "start broker 2",
    "restart broker 1",
    "shutdown broker 0",
    "pause broker 1",
    "resume broker 1",
    "pause-fetch broker 2",
    "resume-fetch broker 2",
    "fail-log-dir broker 1",
    "expire-session broker 0",
    "topic create t partitions=3 replication-factor=2",
    "topic create t partitions=0 replication-factor=9",
    "produce t-0",
    "produce nope-99",
    "cluster brokers=3",
    "cluster brokers=0",
    "start all",
    "run 10m",
    "run 0s",
    "expect controller 1",
    "expect partition t-0 leader=1",
    "expect broker 1 alive",
    "expect znode /controller",
    "zk admin get /brokers/ids/1",
    "zk admin set /controller {\"version\":1,\"brokerid\":9}",
    "zk admin delete /admin/reassign_partitions",
    "zk admin create /config/changes/config_change_ {",
];

/// The built-in scenarios (the brokers, the controller, replicas, configs,
/// log dirs) with whole lines removed, swapped, duplicated, spliced in or
/// given one character wrong: the Kafka commands' error paths, where the
/// mutations above mostly exercise the console's.
#[test]
fn mutated_kafka_scenarios_never_panic() {
    let base = [
        include_str!("../static/scenarios/controller-failover.kzs"),
        include_str!("../static/scenarios/broker-bounce.kzs"),
        include_str!("../static/scenarios/isr-shrink.kzs"),
        include_str!("../static/scenarios/config-change.kzs"),
        include_str!("../static/scenarios/log-dir-failure.kzs"),
    ];
    let mut rng = Rng::seeded(4);
    let mut played = 0;
    for _ in 0..400 {
        let mut lines: Vec<String> = base[rng.index(base.len())].lines().map(String::from).collect();
        for _ in 0..rng.range_inclusive(1, 5) {
            let i = rng.index(lines.len());
            match rng.range_inclusive(0, 4) {
                0 => drop(lines.remove(i)),
                1 => lines.insert(i, KAFKA_LINES[rng.index(KAFKA_LINES.len())].to_string()),
                2 => {
                    let j = rng.index(lines.len());
                    lines.swap(i, j);
                }
                3 => lines.insert(i, lines[i].clone()),
                _ => {
                    let mut chars: Vec<char> = lines[i].chars().collect();
                    if !chars.is_empty() {
                        let at = rng.index(chars.len());
                        chars[at] = ['0', '9', '-', '=', '"', '[', ' ', 'x', '/'][rng.index(9)];
                    }
                    lines[i] = chars.into_iter().collect();
                }
            }
            if lines.is_empty() {
                lines.push(String::new());
            }
        }
        played += usize::from(check(&(lines.join("\n") + "\n")));
    }
    // Not only parse errors: a good share of the mutants are played.
    assert!(played >= 100, "only {played} of 400 mutants parsed");
}

#[test]
fn absurd_scripts_get_clear_errors() {
    let e = parse("cluster brokers=1000000000").unwrap_err();
    assert_eq!((e.line, e.col), (1, 9));
    let e = parse(&"x".repeat(17 * 1024 * 1024)).unwrap_err();
    assert!(e.message.contains("limit"), "{e}");
    // Past the budget: a located error, not a hang.
    let text = "zk-session a\nrun 1000000h\n";
    let e = run_text(text, Limits { max_steps: 100, max_events: 10_000 }).unwrap_err();
    assert_eq!(e.line(), 2);
    assert!(e.to_string().contains("budget"), "{e}");
}
