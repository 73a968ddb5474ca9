//! Formatting and colour assignment: pure functions the panels share.

use serde_json::Value;

/// Colours in the palette (`--kz-c0` .. `--kz-c7` in kzsim.css).
pub const PALETTE: usize = 8;

/// The virtual clock: `18.004 s`, `2 m 03.004 s` past a minute.
pub fn clock(ms: u64) -> String {
    let (s, milli) = (ms / 1000, ms % 1000);
    if s < 60 {
        format!("{s}.{milli:03} s")
    } else if s < 3600 {
        format!("{} m {:02}.{milli:03} s", s / 60, s % 60)
    } else {
        format!("{} h {:02} m {:02}.{milli:03} s", s / 3600, s / 60 % 60, s % 60)
    }
}

/// A countdown: `17.9 s`, `850 ms`.
pub fn countdown(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{}.{} s", ms / 1000, ms % 1000 / 100)
    }
}

/// A zxid or session id as ZooKeeper prints it: `0x2a`.
pub fn hex(v: i64) -> String {
    format!("0x{v:x}")
}

/// The broker an actor belongs to: `broker-1/controller` → 1.
pub fn broker_of(actor: &str) -> Option<i32> {
    actor.strip_prefix("broker-")?.split('/').next()?.parse().ok()
}

/// The CSS class that carries a broker's colour (`--c`), the same
/// everywhere the broker appears.
pub fn broker_class(id: i32) -> String {
    format!("kz-c{}", id.rem_euclid(PALETTE as i32))
}

/// The colour class of an actor or owner: its broker's, ZooKeeper's, or
/// the console sessions' shared one.
pub fn actor_class(actor: &str) -> String {
    match broker_of(actor) {
        Some(id) => broker_class(id),
        None if actor == "zk" => "kz-czk".to_string(),
        None => "kz-cs".to_string(),
    }
}

/// Znode data pretty-printed when it is a JSON object or list.
pub fn pretty_json(data: &str) -> Option<String> {
    match serde_json::from_str::<Value>(data) {
        Ok(v @ (Value::Object(_) | Value::Array(_))) => serde_json::to_string_pretty(&v).ok(),
        _ => None,
    }
}

/// A trace entry's detail as `key: value` lines (values as compact JSON,
/// strings without quotes).
pub fn detail_pairs(detail: &Value) -> Vec<(String, String)> {
    match detail {
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), compact(v))).collect(),
        Value::Null => Vec::new(),
        other => vec![(String::new(), compact(other))],
    }
}

pub fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A list of ids: `0,1,2` (as the contract's `data-isr`).
pub fn ids(list: &[i32]) -> String {
    list.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",")
}

/// The actor family a filter groups by: `broker-1/controller` → `broker-1`.
pub fn actor_family(actor: &str) -> &str {
    actor.split('/').next().unwrap_or(actor)
}

/// A run-time error as the page shows it: `FILE:LINE:COL: error: ...`, or,
/// for the learner's own actions (line 0), `your action: error: ...`.
pub fn run_error(file: &str, error: &str) -> String {
    match error.strip_prefix("0:").and_then(|rest| rest.split_once(": ")) {
        Some((_, message)) => format!("your action: {message}"),
        None => format!("{file}:{error}"),
    }
}

/// What the Kafka method a step mirrors does, for the best-known ones (by
/// the start of the step's `source`).
pub fn source_explanation(source: &str) -> &'static str {
    const TABLE: &[(&str, &str)] = &[
        ("KafkaZkClient.createTopLevelPaths", "At startup every broker creates the persistent top-level paths (/brokers/ids, /config/changes, /admin/delete_topics, ...). They usually exist already: NodeExists is the normal answer."),
        ("KafkaZkClient.registerBroker", "The broker registers itself as the ephemeral /brokers/ids/<id>, in one multi (create, then set). The znode's czxid becomes its broker epoch, which control requests carry so that stale ones can be told apart."),
        ("KafkaController.elect", "Every broker tries to become controller by creating the ephemeral /controller. The one that succeeds increments /controller_epoch (conditionally on its version) and runs onControllerFailover; the others keep an exists-watch on /controller."),
        ("KafkaZkClient.registerControllerAndIncrementControllerEpoch", "One multi: create the ephemeral /controller and set /controller_epoch to epoch+1, conditional on the zkVersion read before. Losing the race is a NodeExists or BadVersion, and the loser just watches."),
        ("KafkaController.onControllerFailover", "The new controller registers its watches, reads the whole cluster from ZooKeeper into its context, starts the replica and partition state machines and sends UpdateMetadata to every live broker. Until then its view is empty."),
        ("KafkaController.initializeControllerContext", "Read live brokers with their epochs, all topics, assignments and partition states from ZooKeeper: the controller's cache is rebuilt from ZooKeeper's truth."),
        ("KafkaController.processBrokerChange", "Compare /brokers/ids with the controller's cache: new brokers get onBrokerStartup, dead ones onBrokerFailure (their replicas go offline, leaders are re-elected), and a broker whose epoch changed has bounced and gets both."),
        ("BrokerChangeHandler.handleChildChange", "The child watch on /brokers/ids fired: the handler only puts BrokerChange on the controller's queue. The watch is re-armed when the event is processed and reads the children again."),
        ("ControllerChangeHandler", "/controller was created, changed or deleted: every broker queues ControllerChange or Reelect, and whoever finds /controller gone runs for election."),
        ("ControllerEventManager.ControllerEventThread.doWork", "The controller's single thread takes the next event off its queue. Events run one at a time, to completion, in queue order."),
        ("ControllerChannelManager.RequestSendThread.doWork", "The controller's send thread for one broker delivers the next queued control request. Brokers learn the controller's decisions only through these: until the request lands, a broker's metadata cache is stale."),
        ("MetadataCache.updateMetadata", "The broker applies an UpdateMetadata request: live brokers, leaders and ISRs as the controller knew them when it sent it."),
        ("ReplicaManager.becomeLeaderOrFollower", "The broker applies LeaderAndIsr: it becomes leader (and accepts writes) or follower (and starts fetching) for each partition, ignoring requests with a stale controller or leader epoch."),
        ("ReplicaStateMachine.handleStateChanges", "The replica state machine moves replicas between NewReplica, OnlineReplica, OfflineReplica and the deletion states, and queues the control requests each transition needs."),
        ("PartitionStateMachine.handleStateChanges", "The partition state machine moves partitions between New, Online, Offline and NonExistent, electing leaders where it must and writing the result to the partition state znodes."),
        ("PartitionStateMachine.doElectLeaderForPartitions", "Elect leaders: for an offline partition, the first replica of the assignment that is alive and in the ISR (any live one only if unclean election is enabled), written to /brokers/topics/<t>/partitions/<p>/state conditionally on its zkVersion."),
        ("ZkIsrManager.maybePropagateIsrChanges", "isr-change-propagation (every 2.5 s): pending ISR changes are published as a sequential /isr_change_notification/isr_change_ znode once no change has come for 5 s, or when the last publication is 60 s old. The controller's child watch on that path wakes it."),
        ("ZkIsrManager.submit", "The leader writes a new ISR to the partition state znode itself, conditional on the zkVersion it cached. The controller does not hear of it until the change is propagated."),
        ("KafkaController.processIsrChangeNotification", "The controller reads the notified partitions' states from ZooKeeper into its cache, sends UpdateMetadata for them to every broker and deletes the notifications."),
        ("Partition.expandIsr", "A follower caught up with the leader's log end offset: the leader adds it back to the ISR and writes the new ISR to ZooKeeper."),
        ("KafkaController.maybeResign", "The controller found /controller no longer names it: it resigns, unregisters its handlers and clears its state. A zombie learns it was replaced only this way."),
        ("ReplicaManager.checkpointHighWatermarks", "highwatermark-checkpoint: every replica's high watermark is written to replication-offset-checkpoint in its log dir, so a restart knows where committed data ends."),
        ("ReplicaFetcherThread.processPartitionData", "The follower appended what it fetched: its log end offset moves; the leader's high watermark moves once every ISR member has the data."),
        ("KafkaServer.startup", "The broker process starts: a ZooKeeper session, the top-level paths, its registration, then the controller and replica manager components."),
        ("ZooKeeper.create", "A console create: a persistent, ephemeral (-e) or sequential (-s) znode. Creating under a missing parent is NoNode; an existing path is NodeExists."),
    ];
    TABLE.iter().find(|(prefix, _)| source.starts_with(prefix)).map(|(_, text)| *text).unwrap_or("")
}

/// A short explanation of each kind of step, for the "this step" panel.
pub fn kind_explanation(kind: &str) -> &'static str {
    match kind {
        "zk-request" => "A broker's ZooKeeper client sends one request and gets its reply: this is how Kafka reads and writes the shared state. A failed create (NodeExists, NoNode) is an ordinary answer, not an error.",
        "zk-result" => "A console session (a zkCli window) ran one command against the same tree the brokers use; its writes fire the brokers' watches exactly as a Kafka tool's would.",
        "zk-session" => "A client opened or closed a ZooKeeper session. Ephemeral znodes live exactly as long as the session that created them.",
        "watch-event" => "ZooKeeper notifies a session that a watched znode changed. Watches are one-shot: the handler must read again (and re-arm the watch) to hear of the next change. Kafka's handlers only put an event on the controller's queue.",
        "controller-event" => "The controller's single event thread takes the next event off its queue and processes it; everything the controller does happens here, one event at a time.",
        "controller-step" => "One numbered step inside a controller method, so the article's step numbering can be followed line by line.",
        "control-request" => "The controller sends (or a broker handles) LeaderAndIsr, UpdateMetadata or StopReplica: the controller's decisions reach the brokers only through these requests, so a broker's view can lag ZooKeeper's.",
        "broker" => "A broker process changes state: starting, registering in /brokers/ids, shutting down or crashing.",
        "session-expired" => "ZooKeeper expired a session that sent no heartbeat within its timeout: every ephemeral znode it owned is deleted at once, firing watches.",
        "scheduled-task" => "A periodic task on a broker ran (ISR expiration, ISR change propagation, high-watermark checkpoint, auto leader rebalance).",
        "replica-fetch" => "A follower fetched from its leader: its log end offset (LEO) moves up, and the leader's high watermark follows the slowest in-sync replica.",
        "isr-change" => "A leader changed the ISR of its partition and wrote it to the partition state znode itself, conditionally on the zkVersion it knows.",
        "produce" => "Records were appended to a partition leader's log; followers must fetch them to stay in sync.",
        "action" => "A learner's (or the script's) action: the cluster reacts in the steps that follow.",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn clocks_and_countdowns() {
        assert_eq!(clock(0), "0.000 s");
        assert_eq!(clock(18_004), "18.004 s");
        assert_eq!(clock(123_004), "2 m 03.004 s");
        assert_eq!(clock(3_723_004), "1 h 02 m 03.004 s");
        assert_eq!(countdown(850), "850 ms");
        assert_eq!(countdown(17_960), "17.9 s");
        assert_eq!(hex(42), "0x2a");
    }

    #[test]
    fn colours_follow_the_broker_everywhere() {
        assert_eq!(broker_of("broker-1/controller"), Some(1));
        assert_eq!(broker_of("broker-12"), Some(12));
        assert_eq!(broker_of("admin"), None);
        assert_eq!(broker_of("broker-x"), None);
        assert_eq!(actor_class("broker-2/replica-manager"), broker_class(2));
        assert_eq!(broker_class(9), "kz-c1");
        assert_eq!(actor_class("zk"), "kz-czk");
        assert_eq!(actor_class("watcher"), "kz-cs");
        assert_eq!(actor_family("broker-1/controller"), "broker-1");
        assert_eq!(actor_family("admin"), "admin");
    }

    #[test]
    fn json_is_pretty_printed_and_plain_text_left_alone() {
        assert_eq!(pretty_json(r#"{"a":1,"b":[1,2]}"#).unwrap(), "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}");
        assert_eq!(pretty_json("2"), None);
        assert_eq!(pretty_json("<img src=x onerror=alert(1)>"), None);
        assert_eq!(pretty_json(""), None);
    }

    #[test]
    fn run_errors_name_their_line_or_the_learner() {
        assert_eq!(run_error("a.kzs", "12:1: error: broker 1 is not running"), "a.kzs:12:1: error: broker 1 is not running");
        assert_eq!(run_error("a.kzs", "0:1: error: broker 1 is not running"), "your action: error: broker 1 is not running");
    }

    #[test]
    fn details_become_pairs() {
        let pairs = detail_pairs(&json!({"op": "create", "ok": true, "dead": [0]}));
        assert!(pairs.contains(&("op".into(), "create".into())));
        assert!(pairs.contains(&("dead".into(), "[0]".into())));
        assert!(detail_pairs(&Value::Null).is_empty());
        assert_eq!(ids(&[0, 1]), "0,1");
        assert_eq!(ids(&[]), "");
        assert!(!kind_explanation("watch-event").is_empty());
        assert!(source_explanation("KafkaController.processBrokerChange").contains("onBrokerFailure"));
        assert!(source_explanation("ControllerChangeHandler.handleCreation/handleDataChange").contains("Reelect"));
        assert_eq!(source_explanation("Nope.nothing"), "");
    }
}
