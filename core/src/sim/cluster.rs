//! The scenario's Kafka actions on the simulated cluster: declaring and
//! configuring brokers, starting, killing, pausing them, and the admin tools.

use super::simulation::Sim;
use super::Event;
use crate::console::session_hex;
use crate::kafka::admin_zk_client as admin;
use crate::kafka::config::KafkaConfig;
use crate::kafka::controller::KafkaController;
use crate::kafka::io::Io;
use crate::kafka::server::{Broker, ProcessState};
use crate::kafka::zookeeper_client::ZooKeeperClient;
use crate::kafka::BrokerId;
use crate::scenario::Command;
use crate::trace::{Detail, Record};
use serde_json::json;

impl Sim {
    /// Applies a Kafka action now. Err: the action cannot apply (exit 2).
    pub fn act(&mut self, command: &Command) -> Result<(), String> {
        match command {
            Command::BrokerConfig(settings) => {
                let mut all = self.broker_settings.clone();
                all.extend(settings.iter().cloned());
                KafkaConfig::default().with(&all).map_err(|e| e.to_string())?;
                self.broker_settings = all;
                Ok(())
            }
            Command::Cluster { brokers, log_dirs } => {
                if !self.brokers.is_empty() {
                    return Err("the cluster is already declared; a scenario has one cluster line".into());
                }
                for id in 0..*brokers as BrokerId {
                    self.brokers.insert(id, Broker::new(id, *log_dirs));
                }
                Ok(())
            }
            Command::Start(crate::scenario::StartTarget::Broker(id)) | Command::Restart(id) => self.start_broker(*id),
            Command::Kill(id) => {
                self.alive(*id)?;
                self.with_broker(*id, |b, io| {
                    b.stop(io, "killed (a crash: no controlled shutdown; its ZooKeeper session lives on until it expires)")
                });
                Ok(())
            }
            Command::Shutdown(id) => {
                let b = self.alive(*id)?;
                if b.state == ProcessState::ShuttingDown {
                    return Err(format!("broker {id} is already shutting down"));
                }
                if b.paused {
                    return Err(format!("broker {id} is paused; resume it first"));
                }
                self.with_broker(*id, |b, io| b.begin_shutdown(io));
                Ok(())
            }
            Command::ExpireSession(id) => self.expire_broker_session(*id),
            Command::Pause(id) => {
                let b = self.alive(*id)?;
                if b.paused {
                    return Err(format!("broker {id} is already paused"));
                }
                self.with_broker(*id, |b, io| {
                    b.paused = true;
                    io.record(
                        &b.actor(),
                        "broker",
                        "KafkaServer",
                        format!("broker {} paused (a long GC pause): it handles nothing and sends no heartbeat", b.id),
                        json!({}),
                    );
                });
                Ok(())
            }
            Command::Resume(id) => {
                let b = self.alive(*id)?;
                if !b.paused {
                    return Err(format!("broker {id} is not paused"));
                }
                self.with_broker(*id, |b, io| {
                    io.record(
                        &b.actor(),
                        "broker",
                        "KafkaServer",
                        format!("broker {} resumes: {} queued events run now", b.id, b.deferred.len()),
                        json!({"queued": b.deferred.len()}),
                    );
                    b.resume(io);
                });
                Ok(())
            }
            Command::UpdateBroker { broker, listener } => {
                self.alive(*broker)?;
                let (host, port) = listener.rsplit_once(':').ok_or("listener must be HOST:PORT")?;
                let (host, port) = (host.to_string(), port.parse::<u16>().map_err(|_| "the port must be 0-65535".to_string())?);
                self.with_broker(*broker, |b, io| b.update_listener(io, host, port));
                Ok(())
            }
            Command::TopicCreate { name, layout, config } => {
                let declared: Vec<BrokerId> = self.brokers.keys().copied().collect();
                self.with_admin(|zkc, io| admin::create_topic(zkc, io, &declared, name, layout, config))
            }
            Command::TopicDelete { name } => self.with_admin(|zkc, io| admin::delete_topic(zkc, io, name)),
            Command::Reassign { tp, replicas } => {
                let declared: Vec<BrokerId> = self.brokers.keys().copied().collect();
                self.with_admin(|zkc, io| admin::reassign(zkc, io, &declared, tp, replicas))
            }
            Command::ElectPreferred(tps) => self.with_admin(|zkc, io| admin::elect_preferred(zkc, io, tps)),
            Command::ConfigAlter { entity_type, entity_name, set, delete } => {
                self.with_admin(|zkc, io| admin::change_configs(zkc, io, entity_type, entity_name, set, delete))
            }
            Command::Produce { tp, messages } => {
                self.produce(tp, *messages);
                Ok(())
            }
            Command::PauseFetch { broker, tp } | Command::ResumeFetch { broker, tp } => {
                let paused = matches!(command, Command::PauseFetch { .. });
                self.alive(*broker)?;
                self.with_broker(*broker, |b, io| b.set_fetch_paused(io, tp.as_ref(), paused));
                Ok(())
            }
            Command::FailLogDir { broker, dir } => {
                let b = self.alive(*broker)?;
                if *dir >= b.log_dirs {
                    return Err(format!("broker {broker} has log dirs 0 to {}; there is no dir {dir}", b.log_dirs - 1));
                }
                self.with_broker(*broker, |b, io| b.report_log_dir_failure(io, *dir));
                Ok(())
            }
            other => Err(format!("not implemented yet: {other:?}")),
        }
    }

    fn broker(&self, id: BrokerId) -> Result<&Broker, String> {
        if self.brokers.is_empty() {
            return Err("no cluster is declared; add a line such as: cluster brokers=3".into());
        }
        self.brokers.get(&id).ok_or_else(|| format!("there is no broker {id}; the cluster has brokers 0 to {}", self.brokers.len() - 1))
    }

    fn alive(&self, id: BrokerId) -> Result<&Broker, String> {
        let b = self.broker(id)?;
        if !b.is_alive() {
            return Err(format!("broker {id} is not running (it is {})", b.state_name()));
        }
        Ok(b)
    }

    /// `start broker ID` / `restart broker ID`: KafkaServer.startup.
    pub fn start_broker(&mut self, id: BrokerId) -> Result<(), String> {
        let b = self.broker(id)?;
        if b.is_alive() {
            return Err(format!("broker {id} is already {}; kill or shut it down first", b.state_name()));
        }
        let config = KafkaConfig::default().with(&self.broker_settings).map_err(|e| e.to_string())?;
        self.with_broker(id, |b, io| b.startup(io, config));
        Ok(())
    }

    /// The declared brokers that are not running, in id order.
    pub fn stopped_brokers(&self) -> Vec<BrokerId> {
        self.brokers.values().filter(|b| !b.is_alive()).map(|b| b.id).collect()
    }

    /// Whether broker `id` has finished starting: registered, and its
    /// controller has tried the election (or the start failed).
    pub fn broker_settled(&self, id: BrokerId) -> bool {
        self.brokers.get(&id).map(|b| !b.is_alive() || b.controller_started).unwrap_or(true)
    }

    /// `expire-session broker ID`: the server expires the session now; the
    /// process lives on and finds out.
    fn expire_broker_session(&mut self, id: BrokerId) -> Result<(), String> {
        let b = self.alive(id)?;
        let Some(session) = b.zkc.session else {
            return Err(format!("broker {id} has no ZooKeeper session"));
        };
        let incarnation = b.incarnation;
        let ephemerals = self.zk.tree().ephemerals_of(session);
        let notifications = self
            .zk
            .end_session(self.now, session, crate::zookeeper::server::SessionEnd::Expired)
            .map_err(|e| format!("the session is already gone ({e})"))?;
        let mut fx = super::effect::Effects::default();
        fx.record(Record {
            actor: "zk".into(),
            kind: "session-expired",
            summary: format!(
                "session {} of broker-{id} expired by the server; deleted {} ephemeral znode(s)",
                session_hex(session),
                ephemerals.len()
            ),
            source: "ZooKeeperServer.expire",
            detail: Detail::new()
                .with("session", &session_hex(session))
                .with("owner", &format!("broker-{id}"))
                .with("deleted", &ephemerals),
            later: None,
        });
        self.deliver(notifications, &mut fx);
        fx.schedule(1, Event::Broker { id, incarnation, what: super::event::BrokerEvent::SessionExpired { session } });
        self.apply(fx);
        Ok(())
    }

    /// Runs an admin tool on the tools' session (opened on first use).
    fn with_admin(&mut self, f: impl FnOnce(&mut ZooKeeperClient, &mut Io) -> admin::AdminResult) -> Result<(), String> {
        let mut zkc = std::mem::take(&mut self.admin);
        let mut io = Io::new(self.now, &mut self.zk, &mut self.rng, -1, super::effect::Effects::default());
        io.records_read = self.records_read;
        io.steps_read = self.steps_read;
        if zkc.session.is_none() {
            let s = io.zk.create_session(io.now, admin::ACTOR, 30_000);
            zkc.session = Some(s);
            io.record(
                admin::ACTOR,
                "zk-session",
                "ZooKeeper.<init>",
                format!("the admin tools open session {}", session_hex(s)),
                json!({"session": session_hex(s)}),
            );
        }
        let result = f(&mut zkc, &mut io);
        let Io { fx, notifications, .. } = io;
        let mut fx = fx;
        self.admin = zkc;
        self.deliver(notifications, &mut fx);
        self.apply(fx);
        result
    }

    /// `produce`: the producer sends to the broker that leads the partition
    /// with the newest leader epoch; with none (or a frozen one) it fails.
    fn produce(&mut self, tp: &crate::scenario::TopicPartition, messages: u64) {
        use crate::kafka::server::replica_manager::Role;
        let leader = self
            .brokers
            .values()
            .filter(|b| b.is_alive())
            .filter_map(|b| {
                b.replica_manager.partitions.get(tp).filter(|h| h.role == Role::Leader).map(|h| (h.leader_epoch, b.id, b.paused))
            })
            .max();
        let failure = match leader {
            Some((_, id, false)) => {
                self.with_broker(id, |b, io| b.append_as_leader(io, tp, messages));
                return;
            }
            Some((_, id, true)) => format!("leader broker {id} does not answer (paused): the produce request times out"),
            None => "no live broker leads it (NOT_LEADER_OR_FOLLOWER): the produce fails".into(),
        };
        let mut fx = super::effect::Effects::default();
        fx.record(Record {
            actor: "producer".into(),
            kind: "produce",
            summary: format!("produce {messages} records to {tp}: {failure}"),
            source: "KafkaProducer.send",
            detail: Detail::new().with("partition", &tp.to_string()).with("ok", &false).with("error", &failure),
            later: None,
        });
        self.apply(fx);
    }

    /// The active controller: the broker `/controller` names, if it agrees.
    pub fn active_controller(&self) -> Option<&KafkaController> {
        self.brokers
            .values()
            .map(|b| &b.controller)
            .find(|c| c.is_active() && self.brokers.get(&c.broker_id).map(|b| b.is_alive()).unwrap_or(false))
    }
}
