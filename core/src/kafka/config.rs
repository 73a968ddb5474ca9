//! `KafkaConfig`: the static server.properties a scenario sets with
//! `broker-config`, with Kafka 2.8's defaults. An unknown key or an invalid
//! value is an error naming the key, like Kafka's ConfigException.

use std::collections::BTreeMap;
use std::fmt;
use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("invalid value '{value}' for configuration {key}: {rule}")]
pub struct ConfigError {
    pub key: String,
    pub value: String,
    pub rule: String,
}

/// An `inter.broker.protocol.version`, compared by (major, minor, patch).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ApiVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl ApiVersion {
    pub const fn new(major: u32, minor: u32, patch: u32) -> ApiVersion {
        ApiVersion { major, minor, patch }
    }
    /// `KAFKA_0_10_0_IV1`: brokers register with JSON version 4 from here.
    pub const V0_10_0: ApiVersion = ApiVersion::new(0, 10, 0);
    /// `KAFKA_1_0_IV0`: LeaderAndIsr carries `isNew`; below it a log-dir
    /// failure halts the broker.
    pub const V1_0: ApiVersion = ApiVersion::new(1, 0, 0);
    /// The version the simulator models by default.
    pub const V2_6: ApiVersion = ApiVersion::new(2, 6, 0);

    /// Parses `2.6`, `2.6-IV0`, `0.11.0`, `0.10.2-IV0`, `1.0`.
    pub fn parse(s: &str) -> Option<ApiVersion> {
        let base = s.split('-').next()?;
        let mut parts = base.split('.').map(|p| p.parse::<u32>());
        let major = parts.next()?.ok()?;
        let minor = parts.next()?.ok()?;
        let patch = match parts.next() {
            Some(p) => p.ok()?,
            None => 0,
        };
        if parts.next().is_some() {
            return None;
        }
        let v = ApiVersion::new(major, minor, patch);
        (ApiVersion::new(0, 8, 0)..=ApiVersion::new(3, 9, 9)).contains(&v).then_some(v)
    }
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.major == 0 {
            write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
        } else {
            write!(f, "{}.{}", self.major, self.minor)
        }
    }
}

/// The settings the simulated brokers read. Everything else Kafka has is
/// either irrelevant to the control plane or fixed at its default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KafkaConfig {
    pub zookeeper_session_timeout_ms: u64,
    pub replica_lag_time_max_ms: u64,
    pub replica_high_watermark_checkpoint_interval_ms: u64,
    pub replica_fetch_wait_max_ms: u64,
    pub leader_imbalance_check_interval_seconds: u64,
    pub leader_imbalance_per_broker_percentage: u64,
    pub auto_leader_rebalance_enable: bool,
    pub unclean_leader_election_enable: bool,
    pub delete_topic_enable: bool,
    pub controlled_shutdown_enable: bool,
    pub controlled_shutdown_max_retries: u32,
    pub controlled_shutdown_retry_backoff_ms: u64,
    pub inter_broker_protocol_version: ApiVersion,
    pub min_insync_replicas: u32,
    pub log_retention_hours: u64,
    pub log_retention_ms: Option<i64>,
    pub default_replication_factor: u32,
    pub num_partitions: u32,
    /// Every setting as given, for the config-aware parts (topic defaults).
    pub originals: BTreeMap<String, String>,
}

impl Default for KafkaConfig {
    fn default() -> Self {
        KafkaConfig {
            zookeeper_session_timeout_ms: 18_000,
            replica_lag_time_max_ms: 30_000,
            replica_high_watermark_checkpoint_interval_ms: 5_000,
            replica_fetch_wait_max_ms: 500,
            leader_imbalance_check_interval_seconds: 300,
            leader_imbalance_per_broker_percentage: 10,
            auto_leader_rebalance_enable: true,
            unclean_leader_election_enable: false,
            delete_topic_enable: true,
            controlled_shutdown_enable: true,
            controlled_shutdown_max_retries: 3,
            controlled_shutdown_retry_backoff_ms: 5_000,
            inter_broker_protocol_version: ApiVersion::V2_6,
            min_insync_replicas: 1,
            log_retention_hours: 168,
            log_retention_ms: None,
            default_replication_factor: 1,
            num_partitions: 1,
            originals: BTreeMap::new(),
        }
    }
}

fn err(key: &str, value: &str, rule: impl Into<String>) -> ConfigError {
    ConfigError { key: key.to_string(), value: value.to_string(), rule: rule.into() }
}

fn long(key: &str, value: &str, min: u64, max: u64) -> Result<u64, ConfigError> {
    match value.trim().parse::<u64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        Ok(_) => Err(err(key, value, format!("value must be between {min} and {max}"))),
        Err(_) => Err(err(key, value, "expected a whole number")),
    }
}

fn boolean(key: &str, value: &str) -> Result<bool, ConfigError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(err(key, value, "expected true or false")),
    }
}

/// Keys a scenario may set, with a word on each for the error message.
pub const KNOWN_KEYS: &[&str] = &[
    "zookeeper.session.timeout.ms",
    "replica.lag.time.max.ms",
    "replica.high.watermark.checkpoint.interval.ms",
    "replica.fetch.wait.max.ms",
    "leader.imbalance.check.interval.seconds",
    "leader.imbalance.per.broker.percentage",
    "auto.leader.rebalance.enable",
    "unclean.leader.election.enable",
    "delete.topic.enable",
    "controlled.shutdown.enable",
    "controlled.shutdown.max.retries",
    "controlled.shutdown.retry.backoff.ms",
    "inter.broker.protocol.version",
    "min.insync.replicas",
    "log.retention.hours",
    "log.retention.ms",
    "default.replication.factor",
    "num.partitions",
];

impl KafkaConfig {
    /// Applies `key=value` settings over the defaults (or over `self`).
    pub fn with(mut self, settings: &[(String, String)]) -> Result<KafkaConfig, ConfigError> {
        for (k, v) in settings {
            self.set(k, v)?;
        }
        Ok(self)
    }

    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        const DAY_MS: u64 = 86_400_000;
        match key {
            "zookeeper.session.timeout.ms" => self.zookeeper_session_timeout_ms = long(key, value, 1, 40_000)?,
            "replica.lag.time.max.ms" => self.replica_lag_time_max_ms = long(key, value, 2, 30 * DAY_MS)?,
            "replica.high.watermark.checkpoint.interval.ms" => {
                self.replica_high_watermark_checkpoint_interval_ms = long(key, value, 1, 30 * DAY_MS)?
            }
            "replica.fetch.wait.max.ms" => self.replica_fetch_wait_max_ms = long(key, value, 0, 60_000)?,
            "leader.imbalance.check.interval.seconds" => self.leader_imbalance_check_interval_seconds = long(key, value, 1, 30 * 86_400)?,
            "leader.imbalance.per.broker.percentage" => self.leader_imbalance_per_broker_percentage = long(key, value, 0, 100)?,
            "auto.leader.rebalance.enable" => self.auto_leader_rebalance_enable = boolean(key, value)?,
            "unclean.leader.election.enable" => self.unclean_leader_election_enable = boolean(key, value)?,
            "delete.topic.enable" => self.delete_topic_enable = boolean(key, value)?,
            "controlled.shutdown.enable" => self.controlled_shutdown_enable = boolean(key, value)?,
            "controlled.shutdown.max.retries" => self.controlled_shutdown_max_retries = long(key, value, 0, 100)? as u32,
            "controlled.shutdown.retry.backoff.ms" => self.controlled_shutdown_retry_backoff_ms = long(key, value, 0, DAY_MS)?,
            "inter.broker.protocol.version" => {
                let v = ApiVersion::parse(value).ok_or_else(|| err(key, value, "expected a version such as 2.6, 1.0 or 0.11.0"))?;
                if v >= ApiVersion::new(2, 7, 0) {
                    return Err(err(
                        key,
                        value,
                        "this sandbox models the ZooKeeper ISR path of versions below 2.7 (from 2.7-IV2 leaders send AlterIsr to the controller instead)",
                    ));
                }
                self.inter_broker_protocol_version = v;
            }
            "min.insync.replicas" => self.min_insync_replicas = long(key, value, 1, 1000)? as u32,
            "log.retention.hours" => self.log_retention_hours = long(key, value, 1, 1_000_000)?,
            "log.retention.ms" => {
                let v = value.trim().parse::<i64>().map_err(|_| err(key, value, "expected a whole number (-1 for unlimited)"))?;
                if v < -1 {
                    return Err(err(key, value, "value must be -1 (unlimited) or at least 0"));
                }
                self.log_retention_ms = Some(v);
            }
            "default.replication.factor" => self.default_replication_factor = long(key, value, 1, 1000)? as u32,
            "num.partitions" => self.num_partitions = long(key, value, 1, 1_000_000)? as u32,
            // Topic defaults only the logs read (LogConfig's broker synonyms).
            _ => match super::config_def::find(super::log_config::BROKER_LOG_KEYS, key) {
                Some(k) => {
                    super::config_def::parse(k, value)?;
                }
                None => {
                    return Err(err(
                        key,
                        value,
                        format!(
                            "unknown configuration; the simulated brokers understand {}, {}",
                            KNOWN_KEYS.join(", "),
                            super::config_def::names(super::log_config::BROKER_LOG_KEYS)
                        ),
                    ));
                }
            },
        }
        self.originals.insert(key.to_string(), value.to_string());
        Ok(())
    }

    /// `replica.lag.time.max.ms / 2`: the isr-expiration period.
    pub fn isr_expiration_period_ms(&self) -> u64 {
        (self.replica_lag_time_max_ms / 2).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_kafka_2_8s() {
        let c = KafkaConfig::default();
        assert_eq!(c.zookeeper_session_timeout_ms, 18_000);
        assert_eq!(c.replica_lag_time_max_ms, 30_000);
        assert_eq!(c.isr_expiration_period_ms(), 15_000);
        assert_eq!(c.inter_broker_protocol_version, ApiVersion::V2_6);
    }

    #[test]
    fn bad_settings_name_the_key() {
        let e = KafkaConfig::default().with(&[("zookeeper.session.timeout.ms".into(), "soon".into())]).unwrap_err();
        assert_eq!(e.key, "zookeeper.session.timeout.ms");
        let e = KafkaConfig::default().with(&[("no.such.key".into(), "1".into())]).unwrap_err();
        assert!(e.to_string().contains("unknown configuration"));
        let e = KafkaConfig::default().with(&[("inter.broker.protocol.version".into(), "2.8".into())]).unwrap_err();
        assert!(e.rule.contains("below 2.7"));
        let c = KafkaConfig::default().with(&[("inter.broker.protocol.version".into(), "0.11.0".into())]).unwrap();
        assert!(c.inter_broker_protocol_version < ApiVersion::V1_0);
        let c = KafkaConfig::default().with(&[("log.cleanup.policy".into(), "compact".into())]).unwrap();
        assert_eq!(c.originals["log.cleanup.policy"], "compact");
        let e = KafkaConfig::default().with(&[("log.segment.bytes".into(), "1".into())]).unwrap_err();
        assert_eq!((e.key.as_str(), e.rule.as_str()), ("log.segment.bytes", "Value must be at least 14"));
    }
}
