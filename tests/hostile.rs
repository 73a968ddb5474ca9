//! Hostile and absurd input gets a clear, located answer and breaks nothing:
//! huge scripts, absurd sizes and durations, deeply nested JSON in znode
//! data, control characters, script tags.

use kzsim::runner::{run_text, Limits};
use kzsim::scenario::parse;
use std::time::Instant;

#[test]
fn a_ten_megabyte_scenario_parses_quickly_or_is_refused() {
    let line = "zk a create /x \"padding padding padding padding padding padding\"\n";
    let mut text = String::from("zk-session a\n");
    while text.len() < 10 * 1024 * 1024 {
        text.push_str(line);
    }
    let start = Instant::now();
    let lines = parse(&text).expect("10 MB of valid lines parse").lines.len();
    assert!(lines > 150_000);
    assert!(start.elapsed().as_secs() < 10, "parsing took {:?}", start.elapsed());
    // Past the line limit: refused, located at the line that broke it.
    let e = parse(&"run 1ms\n".repeat(250_000)).unwrap_err();
    assert_eq!(e.line, 200_001);
    let huge = "#".repeat(17 * 1024 * 1024);
    assert!(parse(&huge).unwrap_err().message.contains("limit"));
}

#[test]
fn absurd_numbers_are_refused_with_their_column() {
    for (text, col, word) in [
        ("cluster brokers=1000000000", 9, "brokers"),
        ("cluster brokers=3 log-dirs=99", 19, "log-dirs"),
        ("run 99999999999999999999h", 5, "duration"),
        ("topic create t partitions=2000000 replication-factor=3", 16, "partitions"),
        ("produce t-0 messages=99999999999", 13, "messages"),
        ("zk a set /x y -v 99999999999", 18, "version"),
    ] {
        let e = parse(text).unwrap_err();
        assert_eq!((e.line, e.col), (1, col), "{text}: {e}");
        assert!(e.message.contains(word), "{text}: {e}");
    }
}

#[test]
fn a_run_past_the_budget_stops_and_says_so() {
    let e = run_text("cluster brokers=3\nstart all\nrun 100000h\n", Limits { max_steps: 5_000, max_events: 50_000 }).unwrap_err();
    assert_eq!(e.line(), 3);
    assert!(e.to_string().contains("budget"), "{e}");
}

#[test]
fn deeply_nested_json_in_znode_data_is_just_data() {
    let deep = format!("{}1{}", "[".repeat(50_000), "]".repeat(50_000));
    let text =
        format!("zk-session a\nzk a create /deep {deep:?}\nexpect znode /deep data.0.0.0 == null\nexpect znode /deep exists == true\n");
    let (runner, trace) = run_text(&text, Limits::default()).expect("runs");
    assert!(runner.expectations().iter().all(|x| x.passed), "{:?}", runner.expectations());
    assert!(runner.sim().zk().tree().get("/deep").map(|n| n.data.len()).unwrap_or(0) > 100_000);
    assert!(trace.entries()[1].to_json_line().contains("\"created\":\"/deep\""));
    let view = kzsim::sandbox::Sandbox::load(&text).map(|mut s| {
        s.run_for(100);
        s.view()
    });
    assert!(view.is_ok());
}

#[test]
fn control_characters_are_located_errors_and_script_tags_stay_text() {
    let e = parse("zk-session a\nzk a create /x a\u{7}b\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("control character"), "{e}");
    let text = "zk-session a\nzk a create /x \"<script>alert(1)</script><img src=x onerror=alert(2)>\"\nzk a get /x\nexpect znode /x data contains \"<script>\"\n";
    let (runner, trace) = run_text(text, Limits::default()).unwrap();
    assert!(runner.expectations()[0].passed);
    // The trace carries it as a JSON string, escaped by nothing but JSON.
    assert!(trace.entries().iter().any(|e| e.to_json_line().contains("<img src=x onerror=alert(2)>")));
}
