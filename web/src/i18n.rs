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
    ("Step", "步"),
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
    ("controller", "控制器"),
    ("zombie controller", "僵尸控制器"),
    ("broker epoch", "broker 纪元"),
    ("session", "会话"),
    ("expires in", "过期倒计时"),
    ("log dirs", "日志目录"),
    ("controller queue", "控制器事件队列"),
    ("kill", "杀死"),
    ("shutdown", "优雅关闭"),
    ("start", "启动"),
    ("pause", "暂停"),
    ("resume", "恢复"),
    ("expire session", "使会话过期"),
    ("fail log dir", "日志目录故障"),
    ("pause fetch", "暂停拉取"),
    ("resume fetch", "恢复拉取"),
    ("leader", "leader"),
    ("replicas", "副本"),
    ("leader epoch", "leader 纪元"),
    ("No partitions yet.", "还没有分区。"),
    ("No brokers: this scenario is a bare ZooKeeper.", "没有 broker：这个场景只有 ZooKeeper。"),
    ("Select a znode to see its data and stat.", "选择一个 znode 查看数据和 stat。"),
    ("data", "数据"),
    ("Before the first step.", "第一步之前。"),
    ("all actors", "所有参与者"),
    ("all kinds", "所有类型"),
    ("Filter by actor", "按参与者筛选"),
    ("Filter by kind", "按类型筛选"),
    ("end of the script", "脚本结束"),
    ("Apply a built-in scenario", "选择内置场景"),
    ("Type a scenario action, e.g. kill broker 1", "输入一个场景操作，例如 kill broker 1"),
    ("ZooKeeper's truth", "ZooKeeper 中的事实"),
    ("controller's cache", "控制器缓存"),
    ("metadata cache", "元数据缓存"),
    ("live brokers", "存活的 broker"),
    ("differs from ZooKeeper", "与 ZooKeeper 不一致"),
    ("The last ZooKeeper requests, watch notifications and control requests.", "最近的 ZooKeeper 请求、watch 通知和控制请求。"),
    ("Nothing sent yet.", "还没有消息。"),
    ("Templates", "模板"),
];

/// Finding English left in Chinese text (the native tests use it; the
/// browser test `tests/browser/i18n.test.mjs` applies the same rules).
#[cfg(test)]
pub mod prose {
    /// Kafka's terms that Chinese writing keeps in Latin letters, and units.
    pub const ALLOWED: &[&str] =
        &["kafka", "zookeeper", "broker", "controller", "leader", "follower", "znode", "session", "watch", "epoch", "czxid", "ms", "s", "m", "h"];

    /// A word of letters only that is neither an acronym (`ISR`), nor
    /// camelCase (`NodeExists`), nor an allowed term: English prose.
    fn plain(word: &str) -> bool {
        !word.is_empty()
            && word.chars().all(|c| c.is_ascii_alphabetic())
            && !word.chars().all(|c| c.is_ascii_uppercase())
            && !word.chars().skip(1).any(|c| c.is_ascii_uppercase())
    }

    /// The English words in text meant to be in Chinese.
    pub fn english_words(text: &str) -> Vec<String> {
        text.split(|c: char| c.is_whitespace() || !c.is_ascii())
            .map(|w| w.trim_matches(|c: char| "()[]{},.;:!?'\"`".contains(c)))
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
