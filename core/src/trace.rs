//! The trace: one entry per simulation step, in the `--trace` schema of the
//! scenario contract. Every entry names the actor, what happened, and the
//! Kafka (or ZooKeeper) method the step mirrors.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A recorded step, as one JSON line of `--trace`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceEntry {
    /// 1-based: the first step of a run is step 1.
    pub step: u64,
    pub time_ms: u64,
    pub actor: String,
    pub kind: String,
    pub summary: String,
    pub source: String,
    pub detail: Value,
}

impl TraceEntry {
    /// The entry as its `--trace` line (compact JSON, keys in a fixed order).
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// What a handler records; the simulator stamps the step number and time
/// when the step is handed out.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub actor: String,
    pub kind: &'static str,
    pub summary: String,
    pub source: &'static str,
    pub detail: Value,
}

/// Every step reached so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    entries: Vec<TraceEntry>,
}

impl Trace {
    pub fn push(&mut self, entry: TraceEntry) {
        self.entries.push(entry);
    }

    pub fn entries(&self) -> &[TraceEntry] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Drops every entry after `steps` (a branch: the old future is gone).
    pub fn truncate(&mut self, steps: u64) {
        self.entries.truncate(steps as usize);
    }

    /// `expect trace contains TEXT` over the first `steps` entries: some
    /// entry's `--trace` JSON line contains `text`.
    pub fn contains(&self, steps: u64, text: &str) -> bool {
        self.entries.iter().take(steps as usize).any(|e| e.to_json_line().contains(text))
    }
}
