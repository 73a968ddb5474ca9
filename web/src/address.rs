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
            "kzs" => {
                out.kzs =
                    Some(decode_base64url(value.trim_end_matches("%3D").trim_end_matches("%3d")).and_then(|bytes| {
                        String::from_utf8(bytes).map_err(|_| "the #kzs scenario is not UTF-8 text once decoded".to_string())
                    }))
            }
            "step" => out.step = value.parse().ok(),
            "embed" => out.embed = matches!(value, "1" | "true" | "yes" | ""),
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

/// The query-and-fragment part of the permalink (`?...` and/or `#...`;
/// never empty: at least the scenario is named).
pub fn permalink(source: &Source, text: &str, step: u64, embed: bool, lang: Option<Lang>, actions: &[(u64, String)]) -> String {
    let mut params = Vec::new();
    if let Source::BuiltIn(name) = source {
        params.push(format!("scenario={}", percent_encode(name)));
    } else {
        params.push(format!("kzs={}", encode_base64url(text.as_bytes())));
    }
    params.push(format!("step={step}"));
    if embed {
        params.push("embed=1".to_string());
    }
    if let Some(lang) = lang {
        params.push(format!("lang={}", lang.code()));
    }
    for (at, action) in actions {
        params.push(format!("do={at}.{}", encode_base64url(action.as_bytes())));
    }
    let joined = params.join("&");
    match source {
        Source::BuiltIn(_) => format!("?{joined}"),
        Source::Text => format!("#{joined}"),
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
        let link = permalink(&Source::BuiltIn("zk-basics".into()), "", 9, true, Some(Lang::Zh), &actions);
        assert!(link.starts_with("?scenario=zk-basics&step=9&embed=1&lang=zh&do=3."), "{link}");
        let back = parse(&link, "");
        assert_eq!(back.scenario.as_deref(), Some("zk-basics"));
        assert_eq!((back.step, back.embed, back.lang), (Some(9), true, Some(Lang::Zh)));
        assert_eq!(back.actions, actions);

        let text = "zk-session a\nzk a create /x <b>";
        let link = permalink(&Source::Text, text, 2, false, None, &[]);
        assert!(link.starts_with("#kzs="), "{link}");
        let back = parse("", &link);
        assert_eq!(back.kzs, Some(Ok(text.to_string())));
        assert_eq!(back.step, Some(2));
        assert_eq!(back.scenario, None);
    }
}
