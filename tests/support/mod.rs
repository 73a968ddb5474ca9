//! Shared by the integration tests: a seeded generator of console scenarios.

#![allow(dead_code)]

use kzsim::sim::Rng;

const PATHS: [&str; 7] = ["/a", "/b", "/a/x", "/a/y", "/b/x", "/a/x/z", "/s-"];

/// A random but valid console scenario: sessions, every console op, runs.
pub fn random_console_scenario(seed: u64, ops: usize) -> String {
    let mut rng = Rng::seeded(seed);
    let sessions = ["a", "b", "c"];
    let mut out = format!("seed {seed}\n");
    for s in sessions {
        out.push_str(&format!("zk-session {s} timeout={}\n", 4000 + 2000 * rng.range_inclusive(0, 10)));
    }
    for _ in 0..ops {
        let s = sessions[rng.index(sessions.len())];
        let p = PATHS[rng.index(PATHS.len())];
        let w = if rng.chance(1, 2) { "-w " } else { "" };
        let line = match rng.range_inclusive(0, 12) {
            0..=3 => {
                let e = if rng.chance(1, 3) { "-e " } else { "" };
                let sq = if p.ends_with('-') || rng.chance(1, 5) { "-s " } else { "" };
                format!("zk {s} create {e}{sq}{p} v{}", rng.range_inclusive(0, 9))
            }
            4 => format!("zk {s} get {w}{p}"),
            5 => format!("zk {s} ls {w}{p}"),
            6 => format!("zk {s} stat {w}{p}"),
            7 => format!("zk {s} set {p} d{} -v {}", rng.range_inclusive(0, 9), rng.range_inclusive(0, 3) as i64 - 1),
            8 => format!("zk {s} delete -v {} {p}", rng.range_inclusive(0, 2) as i64 - 1),
            9 => format!("run {}ms", rng.range_inclusive(0, 20_000)),
            10 if rng.chance(1, 8) => format!("zk {s} close"),
            11 if rng.chance(1, 8) => format!("zk {s} expire"),
            _ => format!("expect znode {} exists == true", p.trim_end_matches('-')),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}
