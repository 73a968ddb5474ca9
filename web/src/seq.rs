//! The sequence diagram's model: which messages went between ZooKeeper, the
//! brokers and the console sessions in the last steps, read off the trace.

use crate::format::{broker_of, compact};
use kzsim::trace::TraceEntry;

/// A message, drawn as an arrow from lane `from` to lane `to` (a dot when
/// they are the same lane).
#[derive(Clone, Debug, PartialEq)]
pub struct Msg {
    pub step: u64,
    pub from: usize,
    pub to: usize,
    pub label: String,
    /// request | watch | control | session | expire
    pub kind: &'static str,
    /// false for a ZooKeeper error reply (NodeExists, BadVersion, ...).
    pub ok: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagram {
    /// `zk`, then `broker-N` for each broker, then console sessions.
    pub lanes: Vec<String>,
    pub msgs: Vec<Msg>,
}

/// The message a trace entry draws, if any: request | watch | control |
/// session | expire.
fn kind_of(e: &TraceEntry) -> Option<&'static str> {
    Some(match &*e.kind {
        "zk-request" | "zk-result" => "request",
        "watch-event" => "watch",
        "control-request" if e.detail.get("to").is_some() => "control",
        "zk-session" => "session",
        "session-expired" => "expire",
        _ => return None,
    })
}

/// The diagram last drawn and what it was drawn for. Steps that send nothing draw the same diagram, and a long run's
/// fetch rounds are thousands of them: finding the last messages by walking
/// back over all of them at every step was a fifth of a step's render on a
/// big cluster (issue 9).
#[derive(Default)]
pub struct Recent {
    drawn: Option<(DrawnFor, Diagram)>,
}

/// (timeline branch, steps, max, brokers).
type DrawnFor = (u64, usize, usize, Vec<i32>);

impl Recent {
    /// [`diagram`] of `entries` on the timeline branch `branch`, reusing the
    /// last one when only silent steps came since.
    pub fn diagram(&mut self, branch: u64, entries: &[TraceEntry], brokers: &[i32], max: usize) -> Diagram {
        if let Some(((b, at, m, lanes), d)) = &mut self.drawn {
            let silent = |from: usize| entries.get(from..).is_some_and(|new| new.iter().all(|e| kind_of(e).is_none()));
            if *b == branch && *m == max && lanes == brokers && silent(*at) {
                *at = entries.len();
                return d.clone();
            }
        }
        let d = diagram(entries, brokers, max);
        self.drawn = Some(((branch, entries.len(), max, brokers.to_vec()), d.clone()));
        d
    }
}

/// The last `max` messages among `entries` (the steps up to now).
pub fn diagram(entries: &[TraceEntry], brokers: &[i32], max: usize) -> Diagram {
    let mut lanes: Vec<String> = std::iter::once("zk".to_string()).chain(brokers.iter().map(|b| format!("broker-{b}"))).collect();
    let mut picked: Vec<(&TraceEntry, &'static str)> = Vec::new();
    for e in entries.iter().rev() {
        if picked.len() >= max {
            break;
        }
        if let Some(kind) = kind_of(e) {
            picked.push((e, kind));
        }
    }
    picked.reverse();
    let mut lane = |actor: &str| -> usize {
        let name = match broker_of(actor) {
            Some(b) => format!("broker-{b}"),
            None => actor.to_string(),
        };
        match lanes.iter().position(|l| *l == name) {
            Some(i) => i,
            None => {
                lanes.push(name);
                lanes.len() - 1
            }
        }
    };
    let msgs = picked
        .into_iter()
        .map(|(e, kind)| {
            let me = lane(&e.actor);
            // Read key by key: a control request's detail lists its partitions.
            let d = &e.detail;
            let str_of = |key: &str| d.get(key).as_ref().map(compact).unwrap_or_default();
            let ok = d.get("ok").and_then(|v| v.as_bool()).unwrap_or(true);
            let (from, to, label) = match kind {
                "request" => {
                    let mut label = format!("{} {}", str_of("op"), str_of("path")).trim().to_string();
                    if !ok {
                        label = format!("{label} → {}", str_of("error"));
                    }
                    (me, 0, label)
                }
                "watch" => (0, me, format!("{} {}", str_of("type"), str_of("path"))),
                "control" => {
                    let to = d.get("to").and_then(|v| v.as_i64()).unwrap_or(-1);
                    let request = d.get_in(&["request", "type"]).as_ref().map(compact).unwrap_or_else(|| "request".into());
                    (me, lane(&format!("broker-{to}")), request)
                }
                "session" => (me, 0, format!("session {}", str_of("op"))),
                _ => (0, 0, e.summary.chars().take(48).collect()),
            };
            Msg { step: e.step, from, to, label, kind, ok }
        })
        .collect();
    Diagram { lanes, msgs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(step: u64, actor: &str, kind: &str, detail: serde_json::Value) -> TraceEntry {
        TraceEntry {
            step,
            time_ms: step * 10,
            actor: actor.into(),
            kind: kind.to_string().into(),
            summary: format!("summary {step}"),
            source: "X.y".into(),
            detail: detail.into(),
        }
    }

    #[test]
    fn requests_watches_and_control_requests_become_arrows() {
        let entries = vec![
            entry(1, "broker-0", "broker", json!({})),
            entry(2, "broker-0/controller", "zk-request", json!({"op": "create", "path": "/controller", "ok": true})),
            entry(3, "broker-1", "zk-request", json!({"op": "create", "path": "/controller", "ok": false, "error": "NodeExists"})),
            entry(4, "broker-1", "watch-event", json!({"type": "NodeDeleted", "path": "/controller"})),
            entry(5, "broker-0/controller", "control-request", json!({"to": 2, "request": {"type": "UpdateMetadata"}})),
            entry(6, "broker-2", "control-request", json!({"from": 0})),
            entry(7, "admin", "zk-result", json!({"op": "get", "path": "/x", "ok": true})),
            entry(8, "zk", "session-expired", json!({})),
        ];
        let d = diagram(&entries, &[0, 1, 2], 30);
        assert_eq!(d.lanes, ["zk", "broker-0", "broker-1", "broker-2", "admin"]);
        let arrows: Vec<_> = d.msgs.iter().map(|m| (m.step, m.from, m.to, m.label.as_str(), m.ok)).collect();
        assert_eq!(
            arrows,
            [
                (2, 1, 0, "create /controller", true),
                (3, 2, 0, "create /controller → NodeExists", false),
                (4, 0, 2, "NodeDeleted /controller", true),
                (5, 1, 3, "UpdateMetadata", true),
                (7, 4, 0, "get /x", true),
                (8, 0, 0, "summary 8", true),
            ]
        );
    }

    #[test]
    fn silent_steps_reuse_the_last_diagram_and_a_message_redraws() {
        let mut entries: Vec<_> = (1..=5).map(|i| entry(i, "a", "zk-result", json!({"op": "ls", "path": "/", "ok": true}))).collect();
        entries.extend((6..=9).map(|i| entry(i, "broker-0", "broker", json!({}))));
        entries.push(entry(10, "a", "zk-result", json!({"op": "get", "path": "/x", "ok": true})));
        let mut recent = Recent::default();
        for n in [5, 7, 9, 10, 6, 3, 10] {
            assert_eq!(recent.diagram(1, &entries[..n], &[0], 30), diagram(&entries[..n], &[0], 30), "at step {n}");
        }
        // Another branch of the timeline is drawn afresh.
        entries[6] = entry(7, "a", "zk-result", json!({"op": "set", "path": "/y", "ok": true}));
        assert_eq!(recent.diagram(2, &entries[..9], &[0], 30), diagram(&entries[..9], &[0], 30));
    }

    #[test]
    fn keeps_only_the_last_messages() {
        let entries: Vec<_> = (1..=50).map(|i| entry(i, "a", "zk-result", json!({"op": "ls", "path": "/", "ok": true}))).collect();
        let d = diagram(&entries, &[], 30);
        assert_eq!(d.msgs.len(), 30);
        assert_eq!(d.msgs[0].step, 21);
        assert_eq!(d.msgs[29].step, 50);
        assert_eq!(d.lanes, ["zk", "a"]);
        assert!(diagram(&[], &[0], 30).msgs.is_empty());
    }
}
