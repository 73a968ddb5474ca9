//! Reading and writing the page address (`ui-contract.md`, "Addresses").
//!
//! | parameter | meaning |
//! |---|---|
//! | `?scenario=NAME` | a built-in scenario |
//! | `#kzs=TEXT` | a scenario in the address: base64url of its UTF-8 text, no padding (wins over `scenario`) |
//! | `step=N` | positioned after the first N steps |
//! | `embed=1` | compact chrome |
//! | `lang=zh` / `lang=en` | the interface language |
//! | `do=STEP.TEXT` | (ours) a learner's action taken after STEP steps, TEXT in base64url; repeated, in order |
//! | `panels=tree,brokers,…` | (ours) which panels an embed shows (see [`Panel`]) |
//! | `from=N&to=M` | (ours) the timeline locked to steps N..=M, for a figure |
//! | `autoplay=1` | (ours) play while on screen, pause when off it or the tab is hidden |
//!
//! `#kzs=~…` is a compressed scenario (`kzsim::share`, docs/sharing.md).
//!
//! Parameters are read from both the query and the fragment (the fragment
//! wins), so `/?scenario=x&step=3`, `/#kzs=...&step=3` and
//! `/?step=3#kzs=...` all work. The permalink the app writes back keeps a
//! `#kzs` scenario and its parameters in the fragment, and a built-in one and
//! its parameters in the query.

use crate::i18n::Lang;

/// Everything the address says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Address {
    /// `?scenario=NAME`.
    pub scenario: Option<String>,
    /// `#kzs=TEXT`: the decoded text, or why it could not be decoded.
    pub kzs: Option<Result<String, String>>,
    pub step: Option<u64>,
    pub embed: bool,
    pub lang: Option<Lang>,
    /// The learner's actions: (taken after this many steps, command text).
    pub actions: Vec<(u64, String)>,
    /// `panels=`: the panels an embed shows, in the order given (empty:
    /// the default set).
    pub panels: Vec<Panel>,
    pub from: Option<u64>,
    pub to: Option<u64>,
    pub autoplay: bool,
}

/// A panel an embed can show (`panels=tree,brokers,…`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Panel {
    Tree,
    Brokers,
    Explain,
    Partitions,
    Beliefs,
    Checkpoints,
    Sequence,
    Events,
}

impl Panel {
    pub const ALL: [Panel; 8] = [
        Panel::Tree,
        Panel::Brokers,
        Panel::Explain,
        Panel::Partitions,
        Panel::Beliefs,
        Panel::Checkpoints,
        Panel::Sequence,
        Panel::Events,
    ];
    /// What an embed shows when `panels=` names none.
    pub const EMBED_DEFAULT: [Panel; 4] = [Panel::Tree, Panel::Brokers, Panel::Explain, Panel::Partitions];

    pub fn code(self) -> &'static str {
        match self {
            Panel::Tree => "tree",
            Panel::Brokers => "brokers",
            Panel::Explain => "explain",
            Panel::Partitions => "partitions",
            Panel::Beliefs => "beliefs",
            Panel::Checkpoints => "checkpoints",
            Panel::Sequence => "sequence",
            Panel::Events => "events",
        }
    }

    fn from_code(code: &str) -> Option<Panel> {
        let code = match code.trim().to_ascii_lowercase().as_str() {
            "znodes" | "zk" | "zookeeper" => "tree",
            "explanation" | "step" => "explain",
            "log" | "event-log" => "events",
            "seq" => "sequence",
            other => return Panel::ALL.into_iter().find(|p| p.code() == other),
        };
        Panel::from_code(code)
    }
}

/// Parses `location.search` and `location.hash` (with or without their `?`
/// and `#`).
pub fn parse(search: &str, fragment: &str) -> Address {
    let mut out = Address::default();
    let search = search.strip_prefix('?').unwrap_or(search);
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let mut actions_query = Vec::new();
    let mut actions_fragment = Vec::new();
    for (in_fragment, part) in search.split('&').map(|p| (false, p)).chain(fragment.split('&').map(|p| (true, p))) {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        match key {
            "scenario" => out.scenario = Some(percent_decode(value)).filter(|s| !s.is_empty()),
            "kzs" => out.kzs = Some(kzsim::share::scenario_from_kzs(value.trim_end_matches("%3D").trim_end_matches("%3d"))),
            "step" => out.step = value.parse().ok(),
            "embed" => out.embed = matches!(value, "1" | "true" | "yes" | ""),
            "autoplay" => out.autoplay = matches!(value, "1" | "true" | "yes" | ""),
            "from" => out.from = value.parse().ok(),
            "to" => out.to = value.parse().ok(),
            "panels" => {
                out.panels = Vec::new();
                for panel in percent_decode(value).split(',').filter_map(Panel::from_code) {
                    if !out.panels.contains(&panel) {
                        out.panels.push(panel);
                    }
                }
            }
            "lang" => out.lang = Lang::from_code(value).or(out.lang),
            "do" => {
                if let Some(action) = decode_action(value) {
                    if in_fragment {
                        actions_fragment.push(action)
                    } else {
                        actions_query.push(action)
                    }
                }
            }
            _ => {}
        }
    }
    // Actions belong with their scenario: the fragment's when it has any.
    out.actions = if actions_fragment.is_empty() { actions_query } else { actions_fragment };
    out
}

fn decode_action(value: &str) -> Option<(u64, String)> {
    let (step, text) = value.split_once('.')?;
    let step = step.parse().ok()?;
    let text = String::from_utf8(decode_base64url(text).ok()?).ok()?;
    Some((step, text))
}

/// Where the scenario on screen came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A built-in scenario, by name.
    BuiltIn(String),
    /// Text given in the address or typed into the editor.
    Text,
}

/// Everything a permalink says: the scenario, where on its timeline, the
/// learner's actions, and how the page is dressed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Link<'a> {
    pub source: Option<&'a Source>,
    pub text: &'a str,
    pub step: u64,
    pub actions: &'a [(u64, String)],
    pub lang: Option<Lang>,
    pub embed: bool,
    pub panels: &'a [Panel],
    pub from: Option<u64>,
    pub to: Option<u64>,
    pub autoplay: bool,
}

/// The query-and-fragment part of the permalink (`?...` and/or `#...`;
/// never empty: at least the scenario is named). A long scenario text
/// travels compressed (`#kzs=~…`).
pub fn permalink(link: &Link) -> String {
    let builtin = match link.source {
        Some(Source::BuiltIn(name)) => Some(name),
        _ => None,
    };
    let mut params = Vec::new();
    match builtin {
        Some(name) => params.push(format!("scenario={}", percent_encode(name))),
        None => params.push(format!("kzs={}", kzsim::share::kzs_value(link.text))),
    }
    params.push(format!("step={}", link.step));
    if link.embed {
        params.push("embed=1".to_string());
    }
    if !link.panels.is_empty() {
        params.push(format!("panels={}", link.panels.iter().map(|p| p.code()).collect::<Vec<_>>().join(",")));
    }
    params.extend(link.from.map(|n| format!("from={n}")));
    params.extend(link.to.map(|n| format!("to={n}")));
    if link.autoplay {
        params.push("autoplay=1".to_string());
    }
    if let Some(lang) = link.lang {
        params.push(format!("lang={}", lang.code()));
    }
    for (at, action) in link.actions {
        params.push(format!("do={at}.{}", encode_base64url(action.as_bytes())));
    }
    let joined = params.join("&");
    match builtin {
        Some(_) => format!("?{joined}"),
        None => format!("#{joined}"),
    }
}

// The `#kzs` codec lives in the core (`kzsim::share`), where it is fuzzed.
pub use kzsim::share::{decode_base64url, encode_base64url};

fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16) {
                Ok(b) => {
                    out.push(b);
                    i += 3;
                    continue;
                }
                Err(_) => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_base64url_without_padding() {
        assert_eq!(decode_base64url("").unwrap(), b"");
        assert_eq!(decode_base64url("Zg").unwrap(), b"f");
        assert_eq!(decode_base64url("Zm8").unwrap(), b"fo");
        assert_eq!(decode_base64url("Zm9v").unwrap(), b"foo");
        assert_eq!(decode_base64url("Zm9vYg==").unwrap(), b"foob");
        // 0xfb 0xff: '-' and '_' in base64url, '+' and '/' in base64.
        assert_eq!(decode_base64url("-_8").unwrap(), [0xfb, 0xff]);
        assert_eq!(decode_base64url("+/8").unwrap(), [0xfb, 0xff]);
    }

    #[test]
    fn encodes_base64url_without_padding_and_round_trips() {
        assert_eq!(encode_base64url(b""), "");
        assert_eq!(encode_base64url(b"f"), "Zg");
        assert_eq!(encode_base64url(b"fo"), "Zm8");
        assert_eq!(encode_base64url(b"foo"), "Zm9v");
        assert_eq!(encode_base64url(&[0xfb, 0xff]), "-_8");
        let text = "zk a create /x \"<img src=x onerror=alert(1)>\"\n# 中文 ✓";
        assert_eq!(decode_base64url(&encode_base64url(text.as_bytes())).unwrap(), text.as_bytes());
    }

    #[test]
    fn rejects_what_is_not_base64url() {
        assert!(decode_base64url("Z").unwrap_err().contains("1 characters long"));
        assert!(decode_base64url("Zm9v!A").unwrap_err().contains("character 5"));
    }

    #[test]
    fn finds_kzs_among_other_fragment_parts() {
        // "zk-session a" in base64url.
        let text = Some(Ok("zk-session a".to_string()));
        assert_eq!(parse("", "#kzs=emstc2Vzc2lvbiBh").kzs, text);
        assert_eq!(parse("", "#step=3&kzs=emstc2Vzc2lvbiBh&lang=en").kzs, text);
        assert_eq!(parse("", "").kzs, None);
        assert_eq!(parse("", "#step=3").kzs, None);
        assert!(parse("", "#kzs=__8").kzs.unwrap().unwrap_err().contains("UTF-8"));
        assert!(parse("", "#kzs=not*base64").kzs.unwrap().unwrap_err().contains("base64url"));
    }

    #[test]
    fn reads_query_and_fragment_the_fragment_winning() {
        let a = parse("?scenario=controller-failover&step=12&embed=1&lang=zh", "");
        assert_eq!(a.scenario.as_deref(), Some("controller-failover"));
        assert_eq!(a.step, Some(12));
        assert!(a.embed);
        assert_eq!(a.lang, Some(Lang::Zh));
        let b = parse("?step=3&lang=zh", "#kzs=emstc2Vzc2lvbiBh&step=5&lang=en");
        assert_eq!(b.step, Some(5));
        assert_eq!(b.lang, Some(Lang::En));
        assert!(!b.embed);
        assert_eq!(parse("?step=x&lang=fr", "").step, None);
        assert_eq!(parse("?lang=fr", "").lang, None);
        assert_eq!(parse("?scenario=", "").scenario, None);
        assert_eq!(parse("?scenario=a%2Db", "").scenario.as_deref(), Some("a-b"));
    }

    #[test]
    fn permalinks_round_trip() {
        let actions = vec![(3, "kill broker 1".to_string()), (7, "zk a create /x \"hi there\"".to_string())];
        let source = Source::BuiltIn("zk-basics".into());
        let panels = [Panel::Tree, Panel::Events];
        let link = permalink(&Link {
            source: Some(&source),
            step: 9,
            actions: &actions,
            lang: Some(Lang::Zh),
            embed: true,
            panels: &panels,
            from: Some(2),
            to: Some(20),
            autoplay: true,
            ..Link::default()
        });
        assert!(link.starts_with("?scenario=zk-basics&step=9&embed=1&panels=tree,events&from=2&to=20&autoplay=1&lang=zh&do=3."), "{link}");
        let back = parse(&link, "");
        assert_eq!(back.scenario.as_deref(), Some("zk-basics"));
        assert_eq!((back.step, back.embed, back.lang), (Some(9), true, Some(Lang::Zh)));
        assert_eq!((back.from, back.to, back.autoplay, back.panels), (Some(2), Some(20), true, panels.to_vec()));
        assert_eq!(back.actions, actions);

        let text = "zk-session a\nzk a create /x <b>";
        let link = permalink(&Link { source: Some(&Source::Text), text, step: 2, ..Link::default() });
        assert!(link.starts_with("#kzs="), "{link}");
        let back = parse("", &link);
        assert_eq!(back.kzs, Some(Ok(text.to_string())));
        assert_eq!(back.step, Some(2));
        assert_eq!(back.scenario, None);

        // A long scenario travels compressed, and comes back whole.
        let long = "zk-session a\n".to_string() + &"zk a create /app/n- x ephemeral sequential\n".repeat(100);
        let link = permalink(&Link { source: Some(&Source::Text), text: &long, ..Link::default() });
        assert!(link.starts_with("#kzs=~"), "{}", &link[..12]);
        assert_eq!(parse("", &link).kzs, Some(Ok(long)));
    }

    #[test]
    fn panels_are_read_leniently_and_once() {
        assert_eq!(parse("?panels=tree,Brokers,nope,tree,log", "").panels, vec![Panel::Tree, Panel::Brokers, Panel::Events]);
        assert_eq!(parse("?panels=znodes%2Cseq", "").panels, vec![Panel::Tree, Panel::Sequence]);
        assert!(parse("?panels=", "").panels.is_empty());
        assert_eq!(parse("?from=3&to=x&autoplay", "").from, Some(3));
        assert!(parse("?autoplay", "").autoplay);
    }
}
