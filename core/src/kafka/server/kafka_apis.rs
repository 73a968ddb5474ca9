//! `KafkaApis`: a broker handling the controller's requests, with Kafka's
//! fencing — a stale broker epoch, a stale controller epoch, a leader epoch
//! that is not newer — before anything is applied.

use super::Broker;
use crate::kafka::controller::request_summary;
use crate::kafka::io::Io;
use crate::kafka::messages::{ControlRequest, ControlResponse, Errors};
use crate::kafka::BrokerId;
use crate::sim::event::{BrokerEvent, Event};
use crate::trace::Detail;
use std::collections::BTreeMap;

impl Broker {
    /// A control request from a controller arrived.
    pub(super) fn handle_request(&mut self, io: &mut Io, from: BrokerId, from_incarnation: u32, generation: u64, request: ControlRequest) {
        let actor = self.actor();
        let what = request_summary(&request);
        let response = match &request {
            ControlRequest::LeaderAndIsr { controller_epoch, broker_epoch, partitions, .. } => {
                if self.stale_broker_epoch(*broker_epoch) {
                    self.note(
                        io,
                        "KafkaApis.handleLeaderAndIsrRequest",
                        &what,
                        from,
                        "STALE_BROKER_EPOCH: the request was meant for an earlier registration of this broker",
                    );
                    ControlResponse::LeaderAndIsr { error: Errors::STALE_BROKER_EPOCH, partition_errors: BTreeMap::new() }
                } else {
                    let out = self.replica_manager.become_leader_or_follower(self.id, io.now.as_u64(), *controller_epoch, partitions);
                    // Partition.createLog: each new log reads its topic's config.
                    for tp in &out.created {
                        self.fetch_log_config(io, &actor, &tp.topic);
                    }
                    if let Some(e) = out.error {
                        self.note(
                            io,
                            "ReplicaManager.becomeLeaderOrFollower",
                            &what,
                            from,
                            &format!("{e:?}: controller epoch {controller_epoch} is older than {}", self.replica_manager.controller_epoch),
                        );
                        ControlResponse::LeaderAndIsr { error: e, partition_errors: BTreeMap::new() }
                    } else {
                        io.record_with(&actor, "control-request", "ReplicaManager.becomeLeaderOrFollower", || {
                            let errors = crate::kafka::errors_by_name(&out.partition_errors);
                            (
                                format!(
                                    "handle {what} from controller {from}: leader for {}, follower for {}{}",
                                    crate::kafka::show(&out.became_leader),
                                    crate::kafka::show(&out.became_follower),
                                    if errors.is_empty() {
                                        String::new()
                                    } else {
                                        format!(", errors {}", crate::kafka::show_errors(&errors))
                                    }
                                ),
                                Detail::new()
                                    .with("from", &from)
                                    .with("became_leader", &out.became_leader.iter().map(|t| t.to_string()).collect::<Vec<_>>())
                                    .with("became_follower", &out.became_follower.iter().map(|t| t.to_string()).collect::<Vec<_>>())
                                    .with("errors", &errors)
                                    .with("first", &out.first),
                            )
                        });
                        self.after_leader_and_isr(io, &out.became_leader, &out.became_follower, out.first);
                        ControlResponse::LeaderAndIsr { error: Errors::NONE, partition_errors: out.partition_errors }
                    }
                }
            }
            ControlRequest::UpdateMetadata { controller_id, controller_epoch, broker_epoch, partitions, live_brokers } => {
                if self.stale_broker_epoch(*broker_epoch) {
                    self.note(io, "KafkaApis.handleUpdateMetadataRequest", &what, from, "STALE_BROKER_EPOCH");
                    ControlResponse::UpdateMetadata { error: Errors::STALE_BROKER_EPOCH }
                } else if *controller_epoch < self.metadata_cache.controller_epoch {
                    self.note(
                        io,
                        "ReplicaManager.maybeUpdateMetadataCache",
                        &what,
                        from,
                        &format!("STALE_CONTROLLER_EPOCH: epoch {controller_epoch} is older than {}", self.metadata_cache.controller_epoch),
                    );
                    ControlResponse::UpdateMetadata { error: Errors::STALE_CONTROLLER_EPOCH }
                } else {
                    self.metadata_cache.update(*controller_id, *controller_epoch, live_brokers, partitions);
                    io.record(
                        &actor,
                        "control-request",
                        "MetadataCache.updateMetadata",
                        format!("handle {what} from controller {from}: metadata cache updated"),
                        Detail::new().with("from", &from).with("partitions", &partitions.len()),
                    );
                    ControlResponse::UpdateMetadata { error: Errors::NONE }
                }
            }
            ControlRequest::StopReplica { controller_epoch, broker_epoch, partitions, .. } => {
                if self.stale_broker_epoch(*broker_epoch) {
                    self.note(io, "KafkaApis.handleStopReplicaRequest", &what, from, "STALE_BROKER_EPOCH");
                    ControlResponse::StopReplica { error: Errors::STALE_BROKER_EPOCH, partition_errors: BTreeMap::new() }
                } else {
                    let (error, partition_errors) = self.replica_manager.stop_replicas(*controller_epoch, partitions);
                    self.prune_topic_overrides();
                    // Stopped replicas stop fetching (`removeFetcherForPartitions`).
                    self.replica_manager.remove_fetcher_for_partitions(|tp| partition_errors.get(tp) == Some(&Errors::NONE));
                    self.replica_manager.partitions.touch();
                    let errors = crate::kafka::errors_by_name(&partition_errors);
                    io.record(
                        &actor,
                        "control-request",
                        "ReplicaManager.stopReplicas",
                        format!(
                            "handle {what} from controller {from}: {}",
                            error
                                .map(|e| format!("{e:?}"))
                                .unwrap_or_else(|| format!("stopped, errors {}", crate::kafka::show_errors(&errors)))
                        ),
                        Detail::new().with("from", &from).with("errors", &errors),
                    );
                    ControlResponse::StopReplica { error: error.unwrap_or(Errors::NONE), partition_errors }
                }
            }
            ControlRequest::ControlledShutdown { .. } => return,
        };
        let delay = io.departure_delay_ms();
        io.fx.schedule(
            delay,
            Event::Broker {
                id: from,
                incarnation: from_incarnation,
                what: BrokerEvent::Response { from: self.id, generation, exchange: Box::new((request, response)) },
            },
        );
    }

    /// A request carrying an epoch older than this broker's registration.
    fn stale_broker_epoch(&self, request_epoch: i64) -> bool {
        request_epoch != -1 && request_epoch < self.broker_epoch
    }

    fn note(&self, io: &mut Io, source: &'static str, what: &str, from: BrokerId, outcome: &str) {
        io.record(
            &self.actor(),
            "control-request",
            source,
            format!("reject {what} from controller {from}: {outcome}"),
            Detail::new().with("from", &from).with("outcome", &outcome),
        );
    }
}
