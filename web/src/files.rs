//! Files a learner takes away and brings back.
//!
//! * The trace: exactly the lines `kzsim run --trace` writes (one JSON object
//!   a line, the contract's schema) for the steps taken so far. The schema
//!   lets fields be added, so the first line also carries `"scenario"`: the
//!   scenario's text, the learner's actions and the step, so that loading
//!   the file back reopens this very state. Every other line is byte for
//!   byte what the command line writes.
//! * A scenario file (`.kzs`, or any text that is not a trace): loaded as if
//!   typed into the editor.
//!
//! Both come from outside (a drop, a file picker): untrusted input, refused
//! with a sentence, never a panic.

use kzsim::trace::TraceEntry;
use serde_json::{json, Value};

/// What a downloaded trace carries to reopen its state.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    /// The built-in's name, when the scenario is one.
    pub name: Option<String>,
    pub text: String,
    /// The learner's actions: (taken after this many steps, command text).
    pub actions: Vec<(u64, String)>,
    pub step: u64,
}

/// A file, understood.
#[derive(Clone, Debug, PartialEq)]
pub enum Opened {
    /// Scenario text, named by its file.
    Scenario { file: String, text: String },
    /// A trace this app downloaded: its scenario, actions and step.
    Replay { file: String, replay: Replay },
}

/// The trace of `entries` as JSON lines, the first carrying the replay.
pub fn trace_jsonl(entries: &[TraceEntry], replay: &Replay) -> String {
    let mut out = String::new();
    for (i, entry) in entries.iter().enumerate() {
        let line = entry.to_json_line();
        // Splice the field into the first line before its closing brace, so
        // that the contract's fields keep their order.
        match line.strip_suffix('}').filter(|_| i == 0) {
            Some(open) => {
                let carried = json!({
                    "name": replay.name,
                    "text": replay.text,
                    "actions": replay.actions.iter().map(|(at, text)| json!([at, text])).collect::<Vec<_>>(),
                    "step": replay.step,
                });
                out.push_str(&format!("{open},\"scenario\":{carried}}}"));
            }
            None => out.push_str(&line),
        }
        out.push('\n');
    }
    out
}

/// What a file holds: a trace (JSON lines) or a scenario.
pub fn open(file: &str, text: &str) -> Result<Opened, String> {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    if file.ends_with(".kzs") || !first.starts_with('{') {
        return Ok(Opened::Scenario { file: file.to_string(), text: text.to_string() });
    }
    let line: Value = serde_json::from_str(first).map_err(|e| format!("{file} is not a trace: its first line is not JSON ({e})"))?;
    if line.get("step").is_none() || line.get("kind").is_none() {
        return Err(format!("{file} is JSON but not a trace: its first line has no \"step\" and \"kind\""));
    }
    let Some(carried) = line.get("scenario") else {
        return Err(format!(
            "{file} is a trace without its scenario (traces written by `kzsim run --trace` do not carry one): drop the .kzs file instead"
        ));
    };
    let bad = |what: &str| format!("{file}: the scenario on its first line has no valid \"{what}\"");
    let text = carried.get("text").and_then(Value::as_str).ok_or_else(|| bad("text"))?.to_string();
    let step = carried.get("step").and_then(Value::as_u64).ok_or_else(|| bad("step"))?;
    let name = carried.get("name").and_then(Value::as_str).map(str::to_string);
    let actions = carried
        .get("actions")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("actions"))?
        .iter()
        .map(|a| Some((a.get(0)?.as_u64()?, a.get(1)?.as_str()?.to_string())))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| bad("actions"))?;
    Ok(Opened::Replay { file: file.to_string(), replay: Replay { name, text, actions, step } })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kzsim::sandbox::Sandbox;

    fn replay() -> Replay {
        Replay {
            name: None,
            text: "zk-session a\nzk a create /x \"hi\"\nzk a get /x\n".into(),
            actions: vec![(1, "zk a create /y there".into())],
            step: 2,
        }
    }

    #[test]
    fn the_trace_is_the_command_lines_with_the_scenario_on_line_one() {
        let r = replay();
        let mut sandbox = Sandbox::load(&r.text).unwrap();
        sandbox.seek(3);
        let trace = &sandbox.trace()[..3];
        let file = trace_jsonl(trace, &r);
        let lines: Vec<&str> = file.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(&lines[1..], trace[1..].iter().map(|e| e.to_json_line()).collect::<Vec<_>>());
        // Line one is the contract's object with one field more, in order.
        let plain = trace[0].to_json_line();
        assert!(lines[0].starts_with(&plain[..plain.len() - 1]), "{}", lines[0]);
        let back: TraceEntry = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(back, trace[0]);
        assert_eq!(open("t.json", &file), Ok(Opened::Replay { file: "t.json".into(), replay: r }));
    }

    #[test]
    fn scenarios_and_strangers() {
        assert_eq!(open("a.kzs", "{"), Ok(Opened::Scenario { file: "a.kzs".into(), text: "{".into() }));
        assert!(matches!(open("a.txt", "zk-session a"), Ok(Opened::Scenario { .. })));
        assert!(open("a.json", "{nope").unwrap_err().contains("not JSON"));
        assert!(open("a.json", "{\"x\":1}").unwrap_err().contains("not a trace"));
        let cli = "{\"step\":1,\"time_ms\":0,\"actor\":\"zk\",\"kind\":\"zk-session\",\"summary\":\"\",\"source\":\"\",\"detail\":{}}";
        assert!(open("cli.json", cli).unwrap_err().contains("without its scenario"));
        let broken = cli.replace("{}}", "{},\"scenario\":{\"text\":\"x\",\"step\":\"two\",\"actions\":[]}}");
        assert!(open("b.json", &broken).unwrap_err().contains("\"step\""));
    }
}
