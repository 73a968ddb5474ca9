//! Static checks of a parsed script, before anything runs: what can be known
//! from the text alone (sessions used before they are opened, Kafka commands
//! this build does not simulate yet).

use crate::scenario::{Command, ScenarioError, Script};
use std::collections::BTreeSet;

/// The first problem in `script`, located at its line.
pub fn validate(script: &Script) -> Result<(), ScenarioError> {
    let mut sessions = BTreeSet::new();
    for line in &script.lines {
        let at = |col: usize, message: String| Err(ScenarioError::at(line.line, col, message));
        match &line.command {
            Command::ZkSession { name, .. } => {
                if sessions.contains(name) {
                    return at(1, format!("session '{name}' is already opened; give the new session another name"));
                }
                sessions.insert(name.clone());
            }
            Command::Zk { session, .. } if !sessions.contains(session) => {
                return at(4, format!("no session named '{session}'; open it first with: zk-session {session}"));
            }
            Command::Expect(e) if e.subject.needs_kafka() => {
                return Err(not_implemented(line.line, 8, "this expect subject reads Kafka broker state"));
            }
            c if c.needs_kafka() => {
                let word = line.text.split_whitespace().next().unwrap_or("");
                return Err(not_implemented(line.line, 1, &format!("'{word}' drives Kafka brokers")));
            }
            _ => {}
        }
    }
    Ok(())
}

fn not_implemented(line: usize, col: usize, what: &str) -> ScenarioError {
    ScenarioError::at(
        line,
        col,
        format!("not implemented yet: {what}, and this build simulates the ZooKeeper tree and its console only (the Kafka brokers and controller arrive with the controller issue)"),
    )
}
