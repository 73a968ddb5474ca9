//! The coordination tree against its floor: creating and reading N znodes
//! through `ZooKeeper::process` (path checks, stats, child lists, watches,
//! one zxid each) versus a bare `BTreeMap<String, Vec<u8>>` doing the same
//! inserts and reads. Prints the ratio (issue 9's target: within 2×), from
//! medians of 21 runs of each taken in turn.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kzsim::sim::Millis;
use kzsim::zookeeper::{CreateMode, Request, ZooKeeper};
use std::collections::BTreeMap;
use std::time::Instant;

const N: usize = 10_000;

fn paths() -> Vec<String> {
    (0..N).map(|i| format!("/brokers/topics/t/partitions/{i}")).collect()
}

fn tree(paths: &[String]) -> usize {
    let mut zk = ZooKeeper::default();
    let s = zk.create_session(Millis(0), "bench", 30_000);
    let mode = CreateMode { ephemeral: false, sequential: false };
    for p in ["/brokers", "/brokers/topics", "/brokers/topics/t", "/brokers/topics/t/partitions"] {
        let _ = zk.process(Millis(0), s, &Request::Create { path: p.into(), data: vec![], mode });
    }
    for p in paths {
        let _ = zk.process(Millis(1), s, &Request::Create { path: p.clone(), data: b"{\"leader\":1}".to_vec(), mode });
    }
    let mut found = 0;
    for p in paths {
        if zk.process(Millis(2), s, &Request::GetData { path: p.clone(), watch: false }).0.is_ok() {
            found += 1;
        }
    }
    found
}

fn floor(paths: &[String]) -> usize {
    let mut m: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for p in paths {
        m.insert(p.clone(), b"{\"leader\":1}".to_vec());
    }
    paths.iter().filter_map(|p| m.get(p)).filter(|d| !black_box(d).is_empty()).count()
}

fn time_ns(f: &dyn Fn() -> usize) -> u128 {
    let start = Instant::now();
    black_box(f());
    start.elapsed().as_nanos()
}

/// Medians of `runs` runs of each, the two taken in turn so that a busy
/// moment on a shared machine weighs on both alike.
fn medians_ns(a: &dyn Fn() -> usize, b: &dyn Fn() -> usize, runs: usize) -> (u128, u128) {
    let (mut ta, mut tb): (Vec<u128>, Vec<u128>) = (0..runs).map(|_| (time_ns(a), time_ns(b))).unzip();
    ta.sort_unstable();
    tb.sort_unstable();
    (ta[runs / 2], tb[runs / 2])
}

fn bench(c: &mut Criterion) {
    let p = paths();
    c.bench_function("tree: create + read 10k znodes", |b| b.iter(|| tree(black_box(&p))));
    c.bench_function("floor: BTreeMap insert + get 10k", |b| b.iter(|| floor(black_box(&p))));
    // A filter that matches neither benchmark above (`cargo bench --bench
    // tree -- ratio`, as scripts/perf.sh runs it) skips criterion's
    // sampling; the ratio is measured every time.
    let (t, f) = medians_ns(&|| tree(&p), &|| floor(&p), 21);
    println!(
        "tree/floor ratio for {N} znodes: {:.2}× (tree {:.2} ms, floor {:.2} ms, medians of 21)",
        t as f64 / f as f64,
        t as f64 / 1e6,
        f as f64 / 1e6
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
