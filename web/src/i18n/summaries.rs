//! Chinese renderings of the simulator's step summaries.
//!
//! The core writes every `TraceEntry.summary` in English, and that text is a
//! public contract (`--trace`), so the translation lives here, in the web
//! crate: a table of templates per trace `kind`, each an English pattern with
//! `{holes}` and its Chinese pattern, kept as data in
//! `static/summaries.zh.tsv`. The page fetches that file when it turns
//! Chinese ([`when_ready`]), so that it stays out of the first download
//! (docs/performance.md, Download); native builds (the tests) embed it. Holes carry numbers, paths, topic names,
//! JSON, Kafka identifiers and method names over verbatim; a `{~hole}` is
//! itself translated (by the same kind's templates, then the shared
//! fragments), for summaries that nest one phrase inside another. A hole
//! ending in `!` matches a single word (no spaces).
//!
//! A summary no template matches stays English: the page shows it as is, and
//! the native test (`every_summary_of_every_scenario_has_a_chinese_rendering`)
//! fails, naming it.

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

/// A template, or why its line is wrong (a Chinese hole the English lacks).
fn compile(en: &'static str, zh: &'static str) -> Result<Template, String> {
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
                    None => return Err(format!("hole {{{name}}} of {zh:?} is not in {en:?}")),
                }
            }
        }
    }
    Ok(Template { en: en_toks, zh: pieces })
}

/// The templates in the file's order, each with its kind ("" for the
/// fragments any kind may use). (A list, not one more map type in the
/// download: a kind's templates are found by a scan of 200 entries.)
type Table = Vec<(&'static str, Template)>;

/// Where the page fetches the templates from (relative: dist/ works at any
/// path).
#[cfg(target_arch = "wasm32")]
const URL: &str = "summaries.zh.tsv";

static TABLE: OnceLock<Table> = OnceLock::new();

/// The table read from the file's text (`kind TAB English TAB Chinese` a
/// line; `#` lines are comments), and the lines it could not use: a wrong
/// line is left out (its summaries stay English), never a panic.
fn read(text: &'static str) -> (Table, Vec<String>) {
    let mut map = Table::new();
    let mut wrong = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.is_empty() && !l.starts_with('#')) {
        let cols: Vec<&'static str> = line.split('\t').collect();
        match cols[..] {
            [kind, en, zh] => match compile(en, zh) {
                Ok(template) => map.push((kind, template)),
                Err(e) => wrong.push(format!("line {}: {e}", n + 1)),
            },
            _ => wrong.push(format!("line {}: {} columns, not 3", n + 1, cols.len())),
        }
    }
    (map, wrong)
}

/// The table, once it is in (natively always: embedded).
fn table() -> Option<&'static Table> {
    #[cfg(not(target_arch = "wasm32"))]
    return Some(TABLE.get_or_init(|| read(include_str!("../../../static/summaries.zh.tsv")).0));
    #[cfg(target_arch = "wasm32")]
    TABLE.get()
}

/// How long a page waits for the templates before it goes on without them
/// (its summaries English until they are in): a hanging server must not
/// keep the page blank.
#[cfg(target_arch = "wasm32")]
const PATIENCE_MS: u32 = 1_000;

/// Whether a fetch is under way, and what waits for it.
#[cfg(target_arch = "wasm32")]
type Wait = (bool, Vec<Box<dyn FnOnce()>>);

#[cfg(target_arch = "wasm32")]
thread_local! {
    static WAIT: std::cell::RefCell<Wait> = const { std::cell::RefCell::new((false, Vec::new())) };
}

/// Runs `then` once the page can show summaries in `lang`: at once in
/// English or when the templates are in, otherwise after fetching them (one
/// fetch however many wait), or after [`PATIENCE_MS`] at most. If the fetch
/// fails, `then` runs all the same (the summaries stay English) and the page
/// says why above everything.
pub fn when_ready(lang: super::Lang, then: impl FnOnce() + 'static) {
    if lang == super::Lang::En || table().is_some() {
        then();
    } else {
        #[cfg(target_arch = "wasm32")]
        fetch(lang, Box::new(then));
    }
}

/// Runs what waits (when the fetch is done, or patience is out).
#[cfg(target_arch = "wasm32")]
fn release() {
    for then in WAIT.with(|w| std::mem::take(&mut w.borrow_mut().1)) {
        then();
    }
}

/// [`when_ready`]'s wait: queues `then` and fetches unless a fetch is under
/// way.
#[cfg(target_arch = "wasm32")]
fn fetch(lang: super::Lang, then: Box<dyn FnOnce()>) {
    let start = WAIT.with(|w| {
        let mut w = w.borrow_mut();
        w.1.push(then);
        !std::mem::replace(&mut w.0, true)
    });
    gloo_timers::callback::Timeout::new(PATIENCE_MS, release).forget();
    if start {
        yew::platform::spawn_local(async move {
            let fetched = crate::scenarios::fetch_text(URL).await.map(|text| {
                let _ = TABLE.set(read(Box::leak(text.into_boxed_str())).0);
            });
            WAIT.with(|w| w.borrow_mut().0 = false);
            release();
            // After the waiting ones ran: the app mounts by emptying <body>.
            if let Err(e) = fetched {
                notice(lang, &e);
            }
        });
    }
}

/// Says at the top of the page that the Chinese summaries could not be had.
#[cfg(target_arch = "wasm32")]
fn notice(lang: super::Lang, why: &str) {
    let message = match lang {
        super::Lang::Zh => format!("步骤摘要的中文译文无法加载，暂以英文显示（{why}）。"),
        super::Lang::En => format!("The Chinese step summaries could not be loaded ({why}); they are shown in English."),
    };
    web_sys::console::error_1(&message.as_str().into());
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    let (Ok(note), Some(body)) = (document.create_element("p"), document.body()) else { return };
    note.set_class_name("kz-error");
    let _ = note.set_attribute("role", "alert");
    let _ = note.set_attribute("data-testid", "summaries-error");
    note.set_text_content(Some(&message));
    let _ = body.prepend_with_node_1(&note);
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
    let Some(table) = table() else { return false };
    // The kind's own templates, then (for a kind) the shared fragments.
    let shared = (!kind.is_empty()).then_some("");
    let of_kind = table.iter().filter(|(k, _)| *k == kind);
    for (_, template) in of_kind.chain(table.iter().filter(|(k, _)| Some(*k) == shared)) {
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
    fn every_line_of_the_file_is_a_template_and_wrong_lines_are_errors() {
        let (table, wrong) = read(include_str!("../../../static/summaries.zh.tsv"));
        assert!(wrong.is_empty(), "{wrong:?}");
        assert!(table.len() > 150);
        let (table, wrong) = read("# a comment\n\nbroker\tbroker {id!} up\tbroker {id} 启动\nbroker\t{a} x\t{b} y\nbroker\tno tabs here\n");
        assert_eq!(table.iter().filter(|(k, _)| *k == "broker").count(), 1);
        assert_eq!(wrong.len(), 2, "{wrong:?}");
        assert!(wrong[0].starts_with("line 4: hole {b}"), "{wrong:?}");
        assert!(wrong[1].starts_with("line 5: 2 columns"), "{wrong:?}");
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
