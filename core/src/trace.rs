//! The trace: one entry per simulation step, in the `--trace` schema of the
//! scenario contract. Every entry names the actor, what happened, and the
//! Kafka (or ZooKeeper) method the step mirrors.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

/// Every step reached so far — or, after [`Trace::forget`], the steps since.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    entries: Vec<TraceEntry>,
    /// Steps handed out before `entries[0]` and no longer held.
    forgotten: usize,
}

impl Trace {
    /// One more step handed out, counted and not held: for a run that reads
    /// no step ([`crate::runner::Runner::set_records_unread`]). A big run
    /// hands out about a million steps, and making each one's entry to drop
    /// it at once was a few percent of the run.
    pub fn count(&mut self) {
        self.forgotten += 1;
    }

    pub fn push(&mut self, entry: TraceEntry) {
        self.entries.push(entry);
    }

    /// The entries held: every step, unless some were forgotten.
    pub fn entries(&self) -> &[TraceEntry] {
        &self.entries
    }

    /// Steps handed out so far, forgotten ones included.
    pub fn len(&self) -> usize {
        self.forgotten + self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lets go of the entries held, keeping their count: for a run that
    /// writes each step as it comes and never looks back (`kzsim run`
    /// without `expect trace contains`). A big run records about a million
    /// steps, most of whose memory would otherwise be held to the end and
    /// then freed entry by entry. `entries` and `contains` then see only the
    /// steps since; a trace that is replayed or searched must not forget.
    pub fn forget(&mut self) {
        self.forgotten += self.entries.len();
        self.entries.clear();
    }

    /// Drops every entry after `steps` (a branch: the old future is gone).
    pub fn truncate(&mut self, steps: u64) {
        self.entries.truncate((steps as usize).saturating_sub(self.forgotten));
    }

    /// `expect trace contains TEXT` over the first `steps` entries: some
    /// entry's `--trace` JSON line contains `text`.
    pub fn contains(&self, steps: u64, text: &str) -> bool {
        let held = (steps as usize).saturating_sub(self.forgotten);
        self.entries.iter().take(held).any(|e| e.to_json_line().contains(text))
    }
}

/// A step's detail as it is built: a JSON object whose keys come in the order
/// they are given (the `--trace` line lists them so), a key given again
/// keeping its place.
///
/// It makes what `json!({...})` makes, through the same serialisation, but
/// `json!` writes out at every key the making of the key, the serialisation
/// with its error path and the dropping of the value the key had: for the
/// hundreds of details the simulator writes, many kilobytes of the browser's
/// download (issue 9). Here a key is one call, compiled once per value type.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Detail(Map<String, Value>);

impl Detail {
    pub fn new() -> Detail {
        Detail::default()
    }

    /// The detail with `key`, and `value` as `json!` writes it.
    #[inline]
    pub fn with<T: Serialize + ?Sized>(mut self, key: &str, value: &T) -> Detail {
        self.put(key, value);
        self
    }

    /// The detail with `key`: `value` (another detail, or a value already built).
    #[inline]
    pub fn with_value(mut self, key: &str, value: impl Into<Value>) -> Detail {
        self.set(key, value.into());
        self
    }

    #[inline(never)]
    pub fn put<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) {
        // Serialising the simulator's values cannot fail (the one error is
        // a map whose keys are not strings).
        self.set(key, serde_json::to_value(value).unwrap_or(Value::Null));
    }

    pub fn set(&mut self, key: &str, value: Value) {
        self.0.insert(key.to_owned(), value);
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    pub fn contains(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }
}

/// As the object it is (a detail inside a list of another's).
impl Serialize for Detail {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl From<Detail> for Value {
    fn from(d: Detail) -> Value {
        Value::Object(d.0)
    }
}
