//! Static checks of a parsed script, before anything runs: what can be known
//! from the text alone (sessions used before they are opened, Kafka commands
//! this build does not simulate yet).

use crate::kafka::config::KafkaConfig;
use crate::scenario::{Command, ScenarioError, Script};
use std::collections::BTreeSet;

/// The first problem in `script`, located at its line.
pub fn validate(script: &Script) -> Result<(), ScenarioError> {
    let mut sessions = BTreeSet::new();
    let mut settings_so_far = Vec::new();
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
            Command::Expect(e) if !e.subject.implemented() => {
                return Err(not_implemented(line.line, 8, "this expect subject belongs to the replica or dynamic-config issues"));
            }
            Command::BrokerConfig(settings) => {
                settings_so_far.extend(settings.iter().cloned());
                if let Err(e) = KafkaConfig::default().with(&settings_so_far) {
                    return at(1, e.to_string());
                }
            }
            c if !c.implemented() => {
                let word = line.text.split_whitespace().next().unwrap_or("");
                return Err(not_implemented(line.line, 1, &format!("'{word}' belongs to the replica or dynamic-config issues")));
            }
            _ => {}
        }
    }
    Ok(())
}

fn not_implemented(line: usize, col: usize, what: &str) -> ScenarioError {
    ScenarioError::at(line, col, format!("not implemented yet: {what}, which this build does not simulate yet"))
}
