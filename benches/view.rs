//! What one step costs the browser app on a big cluster, natively: the
//! simulation step, the [`kzsim::view::View`] built after it, and a seek.
//! The scenario is docs/performance.md's (50 brokers, one topic of P
//! partitions with RF 3, the controller killed); P is `KZ_BENCH_PARTITIONS`
//! (default 10,000). Prints medians and p95s; gates nothing. The first
//! view after each seek finds little to reuse from the view before it.
//!
//!   cargo bench -p kzsim --bench view

use kzsim::sandbox::Sandbox;
use kzsim::view::Window;
use std::hint::black_box;
use std::time::Instant;

fn scenario(p: usize) -> String {
    format!("cluster brokers=50\nstart all\ntopic create big partitions={p} replication-factor=3\nrun 10s\nkill broker 0\nrun 60s\n")
}

fn quantile(xs: &mut [f64], q: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[((xs.len() as f64 * q) as usize).min(xs.len() - 1)]
}

fn ms(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

fn report(what: &str, xs: &mut [f64]) {
    println!("{what:<28} p50 {:>8.2} ms   p95 {:>8.2} ms   ({} samples)", quantile(xs, 0.5), quantile(xs, 0.95), xs.len());
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` asks for the list; nothing to list
    }
    let p: usize = std::env::var("KZ_BENCH_PARTITIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let mut sandbox = Sandbox::load(&scenario(p)).expect("the bench scenario parses");
    // Every step timed on the way: a page that runs to the end freezes for
    // as long as its heaviest single step, whatever its chunks' budget.
    // The keyframe a step earns is taken apart, as the page takes it once
    // the step's frame is drawn (`Sandbox::settle`).
    let mut each: Vec<(f64, u64)> = Vec::new();
    let mut settles: Vec<(f64, u64)> = Vec::new();
    let run = ms(|| loop {
        let t = Instant::now();
        if !sandbox.step_forward() {
            break;
        }
        each.push((t.elapsed().as_secs_f64() * 1e3, sandbox.position()));
        let t = Instant::now();
        sandbox.settle();
        settles.push((t.elapsed().as_secs_f64() * 1e3, sandbox.position()));
    });
    let total = sandbox.position();
    println!("{p} partitions: {total} steps, run to the end in {run:.0} ms, {} keyframes", sandbox.timeline().keyframe_count());
    heaviest_steps(&sandbox, &mut each);
    settles.sort_by(|a, b| b.0.total_cmp(&a.0));
    let longest: Vec<String> = settles.iter().take(5).map(|(took, step)| format!("{took:.2} ms after step {step}")).collect();
    println!("longest keyframes taken (settle): {}", longest.join(", "));
    // Steps and views from a few places: after the topic, in the failover, at the end.
    let starts: Vec<u64> = (1..=8).map(|i| total * i / 9).collect();
    // What the browser's partitions panel asks for: its first page, twenty
    // rows on a cluster of more than 500 partitions (`BIG_PAGE` in
    // web/src/panels/partitions.rs; 500 rows before the tenth session).
    let page = Window { filter: String::new(), limit: 20 };
    let (mut steps, mut views, mut full) = (Vec::new(), Vec::new(), Vec::new());
    for &s in &starts {
        sandbox.seek(s);
        for _ in 0..5 {
            steps.push(ms(|| {
                black_box(sandbox.step_forward());
            }));
            views.push(ms(|| {
                black_box(sandbox.view_window(&page));
            }));
            full.push(ms(|| {
                black_box(sandbox.view());
            }));
        }
    }
    report("step (simulation only)", &mut steps);
    report("view after a step (a page)", &mut views);
    report("view, every partition", &mut full);
    let (mut seeks, mut after) = (Vec::new(), Vec::new());
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let to = x % total;
        seeks.push(ms(|| sandbox.seek(to)));
        after.push(ms(|| {
            black_box(sandbox.view_window(&page));
        }));
    }
    report("seek to a random step", &mut seeks);
    report("view after the seek", &mut after);
    // perf.mjs's seeks, one by one: `KZ_BENCH_SEEKS=2607,3809,…`.
    if let Ok(list) = std::env::var("KZ_BENCH_SEEKS") {
        for to in list.split(',').filter_map(|s| s.trim().parse::<u64>().ok()) {
            let from = sandbox.position();
            let seek = ms(|| sandbox.seek(to));
            let view = ms(|| {
                black_box(sandbox.view_window(&page));
            });
            println!("seek {from:>6} → {to:>6}: {seek:>7.2} ms, then the view {view:>6.2} ms");
        }
    }
}

/// The five heaviest steps of the run, with what each mirrors in Kafka.
fn heaviest_steps(sandbox: &Sandbox, each: &mut [(f64, u64)]) {
    each.sort_by(|a, b| b.0.total_cmp(&a.0));
    for &(took, step) in each.iter().take(5) {
        let entry = sandbox.trace().iter().find(|e| e.step == step);
        let (actor, source, summary) = entry.map_or(("?", "?", "?"), |e| (&*e.actor, &*e.source, e.summary.as_str()));
        println!("heavy step {step:>6}: {took:>7.2} ms  {actor} {source}: {summary:.100}");
    }
}
