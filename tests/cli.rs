//! The `kzsim` command's contract: exit codes, messages and output files.

use std::path::PathBuf;
use std::process::{Command, Output};

fn kzsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kzsim")).args(args).output().expect("run kzsim")
}

fn temp(name: &str, text: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kzsim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn exit_0_when_every_expect_holds_with_trace_and_state() {
    let f = temp("ok.kzs", b"zk-session a\nzk a create /x hi\nexpect znode /x data == \"hi\"\n");
    let trace = f.with_extension("jsonl");
    let state = f.with_extension("json");
    let o = kzsim(&["run", f.to_str().unwrap(), "--trace", trace.to_str().unwrap(), "--dump-state", state.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "--quiet prints nothing");
    let lines: Vec<serde_json::Value> =
        std::fs::read_to_string(&trace).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["kind"], "zk-result");
    assert_eq!(lines[1]["detail"]["created"], "/x");
    for key in ["step", "time_ms", "actor", "kind", "summary", "source", "detail"] {
        assert!(lines[1].get(key).is_some(), "trace entries carry {key}");
    }
    let dump: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(dump["znodes"]["/x"]["data"], "hi");
    assert_eq!(dump["steps"], 2);
    assert_eq!(dump["controller"], serde_json::Value::Null);
    for key in ["time_ms", "steps", "seed", "controller", "controller_epoch", "znodes", "brokers", "partitions"] {
        assert!(dump.get(key).is_some(), "the state carries {key}");
    }
}

#[test]
fn exit_1_names_the_failed_expect_and_its_actual_value() {
    let f = temp("fail.kzs", b"zk-session a\nzk a create /x hi\n\nexpect znode /x data == \"ho\"\n");
    let o = kzsim(&["run", f.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains(&format!("{}:4: expect failed: expect znode /x data == \"ho\" (actual: \"hi\")", f.display())), "{e}");
}

#[test]
fn exit_2_locates_malformed_scripts() {
    let f = temp("bad.kzs", b"zk-session a\nzk a create /x/\n");
    for cmd in ["run", "check"] {
        let o = kzsim(&[cmd, f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).starts_with(&format!("{}:2:13: error: invalid znode path", f.display())), "{}", stderr(&o));
    }
    let f = temp("kafka.kzs", b"cluster brokers=3\nstart all\nkill broker 7\n");
    let o = kzsim(&["run", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(":3:1: error: there is no broker 7"), "{}", stderr(&o));
    let f = temp("config.kzs", b"broker-config zookeeper.session.timeout.ms=soon\n");
    let o = kzsim(&["check", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(":1:1: error: invalid value 'soon' for configuration zookeeper.session.timeout.ms"), "{}", stderr(&o));
    let f = temp("binary.kzs", b"zk-session a\n\xff\xfe\n");
    let o = kzsim(&["check", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(":2:1: error: the scenario is not UTF-8"), "{}", stderr(&o));
    let o = kzsim(&["run", "/nonexistent/x.kzs"]);
    assert_eq!(o.status.code(), Some(2));
    let o = kzsim(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn check_accepts_a_good_script() {
    let f = temp("good.kzs", b"# comment only line\nzk-session a\nrun 5s\n");
    let o = kzsim(&["check", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
