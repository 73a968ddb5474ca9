//! Chinese renderings of the simulator's step summaries.
//!
//! The core writes every `TraceEntry.summary` in English, and that text is a
//! public contract (`--trace`), so the translation lives here, in the web
//! crate: a table of templates per trace `kind`, each an English pattern with
//! `{holes}` and its Chinese pattern. Holes carry numbers, paths, topic names,
//! JSON, Kafka identifiers and method names over verbatim; a `{~hole}` is
//! itself translated (by the same kind's templates, then the shared
//! fragments), for summaries that nest one phrase inside another. A hole
//! ending in `!` matches a single word (no spaces).
//!
//! A summary no template matches stays English: the page shows it as is, and
//! the native test (`every_summary_of_every_scenario_has_a_chinese_rendering`)
//! fails, naming it.

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One piece of a rendering: text in the page's language, or text carried
/// over verbatim (marked `translate="no"` on the page).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Verbatim(String),
}

/// The Chinese rendering of a summary of this kind, or `None`.
pub fn zh(kind: &str, summary: &str) -> Option<Vec<Piece>> {
    let mut out = Vec::new();
    translate(kind, summary, &mut out, 0).then_some(out)
}

/// The rendering as plain text.
pub fn zh_text(kind: &str, summary: &str) -> Option<String> {
    zh(kind, summary).map(|pieces| {
        pieces
            .into_iter()
            .map(|p| match p {
                Piece::Text(s) | Piece::Verbatim(s) => s,
            })
            .collect()
    })
}

#[derive(Debug)]
enum Tok {
    Lit(&'static str),
    /// (translated, one word only)
    Hole(bool, bool),
}

struct Template {
    en: Vec<Tok>,
    /// The Chinese pattern's pieces: literal text, or the index of a hole.
    /// Literal text between `⟨` and `⟩` is an identifier, kept verbatim.
    zh: Vec<Result<&'static str, usize>>,
}

fn parse(pattern: &'static str) -> (Vec<Tok>, Vec<(&'static str, usize)>) {
    // Holes: `{name}`, `{name!}`, `{~name}`; returns the tokens and each
    // hole's name with its position among the holes.
    let mut toks = Vec::new();
    let mut names = Vec::new();
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else { break };
        let name = &rest[open + 1..close];
        // `{}` and JSON-like braces with quotes or spaces are literal text.
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '~' || c == '!' || c == '_') {
            let lit_end = open + 1;
            toks.push(Tok::Lit(&rest[..lit_end]));
            rest = &rest[lit_end..];
            continue;
        }
        if open > 0 {
            toks.push(Tok::Lit(&rest[..open]));
        }
        let translated = name.starts_with('~');
        let word = name.ends_with('!');
        names.push((name.trim_start_matches('~').trim_end_matches('!'), names.len()));
        toks.push(Tok::Hole(translated, word));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        toks.push(Tok::Lit(rest));
    }
    // Merge adjacent literals (from the brace rule above).
    let mut merged: Vec<Tok> = Vec::new();
    for t in toks {
        match (merged.last_mut(), &t) {
            (Some(Tok::Lit(a)), Tok::Lit(b)) => {
                // Both slices are adjacent in `pattern`: join them.
                let start = a.as_ptr() as usize - pattern.as_ptr() as usize;
                *a = &pattern[start..start + a.len() + b.len()];
            }
            _ => merged.push(t),
        }
    }
    (merged, names)
}

fn compile(en: &'static str, zh: &'static str) -> Template {
    let (en_toks, en_names) = parse(en);
    let (zh_toks, zh_names) = parse(zh);
    let mut pieces = Vec::new();
    let mut hole = 0;
    for t in zh_toks {
        match t {
            Tok::Lit(s) => pieces.push(Ok(s)),
            Tok::Hole(..) => {
                let name = zh_names[hole].0;
                hole += 1;
                let index = en_names.iter().find(|(n, _)| *n == name).map(|(_, i)| *i);
                match index {
                    Some(i) => pieces.push(Err(i)),
                    None => panic!("hole {{{name}}} of {zh:?} is not in {en:?}"),
                }
            }
        }
    }
    Template { en: en_toks, zh: pieces }
}

/// The templates by kind ("" holds the fragments any kind may use).
fn table() -> &'static BTreeMap<&'static str, Vec<Template>> {
    static TABLE: OnceLock<BTreeMap<&'static str, Vec<Template>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut map: BTreeMap<&'static str, Vec<Template>> = BTreeMap::new();
        for (kind, en, zh) in TEMPLATES {
            map.entry(*kind).or_default().push(compile(en, zh));
        }
        map
    })
}

/// Matches `toks` against all of `s`, filling `caps` with the holes' text
/// (shortest first, backtracking).
fn matches<'a>(toks: &[Tok], s: &'a str, caps: &mut Vec<&'a str>) -> bool {
    match toks.first() {
        None => s.is_empty(),
        Some(Tok::Lit(lit)) => s.strip_prefix(lit).is_some_and(|rest| matches(&toks[1..], rest, caps)),
        Some(Tok::Hole(_, word)) => {
            let fits = |cap: &str| !(cap.is_empty() || *word && cap.contains(' '));
            match toks.get(1) {
                None => {
                    caps.push(s);
                    fits(s) || s.is_empty() && !*word
                }
                Some(Tok::Lit(next)) => {
                    let mut from = 0;
                    while let Some(at) = s[from..].find(next).map(|i| from + i) {
                        let cap = &s[..at];
                        if *word && cap.contains(' ') {
                            return false;
                        }
                        if fits(cap) || cap.is_empty() && !*word {
                            caps.push(cap);
                            if matches(&toks[1..], &s[at..], caps) {
                                return true;
                            }
                            caps.pop();
                        }
                        from = at + next.len().max(1);
                        if from > s.len() {
                            break;
                        }
                    }
                    false
                }
                Some(Tok::Hole(..)) => unreachable!("two holes in a row are ambiguous"),
            }
        }
    }
}

fn translate(kind: &str, s: &str, out: &mut Vec<Piece>, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    let lists = [table().get(kind), if kind.is_empty() { None } else { table().get("") }];
    for template in lists.into_iter().flatten().flatten() {
        let mut caps = Vec::new();
        if !matches(&template.en, s, &mut caps) {
            continue;
        }
        let translated: Vec<bool> = template.en.iter().filter_map(|t| if let Tok::Hole(tr, _) = t { Some(*tr) } else { None }).collect();
        let mut pieces = Vec::new();
        let ok = template.zh.iter().all(|piece| match piece {
            Ok(text) => {
                for (identifier, part) in super::marked(text, &['⟨', '⟩']) {
                    pieces.push(if identifier { Piece::Verbatim(part.to_string()) } else { Piece::Text(part.to_string()) });
                }
                true
            }
            Err(i) if translated[*i] => translate(kind, caps[*i], &mut pieces, depth + 1),
            Err(i) => {
                if !caps[*i].is_empty() {
                    pieces.push(Piece::Verbatim(caps[*i].to_string()));
                }
                true
            }
        });
        if ok {
            out.extend(pieces);
            return true;
        }
    }
    false
}

/// (kind, English pattern, Chinese pattern). Within a kind the first match
/// wins, so the specific patterns come before the general ones.
const TEMPLATES: &[(&str, &str, &str)] = &[
    // Fragments shared by every kind.
    ("", "NodeExists", "NodeExists（节点已存在）"),
    ("", "NoNode", "NoNode（节点不存在）"),
    ("", "BadVersion", "BadVersion（版本不符）"),
    ("", "NotEmpty", "NotEmpty（还有子节点）"),
    ("", "SessionExpired", "SessionExpired（session 已过期）"),
    ("", "NoChildrenForEphemerals", "NoChildrenForEphemerals（临时节点不能有子节点）"),
    ("", "NONE", "NONE（无错误）"),
    ("", "ok", "成功"),
    ("", "deleted", "已删除"),
    ("", "none", "无"),
    ("", "{n!} B/s", "{n} B/s"),
    ("", "created {path}", "已创建 {path}"),
    ("", "exists, version {n!}", "存在，版本 {n}"),
    ("", "version {n!}, {c!} children", "版本 {n}，{c} 个子节点"),
    ("", "version {n!}", "版本 {n}"),
    ("", "{path!} (ephemeral)", "{path}（临时节点）"),
    ("", "[{list}, ... {n!} in all]", "[{list}, …]（共 {n} 个）"),
    ("", "[{list}]", "[{list}]"),
    ("", "{data} (version {n!})", "{data}（版本 {n}）"),
    ("", "/{path!}", "/{path}"),
    ("", "{~a}; {~b}", "{~a}；{~b}"),
    // A broker's ZooKeeper client and the console sessions.
    ("zk-request", "{op!} {path!} (watch) → {~outcome}", "{op} {path}（并设置 watch）→ {~outcome}"),
    ("zk-request", "{op!} {path!} → {~outcome}", "{op} {path} → {~outcome}"),
    ("zk-result", "session {id!} closed; its ephemeral znodes are deleted", "session {id} 已关闭，它的临时 znode 随之删除"),
    ("zk-result", "session {id!} expired by the server; its ephemeral znodes are deleted", "session {id} 被服务端置为过期，它的临时 znode 随之删除"),
    ("zk-result", "create {path!} → /{created!} (ephemeral)", "create {path} → 已创建 /{created}（临时节点）"),
    ("zk-result", "create {path!} → /{created!}", "create {path} → 已创建 /{created}"),
    ("zk-result", "{op!} {path!} → {~outcome}", "{op} {path} → {~outcome}"),
    ("zk-result", "{op!} → {~outcome}", "{op} → {~outcome}"),
    ("zk-session", "session {id!} opened, timeout {ms!} ms (asked for {asked!} ms; the server allows {range!})", "session {id} 已建立，超时 {ms} ms（请求的是 {asked} ms；服务端只允许 {range}）"),
    ("zk-session", "session {id!} opened, timeout {ms!} ms", "session {id} 已建立，超时 {ms} ms"),
    ("zk-session", "the admin tools open session {id!}", "管理工具建立 session {id}"),
    ("session-expired", "session {id!} of {owner!} expired after {ms!} ms without a heartbeat; deleted {n!} ephemeral znode(s)", "{owner} 的 session {id} 超过 {ms} ms 没有心跳，已过期；删除了 {n} 个临时 znode"),
    ("session-expired", "session {id!} of {owner!} expired by the server; deleted {n!} ephemeral znode(s)", "{owner} 的 session {id} 被服务端置为过期；删除了 {n} 个临时 znode"),
    ("watch-event", "{type!} {path!} → {handler!}: put {event!} on the controller event queue", "{type} {path} → {handler}：把 {event} 放入 controller 事件队列"),
    ("watch-event", "{type!} {path!} → {handler!}: queue a run of the config change listener", "{type} {path} → {handler}：安排配置变更监听器运行一次"),
    ("watch-event", "{type!} {path!} → {handler!}: nothing to do for this event type", "{type} {path} → {handler}：这类事件无需处理"),
    ("watch-event", "{type!} {path!}: no handler registered any more; ignored", "{type} {path}：已经没有注册的处理器，忽略"),
    ("watch-event", "{type!} {path!}", "{type} {path}"),
    // Broker processes.
    ("broker", "ZooKeeper session {old!} expired: beforeInitializingSession puts Expire; new session {new!}; afterInitializingSession puts RegisterBrokerAndReelect and queues a run of the config change listener", "ZooKeeper session {old} 已过期：beforeInitializingSession 放入 ⟨Expire⟩；新 session 为 {new}；afterInitializingSession 放入 RegisterBrokerAndReelect，并安排配置变更监听器运行一次"),
    ("broker", "broker {id!} paused (a long GC pause): it handles nothing and sends no heartbeat", "broker {id} 暂停（一次很长的 GC 停顿）：什么都不处理，也不发心跳"),
    ("broker", "broker {id!} resumes: {n!} queued events run now", "broker {id} 恢复运行：积压的 {n} 个事件现在执行"),
    ("broker", "broker {id!} started ({state!})", "broker {id} 已启动（{state}）"),
    ("broker", "broker {id!} stopped: halted (Exit.halt(1)) after a log dir failure", "broker {id} 已停止：日志目录故障后进程被终止（Exit.halt(1)）"),
    ("broker", "broker {id!} stopped: halted (Exit.halt(1)): every log dir is offline", "broker {id} 已停止：所有日志目录都已离线，进程被终止（Exit.halt(1)）"),
    ("broker", "broker {id!} stopped: killed (a crash: no controlled shutdown; its ZooKeeper session lives on until it expires)", "broker {id} 已停止：被杀死（相当于崩溃：没有受控关闭，它的 ZooKeeper session 一直存在，直到过期）"),
    ("broker", "broker {id!} stopped: shut down", "broker {id} 已停止：正常关闭"),
    ("broker", "closed ZooKeeper session {id!}: its ephemeral znodes are deleted now", "已关闭 ZooKeeper session {id}：它的临时 znode 现在被删除"),
    ("broker", "controlled shutdown: up to {n!} attempts, {ms!} ms apart", "受控关闭：最多尝试 {n} 次，每次间隔 {ms} ms"),
    ("broker", "controller {id!} moved every leader away: controlled shutdown succeeded", "controller {id} 已把所有 leader 迁走：受控关闭成功"),
    ("broker", "controller starting: register the session-expiration handler, put Startup on the controller event queue", "controller 启动：注册 session 过期处理器，把 ⟨Startup⟩ 放入 controller 事件队列"),
    ("broker", "registered at {path!}: broker epoch {e!} (the znode's czxid)", "已注册为 {path}：broker epoch 为 {e}（即这个 znode 的 czxid）"),
    ("broker", "starting: ZooKeeper session {id!} (timeout {ms!} ms)", "正在启动：ZooKeeper session {id}（超时 {ms} ms）"),
    // The admin tools.
    ("admin", "kafka-configs --alter {type!} {name}: {path!} now holds {list}; notification {n!}", "kafka-configs --alter {type} {name}：{path} 现在是 {list}；通知 {n}"),
    // Dynamic config: the notification listener and the handlers.
    ("config-change", "ERROR Error while processing notification change for path = {path!}: For input string: {s} (not a config_change_<n> name)", "ERROR 处理 {path} 的变更通知时出错：无法解析 {s}（不是 config_change_<n> 形式的名字）"),
    ("config-change", "ERROR error processing change notification {json} from {path!}: {~message} (swallowed)", "ERROR 处理来自 {path} 的变更通知 {json} 时出错：{~message}（异常被吞掉）"),
    ("config-change", "Version 1 config change notification must have 'entity_type' set to one of {types!}. Received: {json}", "版本 1 的配置变更通知中 'entity_type' 必须是 {types} 之一。收到的是：{json}"),
    ("config-change", "Config change notification has unsupported version '{v!}', supported versions are 1 and 2.", "配置变更通知的版本 '{v}' 不受支持，支持的版本是 1 和 2。"),
    ("config-change", "{path!} has no notifications: nothing to do", "{path} 下没有通知：无事可做"),
    ("config-change", "Processing notification(s) to {path!}: {n!} notifications, lastExecutedChange {l!}, new {list}", "处理 {path} 下的通知：共 {n} 条，lastExecutedChange 为 {l}，新的有 {list}"),
    ("config-change", "WARN Log configuration message.format.version is ignored for `{t}` because `{v}` is not compatible with Kafka inter-broker protocol version `{p}`", "WARN 主题 `{t}` 的日志配置 message.format.version 被忽略：`{v}` 与 Kafka 的 inter.broker.protocol.version `{p}` 不兼容"),
    ("config-change", "WARN retention.ms for topic {t!} is set to {v!}. It is smaller than message.timestamp.difference.max.ms's value {m!}. This may result in frequent log rolling.", "WARN 主题 {t} 的 retention.ms 设为 {v}，小于 message.timestamp.difference.max.ms 的值 {m}，可能导致日志段频繁滚动。"),
    ("config-change", "{t!}: no log of it on this broker; overrides {list} not applied here", "{t}：这个 broker 上没有它的日志；覆盖配置 {list} 不在这里应用"),
    ("config-change", "bootstrap done: {n!} entity configs applied", "启动时加载完毕：应用了 {n} 个实体的配置"),
    ("config-change", "bootstrap: apply every entity's config under /config through its handler", "启动时加载：通过各自的处理器应用 /config 下每个实体的配置"),
    ("config-change", "broker {id!}'s dynamic config is now {list}; replication throttles: leader {~l}, follower {~f}, alter-log-dirs {~a}", "broker {id} 的动态配置现在是 {list}；复制限流：leader {~l}，follower {~f}，alter-log-dirs {~a}"),
    ("config-change", "{entity!} is another broker's: nothing to do here", "{entity} 属于另一个 broker：这里无事可做"),
    ("config-change", "{name!} = {json}: the config of {entity!} changed; read it from {path!}", "{name} = {json}：{entity} 的配置变了，从 {path} 读取"),
    ("config-change", "{name!} done: lastExecutedChange {a!} → {b!}", "{name} 处理完毕：lastExecutedChange {a} → {b}"),
    ("config-change", "{name!} holds {data}, which is not JSON: ignored (as a notification of the old TopicConfigManager)", "{name} 的内容 {data} 不是 JSON：忽略（当作旧版 TopicConfigManager 的通知）"),
    ("config-change", "{t!}: the logs of {list} now run with the broker defaults overlaid by {over}", "{t}：{list} 的日志现在使用 broker 默认配置，再叠加 {over}"),
    ("config-change", "{t!}: unclean.leader.election.enable=true and this broker is the controller: put TopicUncleanLeaderElectionEnable on its event queue", "{t}：unclean.leader.election.enable=true，且本 broker 是 controller：把 TopicUncleanLeaderElectionEnable 放入它的事件队列"),
    ("config-change", "dynamic broker defaults ({d!}) are now {list}", "broker 的动态默认配置（{d}）现在是 {list}"),
    ("config-change", "{key!}: {role!} throttle for {t!} removed on broker {b!}", "{key}：broker {b} 上撤销了 {t} 的 {role} 限流"),
    ("config-change", "{key!}: {role!} throttle on broker {b!} for {t!}, partitions {p}", "{key}：broker {b} 上对 {t} 的 {role} 限流，分区 {p}"),
    ("config-change", "purged [{~items}]: created more than 15 minutes before this run", "已清除 [{~items}]：它们创建于本次运行的 15 分钟以前"),
    ("config-change", "{name!} ({n!} s old)", "{name}（已存在 {n} s）"),
    ("config-change", "{~a}, {~b}", "{~a}，{~b}"),
    ("config-change", "quota overrides of {entity!}: {list}", "{entity} 的配额覆盖：{list}"),
    ("config-change", "watch {path!} for config change notifications; lastExecutedChange starts at {n!}; queue the first run", "对 {path} 设置 watch 以接收配置变更通知；lastExecutedChange 从 {n} 开始；安排第一次运行"),
    // Control requests.
    ("control-request", "ControlledShutdown request from broker {b!}: put ControlledShutdown on the event queue", "收到 broker {b} 的 ControlledShutdown 请求：把 ControlledShutdown 放入事件队列"),
    ("control-request", "attempt {n!}: send ControlledShutdown (broker epoch {e!}) to controller {c!}", "第 {n} 次尝试：向 controller {c} 发送 ControlledShutdown（broker epoch {e}）"),
    ("control-request", "handle {request!} ({~parts}) from controller {c!}: {~result}", "处理来自 controller {c} 的 {request}（{~parts}）：{~result}"),
    ("control-request", "send {request!} ({~parts}) to broker {b!}", "向 broker {b} 发送 {request}（{~parts}）"),
    ("control-request", "{~a}; {~b}", "{~a}；{~b}"),
    ("control-request", "{tp!} leader {l!} epoch {e!} isr {isr}", "{tp} leader {l} epoch {e} ISR {isr}"),
    ("control-request", "{n!} partitions, live brokers {list}", "{n} 个分区，存活 broker {list}"),
    ("control-request", "{tp!} delete", "删除 {tp}"),
    ("control-request", "leader for {a}, follower for {b}, errors {c}", "成为 {a} 的 leader、{b} 的 follower，错误 {c}"),
    ("control-request", "leader for {a}, follower for {b}", "成为 {a} 的 leader、{b} 的 follower"),
    ("control-request", "stopped, errors {e}", "副本已停止，错误 {e}"),
    ("control-request", "metadata cache updated", "元数据缓存已更新"),
    ("control-request", "{~a}, {~b}", "{~a}，{~b}"),
    ("control-request", "{tp!}", "{tp}"),
    // The controller's event thread.
    ("controller-event", "process {event!} (state {state!}) — this broker is not the active controller: nothing to do", "处理 {event}（状态 {state}）—— 本 broker 不是活跃的 controller：无事可做"),
    ("controller-event", "process {event!} (state {state!})", "处理 {event}（状态 {state}）"),
    ("controller-event", "processBrokerChange: {~parts}", "processBrokerChange：{~parts}"),
    ("controller-event", "{~a}, {~b}", "{~a}，{~b}"),
    ("controller-event", "new brokers [{l}]", "新加入的 broker [{l}]"),
    ("controller-event", "dead brokers [{l}]", "下线的 broker [{l}]"),
    ("controller-event", "bounced brokers [{l}]", "重启过的 broker [{l}]"),
    ("controller-event", "no change", "没有变化"),
    // Numbered steps inside controller methods, and the rest of their work.
    ("controller-step", "{method!} step {n!}/{of!}: {~rest}", "{method} 第 {n}/{of} 步：{~rest}"),
    ("controller-step", "{request!} response from broker {b!}: {~r}", "broker {b} 对 {request} 的响应：{~r}"),
    ("controller-step", "{n!} partitions, errors {e}", "{n} 个分区，错误 {e}"),
    ("controller-step", "{n!} new partitions: → NewPartition, replicas → NewReplica, → OnlinePartition (first live replica leads), replicas → OnlineReplica", "{n} 个新分区：→ NewPartition，副本 → NewReplica，→ OnlinePartition（第一个存活的副本当 leader），副本 → OnlineReplica"),
    ("controller-step", "{n!} partitions lost their leader → OfflinePartition, then elect new leaders", "{n} 个分区失去了 leader → OfflinePartition，随后选举新的 leader"),
    ("controller-step", "{a!} replicas online, {b!} offline", "{a} 个副本在线，{b} 个离线"),
    ("controller-step", "/controller names broker {b!}; nothing to resign", "/controller 指向 broker {b}；无需退位"),
    ("controller-step", "/controller names nobody; nothing to resign", "/controller 没有指向任何 broker；无需退位"),
    ("controller-step", "/controller names broker {b!}; this broker was the controller: resign", "/controller 指向 broker {b}；本 broker 原来是 controller：退位"),
    ("controller-step", "/controller names nobody; this broker was the controller: resign", "/controller 没有指向任何 broker；本 broker 原来是 controller：退位"),
    ("controller-step", "UpdateMetadata to every broker {l} with broker {b!}'s new endpoints", "向每个 broker {l} 发送 UpdateMetadata，带上 broker {b} 的新端点"),
    ("controller-step", "{tp!}: {from!} → {to!} (leader {l!}, leader epoch {e!}, ISR {isr})", "{tp}：{from} → {to}（leader {l}，leader epoch {e}，ISR {isr}）"),
    ("controller-step", "{tp!}: {from!} → {to!}", "{tp}：{from} → {to}"),
    ("controller-step", "replica {b!} of {tp!}: {from!} → {to!}", "{tp} 的副本 {b}：{from} → {to}"),
    ("controller-step", "broker {b!} answered {code!} for {l}: those replicas are offline", "broker {b} 对 {l} 回复了 {code}：这些副本已离线"),
    ("controller-step", "broker {b!} is already the controller; stop the election", "broker {b} 已经是 controller；停止选举"),
    ("controller-step", "broker {b!} is shutting down: move leadership of {n!} partitions away ({strategy!}), take {m!} follower replicas offline", "broker {b} 正在关闭：把 {n} 个分区的 leader 迁走（{strategy}），让 {m} 个 follower 副本下线"),
    ("controller-step", "broker {b!} is the controller now, controller epoch {e!} (/controller_epoch zkVersion {v!})", "broker {b} 现在是 controller，controller epoch 为 {e}（/controller_epoch 的 zkVersion 为 {v}）"),
    ("controller-step", "brokers {l} failed: their {n!} replicas go offline", "broker {l} 故障：它们的 {n} 个副本下线"),
    ("controller-step", "{tp!}: no eligible leader among replicas {r} with ISR {isr} ({strategy!}); the partition stays offline", "{tp}：副本 {r}（ISR 为 {isr}）中没有合格的 leader（{strategy}）；分区保持离线"),
    ("controller-step", "{tp!}: remove replica {b!} from the ISR → leader {l!}, ISR {isr}, leader epoch {e!}, zkVersion {v!} (the last ISR member stays in the ISR)", "{tp}：把副本 {b} 移出 ISR → leader {l}，ISR {isr}，leader epoch {e}，zkVersion {v}（ISR 的最后一个成员留在 ISR 中）"),
    ("controller-step", "{tp!}: remove replica {b!} from the ISR → leader {l!}, ISR {isr}, leader epoch {e!}, zkVersion {v!}", "{tp}：把副本 {b} 移出 ISR → leader {l}，ISR {isr}，leader epoch {e}，zkVersion {v}"),
    ("controller-step", "context ready: live brokers {l}, {t!} topics, {p!} partitions", "上下文就绪：存活 broker {l}，{t} 个主题，{p} 个分区"),
    ("controller-step", "deleting topics {l}", "正在删除主题 {l}"),
    ("controller-step", "{t!}: unclean leader election enabled; retry {n!} offline partitions", "{t}：unclean.leader.election.enable 已开启；重试 {n} 个离线分区"),
    ("controller-step", "{tp!}: {strategy!} elects broker {b!} (leader epoch {a!} → {c!}, ISR {isr}, zkVersion {v!}) — UNCLEAN: the new leader was not in the ISR; acknowledged records may be lost", "{tp}：{strategy} 选出 broker {b}（leader epoch {a} → {c}，ISR {isr}，zkVersion {v}）—— UNCLEAN：新 leader 不在 ISR 中，已确认的消息可能丢失"),
    ("controller-step", "{tp!}: {strategy!} elects broker {b!} (leader epoch {a!} → {c!}, ISR {isr}, zkVersion {v!})", "{tp}：{strategy} 选出 broker {b}（leader epoch {a} → {c}，ISR {isr}，zkVersion {v}）"),
    ("controller-step", "imbalance ratios per preferred broker {m} (threshold {t!}); electing preferred leaders for {n!} partitions", "各优先副本所在 broker 的失衡比例 {m}（阈值 {t}）；为 {n} 个分区选举优先副本为 leader"),
    ("controller-step", "initial partition states: {m}", "初始分区状态：{m}"),
    ("controller-step", "new topics {a}, deleted topics {b}: {n!} new partitions", "新主题 {a}，已删除主题 {b}：{n} 个新分区"),
    ("controller-step", "forget offline log dirs recorded for {l}", "清除为 {l} 记录的离线日志目录"),
    ("controller-step", "UpdateMetadata to the existing brokers {l} so they learn of the new ones", "向已有的 broker {l} 发送 UpdateMetadata，让它们知道新来的 broker"),
    ("controller-step", "UpdateMetadata with all {n!} partition states to the new brokers", "向新 broker 发送含全部 {n} 个分区状态的 UpdateMetadata"),
    ("controller-step", "their {n!} replicas → OnlineReplica (LeaderAndIsr to them), then elect leaders for New and Offline partitions", "它们的 {n} 个副本 → OnlineReplica（向它们发送 LeaderAndIsr），再为处于 NewPartition 和 OfflinePartition 状态的分区选举 leader"),
    ("controller-step", "resume reassignments whose target replicas include a new broker", "恢复目标副本中包含新 broker 的分区重分配"),
    ("controller-step", "resume deletion of queued topics with replicas on them: {l}", "恢复在这些 broker 上有副本的待删除主题的删除：{l}"),
    ("controller-step", "register a BrokerModificationsHandler on /brokers/ids/<id> for {l}", "为 {l} 在 /brokers/ids/<id> 上注册 BrokerModificationsHandler"),
    ("controller-step", "register the child change handlers for /brokers/ids, /brokers/topics, /admin/delete_topics, /log_dir_event_notification and /isr_change_notification", "为 /brokers/ids、/brokers/topics、/admin/delete_topics、/log_dir_event_notification 和 /isr_change_notification 注册子节点变更处理器"),
    ("controller-step", "register and check /admin/preferred_replica_election and /admin/reassign_partitions", "注册并检查 /admin/preferred_replica_election 和 /admin/reassign_partitions"),
    ("controller-step", "delete stale log-dir event and ISR change notifications", "删除过时的日志目录事件通知和 ISR 变更通知"),
    ("controller-step", "initializeControllerContext: read brokers, topics, assignments and partition states", "initializeControllerContext：读取 broker、主题、副本分配和分区状态"),
    ("controller-step", "fetchTopicDeletionsInProgress and initialise the TopicDeletionManager", "fetchTopicDeletionsInProgress，并初始化 TopicDeletionManager"),
    ("controller-step", "sendUpdateMetadataRequest to every live broker (the live-broker list, no partitions)", "sendUpdateMetadataRequest 发往每个存活的 broker（只有存活 broker 列表，不含分区）"),
    ("controller-step", "replicaStateMachine.startup, then partitionStateMachine.startup", "先 replicaStateMachine.startup，再 partitionStateMachine.startup"),
    ("controller-step", "kafkaScheduler.startup (auto.leader.rebalance.enable=false: no rebalance task); the failover's ZooKeeper round trips took {ms!} ms", "kafkaScheduler.startup（auto.leader.rebalance.enable=false：没有再平衡任务）；这次故障转移的 ZooKeeper 往返共耗时 {ms} ms"),
    ("controller-step", "kafkaScheduler.startup: auto-leader-rebalance-task first runs in {s!} s; the failover's ZooKeeper round trips took {ms!} ms", "kafkaScheduler.startup：auto-leader-rebalance-task 将在 {s} s 后首次运行；这次故障转移的 ZooKeeper 往返共耗时 {ms} ms"),
    ("controller-step", "read the registered brokers and their epochs from /brokers/ids", "从 /brokers/ids 读取已注册的 broker 及其 epoch"),
    ("controller-step", "the controller's live-or-shutting-down brokers: {s}", "controller 记录的存活或正在关闭的 broker：{s}"),
    ("controller-step", "compare with the registered brokers: {~parts}", "与已注册的 broker 对比：{~parts}"),
    ("controller-step", "add a channel (RequestSendThread) for each new broker {s}", "为每个新 broker {s} 添加通道（RequestSendThread）"),
    ("controller-step", "remove and re-add the channel of each bounced broker {s}", "移除并重新添加每个重启过的 broker {s} 的通道"),
    ("controller-step", "remove the channel of each dead broker {s}", "移除每个下线 broker {s} 的通道"),
    ("controller-step", "new brokers {s}: add them to the context, onBrokerStartup", "新 broker {s}：加入上下文，onBrokerStartup"),
    ("controller-step", "bounced brokers {s}: onBrokerFailure then onBrokerStartup with the new epoch", "重启过的 broker {s}：先 onBrokerFailure，再以新的 epoch 执行 onBrokerStartup"),
    ("controller-step", "dead brokers {s}: remove them from the context, onBrokerFailure", "下线的 broker {s}：从上下文中移除，onBrokerFailure"),
    ("controller-step", "read {path!}", "读取 {path}"),
    ("controller-step", "the cached registration of broker {b!}", "缓存中 broker {b} 的注册信息"),
    ("controller-step", "endpoints changed {a} → {b}: update the context, onBrokerUpdate", "端点由 {a} 变为 {b}：更新上下文，onBrokerUpdate"),
    ("controller-step", "{n!} notifications name partitions {l}: re-read their state znodes", "{n} 条通知涉及分区 {l}：重新读取它们的分区状态 znode"),
    ("controller-step", "UpdateMetadata for them to every broker {l}", "把它们的 UpdateMetadata 发给每个 broker {l}"),
    ("controller-step", "delete the {n!} processed notifications", "删除已处理的 {n} 条通知"),
    ("controller-step", "brokers {s} reported a failed log dir: onBrokerLogDirFailure sends LeaderAndIsr for their {n!} replicas", "broker {s} 报告日志目录故障：onBrokerLogDirFailure 为它们的 {n} 个副本发送 LeaderAndIsr"),
    ("controller-step", "reassignments requested: {~items}", "请求的分区重分配：{~items}"),
    ("controller-step", "{tp!} → {l}", "{tp} → {l}"),
    ("controller-step", "registered again at {path!} with broker epoch {e!} (the new czxid)", "重新注册为 {path}，broker epoch 为 {e}（新的 czxid）"),
    ("controller-step", "replicas on dead brokers {s}: topics {l} are ineligible for deletion until they return", "下线的 broker {s} 上有副本：主题 {l} 在它们回来之前不能删除"),
    ("controller-step", "reply to broker {b!}: {n!} partitions still led by it", "回复 broker {b}：还有 {n} 个分区由它担任 leader"),
    ("controller-step", "resigned as controller (was epoch {e!}): handlers unregistered, scheduler and state machines stopped, channels closed, context reset", "已卸任 controller（原 epoch {e}）：注销处理器，停止调度器和状态机，关闭通道，重置上下文"),
    ("controller-step", "session expired; this broker was not the controller", "session 已过期；本 broker 不是 controller"),
    ("controller-step", "{tp!}: A1 bump the leader epoch and send LeaderAndIsr to {r} (adding {a}, removing {b}); A2 adding replicas → NewReplica", "{tp}：A1 增加 leader epoch，向 {r} 发送 LeaderAndIsr（新增 {a}，移除 {b}）；A2 新增的副本 → NewReplica"),
    ("controller-step", "{tp!}: every target replica {l} is in the ISR — complete the reassignment (B1-B8)", "{tp}：目标副本 {l} 都已在 ISR 中 —— 完成重分配（B1-B8）"),
    ("controller-step", "topic {t!} deleted: its znodes are gone", "主题 {t} 已删除：它的 znode 都不在了"),
    ("controller-step", "topics marked for deletion: {l}", "标记为待删除的主题：{l}"),
    ("controller-step", "topics queued for deletion {a}, ineligible {b}", "排队待删除的主题 {a}，暂不能删除的 {b}"),
    ("controller-step", "preferred election: {a!} to elect, {b!} already led by their preferred replica (ELECTION_NOT_NEEDED), {c!} unknown, {d!} being deleted", "优先副本选举：{a} 个待选举，{b} 个已由优先副本担任 leader（ELECTION_NOT_NEEDED），{c} 个未知，{d} 个正在删除"),
    ("controller-step", "{~a}, {~b}", "{~a}，{~b}"),
    ("controller-step", "initializePartitionReassignments", "initializePartitionReassignments"),
    ("controller-step", "topicDeletionManager.tryTopicDeletion", "topicDeletionManager.tryTopicDeletion"),
    ("controller-step", "fetchPendingPreferredReplicaElections", "fetchPendingPreferredReplicaElections"),
    // A leader's ISR changes.
    ("isr-change", "{tp!}: ISR {a} → {b} written to {path!} (zkVersion {v!}, leader epoch unchanged at {e!})", "{tp}：ISR {a} → {b}，已写入 {path}（zkVersion {v}，leader epoch 保持 {e} 不变）"),
    // Log directories.
    ("log-dir", "Halting broker because dir {d!} is offline (inter.broker.protocol.version {v!} < 1.0)", "目录 {d} 已离线，终止 broker（inter.broker.protocol.version {v} < 1.0）"),
    ("log-dir", "IOException in {d!}: the dir goes on the offline queue", "{d} 发生 IOException：该目录进入离线队列"),
    ("log-dir", "{d!} is offline: stop fetching and serving {l}, stop checkpointing the dir", "{d} 已离线：停止拉取和服务 {l}，不再为该目录写检查点"),
    ("log-dir", "no log dir is left online: halting the broker", "没有在线的日志目录了：终止 broker"),
    ("log-dir", "told the controller through {path!}", "已通过 {path} 通知 controller"),
    // Producing and fetching.
    ("produce", "{tp!}: appended {n!} records as leader: LEO {a!} → {b!}, HW {h!}", "{tp}：作为 leader 追加了 {n} 条消息：LEO {a} → {b}，HW {h}"),
    ("produce", "produce {n!} records to {tp!}: {~failure}", "向 {tp} 生产 {n} 条消息：{~failure}"),
    ("produce", "leader broker {b!} does not answer (paused): the produce request times out", "leader broker {b} 没有响应（已暂停）：生产请求超时"),
    ("produce", "no live broker leads it (NOT_LEADER_OR_FOLLOWER): the produce fails", "没有存活的 broker 担任它的 leader（NOT_LEADER_OR_FOLLOWER）：生产失败"),
    ("replica-fetch", "{tp!}: fetched from leader {l!}: LEO {a!} → {b!}", "{tp}：从 leader {l} 拉取：LEO {a} → {b}"),
    ("replica-fetch", "resume fetching every partition", "恢复拉取所有分区"),
    ("replica-fetch", "stop fetching every partition", "停止拉取所有分区"),
    ("replica-fetch", "resume fetching {tp}", "恢复拉取 {tp}"),
    ("replica-fetch", "stop fetching {tp}", "停止拉取 {tp}"),
    // The brokers' scheduled tasks.
    ("scheduled-task", "highwatermark-checkpoint: wrote replication-offset-checkpoint in {files}", "highwatermark-checkpoint：写入 replication-offset-checkpoint：{files}"),
    ("scheduled-task", "isr-change-propagation: {l} changed {a!} ms ago (not yet {q!} ms quiet) and the last publication was {b!} ms ago (< {m!} ms): wait", "isr-change-propagation：{l} 在 {a} ms 前变化（还没有安静满 {q} ms），上次发布在 {b} ms 前（< {m} ms）：等待"),
    ("scheduled-task", "isr-change-propagation: publish {l} as {path!} ({a!} ms since the last change, {b!} ms since the last publication)", "isr-change-propagation：把 {l} 发布为 {path}（距上次变化 {a} ms，距上次发布 {b} ms）"),
    ("scheduled-task", "isr-expiration: all {n!} led partitions are in sync (a follower is out of sync when its LEO differs and it has not caught up for {ms!} ms)", "isr-expiration：作为 leader 的 {n} 个分区都处于同步状态（follower 的 LEO 与 leader 不同、且 {ms} ms 内没有追上，才算不同步）"),
    ("scheduled-task", "isr-expiration: out-of-sync followers {l}", "isr-expiration：不同步的 follower：{l}"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::prose;
    use kzsim::sandbox::Sandbox;
    use std::path::Path;

    /// Learner actions of every kind the console and the broker cards offer,
    /// as one script.
    const CONSOLE: &str = "seed 3\nbroker-config zookeeper.session.timeout.ms=6000\ncluster brokers=3\nstart all\n\
        topic create orders partitions=2 replication-factor=3\nrun 2s\nproduce orders-0 messages=5\npause broker 2\nrun 1s\n\
        produce orders-1 messages=3\nresume broker 2\npause-fetch broker 1 orders-0\nrun 1s\nresume-fetch broker 1\nkill broker 0\nrun 8s\n\
        produce orders-0 messages=2\nstart broker 0\nrun 3s\nexpire-session broker 1\nrun 3s\nzk-session me\nzk me create /x hello\n\
        zk me create -e /x/e 1\nzk me create -s /x/s- 1\nzk me set /x world\nzk me get -w /x\nzk me ls -w /\nzk me stat /x\nzk me delete /x\n\
        zk me delete /x/e\nzk me set /x again\nconfig alter topics orders set retention.ms=1000\nconfig alter brokers 1 set log.retention.ms=5000\n\
        run 2s\nfail-log-dir broker 1 dir 0\nrun 2s\nshutdown broker 2\nrun 5s\nstart broker 2\nrun 3s\nreassign orders-0 replicas=1,2\nrun 3s\n\
        elect-preferred\nrun 3s\ntopic delete orders\nrun 5s\nzk me close\n";

    /// More: a paused leader, a killed broker's partitions, a topic deleted
    /// while a replica is down, preferred election, reassignment, console
    /// errors, a controlled shutdown, quotas and a failed log dir.
    const MORE: &str = "seed 11\nbroker-config zookeeper.session.timeout.ms=6000\nbroker-config auto.leader.rebalance.enable=true\n\
        broker-config leader.imbalance.check.interval.seconds=5\ncluster brokers=3\nstart all\n\
        topic create t assignment=0:0,1,2;1:1,2,0;2:2,0,1\ntopic create u partitions=2 replication-factor=2\nrun 2s\n\
        produce t-0 messages=10\nrun 1s\npause broker 0\nrun 8s\nproduce t-0 messages=1\nresume broker 0\nrun 5s\n\
        kill broker 2\nrun 8s\nproduce t-2 messages=1\ntopic delete u\nrun 3s\nstart broker 2\nrun 10s\n\
        elect-preferred t-0\nrun 3s\nreassign t-1 replicas=0,1\nrun 5s\nexpire-session broker 1\nrun 5s\n\
        zk-session me timeout=100\nzk me create /a x\nzk me create /a/b y\nzk me delete /a\nzk me get /nope\n\
        zk me ls /nope\nzk me stat /nope\nzk me set /a z -v 7\nzk me create -e /eph 1\nzk me create /eph/child 1\n\
        zk me get -w /a\nzk me stat -w /a\nzk me set /a zz\nzk me delete /a/b\nzk me delete /a\nrun 1s\n\
        shutdown broker 0\nrun 10s\nconfig alter topics t set retention.ms=1000\n\
        config alter clients app set producer_byte_rate=1024\nconfig alter users bob set consumer_byte_rate=2048\n\
        run 5s\nfail-log-dir broker 1 dir 0\nrun 5s\n";

    fn scenarios() -> Vec<(String, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut out = vec![("console".to_string(), CONSOLE.to_string()), ("more".to_string(), MORE.to_string())];
        let mut dirs = vec![root.join("static/scenarios"), root.join("tests/scenarios")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "kzs") {
                    out.push((path.display().to_string(), std::fs::read_to_string(&path).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn every_summary_of_every_scenario_has_a_chinese_rendering() {
        let mut seen = std::collections::BTreeSet::new();
        let mut missing = Vec::new();
        let mut prosy = Vec::new();
        for (name, text) in scenarios() {
            let mut sandbox = Sandbox::load(&text).unwrap_or_else(|e| panic!("{name}: {}", e.render(&name)));
            while sandbox.step_forward() {}
            for e in sandbox.trace() {
                if !seen.insert((e.kind.clone(), e.summary.clone())) {
                    continue;
                }
                match zh(&e.kind, &e.summary) {
                    None => missing.push(format!("{name}: [{}] {}", e.kind, e.summary)),
                    Some(pieces) => {
                        for piece in &pieces {
                            let bad = match piece {
                                Piece::Text(t) => prose::english_words(t),
                                Piece::Verbatim(v) => prose::english_phrases(v),
                            };
                            if !bad.is_empty() {
                                prosy.push(format!("[{}] {} → {:?}: {bad:?}", e.kind, e.summary, zh_text(&e.kind, &e.summary)));
                            }
                        }
                    }
                }
            }
        }
        assert!(seen.len() > 500, "{} summaries", seen.len());
        missing.sort();
        missing.dedup();
        assert!(missing.is_empty(), "{} summaries without a Chinese rendering:\n{}", missing.len(), missing.join("\n"));
        assert!(prosy.is_empty(), "English prose left in the Chinese:\n{}", prosy.join("\n"));
    }

    /// For reviewing the Chinese: prints every distinct summary of one
    /// scenario (`KZ_SCENARIO=static/scenarios/NAME.kzs`, default the
    /// console script) with its rendering.
    /// `KZ_SCENARIO=... cargo test -p kzsim-web print_chinese -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn print_chinese() {
        let text = match std::env::var("KZ_SCENARIO") {
            Ok(path) => std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)).unwrap(),
            Err(_) => CONSOLE.to_string(),
        };
        let mut sandbox = Sandbox::load(&text).unwrap();
        while sandbox.step_forward() {}
        let mut seen = std::collections::BTreeSet::new();
        for e in sandbox.trace() {
            if seen.insert(e.summary.clone()) {
                println!("{}\n    {}", e.summary, zh_text(&e.kind, &e.summary).unwrap_or_else(|| "(none)".into()));
            }
        }
    }

    #[test]
    fn holes_carry_identifiers_verbatim() {
        let got = zh("broker", "registered at /brokers/ids/1: broker epoch 25 (the znode's czxid)").unwrap();
        assert_eq!(
            got,
            [
                Piece::Text("已注册为 ".into()),
                Piece::Verbatim("/brokers/ids/1".into()),
                Piece::Text("：broker epoch 为 ".into()),
                Piece::Verbatim("25".into()),
                Piece::Text("（即这个 znode 的 czxid）".into()),
            ]
        );
        assert_eq!(
            zh_text("control-request", "send LeaderAndIsr (t-0 leader 2 epoch 0 isr [2, 1]; t-1 leader 1 epoch 0 isr [1, 2]) to broker 2")
                .unwrap(),
            "向 broker 2 发送 LeaderAndIsr（t-0 leader 2 epoch 0 ISR [2, 1]；t-1 leader 1 epoch 0 ISR [1, 2]）"
        );
        assert_eq!(
            zh_text("zk-request", "get /controller (watch) → NoNode").unwrap(),
            "get /controller（并设置 watch）→ NoNode（节点不存在）"
        );
        assert_eq!(zh("broker", "something the table does not know"), None);
    }
}
