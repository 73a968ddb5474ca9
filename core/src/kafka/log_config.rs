//! `kafka.log.LogConfig`: the topic-level settings a log runs with, their
//! types, validators and defaults. A topic's effective config is the
//! broker's log defaults (each topic key's broker synonym: `retention.ms` ←
//! `log.retention.ms`/`log.retention.hours`, `cleanup.policy` ←
//! `log.cleanup.policy`, ...) overlaid by the topic's whole override set from
//! `/config/topics/<topic>` (`LogConfig.fromProps`) — so deleting an override
//! reverts the key to the broker default, never to an older override.

use super::config::ConfigError;
use super::config_def::{self, key, Key, Kind};
use std::collections::BTreeMap;

pub const RETENTION_MS: &str = "retention.ms";
pub const MESSAGE_TIMESTAMP_DIFFERENCE_MAX_MS: &str = "message.timestamp.difference.max.ms";
pub const MESSAGE_FORMAT_VERSION: &str = "message.format.version";
pub const UNCLEAN_LEADER_ELECTION_ENABLE: &str = "unclean.leader.election.enable";
pub const LEADER_THROTTLED_REPLICAS: &str = "leader.replication.throttled.replicas";
pub const FOLLOWER_THROTTLED_REPLICAS: &str = "follower.replication.throttled.replicas";
const MIN_COMPACTION_LAG_MS: &str = "min.compaction.lag.ms";
const MAX_COMPACTION_LAG_MS: &str = "max.compaction.lag.ms";

const LONG_MAX: &str = "9223372036854775807";
const COMPRESSION: &[&str] = &["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"];
const CLEANUP: &[&str] = &["compact", "delete"];
const TIMESTAMP_TYPES: &[&str] = &["CreateTime", "LogAppendTime"];

/// One topic key: its type, the broker setting that gives its default, and
/// Kafka 2.8's default when the broker does not set it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TopicKey {
    pub key: Key,
    pub server: &'static str,
    pub default: &'static str,
}

const fn topic_key(name: &'static str, kind: Kind, server: &'static str, default: &'static str) -> TopicKey {
    TopicKey { key: key(name, kind), server, default }
}

/// `LogConfig.configDef` (2.8.2), in its order.
pub const TOPIC_KEYS: &[TopicKey] = &[
    topic_key("segment.bytes", Kind::Int { min: Some(14) }, "log.segment.bytes", "1073741824"),
    topic_key("segment.ms", Kind::Long { min: Some(1) }, "log.roll.ms", "604800000"),
    topic_key("segment.jitter.ms", Kind::Long { min: Some(0) }, "log.roll.jitter.ms", "0"),
    topic_key("segment.index.bytes", Kind::Int { min: Some(0) }, "log.index.size.max.bytes", "10485760"),
    topic_key("flush.messages", Kind::Long { min: Some(0) }, "log.flush.interval.messages", LONG_MAX),
    topic_key("flush.ms", Kind::Long { min: Some(0) }, "log.flush.interval.ms", LONG_MAX),
    topic_key("retention.bytes", Kind::Long { min: None }, "log.retention.bytes", "-1"),
    topic_key(RETENTION_MS, Kind::Long { min: Some(-1) }, "log.retention.ms", "604800000"),
    topic_key("max.message.bytes", Kind::Int { min: Some(0) }, "message.max.bytes", "1048588"),
    topic_key("index.interval.bytes", Kind::Int { min: Some(0) }, "log.index.interval.bytes", "4096"),
    topic_key("delete.retention.ms", Kind::Long { min: Some(0) }, "log.cleaner.delete.retention.ms", "86400000"),
    topic_key(MIN_COMPACTION_LAG_MS, Kind::Long { min: Some(0) }, "log.cleaner.min.compaction.lag.ms", "0"),
    topic_key(MAX_COMPACTION_LAG_MS, Kind::Long { min: Some(1) }, "log.cleaner.max.compaction.lag.ms", LONG_MAX),
    topic_key("file.delete.delay.ms", Kind::Long { min: Some(0) }, "log.segment.delete.delay.ms", "60000"),
    topic_key("min.cleanable.dirty.ratio", Kind::Double { min: Some(0.0), max: Some(1.0) }, "log.cleaner.min.cleanable.ratio", "0.5"),
    topic_key("cleanup.policy", Kind::ListOf(CLEANUP), "log.cleanup.policy", "delete"),
    topic_key(UNCLEAN_LEADER_ELECTION_ENABLE, Kind::Boolean, "unclean.leader.election.enable", "false"),
    topic_key("min.insync.replicas", Kind::Int { min: Some(1) }, "min.insync.replicas", "1"),
    topic_key("compression.type", Kind::OneOf(COMPRESSION), "compression.type", "producer"),
    topic_key("preallocate", Kind::Boolean, "log.preallocate", "false"),
    // The default is the release's latest version, whatever the IBP.
    topic_key(MESSAGE_FORMAT_VERSION, Kind::Version, "log.message.format.version", "2.8-IV1"),
    topic_key("message.timestamp.type", Kind::OneOf(TIMESTAMP_TYPES), "log.message.timestamp.type", "CreateTime"),
    topic_key(MESSAGE_TIMESTAMP_DIFFERENCE_MAX_MS, Kind::Long { min: Some(0) }, "log.message.timestamp.difference.max.ms", LONG_MAX),
    topic_key(LEADER_THROTTLED_REPLICAS, Kind::ThrottledReplicas, "", ""),
    topic_key(FOLLOWER_THROTTLED_REPLICAS, Kind::ThrottledReplicas, "", ""),
    topic_key("message.downconversion.enable", Kind::Boolean, "log.message.downconversion.enable", "true"),
];

/// Broker settings (static in server.properties, or dynamic under
/// `/config/brokers`) that set a topic default, beyond those `KafkaConfig`
/// already knows (`log.retention.*`, `min.insync.replicas`,
/// `unclean.leader.election.enable`).
pub const BROKER_LOG_KEYS: &[Key] = &[
    key("log.segment.bytes", Kind::Int { min: Some(14) }),
    key("log.retention.bytes", Kind::Long { min: None }),
    key("log.cleanup.policy", Kind::ListOf(CLEANUP)),
    key("message.max.bytes", Kind::Int { min: Some(0) }),
    key("compression.type", Kind::OneOf(COMPRESSION)),
    key("log.message.timestamp.difference.max.ms", Kind::Long { min: Some(0) }),
];

/// The topic key called `name`.
pub fn topic_key_named(name: &str) -> Option<TopicKey> {
    TOPIC_KEYS.iter().copied().find(|k| k.key.name == name)
}

/// Every topic config name, for error messages.
pub fn config_names() -> String {
    TOPIC_KEYS.iter().map(|k| k.key.name).collect::<Vec<_>>().join(", ")
}

/// `KafkaConfig.logRetentionTimeMillis`: `log.retention.ms`, else
/// `log.retention.minutes`, else `log.retention.hours` (168); negative → -1.
fn retention_ms(broker: &BTreeMap<String, String>) -> i64 {
    let get = |k: &str| broker.get(k).and_then(|v| v.trim().parse::<i64>().ok());
    let ms = get("log.retention.ms")
        .or_else(|| get("log.retention.minutes").map(|m| m.saturating_mul(60_000)))
        .unwrap_or_else(|| get("log.retention.hours").unwrap_or(168).saturating_mul(3_600_000));
    if ms < 0 {
        -1
    } else {
        ms
    }
}

/// `LogManager.currentDefaultConfig`: every topic key's default, from the
/// broker's effective settings (static, overlaid by the dynamic
/// `<default>` and per-broker settings).
pub fn broker_defaults(broker: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    super::ordered_map(TOPIC_KEYS.iter().map(|t| {
        let value = if t.key.name == RETENTION_MS {
            retention_ms(broker).to_string()
        } else {
            broker
                .get(t.server)
                .filter(|_| !t.server.is_empty())
                .and_then(|v| config_def::parse(t.key, v).ok())
                .unwrap_or_else(|| t.default.to_string())
        };
        (t.key.name.to_string(), value)
    }))
}

/// `LogConfig.fromProps(defaults, overrides)`: the effective config. Unknown
/// override keys are ignored (as `AbstractConfig` does); an invalid value of
/// a known key fails the whole config.
pub fn from_props(
    defaults: &BTreeMap<String, String>,
    overrides: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let mut out = defaults.clone();
    for (k, v) in overrides {
        if let Some(t) = topic_key_named(k) {
            out.insert(k.clone(), config_def::parse(t.key, v)?);
        }
    }
    Ok(out)
}

/// `LogConfig.validate`: only topic config names, every value valid, and
/// `min.compaction.lag.ms` not above `max.compaction.lag.ms`.
pub fn validate(props: &BTreeMap<String, String>) -> Result<(), ConfigError> {
    for (k, v) in props {
        let Some(t) = topic_key_named(k) else {
            return Err(ConfigError {
                key: k.clone(),
                value: v.clone(),
                rule: format!("Unknown topic config name: {k} (InvalidConfigurationException); topic configs are {}", config_names()),
            });
        };
        config_def::parse(t.key, v)?;
    }
    let lag = |k: &str, default: i64| props.get(k).and_then(|v| v.trim().parse::<i64>().ok()).unwrap_or(default);
    let (min, max) = (lag(MIN_COMPACTION_LAG_MS, 0), lag(MAX_COMPACTION_LAG_MS, i64::MAX));
    if min > max {
        return Err(ConfigError {
            key: MIN_COMPACTION_LAG_MS.into(),
            value: min.to_string(),
            rule: format!("conflict topic config setting {MIN_COMPACTION_LAG_MS} ({min}) > {MAX_COMPACTION_LAG_MS} ({max})"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn defaults_follow_the_broker() {
        let d = broker_defaults(&BTreeMap::new());
        assert_eq!(d["retention.ms"], "604800000");
        assert_eq!(d["cleanup.policy"], "delete");
        assert_eq!(d["segment.bytes"], "1073741824");
        assert_eq!(d["message.timestamp.difference.max.ms"], "9223372036854775807");
        assert_eq!(d.len(), TOPIC_KEYS.len());
        let d = broker_defaults(&props(&[("log.retention.hours", "1"), ("log.cleanup.policy", "compact")]));
        assert_eq!((d["retention.ms"].as_str(), d["cleanup.policy"].as_str()), ("3600000", "compact"));
        let d = broker_defaults(&props(&[("log.retention.hours", "1"), ("log.retention.ms", "5000")]));
        assert_eq!(d["retention.ms"], "5000");
        assert_eq!(broker_defaults(&props(&[("log.retention.ms", "-7")]))["retention.ms"], "-1");
    }

    #[test]
    fn overrides_overlay_the_defaults_and_deleting_reverts() {
        let d = broker_defaults(&BTreeMap::new());
        let e = from_props(&d, &props(&[("retention.ms", "1000"), ("unclean.leader.election.enable", "TRUE"), ("x.y", "z")])).unwrap();
        assert_eq!(e["retention.ms"], "1000");
        assert_eq!(e["unclean.leader.election.enable"], "true");
        assert!(!e.contains_key("x.y"), "unknown keys are ignored");
        let e = from_props(&d, &BTreeMap::new()).unwrap();
        assert_eq!(e["retention.ms"], "604800000");
        assert!(from_props(&d, &props(&[("retention.ms", "soon")])).is_err());
    }

    #[test]
    fn validation_names_the_key_and_the_rule() {
        assert!(validate(&props(&[("retention.ms", "1000"), ("cleanup.policy", "compact,delete")])).is_ok());
        let e = validate(&props(&[("retention.ms", "-5")])).unwrap_err();
        assert_eq!((e.key.as_str(), e.rule.as_str()), ("retention.ms", "Value must be at least -1"));
        let e = validate(&props(&[("min.insync.replicas", "0")])).unwrap_err();
        assert_eq!(e.key, "min.insync.replicas");
        let e = validate(&props(&[("cleanup.policy", "shred")])).unwrap_err();
        assert!(e.to_string().contains("cleanup.policy") && e.rule.contains("compact, delete"), "{e}");
        let e = validate(&props(&[("retention.mss", "1")])).unwrap_err();
        assert!(e.rule.starts_with("Unknown topic config name: retention.mss"), "{e}");
        let e = validate(&props(&[("min.compaction.lag.ms", "10"), ("max.compaction.lag.ms", "5")])).unwrap_err();
        assert!(e.rule.contains("conflict"), "{e}");
        let e = validate(&props(&[("leader.replication.throttled.replicas", "0;1")])).unwrap_err();
        assert!(e.rule.contains("[partitionId]:[brokerId]"), "{e}");
        let e = validate(&props(&[("message.format.version", "9.9")])).unwrap_err();
        assert!(e.rule.contains("not a valid version"), "{e}");
        for (k, v) in [("min.cleanable.dirty.ratio", "2"), ("segment.bytes", "10"), ("max.message.bytes", "x"), ("preallocate", "maybe")] {
            assert_eq!(validate(&props(&[(k, v)])).unwrap_err().key, k);
        }
    }
}
