//! `ZkNodeChangeNotificationListener` on `/config/changes`: a child watch
//! that queues a run, and a run that processes, in order, every
//! `config_change_<n>` whose number is above `lastExecutedChange`, then
//! purges the notifications older than 15 minutes. A run is one event of
//! its own (the listener's thread), and the queue holds at most one run, so
//! a burst of changes is handled by one run that sees them all. Purging
//! happens only when a run happens, and each broker purges on its own.

use super::Broker;
use crate::kafka::io::Io;
use crate::kafka::kafka_zk_client as kzk;
use crate::kafka::zk_data::{CONFIG_CHANGES, CONFIG_CHANGE_PREFIX};
use crate::kafka::zookeeper_client::ChildHandler;
use crate::sim::event::{BrokerEvent, Event};
use crate::trace::Detail;
use crate::zookeeper::KeeperError;

/// `changeExpirationMs`: 15 minutes (DynamicConfigManager never passes its
/// own value through).
pub const CHANGE_EXPIRATION_MS: i64 = 15 * 60 * 1000;

const SRC: &str = "ZkNodeChangeNotificationListener.processNotifications";

/// `changeNumber`: the text after the prefix's length, as a number (Kafka
/// does not check the prefix itself). None: the run fails on this child.
fn change_number(name: &str) -> Option<i64> {
    name.get(CONFIG_CHANGE_PREFIX.len()..)?.parse().ok()
}

impl Broker {
    /// `init`: register the child handler on `/config/changes` (the state
    /// change handler is `on_session_expired`'s call below), queue a run.
    pub(super) fn config_change_listener_init(&mut self, io: &mut Io) {
        self.zkc.register_child_handler(CONFIG_CHANGES, ChildHandler::ConfigChangeNotification);
        io.record(
            &self.cm_actor(),
            "config-change",
            "ZkNodeChangeNotificationListener.init",
            format!("watch {CONFIG_CHANGES} for config change notifications; lastExecutedChange starts at -1; queue the first run"),
            Detail::new().with("path", &CONFIG_CHANGES),
        );
        self.enqueue_config_change_run(io);
    }

    /// `addChangeNotification`: queue a run unless one is already queued.
    pub(super) fn enqueue_config_change_run(&mut self, io: &mut Io) -> bool {
        if self.dynamic_config.run_queued {
            return false;
        }
        self.dynamic_config.run_queued = true;
        let after = io.cost_ms();
        io.fx.schedule(after, Event::Broker { id: self.id, incarnation: self.incarnation, what: BrokerEvent::ConfigChangeListener });
        true
    }

    /// One run of the listener's thread: `processNotifications`.
    pub(super) fn run_config_change_listener(&mut self, io: &mut Io) {
        self.dynamic_config.run_queued = false;
        let actor = self.cm_actor();
        if let Err(e) = self.process_notifications(io) {
            io.record(
                &actor,
                "config-change",
                SRC,
                format!("ERROR Error while processing notification change for path = {CONFIG_CHANGES}: {e}"),
                Detail::new().with("error", &e),
            );
        }
    }

    fn process_notifications(&mut self, io: &mut Io) -> Result<(), String> {
        let actor = self.cm_actor();
        let mut children = self.zkc.get_children(io, &actor, "KafkaZkClient.getChildren", CONFIG_CHANGES).map_err(|e| e.to_string())?;
        children.sort();
        let last = self.dynamic_config.last_executed_change;
        if children.is_empty() {
            io.record(&actor, "config-change", SRC, format!("{CONFIG_CHANGES} has no notifications: nothing to do"), Detail::new());
            return Ok(());
        }
        let now = io.now.as_u64() as i64;
        let mut numbered = Vec::new();
        for c in &children {
            numbered.push((
                c.clone(),
                change_number(c).ok_or_else(|| format!("For input string: \"{c}\" (not a {CONFIG_CHANGE_PREFIX}<n> name)"))?,
            ));
        }
        let new: Vec<&String> = numbered.iter().filter(|(_, n)| *n > last).map(|(c, _)| c).collect();
        io.record(
            &actor,
            "config-change",
            SRC,
            format!(
                "Processing notification(s) to {CONFIG_CHANGES}: {} notifications, lastExecutedChange {last}, new {}",
                children.len(),
                crate::kafka::show(&new)
            ),
            Detail::new().with("children", &children).with("last_executed_change", &last).with("new", &new),
        );
        for (child, number) in numbered.iter().filter(|(_, n)| *n > last) {
            self.process_one_notification(io, child);
            let before = self.dynamic_config.last_executed_change;
            self.dynamic_config.last_executed_change = *number;
            io.record(
                &actor,
                "config-change",
                SRC,
                format!("{child} done: lastExecutedChange {before} → {number}"),
                Detail::new().with("notification", &child).with("last_executed_change", &number),
            );
        }
        self.purge_obsolete_notifications(io, now, &children)
    }

    /// `processNotification`: read the child (gone → a warning), hand its
    /// data to the handler, and swallow whatever the handler throws.
    fn process_one_notification(&mut self, io: &mut Io, child: &str) {
        let actor = self.cm_actor();
        let path = format!("{CONFIG_CHANGES}/{child}");
        match self.zkc.get_data(io, &actor, "KafkaZkClient.getDataAndStat", &path) {
            Ok((data, _)) => {
                if let Err(e) = self.process_config_change_notification(io, child, &data) {
                    io.record(
                        &actor,
                        "config-change",
                        "ZkNodeChangeNotificationListener.processNotification",
                        format!(
                            "ERROR error processing change notification {} from {path}: {e} (swallowed)",
                            String::from_utf8_lossy(&data)
                        ),
                        Detail::new().with("notification", &child).with("error", &e),
                    );
                }
            }
            Err(KeeperError::NoNode) => io.record(
                &actor,
                "config-change",
                "ZkNodeChangeNotificationListener.processNotification",
                format!("WARN read null data from {path}: it is gone"),
                Detail::new().with("notification", &child),
            ),
            Err(e) => io.record(
                &actor,
                "config-change",
                "ZkNodeChangeNotificationListener.processNotification",
                format!("ERROR reading {path} failed: {e} (swallowed)"),
                Detail::new().with("notification", &child).with("error", &e.name()),
            ),
        }
    }

    /// `purgeObsoleteNotifications`: each child the run listed that still
    /// exists and was created more than 15 minutes before the run started
    /// is deleted (unfenced; another broker may have deleted it already).
    fn purge_obsolete_notifications(&mut self, io: &mut Io, now: i64, children: &[String]) -> Result<(), String> {
        let actor = self.cm_actor();
        let mut purged = Vec::new();
        for child in children {
            let path = format!("{CONFIG_CHANGES}/{child}");
            match self.zkc.get_data(io, &actor, "KafkaZkClient.getDataAndStat", &path) {
                Ok((_, stat)) if now - stat.ctime > CHANGE_EXPIRATION_MS => {
                    kzk::delete_recursive(&mut self.zkc, io, &actor, &path).map_err(|e| e.to_string())?;
                    purged.push((child.clone(), now - stat.ctime));
                }
                Ok(_) | Err(KeeperError::NoNode) => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        if !purged.is_empty() {
            io.record(
                &actor,
                "config-change",
                "ZkNodeChangeNotificationListener.purgeObsoleteNotifications",
                format!(
                    "purged {}: created more than 15 minutes before this run",
                    crate::kafka::show(purged.iter().map(|(c, age)| format!("{c} ({} s old)", age / 1000)))
                ),
                Detail::new().with("purged", &purged.iter().map(|(c, _)| c).collect::<Vec<_>>()),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_numbers_like_kafka() {
        assert_eq!(change_number("config_change_0000000007"), Some(7));
        assert_eq!(change_number("config_change_abc"), None);
        assert_eq!(change_number("short"), None);
        assert_eq!(change_number("xxxxxxxxxxxxxx12"), Some(12), "Kafka only counts characters");
    }
}
