//! Formatting and colour assignment: pure functions the panels share.

use crate::i18n::Lang;
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

/// `part` of `whole` as a CSS percentage with `decimals` places (`37.5%`),
/// in integers: the page formats no floating-point numbers, so the
/// download carries no float formatting (about 6 KB of wasm, issue 9).
/// Clamped to 0-100%; an empty whole is 0%.
pub fn percent(part: u64, whole: u64, decimals: u32) -> String {
    let scale = 10u128.pow(decimals);
    let units = if whole == 0 { 0 } else { u128::from(part.min(whole)) * 100 * scale / u128::from(whole) };
    if decimals == 0 {
        format!("{units}%")
    } else {
        format!("{}.{:0width$}%", units / scale, units % scale, width = decimals as usize)
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
/// FNV-1a, 64 bits: a fingerprint of some bytes (which scenario an edit
/// was made from, which branch a trace is on). Not for security.
pub fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// A fingerprint of the learner's actions: equal actions give an equal
/// trace, since the simulation is deterministic (the event log's entries and
/// the sequence diagram key what they keep by it).
pub fn branch_of(actions: &[(u64, String)]) -> u64 {
    fnv1a(actions.iter().flat_map(|(at, text)| at.to_le_bytes().into_iter().chain(text.bytes()).chain([0xff])))
}

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
/// for the learner's own actions (line 0), `your action: error: ...` (the
/// frame in the page's language; the core's message stays English).
pub fn run_error_in(lang: Lang, file: &str, error: &str) -> String {
    match error.strip_prefix("0:").and_then(|rest| rest.split_once(": ")) {
        Some((_, message)) => format!("{}: {message}", lang.t("your action")),
        None => format!("{file}:{error}"),
    }
}

/// What the Kafka method a step mirrors does, for the best-known ones (by
/// the start of the step's `source`).
pub fn source_explanation(source: &str) -> &'static str {
    SOURCES.iter().find(|(prefix, _)| source.starts_with(prefix)).map(|(_, text)| *text).unwrap_or("")
}

/// (the start of a step's `source`, what that Kafka method does).
const SOURCES: &[(&str, &str)] = &[
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
        "admin" => "The admin tools (kafka-topics, kafka-configs, ...) write to ZooKeeper directly: topics, configs and the /admin markers.",
        "config-change" => "Dynamic config: the /config/changes listener reads the notifications, and the matching handler applies the new config.",
        "log-dir" => "A log directory failed: its replicas go offline, and the broker tells the controller through /log_dir_event_notification.",
        _ => "",
    }
}

/// [`source_explanation`] in the page's language.
pub fn source_explanation_in(lang: Lang, source: &str) -> &'static str {
    match lang {
        Lang::En => source_explanation(source),
        Lang::Zh => SOURCES_ZH.iter().find(|(prefix, _)| source.starts_with(prefix)).map(|(_, text)| *text).unwrap_or(""),
    }
}

/// [`SOURCES`] in Chinese, in the same order.
const SOURCES_ZH: &[(&str, &str)] = &[
        ("KafkaZkClient.createTopLevelPaths", "每个 broker 启动时都会创建持久的顶层路径（/brokers/ids、/config/changes、/admin/delete_topics 等）。它们通常已经存在：回复 NodeExists 是正常的。"),
        ("KafkaZkClient.registerBroker", "broker 在一次 multi 中（先 create 再 set）把自己注册为临时节点 /brokers/ids/<id>。这个 znode 的 czxid 就是它的 broker epoch，控制请求会带上它，以便分辨过时的请求。"),
        ("KafkaController.elect", "每个 broker 都尝试创建临时节点 /controller 来成为 controller。成功的那个把 /controller_epoch 加一（以它的版本为条件），然后执行 onControllerFailover；其余的在 /controller 上保留一个 exists watch。"),
        ("KafkaZkClient.registerControllerAndIncrementControllerEpoch", "一次 multi：创建临时节点 /controller，并把 /controller_epoch 设为 epoch+1，条件是之前读到的 zkVersion。竞争失败的一方得到 NodeExists 或 BadVersion，之后只是继续 watch。"),
        ("KafkaController.onControllerFailover", "新 controller 注册各个 watch，把整个集群的状态从 ZooKeeper 读进它的上下文，启动副本状态机和分区状态机，并向每个存活的 broker 发送 UpdateMetadata。在此之前它眼里什么都没有。"),
        ("KafkaController.initializeControllerContext", "从 ZooKeeper 读取存活的 broker 及其 epoch、所有主题、副本分配和分区状态：controller 的缓存依据 ZooKeeper 中的事实重建。"),
        ("KafkaController.processBrokerChange", "把 /brokers/ids 和 controller 的缓存做比较：新 broker 走 onBrokerStartup，下线的走 onBrokerFailure（它们的副本离线，重新选举 leader），epoch 变了的 broker 说明它重启过，两者都要走。"),
        ("BrokerChangeHandler.handleChildChange", "/brokers/ids 上的子节点 watch 触发了：处理器只是把 BrokerChange 放入 controller 的事件队列。等到处理这个事件、再次读取子节点时，watch 才重新设置。"),
        ("ControllerChangeHandler", "/controller 被创建、修改或删除：每个 broker 都往队列里放入 ⟨ControllerChange⟩ 或 ⟨Reelect⟩，发现 /controller 已经不在的 broker 就参加选举。"),
        ("ControllerEventManager.ControllerEventThread.doWork", "controller 唯一的事件线程从队列中取出下一个事件。事件按队列顺序一个接一个地执行，每个都执行完才轮到下一个。"),
        ("ControllerChannelManager.RequestSendThread.doWork", "controller 为某个 broker 开的发送线程投递下一个排队的控制请求。broker 只能通过这些请求得知 controller 的决定：请求到达之前，broker 的元数据缓存是过时的。"),
        ("MetadataCache.updateMetadata", "broker 应用一个 UpdateMetadata 请求：存活的 broker、各分区的 leader 和 ISR，都是 controller 发送时所知道的样子。"),
        ("ReplicaManager.becomeLeaderOrFollower", "broker 应用 LeaderAndIsr：对每个分区成为 leader（接受写入）或 follower（开始拉取），controller epoch 或 leader epoch 过时的请求会被忽略。"),
        ("ReplicaStateMachine.handleStateChanges", "副本状态机让副本在 NewReplica、OnlineReplica、OfflineReplica 和各个删除状态之间转换，并把每次转换需要的控制请求排进队列。"),
        ("PartitionStateMachine.handleStateChanges", "分区状态机让分区在 NewPartition、OnlinePartition、OfflinePartition 和 NonExistentPartition 之间转换，必要时选举 leader，并把结果写入分区状态 znode。"),
        ("PartitionStateMachine.doElectLeaderForPartitions", "选举 leader：对离线分区，选副本分配中第一个既存活又在 ISR 中的副本（只有 unclean.leader.election.enable 开启时才可以选任意存活副本），以 zkVersion 为条件写入 /brokers/topics/<t>/partitions/<p>/state。"),
        ("ZkIsrManager.maybePropagateIsrChanges", "isr-change-propagation（每 2.5 s 一次）：待传播的 ISR 变更在 5 s 内没有新变化、或距上次发布已满 60 s 时，发布为顺序节点 /isr_change_notification/isr_change_。controller 在这个路径上的子节点 watch 会唤醒它。"),
        ("ZkIsrManager.submit", "leader 自己把新的 ISR 写入分区状态 znode，条件是它缓存的 zkVersion。在变更被传播之前，controller 并不知道。"),
        ("KafkaController.processIsrChangeNotification", "controller 从 ZooKeeper 读取通知里各分区的状态到缓存，把它们的 UpdateMetadata 发给每个 broker，再删除这些通知。"),
        ("Partition.expandIsr", "一个 follower 追上了 leader 的日志末端位移（LEO）：leader 把它加回 ISR，并把新的 ISR 写入 ZooKeeper。"),
        ("KafkaController.maybeResign", "controller 发现 /controller 指向的已经不是自己：它退位，注销处理器，清空状态。僵尸 controller 只有这样才知道自己被取代了。"),
        ("ReplicaManager.checkpointHighWatermarks", "highwatermark-checkpoint：把每个副本的高水位写入所在日志目录的 replication-offset-checkpoint 文件，重启后就知道已提交的数据到哪里为止。"),
        ("ReplicaFetcherThread.processPartitionData", "follower 追加了拉取到的数据：它的日志末端位移（LEO）前移；等 ISR 中每个成员都有了这些数据，leader 的高水位才前移。"),
        ("KafkaServer.startup", "broker 进程启动：建立 ZooKeeper session，创建顶层路径，注册自己，然后启动 controller 和副本管理器等组件。"),
        ("ZooKeeper.create", "控制台的 create：创建持久、临时（-e）或顺序（-s）znode。父节点不存在时得到 NoNode；路径已存在时得到 NodeExists。"),
];

/// [`kind_explanation`] in the page's language.
pub fn kind_explanation_in(lang: Lang, kind: &str) -> &'static str {
    if lang == Lang::En {
        return kind_explanation(kind);
    }
    match kind {
        "zk-request" => "broker 的 ZooKeeper 客户端发出一个请求并得到回复：Kafka 就是这样读写共享状态的。create 失败（NodeExists、NoNode）是正常的回答，不是错误。",
        "zk-result" => "一个控制台 session（一个 zkCli 窗口）在 broker 使用的同一棵树上执行了一条命令；它的写操作触发 broker 的 watch，和 Kafka 工具的写操作完全一样。",
        "zk-session" => "一个客户端建立或关闭了 ZooKeeper session。临时 znode 的寿命和创建它的 session 完全相同。",
        "watch-event" => "ZooKeeper 通知一个 session：它 watch 的 znode 变了。watch 是一次性的：处理器必须重新读取（并重新设置 watch）才能得知下一次变化。Kafka 的处理器只是把一个事件放入 controller 的队列。",
        "controller-event" => "controller 唯一的事件线程从队列中取出下一个事件并处理；controller 做的所有事情都在这里发生，一次一个事件。",
        "controller-step" => "controller 某个方法里的一个编号步骤，便于对照文章里的步骤编号逐行阅读。",
        "control-request" => "controller 发送（或 broker 处理）LeaderAndIsr、UpdateMetadata 或 StopReplica：controller 的决定只能通过这些请求到达 broker，所以 broker 看到的可能落后于 ZooKeeper。",
        "broker" => "一个 broker 进程的状态变了：启动、在 /brokers/ids 下注册、关闭或崩溃。",
        "session-expired" => "一个 session 在超时时间内没有发送心跳，ZooKeeper 让它过期：它拥有的所有临时 znode 立即被删除，并触发 watch。",
        "scheduled-task" => "broker 上的一个周期任务执行了（ISR 过期检查、ISR 变更传播、高水位检查点、自动 leader 再平衡）。",
        "replica-fetch" => "follower 从 leader 拉取：它的日志末端位移（LEO）前移，leader 的高水位跟随 ISR 中最慢的副本。",
        "isr-change" => "leader 改变了它所在分区的 ISR，并亲自写入分区状态 znode，条件是它所知道的 zkVersion。",
        "produce" => "消息被追加到分区 leader 的日志中；follower 必须拉取它们才能保持同步。",
        "action" => "学习者（或脚本）的一个操作：集群在随后的步骤中作出反应。",
        "admin" => "管理工具（kafka-topics、kafka-configs 等）直接写 ZooKeeper：主题、配置和各种 /admin 标记。",
        "config-change" => "动态配置：/config/changes 的监听器读取通知，再由对应的处理器应用新配置。",
        "log-dir" => "一个日志目录出了故障：它的副本离线，broker 通过 /log_dir_event_notification 告诉 controller。",
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
        assert_eq!(run_error_in(Lang::En, "a.kzs", "12:1: error: broker 1 is not running"), "a.kzs:12:1: error: broker 1 is not running");
        assert_eq!(run_error_in(Lang::En, "a.kzs", "0:1: error: broker 1 is not running"), "your action: error: broker 1 is not running");
        assert_eq!(run_error_in(Lang::Zh, "a.kzs", "0:1: error: broker 1 is not running"), "你的操作: error: broker 1 is not running");
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

    #[test]
    fn every_explanation_has_its_chinese() {
        let kinds = [
            "zk-request",
            "zk-result",
            "zk-session",
            "watch-event",
            "controller-event",
            "controller-step",
            "control-request",
            "broker",
            "session-expired",
            "scheduled-task",
            "replica-fetch",
            "isr-change",
            "produce",
            "action",
            "admin",
            "config-change",
            "log-dir",
        ];
        for kind in kinds {
            assert!(!kind_explanation(kind).is_empty(), "{kind}");
            assert!(!kind_explanation_in(Lang::Zh, kind).is_empty(), "{kind}");
            assert!(crate::i18n::prose::english_words(kind_explanation_in(Lang::Zh, kind)).is_empty(), "{kind}");
        }
        let prefixes = |table: &[(&'static str, &str)]| table.iter().map(|(p, _)| *p).collect::<Vec<_>>();
        assert_eq!(prefixes(SOURCES), prefixes(SOURCES_ZH));
        for (source, zh) in SOURCES_ZH {
            assert_eq!(source_explanation_in(Lang::Zh, source), *zh);
            assert!(crate::i18n::prose::english_words(zh).is_empty(), "{source}: {zh}");
        }
        assert_eq!(source_explanation_in(Lang::En, "ZooKeeper.create"), source_explanation("ZooKeeper.create"));
    }
}
