//! The trace: one entry per simulation step, in the `--trace` schema of the
//! scenario contract. Every entry names the actor, what happened, and the
//! Kafka (or ZooKeeper) method the step mirrors.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::rc::Rc;

/// A recorded step, as one JSON line of `--trace`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceEntry {
    /// 1-based: the first step of a run is step 1.
    pub step: u64,
    pub time_ms: u64,
    /// Shared with the other steps of the same actor's handler (a
    /// topic's creation records 20,000 ZooKeeper calls of one controller).
    pub actor: Rc<str>,
    /// Recorded steps name their kind and Kafka method with the simulator's
    /// own strings (`&'static`), so an entry allocates neither; a trace read
    /// back from a file owns them.
    pub kind: Cow<'static, str>,
    pub summary: String,
    pub source: Cow<'static, str>,
    pub detail: Detail,
}

impl TraceEntry {
    /// The entry as its `--trace` line (compact JSON, keys in a fixed order).
    /// Written out field by field, the detail copied as the text it is
    /// (what serde would write of the entry, without reading the detail).
    pub fn to_json_line(&self) -> String {
        let detail = self.detail.as_str();
        let mut line = Vec::with_capacity(self.summary.len() + detail.len() + 160);
        line.extend_from_slice(b"{\"step\":");
        line.extend_from_slice(itoa::Buffer::new().format(self.step).as_bytes());
        line.extend_from_slice(b",\"time_ms\":");
        line.extend_from_slice(itoa::Buffer::new().format(self.time_ms).as_bytes());
        for (key, value) in [("actor", &*self.actor), ("kind", &self.kind), ("summary", &self.summary), ("source", &self.source)] {
            line.extend_from_slice(b",\"");
            line.extend_from_slice(key.as_bytes());
            line.extend_from_slice(b"\":");
            // A string always serialises.
            let _ = serde_json::to_writer(&mut line, value);
        }
        line.extend_from_slice(b",\"detail\":");
        line.extend_from_slice(detail.as_bytes());
        line.push(b'}');
        String::from_utf8(line).unwrap_or_default()
    }
}

/// What a handler records; the simulator stamps the step number and time
/// when the step is handed out.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub actor: Rc<str>,
    pub kind: &'static str,
    pub summary: String,
    pub source: &'static str,
    pub detail: Detail,
    /// The summary and detail, when they are written as the step is handed
    /// out rather than as its event is handled ([`Later`]).
    pub later: Option<Later>,
}

impl Record {
    /// Takes the step's summary and detail, written now if they were left
    /// for later.
    pub fn take_text(&mut self) -> (String, Detail) {
        match self.later.take() {
            Some(later) => later.describe(),
            None => (std::mem::take(&mut self.summary), std::mem::replace(&mut self.detail, Detail::none())),
        }
    }
}

/// A step's text that can be written from what the step kept.
pub trait Describe: std::fmt::Debug {
    fn describe(&self) -> (String, Detail);
}

/// A summary and detail written when their step is handed out. One event
/// can record tens of thousands of steps (a topic of 10,000 partitions
/// creates 20,000 znodes in one `processTopicChange`), and that event is the
/// longest task a page runs; its requests' texts, written as it was
/// handled, were a fifth of it (`cargo bench --bench view`: 59-60 ms, now
/// 52-54; the failover's `Reelect` 30-31, now 22-23; issue 9). Handed out a
/// chunk at a time, the same texts are written between the page's frames.
#[derive(Clone, Debug)]
pub struct Later(std::rc::Rc<dyn Describe>);

impl Later {
    pub fn new(text: impl Describe + 'static) -> Later {
        Later(std::rc::Rc::new(text))
    }

    pub fn describe(&self) -> (String, Detail) {
        self.0.describe()
    }
}

/// Two texts are equal when they read the same.
impl PartialEq for Later {
    fn eq(&self, other: &Later) -> bool {
        self.describe() == other.describe()
    }
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

/// A step's detail: a JSON object, kept as the compact text its `--trace`
/// line shows, its keys in the order they were given.
///
/// Built key by key, each value serialised straight into the text: a
/// detail is written at nearly every step, and a big cluster's timeline
/// holds tens of thousands of them. Kept as a `serde_json::Value` — a map
/// with its index, a string per key, a node per value — a detail took four
/// to five times the memory of its text and a dozen allocations, most of a
/// long run's memory and a fifth of its time in the allocator (issue 9);
/// read back only for the few steps the page shows ([`Detail::value`]).
/// `json!` would also write out at every key the making of the key and its
/// error path: for the hundreds of details the simulator writes, many
/// kilobytes of the browser's download. Here a key is one call, compiled
/// once per value type.
///
/// Invariant: the bytes are one complete JSON value in serde_json's compact
/// form, or none for `null` (a step recorded without a detail: most steps
/// of a run nobody reads, which then allocate nothing).
#[derive(Clone, PartialEq, Eq)]
pub struct Detail(Vec<u8>);

impl Default for Detail {
    fn default() -> Detail {
        Detail::new()
    }
}

impl Detail {
    /// An object with no keys yet.
    pub fn new() -> Detail {
        Detail(b"{}".to_vec())
    }

    /// No detail: `null`, as a step nobody reads is recorded (no bytes).
    pub fn none() -> Detail {
        Detail(Vec::new())
    }

    /// The detail with `key`, and `value` as `json!` writes it.
    #[inline]
    pub fn with<T: Serialize + ?Sized>(mut self, key: &str, value: &T) -> Detail {
        self.put(key, value);
        self
    }

    /// The detail with `key`: another detail, copied in as it is (a control
    /// request's, inside the step that sends it).
    pub fn with_detail(mut self, key: &str, detail: &Detail) -> Detail {
        self.begin(key);
        self.0.extend_from_slice(detail.as_str().as_bytes());
        self.0.push(b'}');
        self
    }

    /// The detail with `key`: `value` (a value already built).
    #[inline]
    pub fn with_value(mut self, key: &str, value: impl Into<Value>) -> Detail {
        self.put(key, &value.into());
        self
    }

    /// Adds `key` with `value` serialised as `json!` would (`null` for the
    /// one value serde_json refuses: a map whose keys are not strings). A
    /// key is given once: the object is written as it is built.
    #[inline(never)]
    pub fn put<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) {
        self.begin(key);
        let at = self.0.len();
        if serde_json::to_writer(&mut self.0, value).is_err() {
            self.0.truncate(at);
            self.0.extend_from_slice(b"null");
        }
        self.0.push(b'}');
    }

    /// Opens the object for one more key: the text up to the key's value.
    fn begin(&mut self, key: &str) {
        debug_assert!(self.0.first() == Some(&b'{'), "a key added to a detail that is not an object: {self:?}");
        debug_assert!(!self.value().as_object().is_some_and(|o| o.contains_key(key)), "the key {key:?} given twice to {self:?}");
        self.0.pop();
        if self.0.len() > 1 {
            self.0.push(b',');
        }
        // A key is a plain string: it cannot fail to serialise.
        let _ = serde_json::to_writer(&mut self.0, key);
        self.0.push(b':');
    }

    /// The compact JSON text.
    pub fn as_str(&self) -> &str {
        // Only serde_json's output and ASCII punctuation are ever written.
        if self.0.is_empty() {
            return "null";
        }
        std::str::from_utf8(&self.0).unwrap_or("null")
    }

    /// The detail read back as a value, for the steps a page shows.
    pub fn value(&self) -> Value {
        serde_json::from_str(self.as_str()).unwrap_or(Value::Null)
    }

    /// The value at `key` of the object, read without building the rest
    /// (the rest is skipped over): for a reader after one key of details
    /// that may be long, such as a LeaderAndIsr's list of partitions.
    pub fn get(&self, key: &str) -> Option<Value> {
        self.get_in(&[key])
    }

    /// The value at a path of keys (`["request", "type"]`), read as
    /// [`Detail::get`] reads one.
    pub fn get_in(&self, path: &[&str]) -> Option<Value> {
        use serde::de::DeserializeSeed;
        FindKey(path).deserialize(&mut serde_json::Deserializer::from_str(self.as_str())).ok().flatten()
    }

    pub fn is_null(&self) -> bool {
        self.0.is_empty()
    }

    /// Gives back the room the text grew into while it was built: an entry
    /// of the trace keeps its detail for as long as the timeline lives.
    pub fn shrink_to_fit(&mut self) {
        self.0.shrink_to_fit();
    }
}

impl std::fmt::Debug for Detail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// As the value it is, read back (a `--trace` line copies the text itself:
/// [`TraceEntry::to_json_line`]; a detail in another, [`Detail::with_detail`]).
impl Serialize for Detail {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(s)
    }
}

/// Any JSON value (a `--trace` line read back), kept in compact form
/// whatever the spacing of the text it came from.
impl<'de> Deserialize<'de> for Detail {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Detail, D::Error> {
        Value::deserialize(d).map(Detail::from)
    }
}

impl From<Value> for Detail {
    fn from(v: Value) -> Detail {
        match v {
            Value::Null => Detail::none(),
            v => Detail(serde_json::to_vec(&v).unwrap_or_default()),
        }
    }
}

/// [`Detail::get_in`]: visits an object's keys, keeping the value at the
/// path's first (looked into further for the rest of the path). Anything
/// but an object has no keys: serde's error for it, read as none.
struct FindKey<'p>(&'p [&'p str]);

impl<'de> serde::de::DeserializeSeed<'de> for FindKey<'_> {
    type Value = Option<Value>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for FindKey<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Option<Value>, A::Error> {
        let Some((first, rest)) = self.0.split_first() else { return Ok(None) };
        let mut found = None;
        while let Some(is) = map.next_key_seed(KeyIs(first))? {
            if !is || found.is_some() {
                map.next_value::<serde::de::IgnoredAny>()?;
            } else if rest.is_empty() {
                found = Some(map.next_value::<Value>()?);
            } else {
                found = map.next_value_seed(FindKey(rest))?;
            }
        }
        Ok(found)
    }
}

/// Whether a key is the one sought, compared where it lies.
struct KeyIs<'k>(&'k str);

impl<'de> serde::de::DeserializeSeed<'de> for KeyIs<'_> {
    type Value = bool;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeyIs<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<bool, E> {
        Ok(key == self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    /// The text is what `json!` and serde_json's compact writer make of the
    /// same keys and values, in the order given.
    #[test]
    fn a_detail_is_the_compact_json_of_its_keys_in_order() {
        let partitions = vec!["t-0".to_string(), "t-1".to_string()];
        let d =
            Detail::new().with("zeta", &1).with("alpha", "a \"quoted\" ✓").with("list", &partitions).with_value("v", json!({"b": null}));
        let expected = json!({"zeta": 1, "alpha": "a \"quoted\" ✓", "list": ["t-0", "t-1"], "v": {"b": null}});
        assert_eq!(d.as_str(), serde_json::to_string(&expected).unwrap());
        assert_eq!(d.value(), expected);
        assert_eq!(Detail::from(expected), d);
        assert_eq!(Detail::new().as_str(), "{}");
        assert!(Detail::none().is_null() && Detail::none().value().is_null() && !Detail::new().is_null());
        assert_eq!((Detail::from(Value::Null), Detail::none().as_str()), (Detail::none(), "null"));
    }

    /// A value serde_json cannot write (a map keyed by lists) becomes
    /// `null`, as `json!` made it, and the text stays whole.
    #[test]
    fn a_value_that_cannot_be_written_is_null() {
        let bad: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into_iter().collect();
        let d = Detail::new().with("bad", &bad).with("after", &2);
        assert_eq!(d.as_str(), r#"{"bad":null,"after":2}"#);
    }

    #[test]
    fn one_key_is_read_without_the_rest() {
        let d = Detail::new()
            .with("to", &3)
            .with("request", &json!({"type": "LeaderAndIsr", "partitions": [{"p": 0}, {"p": 1}]}))
            .with("ok", &true);
        assert_eq!(d.get("to"), Some(json!(3)));
        assert_eq!(d.get("ok"), Some(json!(true)));
        assert_eq!(d.get_in(&["request", "type"]), Some(json!("LeaderAndIsr")));
        assert_eq!(d.get_in(&["request", "partitions"]).map(|v| v.as_array().map(Vec::len)), Some(Some(2)));
        assert_eq!(d.get("missing"), None);
        assert_eq!(d.get_in(&["to", "deeper"]), None);
        assert_eq!(d.get_in(&[]), None);
        assert_eq!(Detail::none().get("to"), None);
        assert_eq!(Detail::from(json!([1, {"to": 2}])).get("to"), None);
        // A key written with escapes is still found.
        assert_eq!(Detail::from(serde_json::from_str::<Value>(r#"{"t\u006f":5}"#).unwrap()).get("to"), Some(json!(5)));
    }

    /// Inside another detail, or as an entry's `--trace` line, a detail is
    /// copied as the JSON it is; read back, it is compact whatever the
    /// spacing of the line it came from.
    #[test]
    fn a_detail_is_written_as_json_and_read_back_compact() {
        let inner = Detail::new().with("type", "UpdateMetadata");
        let outer = Detail::new().with("to", &1).with_detail("request", &inner).with("all", &vec![inner.clone(), Detail::none()]);
        assert_eq!(outer.as_str(), r#"{"to":1,"request":{"type":"UpdateMetadata"},"all":[{"type":"UpdateMetadata"},null]}"#);
        let entry = TraceEntry {
            step: 1,
            time_ms: 2,
            actor: "controller".into(),
            kind: "control-request".into(),
            summary: "send".into(),
            source: "X.y".into(),
            detail: outer.clone(),
        };
        let line = entry.to_json_line();
        assert!(line.ends_with(&format!(r#""detail":{}}}"#, outer.as_str())), "{line}");
        let spaced = line.replace(r#""to":1"#, r#" "to" : 1 "#);
        let back: TraceEntry = serde_json::from_str(&spaced).unwrap();
        assert_eq!(back, entry);
        assert_eq!(back.to_json_line(), line);
        assert_eq!(line, serde_json::to_string(&entry).unwrap(), "as serde writes the entry");
    }
}
