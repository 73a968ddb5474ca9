//! Controlled shutdown, controller side (`doControlledShutdown`): move the
//! leaders off a broker that is shutting down, and take its follower
//! replicas offline, before it goes.

use super::context::{PartitionState, ReplicaState};
use super::election::Strategy;
use super::{CResult, Cx, KafkaController};
use crate::kafka::messages::{ControlResponse, Errors};
use crate::kafka::BrokerId;
use crate::scenario::TopicPartition;
use crate::sim::event::{BrokerEvent, Event, ANY_INCARNATION};
use crate::trace::Detail;

impl KafkaController {
    pub(super) fn process_controlled_shutdown(&mut self, cx: &mut Cx, broker: BrokerId, broker_epoch: i64) -> CResult<()> {
        const SRC: &str = "KafkaController.doControlledShutdown";
        let reply = |this: &Self, cx: &mut Cx, error: Errors, remaining: Vec<TopicPartition>| {
            let delay = cx.io.departure_delay_ms();
            cx.io.fx.schedule(
                delay,
                Event::Broker {
                    id: broker,
                    incarnation: ANY_INCARNATION,
                    what: BrokerEvent::ControlledShutdownResponse {
                        from: this.broker_id,
                        response: ControlResponse::ControlledShutdown { error, remaining },
                    },
                },
            );
        };
        if !self.is_active() {
            self.step(
                cx,
                SRC,
                format!("broker {broker} asked for a controlled shutdown, but this broker is not the controller (NOT_CONTROLLER)"),
                Detail::new(),
            );
            reply(self, cx, Errors::NOT_CONTROLLER, Vec::new());
            return Ok(());
        }
        if let Some(cached) = self.ctx.broker_epoch(broker) {
            if broker_epoch != -1 && broker_epoch < cached {
                self.step(
                    cx,
                    SRC,
                    format!("broker {broker}'s epoch {broker_epoch} is older than {cached}: STALE_BROKER_EPOCH"),
                    Detail::new(),
                );
                reply(self, cx, Errors::STALE_BROKER_EPOCH, Vec::new());
                return Ok(());
            }
        } else {
            self.step(cx, SRC, format!("broker {broker} is not live: BROKER_NOT_AVAILABLE"), Detail::new());
            reply(self, cx, Errors::BROKER_NOT_AVAILABLE, Vec::new());
            return Ok(());
        }
        self.ctx.shutting_down.insert(broker);
        let on_broker: Vec<TopicPartition> = self
            .ctx
            .all_partitions()
            .into_iter()
            .filter(|tp| {
                let replicas = self.ctx.replicas(tp);
                replicas.contains(&broker)
                    && replicas.len() > 1
                    && self.ctx.leadership.contains_key(tp)
                    && !self.ctx.is_topic_queued_for_deletion(&tp.topic)
            })
            .collect();
        let (led, followed): (Vec<_>, Vec<_>) =
            on_broker.into_iter().partition(|tp| self.ctx.leadership.get(tp).map(|l| l.leader == broker).unwrap_or(false));
        self.step(
            cx,
            SRC,
            format!("broker {broker} is shutting down: move leadership of {} partitions away (ControlledShutdownPartitionLeaderElectionStrategy), take {} follower replicas offline", led.len(), followed.len()),
            Detail::new().with("broker", &broker).with("leading", &led.iter().map(|t| t.to_string()).collect::<Vec<_>>()).with("following", &followed.iter().map(|t| t.to_string()).collect::<Vec<_>>()),
        );
        self.partition_state_changes(cx, &led, PartitionState::OnlinePartition, Some(Strategy::ControlledShutdown))?;
        self.batch.clear();
        for tp in &followed {
            self.batch.add_stop_replica(&self.ctx, &[broker], tp, false);
        }
        self.send_batch(cx);
        let replicas: Vec<_> = followed.iter().map(|tp| (tp.clone(), broker)).collect();
        self.replica_state_changes(cx, &replicas, ReplicaState::OfflineReplica)?;
        let remaining = self.ctx.partition_leaders_on_broker(broker);
        self.step(
            cx,
            SRC,
            format!("reply to broker {broker}: {} partitions still led by it", remaining.len()),
            Detail::new().with("remaining", &remaining.iter().map(|t| t.to_string()).collect::<Vec<_>>()),
        );
        reply(self, cx, Errors::NONE, remaining);
        Ok(())
    }
}
