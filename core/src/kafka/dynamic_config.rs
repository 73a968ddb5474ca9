//! `kafka.server.DynamicConfig` and `ConfigType`: the config entity types
//! that live under `/config/<type>`, and the keys each may carry besides
//! topics (`LogConfig`): client quotas for `clients` and `users`, and the
//! dynamic broker settings for `brokers`.

use super::config::ConfigError;
use super::config_def::{self, key, Key, Kind};
use super::log_config;
use std::collections::BTreeMap;

/// `ConfigEntityName.Default`: the entity every unnamed one falls back to.
pub const DEFAULT_ENTITY: &str = "<default>";

/// `ConfigType`: the roots under `/config`, in the order the
/// DynamicConfigManager bootstraps them.
pub const CONFIG_TYPES: &[&str] = &["topics", "clients", "users", "brokers", "ips"];

pub const PRODUCER_BYTE_RATE: &str = "producer_byte_rate";
pub const CONSUMER_BYTE_RATE: &str = "consumer_byte_rate";
pub const REQUEST_PERCENTAGE: &str = "request_percentage";
pub const CONTROLLER_MUTATION_RATE: &str = "controller_mutation_rate";

/// `DynamicConfig.Client` (and the quota part of `DynamicConfig.User`):
/// typed, with no range check in 2.8.
pub const QUOTA_KEYS: &[Key] = &[
    key(PRODUCER_BYTE_RATE, Kind::Long { min: None }),
    key(CONSUMER_BYTE_RATE, Kind::Long { min: None }),
    key(REQUEST_PERCENTAGE, Kind::Double { min: None, max: None }),
    key(CONTROLLER_MUTATION_RATE, Kind::Double { min: None, max: None }),
];

pub const LEADER_THROTTLED_RATE: &str = "leader.replication.throttled.rate";
pub const FOLLOWER_THROTTLED_RATE: &str = "follower.replication.throttled.rate";
pub const ALTER_LOG_DIRS_RATE: &str = "replica.alter.log.dirs.io.max.bytes.per.second";

/// `DynamicConfig.Broker`: the three replication quotas, plus the dynamic
/// log defaults this simulator models (the topic defaults they feed).
pub const BROKER_KEYS: &[Key] = &[
    key(LEADER_THROTTLED_RATE, Kind::Long { min: Some(0) }),
    key(FOLLOWER_THROTTLED_RATE, Kind::Long { min: Some(0) }),
    key(ALTER_LOG_DIRS_RATE, Kind::Long { min: Some(0) }),
    key("log.retention.ms", Kind::Long { min: None }),
    key("min.insync.replicas", Kind::Int { min: Some(1) }),
    key("log.segment.bytes", Kind::Int { min: Some(14) }),
    key("log.retention.bytes", Kind::Long { min: None }),
    key("log.cleanup.policy", Kind::ListOf(&["compact", "delete"])),
    key("message.max.bytes", Kind::Int { min: Some(0) }),
    key("compression.type", Kind::OneOf(&["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"])),
    key("log.message.timestamp.difference.max.ms", Kind::Long { min: Some(0) }),
];

/// `DynamicConfig.Ip`.
pub const IP_KEYS: &[Key] = &[key("connection_creation_rate", Kind::Int { min: Some(0) })];

/// Checks every key is one of `keys` and every value parses
/// (`DynamicConfig.validate`, custom keys not allowed).
pub fn validate_keys(keys: &[Key], what: &str, props: &BTreeMap<String, String>) -> Result<(), ConfigError> {
    for (k, v) in props {
        let Some(key) = config_def::find(keys, k) else {
            return Err(ConfigError {
                key: k.clone(),
                value: v.clone(),
                rule: format!(
                    "Unknown Dynamic Configuration for {what} (IllegalArgumentException); {what} configs are {}",
                    config_def::names(keys)
                ),
            });
        };
        config_def::parse(key, v)?;
    }
    Ok(())
}

/// The validation `AdminZkClient.changeConfigs` applies for an entity type
/// (the sanitized name tells `<user>` from `<user>/clients/<client>`).
pub fn validate(entity_type: &str, props: &BTreeMap<String, String>) -> Result<(), ConfigError> {
    match entity_type {
        "topics" => log_config::validate(props),
        "clients" | "users" => validate_keys(QUOTA_KEYS, "client quota", props),
        "brokers" => validate_keys(BROKER_KEYS, "broker", props),
        "ips" => validate_keys(IP_KEYS, "ip", props),
        other => Err(ConfigError { key: String::new(), value: other.into(), rule: "not a config entity type".into() }),
    }
}

/// Keeps the keys of `props` that `keys` accepts with valid values, and
/// names the rest (`DynamicBrokerConfig.removeInvalidConfigs`).
pub fn split_valid(keys: &[Key], props: &BTreeMap<String, String>) -> (BTreeMap<String, String>, Vec<String>) {
    let mut ok = BTreeMap::new();
    let mut bad = Vec::new();
    for (k, v) in props {
        match config_def::find(keys, k).map(|key| config_def::parse(key, v)) {
            Some(Ok(value)) => {
                ok.insert(k.clone(), value);
            }
            _ => bad.push(k.clone()),
        }
    }
    (ok, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn quota_and_broker_keys() {
        assert!(validate("clients", &props(&[("producer_byte_rate", "1024"), ("request_percentage", "12.5")])).is_ok());
        let e = validate("users", &props(&[("producer_byte_rate", "fast")])).unwrap_err();
        assert_eq!((e.key.as_str(), e.rule.as_str()), ("producer_byte_rate", "Not a number of type LONG"));
        let e = validate("clients", &props(&[("retention.ms", "1")])).unwrap_err();
        assert!(e.rule.contains("Unknown Dynamic Configuration"), "{e}");
        let e = validate("brokers", &props(&[("leader.replication.throttled.rate", "-1")])).unwrap_err();
        assert_eq!(e.rule, "Value must be at least 0");
        assert!(validate("brokers", &props(&[("log.retention.ms", "1000")])).is_ok());
        let (ok, bad) = split_valid(BROKER_KEYS, &props(&[("log.retention.ms", "5"), ("nope", "1"), ("message.max.bytes", "-1")]));
        assert_eq!(ok.keys().collect::<Vec<_>>(), ["log.retention.ms"]);
        assert_eq!(bad, ["message.max.bytes", "nope"]);
    }
}
