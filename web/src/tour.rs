//! Guided tours: narration kept beside a built-in scenario as data
//! (`static/scenarios/NAME.tour.json`, the format in docs/tours.md), parsed
//! here and walked by the tour panel (`panels::tour`). Pure and unit-tested
//! natively: no Yew, no DOM.
//!
//! A beat is anchored to a scenario line: it becomes current when the
//! timeline reaches the first step of that line (`View.line`, the line being
//! played). Anchoring to lines rather than step numbers keeps a tour valid
//! when the simulator changes how many steps a line takes.

use crate::i18n::Lang;
use serde_json::{Map, Value};
use std::fmt;

/// A text in both interface languages. Kafka identifiers in it (paths,
/// methods, config keys, JSON) are written between backticks: the card shows
/// them as code, marked `translate="no"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Text {
    pub en: String,
    pub zh: String,
}

impl Text {
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }
}

/// What a beat points at: an element of another panel, found by the
/// contract's hooks (so the panels need not know about tours).
#[derive(Clone, Debug, PartialEq)]
pub enum Highlight {
    Znode(String),
    Broker(i32),
    Partition(String),
    /// The step's explanation ("This step").
    Event,
}

impl Highlight {
    /// The CSS selector of the highlighted element, its value escaped as a
    /// CSS string (a znode path may hold any character).
    pub fn selector(&self) -> String {
        match self {
            Highlight::Znode(path) => format!("[data-znode-path={}]", css_string(path)),
            Highlight::Broker(id) => format!("[data-testid=\"broker\"][data-broker-id=\"{id}\"]"),
            Highlight::Partition(tp) => format!("[data-testid=\"partition\"][data-tp={}]", css_string(tp)),
            Highlight::Event => "[data-testid=\"explanation\"]".to_string(),
        }
    }
}

/// `s` as a double-quoted CSS string: quotes, backslashes, control
/// characters and `<` (so the text can never close a `<style>` element) are
/// written as hex escapes.
pub fn css_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' | '<' | '>' | '\u{0}'..='\u{1f}' | '\u{7f}' => out.push_str(&format!("\\{:x} ", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Predict, then step: a question, its choices and the index of the right
/// one, and why it is right (shown after the app has stepped on).
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    pub ask: Text,
    pub choices: Vec<Text>,
    pub answer: usize,
    pub why: Text,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Beat {
    /// The scenario line (1-based) the beat introduces.
    pub line: usize,
    /// The Kafka (or ZooKeeper) method the beat is about.
    pub source: String,
    pub highlight: Option<Highlight>,
    /// What is about to happen and why (optional on a question beat).
    pub text: Option<Text>,
    pub question: Option<Question>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tour {
    pub title: Text,
    /// The seed article the tour follows ("003"), if any.
    pub seed: Option<String>,
    pub beats: Vec<Beat>,
}

/// A malformed tour: where (`beats[2].choices`) and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct TourError {
    pub at: String,
    pub message: String,
}

impl fmt::Display for TourError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.at.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.at, self.message)
        }
    }
}

impl std::error::Error for TourError {}

fn error<T>(at: &str, message: impl Into<String>) -> Result<T, TourError> {
    Err(TourError { at: at.to_string(), message: message.into() })
}

/// Parses and checks a tour. Unknown keys are refused, so that a misspelt
/// key is an error rather than a silently missing text.
pub fn parse(json: &str) -> Result<Tour, TourError> {
    let value: Value = serde_json::from_str(json).or_else(|e| error("", format!("not JSON: {e}")))?;
    let top = object(&value, "", &["title", "seed", "beats"])?;
    let title = bilingual(top.get("title"), "title")?;
    let seed = match top.get("seed") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return error("seed", "must be a string"),
    };
    let Some(Value::Array(items)) = top.get("beats") else { return error("beats", "must be a list of beats") };
    if items.is_empty() {
        return error("beats", "a tour needs at least one beat");
    }
    let mut beats = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let beat = parse_beat(item, &format!("beats[{i}]"))?;
        if let Some(before) = beats.last().map(|b: &Beat| b.line) {
            if beat.line < before {
                return error(&format!("beats[{i}].line"), format!("line {} comes before the previous beat's line {before}", beat.line));
            }
        }
        beats.push(beat);
    }
    Ok(Tour { title, seed, beats })
}

fn parse_beat(value: &Value, at: &str) -> Result<Beat, TourError> {
    let o = object(value, at, &["line", "source", "highlight", "text", "question", "choices", "answer", "why"])?;
    let line = match o.get("line").and_then(Value::as_u64) {
        Some(n) if n >= 1 => n as usize,
        _ => return error(&format!("{at}.line"), "must be a scenario line number (1 or more)"),
    };
    let source = match o.get("source") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        _ => return error(&format!("{at}.source"), "must name the Kafka method"),
    };
    let highlight = o.get("highlight").map(|h| parse_highlight(h, &format!("{at}.highlight"))).transpose()?;
    let text = o.get("text").map(|t| bilingual(Some(t), &format!("{at}.text"))).transpose()?;
    let question = match o.get("question") {
        None => {
            if let Some(key) = ["choices", "answer", "why"].into_iter().find(|k| o.contains_key(*k)) {
                return error(&format!("{at}.{key}"), "belongs to a question, and this beat has none");
            }
            None
        }
        Some(q) => {
            let ask = bilingual(Some(q), &format!("{at}.question"))?;
            let Some(Value::Array(list)) = o.get("choices") else {
                return error(&format!("{at}.choices"), "a question needs a list of choices");
            };
            if list.len() < 2 {
                return error(&format!("{at}.choices"), "a question needs at least two choices");
            }
            let choices =
                list.iter().enumerate().map(|(i, c)| bilingual(Some(c), &format!("{at}.choices[{i}]"))).collect::<Result<Vec<_>, _>>()?;
            let answer = match o.get("answer").and_then(Value::as_u64) {
                Some(n) if (n as usize) < choices.len() => n as usize,
                _ => return error(&format!("{at}.answer"), format!("must be the index of a choice (0 to {})", choices.len() - 1)),
            };
            let why = bilingual(o.get("why"), &format!("{at}.why"))?;
            Some(Question { ask, choices, answer, why })
        }
    };
    if text.is_none() && question.is_none() {
        return error(at, "a beat needs a text, a question or both");
    }
    Ok(Beat { line, source, highlight, text, question })
}

fn parse_highlight(value: &Value, at: &str) -> Result<Highlight, TourError> {
    let o = object(value, at, &["znode", "broker", "partition", "event"])?;
    let mut entries = o.iter();
    let (Some((key, v)), None) = (entries.next(), entries.next()) else {
        return error(at, "must name exactly one of znode, broker, partition, event");
    };
    match (key.as_str(), v) {
        ("znode", Value::String(p)) if p.starts_with('/') => Ok(Highlight::Znode(p.clone())),
        ("broker", v) if v.as_i64().is_some_and(|id| (0..=i32::MAX as i64).contains(&id)) => {
            Ok(Highlight::Broker(v.as_i64().unwrap_or(0) as i32))
        }
        ("partition", Value::String(tp)) if tp.rsplit_once('-').is_some_and(|(t, p)| !t.is_empty() && p.parse::<u32>().is_ok()) => {
            Ok(Highlight::Partition(tp.clone()))
        }
        ("event", Value::Bool(true)) => Ok(Highlight::Event),
        (key, _) => error(&format!("{at}.{key}"), "znode takes an absolute path, broker an id, partition \"topic-N\", event true"),
    }
}

/// A `{"en": ..., "zh": ...}` object with both texts non-empty.
fn bilingual(value: Option<&Value>, at: &str) -> Result<Text, TourError> {
    let Some(value) = value else { return error(at, "missing") };
    let o = object(value, at, &["en", "zh"])?;
    let get = |lang: &str| match o.get(lang) {
        Some(Value::String(s)) if s.matches('`').count() % 2 == 1 => error(&format!("{at}.{lang}"), "a backtick (`) is not closed"),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        _ => error(&format!("{at}.{lang}"), "must be a non-empty string (every text is given in English and Chinese)"),
    };
    Ok(Text { en: get("en")?, zh: get("zh")? })
}

fn object<'a>(value: &'a Value, at: &str, keys: &[&str]) -> Result<&'a Map<String, Value>, TourError> {
    let Value::Object(o) = value else { return error(at, "must be an object") };
    if let Some(unknown) = o.keys().find(|k| !keys.contains(&k.as_str())) {
        let place = if at.is_empty() { unknown.clone() } else { format!("{at}.{unknown}") };
        return error(&place, format!("unknown key (expected one of {})", keys.join(", ")));
    }
    Ok(o)
}

/// A text cut at its backticks: `(false, prose)` and `(true, code)` pieces,
/// in order (empty pieces dropped).
pub fn pieces(text: &str) -> impl Iterator<Item = (bool, &str)> {
    crate::i18n::marked(text, &['`'])
}

impl Tour {
    /// Every text of the tour, with where it is (for the tests).
    #[cfg(test)]
    pub fn texts(&self) -> Vec<(String, &Text)> {
        let mut all = vec![("title".to_string(), &self.title)];
        for (k, b) in self.beats.iter().enumerate() {
            all.extend(b.text.iter().map(|t| (format!("beats[{k}].text"), t)));
            if let Some(q) = &b.question {
                all.push((format!("beats[{k}].question"), &q.ask));
                all.extend(q.choices.iter().enumerate().map(|(i, c)| (format!("beats[{k}].choices[{i}]"), c)));
                all.push((format!("beats[{k}].why"), &q.why));
            }
        }
        all
    }

    /// The current beat for a timeline at scenario line `line` (`View.line`):
    /// the last beat whose line is the latest beat line reached; `None`
    /// before the first beat's line.
    pub fn beat_at(&self, line: usize) -> Option<usize> {
        self.beats.iter().rposition(|b| b.line <= line)
    }

    /// Whether beat `k` belongs where the timeline stands: its line is the
    /// latest beat line reached (beats sharing a line are all current there).
    pub fn is_current(&self, k: usize, line: usize) -> bool {
        match (self.beat_at(line), self.beats.get(k)) {
            (Some(c), Some(beat)) => self.beats[c].line == beat.line,
            _ => false,
        }
    }
}

/// Where a learner is in a tour. The panel keeps one and moves it; the
/// sandbox itself moves only through the app's actions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Walk {
    /// The beat on show.
    pub beat: usize,
    /// The first step of each beat reached so far on the scripted timeline
    /// (no learner actions): where Previous and "Back to the tour" seek.
    pub marks: Vec<Option<u64>>,
    /// A beat being stepped towards (Next or an answer), in chunks.
    pub heading: Option<usize>,
    /// The last prediction: (question beat, chosen index).
    pub answer: Option<(usize, usize)>,
    /// Past the last beat: the script runs to its end.
    pub done: bool,
}

impl Walk {
    /// A walk about to step to the first beat.
    pub fn start(tour: &Tour) -> Walk {
        Walk { beat: 0, marks: vec![None; tour.beats.len()], heading: Some(0), answer: None, done: false }
    }

    /// The timeline has reached the beat being headed for, at `step`.
    pub fn arrive(&mut self, step: u64) {
        if let Some(k) = self.heading.take() {
            self.beat = k;
            if let Some(mark) = self.marks.get_mut(k) {
                *mark = Some(step);
            }
        }
    }

    /// Next: head for the following beat, or finish after the last.
    pub fn next(&mut self, tour: &Tour) {
        if self.beat + 1 < tour.beats.len() {
            self.heading = Some(self.beat + 1);
        } else {
            self.done = true;
        }
    }

    /// Previous: the step to seek to, and the walk moved back one beat (or
    /// from the end back onto the last beat).
    pub fn previous(&mut self) -> Option<u64> {
        let k = if self.done { self.beat } else { self.beat.checked_sub(1)? };
        let step = (*self.marks.get(k)?)?;
        self.done = false;
        self.heading = None;
        self.beat = k;
        Some(step)
    }

    /// The learner answers the question of the current beat.
    pub fn predict(&mut self, tour: &Tour, choice: usize) {
        self.answer = Some((self.beat, choice));
        self.next(tour);
    }

    /// Whether the last prediction was right, with its question, while the
    /// beat after it (or the end, after a last-beat question) is on show.
    pub fn verdict<'t>(&self, tour: &'t Tour) -> Option<(bool, &'t Question)> {
        let (q, choice) = self.answer?;
        let shown = if self.done { q == self.beat } else { q + 1 == self.beat && self.heading.is_none() };
        let question = tour.beats.get(q)?.question.as_ref()?;
        shown.then_some((choice == question.answer, question))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenarios;
    use kzsim::sandbox::Sandbox;
    use kzsim::view::View;

    const SMALL: &str = r#"{
      "title": {"en": "T", "zh": "标题"},
      "beats": [
        {"line": 2, "source": "A.b", "highlight": {"znode": "/a\"b"}, "text": {"en": "one", "zh": "一"}},
        {"line": 2, "source": "A.c", "text": {"en": "two", "zh": "二"}},
        {"line": 5, "source": "A.d", "highlight": {"broker": 1},
         "question": {"en": "q?", "zh": "问？"}, "choices": [{"en": "x", "zh": "甲"}, {"en": "y", "zh": "乙"}], "answer": 1,
         "why": {"en": "because", "zh": "因为"}},
        {"line": 9, "source": "A.e", "highlight": {"event": true}, "text": {"en": "end", "zh": "完"}}
      ]
    }"#;

    #[test]
    fn parses_a_small_tour() {
        let t = parse(SMALL).unwrap();
        assert_eq!(t.title.get(Lang::Zh), "标题");
        assert_eq!(t.seed, None);
        assert_eq!(t.beats.len(), 4);
        assert_eq!(t.beats[0].highlight, Some(Highlight::Znode("/a\"b".into())));
        assert_eq!(t.beats[2].question.as_ref().unwrap().answer, 1);
        assert_eq!(t.beats[3].highlight, Some(Highlight::Event));
    }

    #[test]
    fn malformed_tours_are_errors_that_say_where() {
        let cases = [
            ("", ""),
            ("[]", ""),
            (r#"{"title": {"en": "T", "zh": "T"}, "beats": []}"#, "beats"),
            (r#"{"title": {"en": "T"}, "beats": []}"#, "title.zh"),
            (
                r#"{"title": {"en": "T", "zh": "T"}, "beats": [{"line": 0, "source": "x", "text": {"en": "a", "zh": "b"}}]}"#,
                "beats[0].line",
            ),
            (r#"{"title": {"en": "T", "zh": "T"}, "beats": [{"line": 1, "source": "x"}]}"#, "beats[0]"),
            (r#"{"title": {"en": "T", "zh": "T"}, "beats": [{"line": 1, "source": "x", "txet": {}}]}"#, "beats[0].txet"),
            (
                r#"{"title": {"en": "T", "zh": "T"}, "beats": [{"line": 1, "source": "x", "text": {"en": "a", "zh": ""}}]}"#,
                "beats[0].text.zh",
            ),
            (
                r#"{"title": {"en": "T", "zh": "T"}, "beats": [{"line": 1, "source": "x", "highlight": {"broker": 1, "event": true}, "text": {"en": "a", "zh": "b"}}]}"#,
                "beats[0].highlight",
            ),
            (
                r#"{"title": {"en": "T", "zh": "T"}, "beats": [{"line": 1, "source": "x", "highlight": {"partition": "t"}, "text": {"en": "a", "zh": "b"}}]}"#,
                "beats[0].highlight.partition",
            ),
            (
                r#"{"title": {"en": "T", "zh": "T"}, "beats": [{"line": 1, "source": "x", "question": {"en": "a", "zh": "b"}, "choices": [{"en": "a", "zh": "b"}, {"en": "a", "zh": "b"}], "answer": 2, "why": {"en": "a", "zh": "b"}}]}"#,
                "beats[0].answer",
            ),
            (
                r#"{"title": {"en": "T", "zh": "T"}, "beats": [{"line": 1, "source": "x", "text": {"en": "a", "zh": "b"}, "answer": 0}]}"#,
                "beats[0].answer",
            ),
            (
                r#"{"title": {"en": "T", "zh": "T"}, "beats": [{"line": 3, "source": "x", "text": {"en": "a", "zh": "b"}}, {"line": 2, "source": "x", "text": {"en": "a", "zh": "b"}}]}"#,
                "beats[1].line",
            ),
        ];
        for (json, at) in cases {
            let e = parse(json).expect_err(json);
            assert_eq!(e.at, at, "{json}: {e}");
            assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn the_current_beat_is_the_last_one_whose_line_is_reached() {
        let t = parse(SMALL).unwrap();
        assert_eq!(t.beat_at(0), None);
        assert_eq!(t.beat_at(1), None);
        assert_eq!(t.beat_at(2), Some(1));
        assert_eq!(t.beat_at(4), Some(1));
        assert_eq!(t.beat_at(5), Some(2));
        assert_eq!(t.beat_at(100), Some(3));
        assert!(t.is_current(0, 3) && t.is_current(1, 3), "beats sharing a line are both current there");
        assert!(!t.is_current(0, 5));
        assert!(!t.is_current(2, 4));
        assert!(!t.is_current(9, 4));
    }

    #[test]
    fn selectors_escape_their_values() {
        assert_eq!(Highlight::Znode("/controller".into()).selector(), r#"[data-znode-path="/controller"]"#);
        assert_eq!(Highlight::Znode("/a\"b\\</style>".into()).selector(), r#"[data-znode-path="/a\22 b\5c \3c /style\3e "]"#);
        assert_eq!(Highlight::Broker(1).selector(), r#"[data-testid="broker"][data-broker-id="1"]"#);
        assert_eq!(Highlight::Partition("t-0".into()).selector(), r#"[data-testid="partition"][data-tp="t-0"]"#);
        assert_eq!(Highlight::Event.selector(), r#"[data-testid="explanation"]"#);
    }

    #[test]
    fn a_walk_steps_predicts_and_goes_back() {
        let t = parse(SMALL).unwrap();
        let mut w = Walk::start(&t);
        assert_eq!(w.heading, Some(0));
        w.arrive(3);
        assert_eq!((w.beat, w.marks[0]), (0, Some(3)));
        assert_eq!(w.previous(), None, "nothing before the first beat");
        w.next(&t);
        w.arrive(3);
        w.next(&t);
        w.arrive(8);
        assert_eq!(w.beat, 2);
        w.predict(&t, 0);
        assert_eq!(w.heading, Some(3));
        assert_eq!(w.verdict(&t), None, "no verdict before the step is taken");
        w.arrive(12);
        let (right, q) = w.verdict(&t).unwrap();
        assert!(!right);
        assert_eq!(q.why.en, "because");
        w.next(&t);
        assert!(w.done);
        assert_eq!(w.verdict(&t), None);
        assert_eq!(w.previous(), Some(12));
        assert!(!w.done);
        assert_eq!(w.previous(), Some(8));
        assert_eq!(w.beat, 2);
        assert_eq!(w.verdict(&t), None);
    }

    /// The sandbox at the first step of each beat's line, with the view there.
    fn walk_scenario(text: &str, tour: &Tour) -> Vec<(u64, View)> {
        let mut sandbox = Sandbox::load(text).unwrap();
        let mut at = Vec::new();
        for beat in &tour.beats {
            while sandbox.view().line < beat.line && sandbox.step_forward() {}
            at.push((sandbox.position(), sandbox.view()));
        }
        at
    }

    /// Every tour parses, belongs to a built-in, and fits its scenario: each
    /// beat's line is one the timeline plays (an action line with steps of
    /// its own), and each highlight exists in the view at that beat's step.
    #[test]
    fn every_tour_fits_its_scenario() {
        assert!(!scenarios::tours().is_empty());
        for (name, json) in scenarios::tours() {
            let tour = parse(json).unwrap_or_else(|e| panic!("{name}.tour.json: {e}"));
            let text = scenarios::find(name).unwrap_or_else(|| panic!("{name}.tour.json has no {name}.kzs beside it"));
            let questions = tour.beats.iter().filter(|b| b.question.is_some()).count();
            assert!(questions >= 2, "{name}: a tour asks at least two predict-then-step questions");
            let lines: Vec<&str> = text.lines().collect();
            for ((k, beat), (step, view)) in tour.beats.iter().enumerate().zip(walk_scenario(text, &tour)) {
                let here = format!("{name}.tour.json beat {k} (line {})", beat.line);
                let source = lines.get(beat.line - 1).map(|l| l.split('#').next().unwrap_or("").trim()).unwrap_or("");
                assert!(!source.is_empty(), "{here}: not an action line of {name}.kzs");
                assert!(!source.starts_with("expect") && !source.starts_with("seed"), "{here}: `{source}` takes no steps");
                assert_eq!(view.line, beat.line, "{here}: the timeline never plays this line (`{source}`)");
                let found = match &beat.highlight {
                    None | Some(Highlight::Event) => view.current.is_some(),
                    Some(Highlight::Znode(path)) => view.znodes.iter().any(|z| *z.path == **path && z.change != "deleted"),
                    Some(Highlight::Broker(id)) => view.brokers.iter().any(|b| b.id == *id),
                    Some(Highlight::Partition(tp)) => view.partitions.iter().any(|p| &p.tp == tp),
                };
                assert!(found, "{here}: {:?} is not in the view at step {step}", beat.highlight);
            }
        }
    }

    /// The Chinese reads as Chinese: outside backticks, no English prose
    /// (the i18n module's rule; Kafka's terms such as broker, leader, ISR
    /// stay in Latin letters, as the seed articles write them).
    #[test]
    fn every_chinese_text_is_chinese_outside_its_code() {
        for (name, json) in scenarios::tours() {
            let tour = parse(json).unwrap();
            for (at, text) in tour.texts() {
                let prose: String = pieces(&text.zh).map(|(code, s)| if code { " " } else { s }).collect();
                let english = crate::i18n::prose::english_words(&prose);
                assert!(english.is_empty(), "{name}.tour.json {at}.zh: English words {english:?} in {:?}", text.zh);
            }
        }
    }

    #[test]
    fn backticks_mark_code() {
        let p: Vec<_> = pieces("a `b` c``d`").collect();
        assert_eq!(p, vec![(false, "a "), (true, "b"), (false, " c"), (false, "d")]);
        assert!(parse(r#"{"title": {"en": "T `x", "zh": "T"}, "beats": []}"#).unwrap_err().message.contains("backtick"));
    }

    /// The app's `StepToLine` (the tour's Next) stops at the first step of
    /// the line, never past it, in chunks of at most `END_CHUNK` steps.
    #[test]
    fn step_to_line_stops_at_the_first_step_of_the_line() {
        use crate::state::{Action, AppState, END_CHUNK};
        use yew::Reducible;
        let mut state = std::rc::Rc::new(AppState::from_address(&crate::address::parse("?scenario=controller-failover", "")));
        let position = |s: &AppState| s.sandbox.as_ref().unwrap().borrow().position();
        let line = |s: &AppState| s.sandbox.as_ref().unwrap().borrow().view().line;
        for target in [12, 22, 31, 40] {
            for _ in 0..1000 {
                if line(&state) >= target {
                    break;
                }
                let before = position(&state);
                state = state.reduce(Action::StepToLine(target));
                assert!(position(&state) - before <= END_CHUNK);
            }
            assert_eq!(line(&state), target);
            let at = position(&state);
            state = state.reduce(Action::StepToLine(target));
            assert_eq!(position(&state), at, "already there: no step");
            let mut back = Sandbox::load(scenarios::find("controller-failover").unwrap()).unwrap();
            back.seek(at - 1);
            assert!(back.view().line < target, "step {at} is the first of line {target}");
        }
    }

    /// Every built-in scenario of the contract has its tour.
    #[test]
    fn every_seed_scenario_has_a_tour() {
        for name in ["zk-basics", "config-change", "broker-bounce", "isr-shrink", "controller-failover", "log-dir-failure"] {
            if scenarios::find(name).is_some() {
                assert!(scenarios::tour(name).is_some(), "{name} has no tour");
            }
        }
    }
}
