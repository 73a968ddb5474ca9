//! The interface language (`&lang=en` / `&lang=zh`): the table of the page's
//! own words ([`Lang::t`]), a few phrases with numbers in them, and (in
//! [`summaries`]) Chinese renderings of the simulator's step summaries, which
//! the core writes in English as part of its `--trace` contract.
//!
//! Chinese follows the seed articles' usage: Kafka's own terms (broker,
//! controller, leader, follower, ISR, epoch, znode, session, watch) stay in
//! Latin letters, as Chinese writing on Kafka keeps them; everything else is
//! translated. Identifiers (paths, method names, config keys, state names)
//! are carried over verbatim and marked `translate="no"` on the page.

pub mod summaries;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    pub fn from_code(code: &str) -> Option<Lang> {
        match code.to_ascii_lowercase().as_str() {
            "en" => Some(Lang::En),
            "zh" | "zh-cn" | "zh-hans" => Some(Lang::Zh),
            _ => None,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// The interface word for `en` in this language (English when the
    /// table has no entry).
    pub fn t(self, en: &'static str) -> &'static str {
        match self {
            Lang::En => en,
            Lang::Zh => TABLE.iter().find(|(e, _)| *e == en).map(|(_, z)| *z).unwrap_or(en),
        }
    }

    /// [`Lang::t`] for words that are not `'static` (a trace kind, a
    /// broker state): the table's word, or the word itself.
    pub fn word(self, en: &str) -> &str {
        match self {
            Lang::En => en,
            Lang::Zh => TABLE.iter().find(|(e, _)| *e == en).map(|(_, z)| *z).unwrap_or(en),
        }
    }

    /// A phrase with values in it: the table's pattern for `en`, its `{}`
    /// filled in order, or `{0}`, `{1}` by position (Chinese word order
    /// often differs).
    pub fn f(self, en: &'static str, args: &[&dyn std::fmt::Display]) -> String {
        let pattern = self.t(en);
        let mut out = String::new();
        let mut next = 0;
        let mut rest = pattern;
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}').map(|c| open + c) else { break };
            out.push_str(&rest[..open]);
            let index = match &rest[open + 1..close] {
                "" => {
                    next += 1;
                    next - 1
                }
                n => n.parse().unwrap_or(usize::MAX),
            };
            match args.get(index) {
                Some(arg) => out.push_str(&arg.to_string()),
                None => out.push_str(&rest[open..=close]),
            }
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        out
    }

    /// The language the browser prefers when the address names none:
    /// Chinese for the first of `navigator.languages` that is `zh*`, unless
    /// an English one comes before it; English otherwise.
    pub fn from_browser(languages: &[String]) -> Lang {
        for code in languages {
            let code = code.to_ascii_lowercase();
            if code.starts_with("zh") {
                return Lang::Zh;
            }
            if code.starts_with("en") {
                return Lang::En;
            }
        }
        Lang::En
    }

    /// [`Lang::from_browser`] for this page's browser (English natively).
    pub fn preferred() -> Lang {
        // Natively (`cargo test`) there is no browser to ask.
        #[cfg(not(target_arch = "wasm32"))]
        let languages: Vec<String> = Vec::new();
        #[cfg(target_arch = "wasm32")]
        let languages: Vec<String> =
            web_sys::window().map(|w| w.navigator().languages().iter().filter_map(|v| v.as_string()).collect()).unwrap_or_default();
        Lang::from_browser(&languages)
    }

    /// Sets `<html lang>`, so that screen readers, fonts and translation
    /// tools know the page's language.
    pub fn apply_to_document(self) {
        #[cfg(target_arch = "wasm32")]
        if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
            let _ = root.set_attribute("lang", if self == Lang::Zh { "zh-CN" } else { "en" });
        }
    }

    /// A step summary as the page shows it: English as the core wrote it;
    /// in Chinese its rendering (identifiers marked `translate="no"`),
    /// with the English original on hover, or the English as is when no
    /// template knows it.
    pub fn summary(self, kind: &str, en: &str) -> yew::Html {
        use yew::html;
        let pieces = match self {
            Lang::Zh => summaries::zh(kind, en),
            Lang::En => None,
        };
        match pieces {
            None => html! { { en.to_string() } },
            Some(pieces) => html! {
                <span class="kz-tr" translate="no" lang="zh-CN" title={en.to_string()}>
                    { for pieces.into_iter().map(|p| match p {
                        summaries::Piece::Text(t) => html! { <span translate="yes">{ t }</span> },
                        summaries::Piece::Verbatim(v) => html! { { v } },
                    }) }
                </span>
            },
        }
    }

    /// A summary as plain text (for an `aria-label`).
    pub fn summary_text(self, kind: &str, en: &str) -> String {
        match self {
            Lang::Zh => summaries::zh_text(kind, en).unwrap_or_else(|| en.to_string()),
            Lang::En => en.to_string(),
        }
    }

    /// A message of the scenario parser (`column 7: ...`, as the core
    /// writes it): the frame in the page's language, the core's own words
    /// kept English and marked so.
    pub fn error_frame(self, text: &str) -> yew::Html {
        use yew::html;
        let located = text.strip_prefix("column ").and_then(|rest| rest.split_once(": ")).filter(|(n, _)| n.parse::<u32>().is_ok());
        match located {
            Some((col, message)) if self == Lang::Zh => html! {
                <>{ format!("第 {col} 列：") }<span lang="en" translate="no">{ message.to_string() }</span></>
            },
            _ => html! { <span lang="en" translate="no">{ text.to_string() }</span> },
        }
    }

    /// A method's own step numbering: "step 3 of 11" / "第3步（共11步）".
    pub fn step_of(self, n: u64, of: u64) -> String {
        match self {
            Lang::En => format!("step {n} of {of}"),
            Lang::Zh => format!("第{n}步（共{of}步）"),
        }
    }

    /// "step 3" / "第3步".
    pub fn step_n(self, n: u64) -> String {
        match self {
            Lang::En => format!("step {n}"),
            Lang::Zh => format!("第{n}步"),
        }
    }
}

const TABLE: &[(&str, &str)] = &[
    ("Watch Kafka's ZooKeeper-era control plane work, one step at a time.", "一步一步观察 Kafka 在 ZooKeeper 时代的控制平面如何工作。"),
    ("Scenario", "场景"),
    ("Step forward", "前进一步"),
    ("Step back", "后退一步"),
    ("Play", "播放"),
    ("Pause", "暂停"),
    ("Reset to step 0", "回到第0步"),
    ("Run to the end", "运行到结尾"),
    ("Timeline", "时间线"),
    ("Step", "步骤"),
    ("Virtual time", "虚拟时间"),
    ("Speed", "速度"),
    ("Keyboard shortcuts", "键盘快捷键"),
    ("Close", "关闭"),
    ("ZooKeeper", "ZooKeeper"),
    ("Brokers", "Broker"),
    ("Partitions", "分区"),
    ("What each actor believes", "各方眼中的状态"),
    ("Event log", "事件日志"),
    ("This step", "当前步骤"),
    ("Sequence diagram", "时序图"),
    ("Actions", "操作"),
    ("Scenario editor", "场景编辑器"),
    ("Load", "加载"),
    ("Send", "发送"),
    ("Checkpoints", "检查点"),
    ("running", "运行中"),
    ("paused", "已暂停"),
    ("stopped", "已停止"),
    ("shutting-down", "正在关闭"),
    ("controller", "controller"),
    ("zombie controller", "僵尸 controller"),
    ("broker epoch", "broker epoch"),
    ("session", "session"),
    ("expires in", "过期倒计时"),
    ("log dirs", "日志目录"),
    ("controller queue", "controller 事件队列"),
    ("kill", "杀死"),
    ("shutdown", "优雅关闭"),
    ("start", "启动"),
    ("pause", "暂停"),
    ("resume", "恢复"),
    ("expire session", "让 session 过期"),
    ("fail log dir", "日志目录故障"),
    ("pause fetch", "暂停拉取"),
    ("resume fetch", "恢复拉取"),
    ("leader", "leader"),
    ("replicas", "副本"),
    ("leader epoch", "leader epoch"),
    ("No partitions yet.", "还没有分区。"),
    ("No brokers: this scenario is a bare ZooKeeper.", "没有 broker：这个场景只有 ZooKeeper。"),
    ("Select a znode to see its data and stat.", "选择一个 znode 查看数据和 stat。"),
    ("data", "数据"),
    ("Before the first step.", "第一步之前。"),
    ("all actors", "所有角色"),
    ("all kinds", "所有类型"),
    ("Filter by actor", "按角色筛选"),
    ("Filter by kind", "按类型筛选"),
    ("end of the script", "脚本结束"),
    ("Apply a built-in scenario", "选择内置场景"),
    ("Type a scenario action, e.g. kill broker 1", "输入一个场景操作，例如 kill broker 1"),
    ("ZooKeeper's truth", "ZooKeeper 中的事实"),
    ("controller's cache", "controller 的缓存"),
    ("metadata cache", "元数据缓存"),
    ("live brokers", "存活的 broker"),
    ("differs from ZooKeeper", "与 ZooKeeper 不一致"),
    ("The last ZooKeeper requests, watch notifications and control requests.", "最近的 ZooKeeper 请求、watch 通知和控制请求。"),
    ("Nothing sent yet.", "还没有消息。"),
    ("Templates", "模板"),
    // The header, the footer and the language switch.
    ("Language", "语言"),
    ("Kafka 2.8.2 on ZooKeeper 3.8, simulated step by step in your browser.", "运行在 ZooKeeper 3.8 之上的 Kafka 2.8.2，在你的浏览器里一步一步模拟。"),
    ("virtual time", "虚拟时间"),
    ("Error", "出错"),
    ("your action", "你的操作"),
    // Playback and the help overlay.
    ("Playback", "播放控制"),
    ("Space", "空格键"),
    ("the script has ended; an action here plays the cluster on for 60 s", "脚本已结束；此时的操作会让集群再运行 60 s"),
    ("Keys work when the focus is not in a text field. Stepping back and then acting (a broker's buttons, the console) branches a new future from that step.", "焦点不在输入框里时快捷键才起作用。后退几步再操作（broker 卡片上的按钮或控制台），会从那一步分出一个新的未来。"),
    (" Press → to take the first step, Space to play.", "按 → 走第一步，按空格键播放。"),
    // Brokers.
    ("declared by the script; not started yet", "脚本已声明，尚未启动"),
    ("zombie", "僵尸"),
    ("listener", "监听地址"),
    ("online", "在线"),
    ("offline", "离线"),
    ("fetching", "拉取"),
    ("idle", "空闲"),
    ("actions on broker {}", "broker {} 的操作"),
    ("{} broker {}", "{} broker {}"),
    ("{} {} on broker {}", "broker {2} 的{0} {1}"),
    ("broker {} ({})", "broker {}（{}）"),
    // Partitions and beliefs.
    ("the controller's partition state machine", "controller 的分区状态机"),
    ("in sync", "已同步"),
    ("assigned replica", "分配的副本"),
    ("none (-1)", "无 (-1)"),
    ("replica", "副本"),
    ("role", "角色"),
    ("state", "状态"),
    ("follower", "follower"),
    ("unknown", "未知"),
    ("registered", "已注册"),
    ("live", "存活"),
    ("epoch", "epoch"),
    // This step, checkpoints, the event log.
    ("passed", "通过"),
    ("failed", "失败"),
    ("pending", "未检查"),
    ("go to step {}", "跳到第 {} 步"),
    ("go to step {}: {}", "跳到第 {} 步：{}"),
    ("actual", "实际"),
    ("zk-request", "ZooKeeper 请求"),
    ("zk-result", "控制台结果"),
    ("zk-session", "ZooKeeper session"),
    ("watch-event", "watch 通知"),
    ("controller-event", "controller 事件"),
    ("controller-step", "controller 步骤"),
    ("control-request", "控制请求"),
    ("broker", "broker"),
    ("session-expired", "session 过期"),
    ("scheduled-task", "定时任务"),
    ("replica-fetch", "副本拉取"),
    ("isr-change", "ISR 变更"),
    ("produce", "生产"),
    ("action", "操作"),
    ("admin", "管理工具"),
    ("config-change", "配置变更"),
    ("log-dir", "日志目录"),
    // The ZooKeeper tree.
    ("ephemeral", "临时"),
    ("sequential", "顺序"),
    ("watch", "watch"),
    ("znode tree", "znode 树"),
    ("Expand {}", "展开 {}"),
    ("Collapse {}", "折叠 {}"),
    ("ephemeral, owned by {}", "临时节点，属于 {}"),
    ("{} watch by {}", "{1} 设置的{0} watch"),
    ("deleted this step", "这一步被删除"),
    ("{} does not exist at this step.", "{} 在这一步不存在。"),
    ("(empty)", "（空）"),
    ("watches", "watch"),
    (" {} watch", "：{} watch"),
    ("exists", "存在"),
    ("child", "子节点"),
    ("sessions ({})", "session（{} 个）"),
    ("owner", "所有者"),
    ("ephemeral znodes", "临时 znode"),
    ("{} of {}", "{}（共 {}）"),
    // The sequence diagram.
    ("session {}", "session {}"),
    // The console, the forms and the editor.
    ("any scenario action or zk line, taken now: it is the next step", "任何场景操作或 zk 命令，立即执行：它就是下一步"),
    ("scenario action", "场景操作"),
    ("The script has ended: an action here lets the cluster play on for another 60 s of virtual time, long enough to watch it react (a kill leads to a session expiry and a new controller).", "脚本已经结束：此时的操作会让集群在虚拟时间里再运行 60 s，足够看清它的反应（杀死一个 broker 会导致 session 过期，并选出新的 controller）。"),
    ("template: {}", "模板：{}"),
    ("actions taken", "已执行的操作"),
    ("admin actions", "管理操作"),
    ("create topic", "创建主题"),
    ("delete topic", "删除主题"),
    ("alter config", "修改配置"),
    ("reassign", "分区重分配"),
    ("elect preferred", "选举优先副本"),
    ("zk session", "zk session"),
    ("zk create", "zk 创建"),
    ("zk get -w", "zk get -w"),
    ("zk ls -w", "zk ls -w"),
    ("name", "名称"),
    ("partitions", "分区数"),
    ("replication-factor", "副本因子"),
    ("partition", "分区"),
    ("messages", "消息数"),
    ("entity type", "实体类型"),
    ("entity name", "实体名称"),
    ("set KEY=VALUE", "设置 KEY=VALUE"),
    ("partitions (blank: all)", "分区（留空表示全部）"),
    ("column {}: {}", "第 {} 列：{}"),
    ("(your own)", "（你自己的）"),
    ("the scenario language; Load plays it and puts it in the address (#kzs=…)", "场景语言；点“加载”运行它，并把它写进地址（#kzs=…）"),
    ("scenario text", "场景文本"),
    ("line {}: ", "第 {} 行："),
    ("Your unsaved edit of this scenario was restored from this browser.", "已从这个浏览器恢复你对这个场景未保存的修改。"),
    ("Discard it", "丢弃"),
    // Sharing, saving and embeds.
    ("Drop a .kzs scenario or a downloaded trace to open it", "把 .kzs 场景或下载的步骤记录拖到这里打开"),
    ("Open in the full sandbox ↗", "在完整的沙盒中打开 ↗"),
    ("Download sequence diagram (SVG)", "下载时序图（SVG）"),
    ("Download trace (JSON)", "下载步骤记录（JSON）"),
    ("Drop a .kzs scenario or a downloaded trace anywhere on the page to open it.", "把 .kzs 场景或下载的步骤记录拖到页面任意位置即可打开。"),
    ("Embed in a page", "嵌入网页"),
    ("Link to this step", "这一步的链接"),
    ("Open a file…", "打开文件…"),
    ("Save and share", "保存与分享"),
    ("The steps so far as JSON lines (the --trace schema); opening the file again returns here.", "到目前为止的步骤，每行一个 JSON（即 --trace 的格式）；再次打开这个文件会回到这里。"),
    // Guided tours.
    ("Guided tour", "导览"),
    ("The guided tour could not be loaded", "导览无法加载"),
    ("Start the tour", "开始导览"),
    ("Exit tour", "退出导览"),
    ("Back to the tour", "回到导览"),
    ("Kafka method", "Kafka 方法"),
    ("Next", "下一段"),
    ("Previous", "上一段"),
    ("Predict, then step", "先预测，再单步"),
    ("You predicted:", "你的预测："),
    ("The answer:", "答案："),
    ("Right.", "答对了。"),
    ("Not quite.", "不太对。"),
    ("Start again", "重新开始"),
    ("Stepping to the next beat…", "正在前进到下一段……"),
    ("The end", "结束"),
    ("That is the end of the tour. Keep exploring: step, play, or take actions of your own.", "导览到此结束。继续探索吧：单步、播放，或者自己动手操作。"),
    ("You have left the narrated path: you took an action of your own, or moved the timeline away from this beat.", "你离开了导览的路线：你自己做了操作，或者把时间线移离了这一段。"),
    // Big clusters: drawn in pages (issue 9).
    ("Find a partition", "查找分区"),
    ("Stop running to the end", "停止运行到结尾"),
    ("running to the end: line {} of {}", "正在运行到结尾：第 {} 行，共 {} 行"),
    ("going to step {}, which the address asks for: step {} so far", "正在前往地址所指的第 {} 步：目前在第 {} 步"),
    ("{} more children of {}: show them all", "{1} 下还有 {0} 个子节点：全部显示"),
    ("Show more", "显示更多"),
    ("Showing {} of {} partitions ({} in all).", "显示 {} 个分区（匹配 {} 个，共 {} 个）。"),
    ("{} other brokers' metadata caches agree with ZooKeeper.", "其余 {} 个 broker 的元数据缓存与 ZooKeeper 一致。"),
    ("{} more brokers' metadata caches disagree with ZooKeeper too.", "另有 {} 个 broker 的元数据缓存也与 ZooKeeper 不一致。"),
    ("{} more partitions are not drawn (those where an actor disagrees with ZooKeeper come first).", "另有 {} 个分区未画出（有参与者与 ZooKeeper 不一致的分区排在前面）。"),
];

/// Text whose identifiers stand between marks (`⟨...⟩` in the Chinese
/// explanations and summary templates, backticks in tours), in pieces:
/// (is an identifier, text), the marks gone, empty pieces skipped.
pub fn marked<'a>(text: &'a str, marks: &'a [char]) -> impl Iterator<Item = (bool, &'a str)> {
    text.split(marks).enumerate().filter(|(_, part)| !part.is_empty()).map(|(i, part)| (i % 2 == 1, part))
}

/// Text with identifiers marked `⟨...⟩` (the Chinese explanations name
/// Kafka's events this way): the identifiers become `translate="no"` spans,
/// the marks disappear. Text without marks is returned as is.
pub fn rich(text: &str) -> yew::Html {
    use yew::html;
    if !text.contains('⟨') {
        return html! { { text.to_string() } };
    }
    html! {
        <>
            { for marked(text, &['⟨', '⟩']).map(|(identifier, part)| {
                if identifier {
                    html! { <span translate="no">{ part.to_string() }</span> }
                } else {
                    html! { { part.to_string() } }
                }
            }) }
        </>
    }
}

/// Finding English left in Chinese text (the native tests use it; the
/// browser test `tests/browser/i18n.test.mjs` applies the same rules).
#[cfg(test)]
pub mod prose {
    /// Kafka's terms that Chinese writing keeps in Latin letters, ZooKeeper's
    /// operation names, units and key names (compared lower-cased).
    pub const ALLOWED: &[&str] = &[
        "kafka",
        "zookeeper",
        "broker",
        "controller",
        "leader",
        "follower",
        "znode",
        "session",
        "watch",
        "epoch",
        "czxid",
        // ZooKeeper's operations, named as zkCli and the trace name them, and
        // the scenario language's `zk` lines.
        "zk",
        "create",
        "delete",
        "set",
        "get",
        "ls",
        "stat",
        "multi",
        "exists",
        // Units, and the keys named on a keyboard.
        "ms",
        "s",
        "m",
        "h",
        "home",
        "end",
    ];

    /// A word of letters only that is neither an acronym (`ISR`), nor
    /// camelCase (`NodeExists`), nor an allowed term: English prose.
    fn plain(word: &str) -> bool {
        !word.is_empty()
            && word.chars().all(|c| c.is_ascii_alphabetic())
            && !word.chars().all(|c| c.is_ascii_uppercase())
            && !word.chars().skip(1).any(|c| c.is_ascii_uppercase())
    }

    /// The English words in text meant to be in Chinese (identifiers
    /// between `⟨` and `⟩` aside: see [`super::rich`]).
    pub fn english_words(text: &str) -> Vec<String> {
        let outside: String = text.split(['⟨', '⟩']).step_by(2).collect::<Vec<_>>().join(" ");
        outside
            .split(|c: char| c.is_whitespace() || !c.is_ascii())
            .map(|w| w.trim_start_matches(|c: char| "([{'\"`".contains(c)).trim_end_matches(|c: char| ")]},.;:!?'\"`".contains(c)))
            .filter(|w| plain(w) && !ALLOWED.contains(&w.to_ascii_lowercase().as_str()))
            .map(str::to_string)
            .collect()
    }

    /// Runs of three or more plain words in text carried over verbatim
    /// (identifiers and values never read like that; a sentence does).
    pub fn english_phrases(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut run: Vec<&str> = Vec::new();
        for word in text.split_whitespace().chain([""]) {
            if plain(word) {
                run.push(word);
            } else {
                if run.len() >= 3 {
                    out.push(run.join(" "));
                }
                run.clear();
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_english_is_the_fallback() {
        for lang in [Lang::En, Lang::Zh] {
            assert_eq!(Lang::from_code(lang.code()), Some(lang));
        }
        assert_eq!(Lang::from_code("fr"), None);
        assert_eq!(Lang::Zh.t("Step forward"), "前进一步");
        assert_eq!(Lang::En.t("Step forward"), "Step forward");
        assert_eq!(Lang::Zh.t("not in the table"), "not in the table");
        assert_eq!(Lang::Zh.step_n(3), "第3步");
        assert_eq!(Lang::En.step_n(3), "step 3");
        assert_eq!(Lang::En.step_of(3, 11), "step 3 of 11");
        assert_eq!(Lang::Zh.step_of(3, 11), "第3步（共11步）");
        let langs = |l: &[&str]| Lang::from_browser(&l.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(langs(&["zh-CN", "en"]), Lang::Zh);
        assert_eq!(langs(&["zh-TW"]), Lang::Zh);
        assert_eq!(langs(&["en-US", "zh-CN"]), Lang::En);
        assert_eq!(langs(&["fr", "zh"]), Lang::Zh);
        assert_eq!(langs(&["fr"]), Lang::En);
        assert_eq!(langs(&[]), Lang::En);
        assert_eq!(Lang::Zh.f("{} {} on broker {}", &[&"日志目录故障", &0, &2]), "broker 2 的日志目录故障 0");
        assert_eq!(Lang::En.f("{} {} on broker {}", &[&"fail log dir", &0, &2]), "fail log dir 0 on broker 2");
    }

    /// The string literals passed to `t("...")` and `f("...", ...)` in the
    /// web crate's sources (a key missing from the table would show English).
    fn keys_in_sources() -> Vec<(String, String)> {
        fn literal(rest: &str) -> Option<String> {
            let mut out = String::new();
            let mut chars = rest.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '"' => return Some(out),
                    '\\' => match chars.next()? {
                        '\n' => {
                            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                                chars.next();
                            }
                        }
                        'n' => out.push('\n'),
                        other => out.push(other),
                    },
                    c => out.push(c),
                }
            }
            None
        }
        let mut out = Vec::new();
        let mut dirs = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
        while let Some(dir) = dirs.pop() {
            for path in std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()) {
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.ends_with("i18n.rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for call in ["t(\"", "f(\""] {
                    for (at, _) in text.match_indices(call) {
                        let before = text[..at].chars().next_back().unwrap_or(' ');
                        if before.is_alphanumeric() || before == '_' {
                            continue;
                        }
                        if let Some(key) = literal(&text[at + call.len()..]) {
                            out.push((path.display().to_string(), key));
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_interface_word_has_its_chinese() {
        let missing: Vec<String> = keys_in_sources()
            .into_iter()
            .filter(|(_, key)| !TABLE.iter().any(|(en, _)| en == key))
            .map(|(file, key)| format!("{file}: {key:?}"))
            .collect();
        assert!(missing.is_empty(), "interface words without Chinese:\n{}", missing.join("\n"));
        // Words that reach `t` through a variable.
        let mut words: Vec<&str> = Vec::new();
        words.extend(crate::panels::tools::TEMPLATES.iter().map(|(label, _)| *label));
        for form in crate::panels::tools::FORMS {
            words.push(form.label);
            words.extend(form.fields.iter().map(|(name, _)| *name));
        }
        words.extend(["running", "paused", "stopped", "shutting-down", "kill", "shutdown", "start", "pause", "resume"]);
        words.extend(["expire session", "pause fetch", "resume fetch", "passed", "failed", "pending", "leader", "follower"]);
        words.extend(["data", "exists", "child"]);
        for word in words {
            assert!(TABLE.iter().any(|(en, _)| *en == word), "{word:?} is not in the table");
        }
    }

    #[test]
    fn a_chinese_summary_marks_its_identifiers_and_keeps_the_english_on_hover() {
        #[derive(yew::Properties, PartialEq)]
        struct P {
            lang: Lang,
        }
        #[yew::function_component]
        fn Summary(p: &P) -> yew::Html {
            p.lang.summary("broker", "registered at /brokers/ids/1: broker epoch 25 (the znode's czxid)")
        }
        let render = |lang| {
            let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
            tokio::task::LocalSet::new().block_on(&runtime, yew::LocalServerRenderer::<Summary>::with_props(P { lang }).render())
        };
        let zh = render(Lang::Zh);
        assert!(zh.contains(r#"translate="no""#) && zh.contains(r#"title="registered at /brokers/ids/1"#), "{zh}");
        assert!(zh.contains(r#"<span translate="yes">已注册为 </span>/brokers/ids/1"#), "{zh}");
        let en = render(Lang::En);
        assert!(en.contains("-->registered at /brokers/ids/1: broker epoch 25 (the znode's czxid)<!--"), "{en}");
        assert!(!en.contains("translate"), "{en}");
    }

    #[test]
    fn the_chinese_has_no_english_prose() {
        for (en, zh) in TABLE {
            // An example after 例如 ("e.g.") is a command, kept as typed.
            let left = prose::english_words(zh.split("例如").next().unwrap_or(zh));
            assert!(left.is_empty(), "{en:?} → {zh:?}: {left:?}");
        }
    }

    #[test]
    fn the_table_has_each_english_key_once() {
        let mut keys: Vec<&str> = TABLE.iter().map(|(e, _)| *e).collect();
        keys.sort();
        let before = keys.len();
        keys.dedup();
        assert_eq!(before, keys.len());
    }
}
