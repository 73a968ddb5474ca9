//! `ConfigDef`: how Kafka parses and checks one configuration value — its
//! type (LONG, INT, DOUBLE, BOOLEAN, STRING, LIST) and its validator (a range,
//! a set of allowed strings, a version, a replica list) — with Kafka's own
//! wording, so that a bad value is rejected with the rule it broke, as a
//! `ConfigException` says it. `LogConfig`, `DynamicConfig` and the static
//! `KafkaConfig` log settings share it.

use super::config::{ApiVersion, ConfigError};

/// A key's type and validator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A 64-bit integer, `atLeast(min)` when given.
    Long {
        min: Option<i64>,
    },
    /// A 32-bit integer, `atLeast(min)` when given.
    Int {
        min: Option<i64>,
    },
    /// A double, `between(min, max)` when given.
    Double {
        min: Option<f64>,
        max: Option<f64>,
    },
    Boolean,
    /// `ValidString.in(...)`: one of these (case matters).
    OneOf(&'static [&'static str]),
    /// A comma-separated list, each item `ValidString.in(...)`.
    ListOf(&'static [&'static str]),
    /// `ApiVersionValidator`: a Kafka release such as 2.6 or 0.10.2-IV0.
    Version,
    /// `ThrottledReplicaListValidator`: `*` or `partition:broker,...`.
    ThrottledReplicas,
}

/// One configuration key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key {
    pub name: &'static str,
    pub kind: Kind,
}

pub const fn key(name: &'static str, kind: Kind) -> Key {
    Key { name, kind }
}

fn invalid(name: &str, value: &str, rule: impl Into<String>) -> ConfigError {
    ConfigError { key: name.to_string(), value: value.to_string(), rule: rule.into() }
}

fn range(name: &str, value: &str, n: f64, min: Option<f64>, max: Option<f64>) -> Result<(), ConfigError> {
    if let Some(min) = min.filter(|m| n < *m) {
        return Err(invalid(name, value, format!("Value must be at least {min}")));
    }
    if let Some(max) = max.filter(|m| n > *m) {
        return Err(invalid(name, value, format!("Value must be no more than {max}")));
    }
    Ok(())
}

/// `COMMA_WITH_WHITESPACE.split`: the items of a LIST value (none when blank).
pub fn list_items(value: &str) -> Vec<&str> {
    let t = value.trim();
    if t.is_empty() {
        Vec::new()
    } else {
        t.split(',').map(str::trim).collect()
    }
}

/// The Kafka releases a `message.format.version` may name (2.8.2's
/// `ApiVersion.allVersions`, by major and minor).
pub fn known_release(v: ApiVersion) -> bool {
    match (v.major, v.minor) {
        (0, 8) => v.patch <= 2,
        (0, 9) | (0, 11) => v.patch == 0,
        (0, 10) => v.patch <= 2,
        (1, 0) | (1, 1) => true,
        (2, m) => m <= 8,
        _ => false,
    }
}

/// Parses `value` as the key demands. Ok is the value as Kafka holds it,
/// printed back (`TRUE` → `true`, ` 5 ` → `5`, `0.50` → `0.5`).
pub fn parse(k: Key, value: &str) -> Result<String, ConfigError> {
    let name = k.name;
    let t = value.trim();
    match k.kind {
        Kind::Long { min } => {
            let n = t.parse::<i64>().map_err(|_| invalid(name, value, "Not a number of type LONG"))?;
            range(name, value, n as f64, min.map(|m| m as f64), None)?;
            Ok(n.to_string())
        }
        Kind::Int { min } => {
            let n = t.parse::<i32>().map_err(|_| invalid(name, value, "Not a number of type INT"))?;
            range(name, value, n as f64, min.map(|m| m as f64), None)?;
            Ok(n.to_string())
        }
        Kind::Double { min, max } => {
            let n = t.parse::<f64>().ok().filter(|n| n.is_finite()).ok_or_else(|| invalid(name, value, "Not a number of type DOUBLE"))?;
            range(name, value, n, min, max)?;
            Ok(format!("{n:?}"))
        }
        Kind::Boolean => match t.to_ascii_lowercase().as_str() {
            "true" => Ok("true".into()),
            "false" => Ok("false".into()),
            _ => Err(invalid(name, value, "Expected value to be either true or false")),
        },
        Kind::OneOf(allowed) => {
            if allowed.contains(&t) {
                Ok(t.to_string())
            } else {
                Err(invalid(name, value, format!("String must be one of: {}", allowed.join(", "))))
            }
        }
        Kind::ListOf(allowed) => {
            let items = list_items(t);
            if let Some(bad) = items.iter().find(|i| !allowed.contains(i)) {
                return Err(invalid(name, bad, format!("String must be one of: {}", allowed.join(", "))));
            }
            Ok(items.join(","))
        }
        Kind::Version => match ApiVersion::parse(t).filter(|v| known_release(*v)) {
            Some(_) => Ok(t.to_string()),
            None => Err(invalid(name, value, format!("Version `{t}` is not a valid version"))),
        },
        Kind::ThrottledReplicas => {
            let items = list_items(t);
            let pairs = items.iter().all(|i| i.is_empty() || is_replica_pair(i));
            if pairs || items.concat().trim() == "*" {
                Ok(items.join(","))
            } else {
                Err(invalid(
                    name,
                    value,
                    format!("{name} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."),
                ))
            }
        }
    }
}

/// `[0-9]+:[0-9]+`.
fn is_replica_pair(s: &str) -> bool {
    match s.split_once(':') {
        Some((p, b)) => !p.is_empty() && !b.is_empty() && p.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit()),
        None => false,
    }
}

/// The key named `name` among `keys`.
pub fn find(keys: &[Key], name: &str) -> Option<Key> {
    keys.iter().copied().find(|k| k.name == name)
}

/// The names of `keys`, for an error message.
pub fn names(keys: &[Key]) -> String {
    keys.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(kind: Kind, v: &str) -> Result<String, String> {
        parse(key("k", kind), v).map_err(|e| e.rule)
    }

    #[test]
    fn types_parse_and_print_back() {
        assert_eq!(p(Kind::Long { min: Some(-1) }, " 1000 "), Ok("1000".into()));
        assert_eq!(p(Kind::Long { min: Some(-1) }, "-2"), Err("Value must be at least -1".into()));
        assert_eq!(p(Kind::Long { min: None }, "1h"), Err("Not a number of type LONG".into()));
        assert_eq!(p(Kind::Int { min: None }, "3000000000"), Err("Not a number of type INT".into()));
        assert_eq!(p(Kind::Double { min: Some(0.0), max: Some(1.0) }, "0.50"), Ok("0.5".into()));
        assert_eq!(p(Kind::Double { min: Some(0.0), max: Some(1.0) }, "1.5"), Err("Value must be no more than 1".into()));
        assert_eq!(p(Kind::Boolean, "TRUE"), Ok("true".into()));
        assert_eq!(p(Kind::Boolean, "yes"), Err("Expected value to be either true or false".into()));
        assert_eq!(p(Kind::ListOf(&["compact", "delete"]), "compact, delete"), Ok("compact,delete".into()));
        assert!(p(Kind::ListOf(&["compact", "delete"]), "Compact").unwrap_err().contains("one of: compact, delete"));
        assert_eq!(p(Kind::OneOf(&["CreateTime", "LogAppendTime"]), "LogAppendTime"), Ok("LogAppendTime".into()));
    }

    #[test]
    fn versions_are_kafka_releases() {
        assert!(p(Kind::Version, "2.6").is_ok());
        assert!(p(Kind::Version, "0.10.2-IV0").is_ok());
        assert!(p(Kind::Version, "2.8-IV1").is_ok());
        assert_eq!(p(Kind::Version, "3.0"), Err("Version `3.0` is not a valid version".into()));
        assert!(p(Kind::Version, "banana").is_err());
    }

    #[test]
    fn throttled_replica_lists() {
        assert_eq!(p(Kind::ThrottledReplicas, "*"), Ok("*".into()));
        assert_eq!(p(Kind::ThrottledReplicas, "0:1, 1:2"), Ok("0:1,1:2".into()));
        assert_eq!(p(Kind::ThrottledReplicas, ""), Ok("".into()));
        assert!(p(Kind::ThrottledReplicas, "0-1").unwrap_err().contains("[partitionId]:[brokerId]"));
        assert!(p(Kind::ThrottledReplicas, "*,0:1").is_err());
    }
}
