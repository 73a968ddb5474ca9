//! Evaluating `expect SUBJECT OP VALUE` against the simulation.

use crate::kafka::zk_data;
use crate::scenario::{BrokerAspect, ExpectOp, Expectation, PartitionAspect, Subject, ThrottleSide, TopicPartition, ZnodeAspect};
use crate::sim::Sim;
use crate::trace::Trace;
use serde::Serialize;
use serde_json::Value;

/// How one `expect` line came out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExpectOutcome {
    pub line: usize,
    pub text: String,
    /// The step after which it was checked.
    pub step: u64,
    pub passed: bool,
    pub actual: Value,
}

/// The value of a subject now.
pub fn actual(sim: &Sim, subject: &Subject) -> Value {
    let tree = sim.zk().tree();
    match subject {
        Subject::Controller => tree
            .get("/controller")
            .and_then(|n| serde_json::from_slice::<Value>(&n.data).ok())
            .and_then(|v| v.get("brokerid").cloned())
            .unwrap_or(Value::Null),
        Subject::ControllerEpoch => tree
            .get("/controller_epoch")
            .and_then(|n| std::str::from_utf8(&n.data).ok().and_then(|s| s.trim().parse::<i64>().ok()))
            .map(Value::from)
            .unwrap_or(Value::Null),
        Subject::Znode { path, aspect } => {
            let node = tree.get(path);
            match aspect {
                ZnodeAspect::Exists => Value::Bool(node.is_some()),
                _ => match node {
                    None => Value::Null,
                    Some(n) => match aspect {
                        ZnodeAspect::Exists => Value::Bool(true),
                        ZnodeAspect::Data => Value::String(String::from_utf8_lossy(&n.data).into_owned()),
                        ZnodeAspect::DataField(fields) => field(&n.data, fields),
                        ZnodeAspect::Version => Value::from(n.stat.version),
                        ZnodeAspect::Cversion => Value::from(n.stat.cversion),
                        ZnodeAspect::Ephemeral => Value::Bool(n.is_ephemeral()),
                        ZnodeAspect::Children => {
                            Value::from(sim.zk().tree().children(path).into_iter().map(String::from).collect::<Vec<_>>())
                        }
                    },
                },
            }
        }
        // The trace subject is evaluated by `holds` (it needs the text).
        Subject::Trace => Value::Null,
        Subject::Partition { tp, aspect } => partition(sim, tp, aspect),
        Subject::Replica { tp, broker } => sim
            .active_controller()
            .and_then(|c| c.ctx.replica_states.get(&(tp.clone(), *broker)))
            .map(|s| Value::from(s.name()))
            .unwrap_or(Value::Null),
        Subject::Broker { broker, aspect } => broker_subject(sim, *broker, aspect),
    }
}

/// A partition as ZooKeeper's state and topic znodes hold it, and as the
/// active controller's state machine sees it.
fn partition(sim: &Sim, tp: &TopicPartition, aspect: &PartitionAspect) -> Value {
    let tree = sim.zk().tree();
    let state = || tree.get(&zk_data::partition_state_path(tp)).and_then(|n| serde_json::from_slice::<Value>(&n.data).ok());
    match aspect {
        PartitionAspect::Leader => state().and_then(|v| v.get("leader").cloned()).unwrap_or(Value::Null),
        PartitionAspect::Isr => state().and_then(|v| v.get("isr").cloned()).unwrap_or(Value::Null),
        PartitionAspect::LeaderEpoch => state().and_then(|v| v.get("leader_epoch").cloned()).unwrap_or(Value::Null),
        PartitionAspect::Replicas => tree
            .get(&zk_data::topic_path(&tp.topic))
            .and_then(|n| serde_json::from_slice::<Value>(&n.data).ok())
            .and_then(|v| v.get("partitions")?.get(tp.partition.to_string()).cloned())
            .unwrap_or(Value::Null),
        PartitionAspect::State => {
            sim.active_controller().and_then(|c| c.ctx.partition_states.get(tp)).map(|s| Value::from(s.name())).unwrap_or(Value::Null)
        }
    }
}

fn broker_subject(sim: &Sim, id: i32, aspect: &BrokerAspect) -> Value {
    let Some(b) = sim.brokers().get(&id) else { return Value::Null };
    match aspect {
        BrokerAspect::State => Value::from(b.state_name()),
        BrokerAspect::Epoch => sim.zk().tree().get(&zk_data::broker_path(id)).map(|n| Value::from(n.stat.czxid)).unwrap_or(Value::Null),
        BrokerAspect::LogDir(k) => {
            b.replica_manager.log_dirs.get(*k as usize).map(|ok| Value::from(if *ok { "online" } else { "offline" })).unwrap_or(Value::Null)
        }
        BrokerAspect::Checkpoint(k) => b.replica_manager.checkpoints.get(k).map(|t| Value::from(&**t)).unwrap_or(Value::Null),
        BrokerAspect::TopicConfig { topic, key } => {
            b.topic_config(topic).and_then(|mut c| c.remove(key)).map(Value::from).unwrap_or(Value::Null)
        }
        BrokerAspect::LastExecutedChange => Value::from(b.dynamic_config.last_executed_change),
        BrokerAspect::Quota { user, client, key } => {
            b.dynamic_config.handlers.quota(user, client, key).filter(|_| b.is_alive()).map(|(_, v)| number(&v)).unwrap_or(Value::Null)
        }
        BrokerAspect::ThrottledReplicas { topic, side } => {
            let h = &b.dynamic_config.handlers;
            let map = if *side == ThrottleSide::Leader { &h.leader_throttled } else { &h.follower_throttled };
            map.get(topic).filter(|_| b.is_alive()).map(|t| t.to_json()).unwrap_or(Value::Null)
        }
        BrokerAspect::ThrottleRate(side) => {
            let h = &b.dynamic_config.handlers;
            Value::from(match side {
                ThrottleSide::Leader => h.leader_rate,
                ThrottleSide::Follower => h.follower_rate,
                ThrottleSide::AlterLogDirs => h.alter_log_dirs_rate,
            })
        }
    }
}

/// A quota bound as JSON: a whole number when it is one.
fn number(v: &str) -> Value {
    match v.parse::<i64>() {
        Ok(n) => Value::from(n),
        Err(_) => v.parse::<f64>().ok().and_then(serde_json::Number::from_f64).map(Value::Number).unwrap_or_else(|| Value::from(v)),
    }
}

fn field(data: &[u8], fields: &[String]) -> Value {
    let Ok(mut v) = serde_json::from_slice::<Value>(data) else {
        return Value::Null;
    };
    for f in fields {
        v = match v {
            Value::Object(mut m) => m.remove(f).unwrap_or(Value::Null),
            Value::Array(mut a) => match f.parse::<usize>() {
                Ok(i) if i < a.len() => a.swap_remove(i),
                _ => Value::Null,
            },
            _ => Value::Null,
        };
    }
    v
}

/// Checks an expectation; returns (passed, actual value shown on failure).
pub fn check(sim: &Sim, trace: &Trace, e: &Expectation) -> (bool, Value) {
    if e.subject == Subject::Trace {
        let text = match &e.value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let found = trace.contains(sim.steps(), &text);
        return (found, Value::String(if found { "found".into() } else { format!("no step contains {text:?}") }));
    }
    let actual = actual(sim, &e.subject);
    (holds(&actual, e.op, &e.value), actual)
}

/// JSON equality where 1 and 1.0 are the same number.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q)),
        _ => a == b,
    }
}

pub fn holds(actual: &Value, op: ExpectOp, expected: &Value) -> bool {
    match op {
        ExpectOp::Eq => json_eq(actual, expected),
        ExpectOp::Ne => !json_eq(actual, expected),
        ExpectOp::Contains => match actual {
            Value::Array(items) => items.iter().any(|i| json_eq(i, expected)),
            Value::String(s) => match expected {
                Value::String(t) => s.contains(t.as_str()),
                other => s.contains(&other.to_string()),
            },
            _ => false,
        },
        ExpectOp::In => match expected {
            Value::Array(items) => items.iter().any(|i| json_eq(i, actual)),
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn operators() {
        assert!(holds(&json!(1), ExpectOp::Eq, &json!(1.0)));
        assert!(holds(&json!([0, 1]), ExpectOp::Contains, &json!(1)));
        assert!(holds(&json!("abc"), ExpectOp::Contains, &json!("b")));
        assert!(holds(&json!(2), ExpectOp::In, &json!([1, 2])));
        assert!(holds(&json!(null), ExpectOp::Ne, &json!(0)));
        assert!(!holds(&json!(3), ExpectOp::In, &json!([1, 2])));
    }

    #[test]
    fn fields_walk_objects_and_arrays() {
        let data = br#"{"config":{"retention.ms":"1000"},"partitions":{"0":[1,2]},"isr":[2,3]}"#;
        assert_eq!(field(data, &["config".into(), "retention.ms".into()]), json!("1000"));
        assert_eq!(field(data, &["partitions".into(), "0".into()]), json!([1, 2]));
        assert_eq!(field(data, &["isr".into(), "1".into()]), json!(3));
        assert_eq!(field(data, &["nope".into()]), Value::Null);
        assert_eq!(field(b"not json", &["x".into()]), Value::Null);
    }
}
