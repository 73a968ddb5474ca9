//! `DynamicConfigManager` (seed 000): a broker learns of config changes from
//! the notifications under `/config/changes`, but the notification is only
//! a trigger — the config itself is always re-read from
//! `/config/<type>/<name>` and handed whole to the entity type's
//! ConfigHandler. At startup, after the listener's first run, every entity's
//! config is bootstrapped through the handlers, so a broker that was down
//! (or whose notifications were purged) still ends up with every override.
//!
//! Startup pieces live here too: `DynamicBrokerConfig.initialize` (the
//! broker's own dynamic settings, read early) and the LogManager loading
//! the configs of the logs it finds on disk.

use super::config_handler::{show_props, ConfigHandlers};
use super::Broker;
use crate::kafka::dynamic_config::{CONFIG_TYPES, DEFAULT_ENTITY};
use crate::kafka::io::Io;
use crate::kafka::kafka_zk_client as kzk;
use crate::kafka::zk_data;
use crate::sim::event::BrokerEvent;
use crate::trace::Detail;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// What a broker's dynamic-config machinery holds in memory: reset when the
/// process stops, so a restarted broker starts over at -1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynamicConfigManager {
    /// `ZkNodeChangeNotificationListener.lastExecutedChange`: the highest
    /// notification number processed, -1 before the first.
    pub last_executed_change: i64,
    /// The listener's queue holds a run (it never holds more than one).
    pub(crate) run_queued: bool,
    pub handlers: ConfigHandlers,
}

impl Default for DynamicConfigManager {
    fn default() -> Self {
        DynamicConfigManager { last_executed_change: -1, run_queued: false, handlers: ConfigHandlers::default() }
    }
}

/// Where a notification points: an entity type and its (sanitized) name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntityRef {
    pub entity_type: String,
    pub name: String,
}

/// `ConfigChangedNotificationHandler.processNotification`'s parsing.
/// Ok(None): not JSON — ignored silently (the deprecated TopicConfigManager
/// wrote such notifications). Err: what Kafka throws (and the listener
/// swallows).
pub fn parse_notification(data: &[u8]) -> Result<Option<EntityRef>, String> {
    let text = String::from_utf8_lossy(data);
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return if data.iter().all(u8::is_ascii_whitespace) {
            Err(format!("Config change notification has an unexpected value: {text:?} (IllegalArgumentException)"))
        } else {
            Ok(None)
        };
    };
    let Some(obj) = v.as_object() else {
        return Err(format!("Config change notification has an unexpected value: {text} (IllegalArgumentException)"));
    };
    let field = |k: &str| obj.get(k).and_then(Value::as_str).map(String::from);
    match obj.get("version").and_then(Value::as_i64) {
        Some(1) => {
            let entity_type = field("entity_type").filter(|t| t == "topics" || t == "clients").ok_or_else(|| {
                format!("Version 1 config change notification must have 'entity_type' set to one of topics,clients. Received: {text}")
            })?;
            let name = field("entity_name")
                .ok_or_else(|| format!("Version 1 config change notification does not specify 'entity_name'. Received: {text}"))?;
            Ok(Some(EntityRef { entity_type, name }))
        }
        Some(2) => {
            let path = field("entity_path")
                .ok_or_else(|| format!("Version 2 config change notification must specify 'entity_path'. Received: {text}"))?;
            match path.split_once('/') {
                Some((root, rest)) if CONFIG_TYPES.contains(&root) => Ok(Some(EntityRef { entity_type: root.into(), name: rest.into() })),
                _ => Err(format!(
                    "Version 2 config change notification must have 'entity_path' starting with one of 'topics'/, 'clients'/, 'users'/, 'brokers'/, 'ips'/. Received: {text}"
                )),
            }
        }
        Some(other) => Err(format!("Config change notification has unsupported version '{other}', supported versions are 1 and 2.")),
        None => Err(format!("Config change notification has no integer 'version'. Received: {text}")),
    }
}

impl Broker {
    fn cm_event(&self, what: BrokerEvent) -> crate::sim::event::Event {
        crate::sim::event::Event::Broker { id: self.id, incarnation: self.incarnation, what }
    }

    /// `DynamicBrokerConfig.initialize`, early in startup: the broker's
    /// dynamic settings from `/config/brokers/<default>`, then its own.
    pub(super) fn dynamic_broker_config_initialize(&mut self, io: &mut Io) {
        let actor = self.actor();
        const SRC: &str = "DynamicBrokerConfig.initialize";
        for name in [DEFAULT_ENTITY.to_string(), self.id.to_string()] {
            let props =
                kzk::get_entity_configs(&mut self.zkc, io, &actor, "KafkaZkClient.getEntityConfigs", "brokers", &name).unwrap_or_default();
            let (valid, _) = crate::kafka::dynamic_config::split_valid(crate::kafka::dynamic_config::BROKER_KEYS, &props);
            let h = &mut self.dynamic_config.handlers;
            if name == DEFAULT_ENTITY {
                h.dynamic_default = valid;
            } else {
                h.dynamic_broker = valid;
            }
        }
        let h = &self.dynamic_config.handlers;
        if !(h.dynamic_default.is_empty() && h.dynamic_broker.is_empty()) {
            io.record(
                &actor,
                "broker",
                SRC,
                format!(
                    "dynamic broker config: <default> {}, broker {} {}",
                    show_props(&h.dynamic_default),
                    self.id,
                    show_props(&h.dynamic_broker)
                ),
                Detail::new().with("default", &h.dynamic_default).with("broker", &h.dynamic_broker),
            );
        }
    }

    /// LogManager's creation (`getLogConfigs` over every topic): the logs
    /// found on disk start with their topic's overrides.
    pub(super) fn log_manager_load_topic_configs(&mut self, io: &mut Io) {
        let actor = self.actor();
        let on_disk: BTreeSet<String> = self.replica_manager.disk.keys().map(|tp| tp.topic.to_string()).collect();
        let Ok(mut topics) = kzk::get_all_topics(&mut self.zkc, io, &actor) else { return };
        topics.sort();
        for t in topics {
            let props = kzk::get_entity_configs(&mut self.zkc, io, &actor, "KafkaZkClient.getLogConfigs", "topics", &t);
            if let (true, Ok(props)) = (on_disk.contains(&t), props) {
                self.dynamic_config.handlers.topic_overrides.insert(t, props);
            }
        }
    }

    /// `Partition.createLog`: a new log reads its topic's overrides
    /// (`fetchLogConfig`), so it starts with the current config even if no
    /// notification ever reached this broker. `actor` is the broker's, named
    /// once by the caller for all the logs a LeaderAndIsr creates.
    pub(super) fn fetch_log_config(&mut self, io: &mut Io, actor: &str, topic: &str) {
        if let Ok(props) = kzk::get_entity_configs(&mut self.zkc, io, actor, "KafkaZkClient.getEntityConfigs", "topics", topic) {
            // Each of a topic's new logs reads the same overrides: kept once.
            let overrides = &mut self.dynamic_config.handlers.topic_overrides;
            if overrides.get(topic) != Some(&props) {
                overrides.insert(topic.to_string(), props);
            }
        }
    }

    /// `DynamicConfigManager.startup`, at the end of KafkaServer.startup:
    /// the listener's `init` (its first run queued), then the bootstrap,
    /// queued behind that run.
    pub(super) fn dynamic_config_manager_startup(&mut self, io: &mut Io) {
        self.config_change_listener_init(io);
        let after = io.cost_ms();
        io.fx.schedule(after, self.cm_event(BrokerEvent::DynamicConfigBootstrap));
    }

    /// The bootstrap: every entity's config through its handler (users:
    /// each `/config/users/<u>`, then each `/config/users/<u>/clients/<c>`).
    /// Nothing here is caught: an unreadable config or a failing handler
    /// fails KafkaServer.startup, and the broker shuts down.
    pub(super) fn bootstrap_dynamic_configs(&mut self, io: &mut Io) {
        let actor = self.cm_actor();
        io.record(
            &actor,
            "config-change",
            "DynamicConfigManager.startup",
            "bootstrap: apply every entity's config under /config through its handler".into(),
            Detail::new(),
        );
        let mut applied = 0usize;
        for entity_type in CONFIG_TYPES {
            if let Err(e) = self.bootstrap_type(io, entity_type, &mut applied) {
                io.record(
                    &actor,
                    "config-change",
                    "KafkaServer.startup",
                    format!("FATAL error during KafkaServer startup ({e}): the broker shuts down"),
                    Detail::new().with("error", &e),
                );
                self.finish_shutdown(io);
                return;
            }
        }
        io.record(
            &actor,
            "config-change",
            "DynamicConfigManager.startup",
            format!("bootstrap done: {applied} entity configs applied"),
            Detail::new().with("entities", &applied),
        );
    }

    fn bootstrap_type(&mut self, io: &mut Io, entity_type: &str, applied: &mut usize) -> Result<(), String> {
        let actor = self.cm_actor();
        let root = format!("/config/{entity_type}");
        let mut names = kzk::get_all_entities_with_config(&mut self.zkc, io, &actor, &root).map_err(|e| format!("listing {root}: {e}"))?;
        if entity_type == "users" {
            let users = names.clone();
            for u in users {
                let clients_root = format!("{root}/{u}/clients");
                let clients = kzk::get_all_entities_with_config(&mut self.zkc, io, &actor, &clients_root)
                    .map_err(|e| format!("listing {clients_root}: {e}"))?;
                names.extend(clients.into_iter().map(|c| format!("{u}/clients/{c}")));
            }
        }
        let mut configs = Vec::new();
        for name in names {
            let props = kzk::get_entity_configs(&mut self.zkc, io, &actor, "AdminZkClient.fetchEntityConfig", entity_type, &name)?;
            configs.push((name, props));
        }
        for (name, props) in configs {
            self.process_config_changes(io, entity_type, &name, &props)?;
            *applied += 1;
        }
        Ok(())
    }

    /// `ConfigChangedNotificationHandler.processNotification`: parse the
    /// notification, fetch the entity's config, call its handler.
    pub(super) fn process_config_change_notification(&mut self, io: &mut Io, child: &str, data: &[u8]) -> Result<(), String> {
        const SRC: &str = "DynamicConfigManager.ConfigChangedNotificationHandler.processNotification";
        let actor = self.cm_actor();
        let text = String::from_utf8_lossy(data).into_owned();
        let entity = match parse_notification(data) {
            Ok(Some(e)) => e,
            Ok(None) => {
                io.record(
                    &actor,
                    "config-change",
                    SRC,
                    format!("{child} holds {text:?}, which is not JSON: ignored (as a notification of the old TopicConfigManager)"),
                    Detail::new().with("notification", &child).with("data", &text).with("ignored", &true),
                );
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let path = zk_data::config_entity_path(&entity.entity_type, &entity.name);
        io.record(
            &actor,
            "config-change",
            SRC,
            format!("{child} = {text}: the config of {}/{} changed; read it from {path}", entity.entity_type, entity.name),
            Detail::new()
                .with("notification", &child)
                .with("data", &text)
                .with("entity_type", &entity.entity_type)
                .with("entity_name", &entity.name),
        );
        let props =
            kzk::get_entity_configs(&mut self.zkc, io, &actor, "AdminZkClient.fetchEntityConfig", &entity.entity_type, &entity.name)?;
        self.process_config_changes(io, &entity.entity_type, &entity.name, &props)
    }

    /// The dynamic-config part of `--dump-state` for this broker.
    pub fn dynamic_config_json(&self) -> (Value, Value, Value) {
        let h = &self.dynamic_config.handlers;
        let defaults = self.log_defaults();
        let mut topics = BTreeMap::new();
        for t in h.topic_overrides.keys() {
            if let Some(c) = self.topic_config(t) {
                let differ: BTreeMap<String, String> = c.into_iter().filter(|(k, v)| defaults.get(k) != Some(v)).collect();
                topics.insert(t.clone(), differ);
            }
        }
        let quotas: BTreeMap<String, &BTreeMap<String, String>> = h.quotas.iter().map(|(e, q)| (e.to_string(), q)).collect();
        let side = |m: &crate::small_map::SmallMap<String, super::config_handler::Throttled>| -> BTreeMap<String, Value> {
            m.iter().map(|(t, p)| (t.clone(), p.to_json())).collect()
        };
        let throttles = Detail::new()
            .with("leader_rate", &h.leader_rate)
            .with("follower_rate", &h.follower_rate)
            .with("alter_log_dirs_rate", &h.alter_log_dirs_rate)
            .with("leader_replicas", &side(&h.leader_throttled))
            .with("follower_replicas", &side(&h.follower_throttled));
        (json!(topics), json!(quotas), throttles.value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(t: &str, n: &str) -> Result<Option<EntityRef>, String> {
        Ok(Some(EntityRef { entity_type: t.into(), name: n.into() }))
    }

    #[test]
    fn notifications_of_both_versions() {
        assert_eq!(parse_notification(br#"{"version":2,"entity_path":"topics/orders"}"#), entity("topics", "orders"));
        assert_eq!(parse_notification(br#"{"version":2,"entity_path":"users/alice/clients/app"}"#), entity("users", "alice/clients/app"));
        assert_eq!(parse_notification(br#"{"version":1,"entity_type":"topics","entity_name":"t"}"#), entity("topics", "t"));
        assert_eq!(parse_notification(b"hello"), Ok(None));
        assert!(parse_notification(br#"{"version":1,"entity_type":"users","entity_name":"u"}"#).is_err());
        assert!(parse_notification(br#"{"version":2,"entity_path":"nope/x"}"#).is_err());
        assert!(parse_notification(br#"{"version":2,"entity_path":"topics"}"#).is_err());
        assert!(parse_notification(br#"{"version":3}"#).unwrap_err().contains("unsupported version '3'"));
        assert!(parse_notification(b"[1,2]").is_err());
        assert!(parse_notification(b"").is_err());
    }
}
