//! `kafka.server.ConfigHandler` (2.8.2): what a broker does with an entity's
//! config once the DynamicConfigManager has read it from `/config/...` —
//! always the entity's whole override set, never a delta.
//!
//! * `TopicConfigHandler`: the topic's logs here run with the broker's log
//!   defaults overlaid by the overrides; the throttled-replica lists; an
//!   unclean-election switch for the active controller.
//! * `ClientIdConfigHandler` / `UserConfigHandler`: client quota overrides,
//!   resolved per (user, client-id) with Kafka's precedence.
//! * `BrokerConfigHandler`: the dynamic broker config (`<default>` and this
//!   broker's id) and the replication throttle rates.
//! * `IpConfigHandler`: connection-rate quotas per IP.

use super::Broker;
use crate::kafka::config_def::{self, Key};
use crate::kafka::dynamic_config::{self as dc, DEFAULT_ENTITY};
use crate::kafka::io::Io;
use crate::kafka::log_config::{self as lc, FOLLOWER_THROTTLED_REPLICAS, LEADER_THROTTLED_REPLICAS};
use crate::kafka::sanitizer::sanitize_entity;
use crate::scenario::TopicPartition;
use crate::small_map::SmallMap;
use crate::trace::Detail;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// `ReplicationQuotaManager.markThrottled`: which partitions of a topic are
/// throttled on this broker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Throttled {
    /// `*` (`AllReplicas`).
    All,
    /// The partitions whose listed replica is this broker (maybe none).
    Partitions(BTreeSet<i32>),
}

impl Throttled {
    pub fn to_json(&self) -> Value {
        match self {
            Throttled::All => json!("*"),
            Throttled::Partitions(p) => json!(p),
        }
    }
}

/// A client quota entity (`KafkaQuotaEntity`): sanitized user and/or
/// client id, either of which may be `<default>`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct QuotaEntity {
    pub user: Option<String>,
    pub client: Option<String>,
}

impl fmt::Display for QuotaEntity {
    /// The entity's path under `/config`: `users/alice/clients/app`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.user, &self.client) {
            (Some(u), Some(c)) => write!(f, "users/{u}/clients/{c}"),
            (Some(u), None) => write!(f, "users/{u}"),
            (None, Some(c)) => write!(f, "clients/{c}"),
            (None, None) => write!(f, "none"),
        }
    }
}

/// What the handlers keep in a broker's memory (gone when it stops).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigHandlers {
    /// Per topic with a log on this broker, the override set its logs run
    /// with (after the message.format.version exclusion). Topics without a
    /// log here are not kept: Kafka applies a change to existing logs only,
    /// and a log created later reads its topic's config then.
    pub topic_overrides: BTreeMap<String, BTreeMap<String, String>>,
    /// The client quota managers' overrides: entity → quota key → bound.
    pub quotas: BTreeMap<QuotaEntity, BTreeMap<String, String>>,
    /// `quotas.leader` / `quotas.follower`: topic → throttled partitions.
    pub leader_throttled: SmallMap<String, Throttled>,
    pub follower_throttled: SmallMap<String, Throttled>,
    /// Replication throttle rates in bytes/s (`Long.MaxValue`: none).
    pub leader_rate: i64,
    pub follower_rate: i64,
    pub alter_log_dirs_rate: i64,
    /// `DynamicBrokerConfig`: the valid keys of `/config/brokers/<default>`
    /// and of `/config/brokers/<this id>`.
    pub dynamic_default: BTreeMap<String, String>,
    pub dynamic_broker: BTreeMap<String, String>,
    /// `IpConfigHandler`: IP (or `<default>`) → connection_creation_rate.
    pub ip_quotas: BTreeMap<String, String>,
}

impl Default for ConfigHandlers {
    fn default() -> Self {
        ConfigHandlers {
            topic_overrides: BTreeMap::new(),
            quotas: BTreeMap::new(),
            leader_throttled: SmallMap::new(),
            follower_throttled: SmallMap::new(),
            leader_rate: i64::MAX,
            follower_rate: i64::MAX,
            alter_log_dirs_rate: i64::MAX,
            dynamic_default: BTreeMap::new(),
            dynamic_broker: BTreeMap::new(),
            ip_quotas: BTreeMap::new(),
        }
    }
}

impl ConfigHandlers {
    /// The client quota a (user, client-id) connection gets for `key`, and
    /// the entity it comes from, by the precedence of docs/design.html: the
    /// first of users/U/clients/C, users/U/clients/<default>, users/U,
    /// users/<default>/clients/C, users/<default>/clients/<default>,
    /// users/<default>, clients/C, clients/<default> that sets `key` (each
    /// quota type is resolved on its own).
    pub fn quota(&self, user: &str, client: &str, key: &str) -> Option<(QuotaEntity, String)> {
        let e = |u: Option<&str>, c: Option<&str>| QuotaEntity { user: u.map(sanitize_entity), client: c.map(sanitize_entity) };
        let (u, c, d) = (Some(user), Some(client), Some(DEFAULT_ENTITY));
        let order = [e(u, c), e(u, d), e(u, None), e(d, c), e(d, d), e(d, None), e(None, c), e(None, d)];
        order.into_iter().find_map(|entity| self.quotas.get(&entity).and_then(|m| m.get(key)).cloned().map(|v| (entity, v)))
    }

    /// The broker's settings the topic defaults come from: static
    /// server.properties, then `<default>`, then this broker's own.
    pub fn broker_settings(&self, static_settings: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let mut all = static_settings.clone();
        all.extend(self.dynamic_default.iter().map(|(k, v)| (k.clone(), v.clone())));
        all.extend(self.dynamic_broker.iter().map(|(k, v)| (k.clone(), v.clone())));
        all
    }
}

/// `QuotaConfigHandler.updateQuotaConfig`'s keys, in its order.
const QUOTA_ORDER: [&str; 4] = [dc::PRODUCER_BYTE_RATE, dc::CONSUMER_BYTE_RATE, dc::REQUEST_PERCENTAGE, dc::CONTROLLER_MUTATION_RATE];

impl Broker {
    pub(super) fn cm_actor(&self) -> String {
        crate::kafka::actor_name(self.id, "/config-manager")
    }

    /// The partitions of `topic` this broker has a log for.
    pub fn logs_of(&self, topic: &str) -> Vec<TopicPartition> {
        let rm = &self.replica_manager;
        let mut tps: BTreeSet<TopicPartition> = rm.partitions.keys().filter(|tp| tp.topic == topic).cloned().collect();
        tps.extend(rm.disk.keys().filter(|tp| tp.topic == topic).cloned());
        tps.into_iter().collect()
    }

    /// Whether the broker has any log of `topic`: what the observer's view
    /// asks of every broker at every step, so it stops at the first one
    /// rather than gathering them all as [`Broker::logs_of`] does.
    pub fn has_log_of(&self, topic: &str) -> bool {
        let rm = &self.replica_manager;
        rm.partitions.keys().any(|tp| tp.topic == topic) || rm.disk.keys().any(|tp| tp.topic == topic)
    }

    /// The topic defaults this broker's logs use now.
    pub fn log_defaults(&self) -> BTreeMap<String, String> {
        lc::broker_defaults(&self.dynamic_config.handlers.broker_settings(&self.config.originals))
    }

    /// The config the broker's logs for `topic` run with now; None when it
    /// has no log of the topic (or is not running).
    pub fn topic_config(&self, topic: &str) -> Option<BTreeMap<String, String>> {
        if !self.is_alive() || !self.has_log_of(topic) {
            return None;
        }
        let empty = BTreeMap::new();
        let overrides = self.dynamic_config.handlers.topic_overrides.get(topic).unwrap_or(&empty);
        let defaults = self.log_defaults();
        Some(lc::from_props(&defaults, overrides).unwrap_or(defaults))
    }

    /// Forgets the overrides of topics it no longer has a log of.
    pub(super) fn prune_topic_overrides(&mut self) {
        let hosted: BTreeSet<String> =
            self.replica_manager.partitions.keys().chain(self.replica_manager.disk.keys()).map(|tp| tp.topic.to_string()).collect();
        self.dynamic_config.handlers.topic_overrides.retain(|t, _| hosted.contains(t));
    }

    /// `configHandlers(entityType).processConfigChanges(name, props)`.
    pub(super) fn process_config_changes(
        &mut self,
        io: &mut Io,
        entity_type: &str,
        name: &str,
        props: &BTreeMap<String, String>,
    ) -> Result<(), String> {
        match entity_type {
            "topics" => self.topic_config_handler(io, name, props),
            "clients" => self.quota_config_handler(io, "ClientIdConfigHandler.processConfigChanges", None, Some(name), props),
            "users" => {
                let parts: Vec<&str> = name.split('/').collect();
                match parts.as_slice() {
                    [user] => self.quota_config_handler(io, "UserConfigHandler.processConfigChanges", Some(user), None, props),
                    [user, _, client] => {
                        self.quota_config_handler(io, "UserConfigHandler.processConfigChanges", Some(user), Some(client), props)
                    }
                    _ => Err(format!("Invalid quota entity path: {name} (IllegalArgumentException)")),
                }
            }
            "brokers" => self.broker_config_handler(io, name, props),
            "ips" => self.ip_config_handler(io, name, props),
            other => Err(format!("no config handler for entity type {other}")),
        }
    }

    /// `TopicConfigHandler.processConfigChanges`.
    fn topic_config_handler(&mut self, io: &mut Io, topic: &str, props: &BTreeMap<String, String>) -> Result<(), String> {
        const SRC: &str = "TopicConfigHandler.processConfigChanges";
        let actor = self.cm_actor();
        let mut applied = props.clone();
        if self.excluded_message_format(io, topic, props)? {
            applied.remove(lc::MESSAGE_FORMAT_VERSION);
        }
        // updateLogConfig: only logs that exist here change.
        let logs = self.logs_of(topic);
        if logs.is_empty() {
            self.dynamic_config.handlers.topic_overrides.remove(topic);
            io.record(
                &actor,
                "config-change",
                SRC,
                format!("{topic}: no log of it on this broker; overrides {} not applied here", show_props(props)),
                Detail::new().with("topic", &topic).with("config", &props).with_value("logs", Vec::<Value>::new()),
            );
        } else {
            let defaults = self.log_defaults();
            let effective = lc::from_props(&defaults, &applied).map_err(|e| format!("{e} (ConfigException)"))?;
            self.dynamic_config.handlers.topic_overrides.insert(topic.to_string(), applied.clone());
            let differ: serde_json::Map<String, Value> =
                effective.iter().filter(|(k, v)| defaults.get(*k) != Some(*v)).map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect();
            io.record(
                &actor,
                "config-change",
                SRC,
                format!(
                    "{topic}: the logs of {} now run with the broker defaults overlaid by {}",
                    crate::kafka::show(&logs),
                    show_props(&applied)
                ),
                Detail::new()
                    .with("topic", &topic)
                    .with("config", &applied)
                    .with("logs", &logs.iter().map(|t| t.to_string()).collect::<Vec<_>>())
                    .with_value("differs_from_default", differ),
            );
            self.maybe_warn_retention(io, topic, props, &effective);
        }
        self.update_throttled_list(io, topic, props, LEADER_THROTTLED_REPLICAS)?;
        self.update_throttled_list(io, topic, props, FOLLOWER_THROTTLED_REPLICAS)?;
        self.maybe_enable_unclean_election(io, topic, props);
        Ok(())
    }

    /// `excludedConfigs`: a message.format.version above the broker's
    /// inter.broker.protocol.version is ignored, with a warning.
    fn excluded_message_format(&self, io: &mut Io, topic: &str, props: &BTreeMap<String, String>) -> Result<bool, String> {
        let Some(v) = props.get(lc::MESSAGE_FORMAT_VERSION) else { return Ok(false) };
        let version = crate::kafka::config::ApiVersion::parse(v.trim())
            .filter(|x| config_def::known_release(*x))
            .ok_or_else(|| format!("Version `{v}` is not a valid version (IllegalArgumentException)"))?;
        let ibp = self.config.inter_broker_protocol_version;
        if ibp < version {
            io.record(
                &self.cm_actor(),
                "config-change",
                "TopicConfigHandler.excludedConfigs",
                format!("WARN Log configuration message.format.version is ignored for `{topic}` because `{v}` is not compatible with Kafka inter-broker protocol version `{ibp}`"),
                Detail::new().with("topic", &topic).with("message.format.version", &v).with("inter.broker.protocol.version", &ibp.to_string()),
            );
            return Ok(true);
        }
        Ok(false)
    }

    /// The warning of the TopicConfigHandler seed 000 reads: a retention
    /// below message.timestamp.difference.max.ms (Long.MaxValue by default,
    /// so any retention.ms override trips it).
    fn maybe_warn_retention(&self, io: &mut Io, topic: &str, props: &BTreeMap<String, String>, effective: &BTreeMap<String, String>) {
        let get = |k: &str| effective.get(k).and_then(|v| v.parse::<i64>().ok()).unwrap_or(i64::MAX);
        let (retention, diff) = (get(lc::RETENTION_MS), get(lc::MESSAGE_TIMESTAMP_DIFFERENCE_MAX_MS));
        let named = props.contains_key(lc::RETENTION_MS) || props.contains_key(lc::MESSAGE_TIMESTAMP_DIFFERENCE_MAX_MS);
        if named && retention < diff {
            io.record(
                &self.cm_actor(),
                "config-change",
                "TopicConfigHandler.processConfigChanges",
                format!("WARN retention.ms for topic {topic} is set to {retention}. It is smaller than message.timestamp.difference.max.ms's value {diff}. This may result in frequent log rolling."),
                Detail::new().with("topic", &topic).with("retention.ms", &retention).with("message.timestamp.difference.max.ms", &diff),
            );
        }
    }

    /// `updateThrottledList`: a non-empty list marks the topic's throttled
    /// partitions on this broker; absent or empty removes the throttle.
    fn update_throttled_list(&mut self, io: &mut Io, topic: &str, props: &BTreeMap<String, String>, prop: &str) -> Result<(), String> {
        let throttled = match props.get(prop).filter(|v| !v.is_empty()) {
            Some(v) => Some(parse_throttled_partitions(prop, v, self.id)?),
            None => None,
        };
        let h = &mut self.dynamic_config.handlers;
        let map = if prop == LEADER_THROTTLED_REPLICAS { &mut h.leader_throttled } else { &mut h.follower_throttled };
        let before = map.get(topic).cloned();
        match &throttled {
            Some(t) => map.insert(topic.to_string(), t.clone()),
            None => map.remove(topic),
        };
        if before != throttled {
            let side = if prop == LEADER_THROTTLED_REPLICAS { "leader" } else { "follower" };
            io.record(
                &self.cm_actor(),
                "config-change",
                "TopicConfigHandler.updateThrottledList",
                match &throttled {
                    Some(t) => format!("{prop}: {side} throttle on broker {} for {topic}, partitions {}", self.id, t.to_json()),
                    None => format!("{prop}: {side} throttle for {topic} removed on broker {}", self.id),
                },
                Detail::new().with("topic", &topic).with("side", &side).with("partitions", &throttled.as_ref().map(Throttled::to_json)),
            );
        }
        Ok(())
    }

    /// `unclean.leader.election.enable=true` → `enableTopicUncleanLeaderElection`,
    /// which queues an event only on the active controller.
    fn maybe_enable_unclean_election(&mut self, io: &mut Io, topic: &str, props: &BTreeMap<String, String>) {
        let on = props.get(lc::UNCLEAN_LEADER_ELECTION_ENABLE).map(|v| v.eq_ignore_ascii_case("true")).unwrap_or(false);
        if !(on && self.controller.is_active()) {
            return;
        }
        use crate::kafka::controller::event::ControllerEvent;
        io.record(
            &self.cm_actor(),
            "config-change",
            "KafkaController.enableTopicUncleanLeaderElection",
            format!("{topic}: unclean.leader.election.enable=true and this broker is the controller: put TopicUncleanLeaderElectionEnable on its event queue"),
            Detail::new().with("topic", &topic),
        );
        self.controller.put(ControllerEvent::TopicUncleanLeaderElectionEnable(topic.to_string()), io, self.incarnation);
    }

    /// `QuotaConfigHandler.updateQuotaConfig`: per quota type, a present key
    /// sets the entity's override, an absent one removes it (so the next
    /// level of precedence applies).
    fn quota_config_handler(
        &mut self,
        io: &mut Io,
        source: &'static str,
        user: Option<&str>,
        client: Option<&str>,
        props: &BTreeMap<String, String>,
    ) -> Result<(), String> {
        let entity = QuotaEntity { user: user.map(String::from), client: client.map(String::from) };
        for name in QUOTA_ORDER {
            let key: Key = config_def::find(dc::QUOTA_KEYS, name).unwrap_or(dc::QUOTA_KEYS[0]);
            let overrides = self.dynamic_config.handlers.quotas.entry(entity.clone()).or_default();
            match props.get(name) {
                Some(v) => {
                    let bound = config_def::parse(key, v).map_err(|e| format!("{e} (NumberFormatException)"));
                    match bound {
                        Ok(b) => overrides.insert(name.to_string(), b),
                        Err(e) => {
                            self.dynamic_config.handlers.quotas.retain(|_, m| !m.is_empty());
                            return Err(e);
                        }
                    };
                }
                None => {
                    overrides.remove(name);
                }
            }
        }
        let set = self.dynamic_config.handlers.quotas.get(&entity).cloned().unwrap_or_default();
        self.dynamic_config.handlers.quotas.retain(|_, m| !m.is_empty());
        io.record(
            &self.cm_actor(),
            "config-change",
            source,
            format!(
                "quota overrides of {entity}: {}",
                if set.is_empty() { "none (the next level of precedence applies)".into() } else { show_props(&set) }
            ),
            Detail::new().with("entity", &entity.to_string()).with("quotas", &set),
        );
        Ok(())
    }

    /// `BrokerConfigHandler.processConfigChanges` (2.8.2): `<default>`
    /// updates the dynamic defaults; this broker's id its own settings and
    /// the three replication throttle rates (absent: unthrottled). In 2.8 a
    /// throttle rate set at `<default>` changes no quota.
    fn broker_config_handler(&mut self, io: &mut Io, name: &str, props: &BTreeMap<String, String>) -> Result<(), String> {
        const SRC: &str = "BrokerConfigHandler.processConfigChanges";
        let actor = self.cm_actor();
        let (valid, invalid) = dc::split_valid(dc::BROKER_KEYS, props);
        if !invalid.is_empty() {
            io.record(
                &actor,
                "config-change",
                "DynamicBrokerConfig.removeInvalidConfigs",
                format!("ERROR dynamic broker configs {} of brokers/{name} are invalid and were ignored", crate::kafka::show(&invalid)),
                Detail::new().with("entity", &name).with("ignored", &invalid),
            );
        }
        if name == DEFAULT_ENTITY {
            self.dynamic_config.handlers.dynamic_default = valid.clone();
            io.record(
                &actor,
                "config-change",
                SRC,
                format!("dynamic broker defaults (<default>) are now {}", show_props(&valid)),
                Detail::new().with("entity", &name).with("config", &valid),
            );
            return Ok(());
        }
        let id = name.trim().parse::<i32>().map_err(|_| format!("For input string: \"{name}\" (NumberFormatException)"))?;
        if id != self.id {
            io.record(
                &actor,
                "config-change",
                SRC,
                format!("brokers/{name} is another broker's: nothing to do here"),
                Detail::new().with("entity", &name),
            );
            return Ok(());
        }
        self.dynamic_config.handlers.dynamic_broker = valid.clone();
        let rate = |k: &str| -> Result<i64, String> {
            match props.get(k) {
                Some(v) => v.parse::<i64>().map_err(|_| format!("For input string: \"{v}\" ({k}, NumberFormatException)")),
                None => Ok(i64::MAX),
            }
        };
        let (leader, follower, dirs) =
            (rate(dc::LEADER_THROTTLED_RATE)?, rate(dc::FOLLOWER_THROTTLED_RATE)?, rate(dc::ALTER_LOG_DIRS_RATE)?);
        let h = &mut self.dynamic_config.handlers;
        (h.leader_rate, h.follower_rate, h.alter_log_dirs_rate) = (leader, follower, dirs);
        io.record(
            &actor,
            "config-change",
            SRC,
            format!(
                "broker {}'s dynamic config is now {}; replication throttles: leader {}, follower {}, alter-log-dirs {}",
                self.id,
                show_props(&valid),
                show_rate(leader),
                show_rate(follower),
                show_rate(dirs)
            ),
            Detail::new()
                .with("entity", &name)
                .with("config", &valid)
                .with("leader_rate", &leader)
                .with("follower_rate", &follower)
                .with("alter_log_dirs_rate", &dirs),
        );
        Ok(())
    }

    /// `IpConfigHandler.processConfigChanges`: connection_creation_rate.
    fn ip_config_handler(&mut self, io: &mut Io, ip: &str, props: &BTreeMap<String, String>) -> Result<(), String> {
        let rate = props.get("connection_creation_rate");
        if let Some(v) = rate {
            v.parse::<i32>().map_err(|_| format!("For input string: \"{v}\" (NumberFormatException)"))?;
        }
        let quotas = &mut self.dynamic_config.handlers.ip_quotas;
        match rate {
            Some(v) => quotas.insert(ip.to_string(), v.clone()),
            None => quotas.remove(ip),
        };
        io.record(
            &self.cm_actor(),
            "config-change",
            "IpConfigHandler.processConfigChanges",
            format!("connection_creation_rate of {ip}: {}", rate.map(String::as_str).unwrap_or("none")),
            Detail::new().with("ip", &ip).with("connection_creation_rate", &rate),
        );
        Ok(())
    }
}

/// `parseThrottledPartitions`: trimmed; `*` → every partition; otherwise
/// the partitions of the `partition:broker` items naming this broker. An
/// invalid list fails as ThrottledReplicaListValidator does.
pub fn parse_throttled_partitions(prop: &str, value: &str, broker: i32) -> Result<Throttled, String> {
    let v = value.trim();
    config_def::parse(config_def::key("throttled", config_def::Kind::ThrottledReplicas), v)
        .map_err(|e| format!("{prop} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],... (found '{}', ConfigException)", e.value))?;
    if v == "*" {
        return Ok(Throttled::All);
    }
    let mine = config_def::list_items(v)
        .into_iter()
        .filter_map(|item| item.split_once(':'))
        .filter(|(_, b)| b.parse::<i32>().ok() == Some(broker))
        .filter_map(|(p, _)| p.parse::<i32>().ok())
        .collect();
    Ok(Throttled::Partitions(mine))
}

pub(super) fn show_props(p: &BTreeMap<String, String>) -> String {
    crate::kafka::show(p.iter().map(|(k, v)| format!("{k}={v}")))
}

fn show_rate(r: i64) -> String {
    if r == i64::MAX {
        "none".into()
    } else {
        format!("{r} B/s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttled_lists_keep_this_brokers_partitions() {
        let p = |v: &str, b: i32| parse_throttled_partitions(LEADER_THROTTLED_REPLICAS, v, b).unwrap();
        assert_eq!(p("*", 1), Throttled::All);
        assert_eq!(p(" 0:1,1:2,2:1 ", 1), Throttled::Partitions([0, 2].into()));
        assert_eq!(p("0:1,1:2", 3), Throttled::Partitions(BTreeSet::new()));
        assert_eq!(p(" ", 3), Throttled::Partitions(BTreeSet::new()));
        assert!(parse_throttled_partitions(LEADER_THROTTLED_REPLICAS, "0-1", 1).is_err());
    }

    #[test]
    fn quota_precedence_is_kafkas() {
        let mut h = ConfigHandlers::default();
        let mut set = |u: Option<&str>, c: Option<&str>, v: &str| {
            h.quotas
                .entry(QuotaEntity { user: u.map(String::from), client: c.map(String::from) })
                .or_default()
                .insert("producer_byte_rate".into(), v.into());
        };
        set(None, Some("<default>"), "8");
        set(None, Some("app"), "7");
        set(Some("<default>"), None, "6");
        set(Some("<default>"), Some("<default>"), "5");
        set(Some("<default>"), Some("app"), "4");
        set(Some("alice"), None, "3");
        set(Some("alice"), Some("<default>"), "2");
        set(Some("alice"), Some("app"), "1");
        let q = |h: &ConfigHandlers, u: &str, c: &str| h.quota(u, c, "producer_byte_rate").map(|(_, v)| v);
        assert_eq!(q(&h, "alice", "app").as_deref(), Some("1"));
        assert_eq!(q(&h, "alice", "other").as_deref(), Some("2"));
        assert_eq!(q(&h, "bob", "app").as_deref(), Some("4"));
        assert_eq!(q(&h, "bob", "other").as_deref(), Some("5"));
        assert_eq!(h.quota("alice", "app", "consumer_byte_rate"), None);
        let entity = h.quota("bob", "other", "producer_byte_rate").unwrap().0;
        assert_eq!(entity.to_string(), "users/<default>/clients/<default>");
    }
}
