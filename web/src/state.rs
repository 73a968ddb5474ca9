//! The one reducer-held state of the page: the sandbox (shared, mutated in
//! place) with a version counter that every change bumps, the playback
//! controls, and where the scenario came from. Panels get a [`Snap`] of it
//! and send [`Action`]s back.

use crate::address::{Address, Link, Panel, Source};
use crate::i18n::Lang;
use crate::scenarios;
use kzsim::sandbox::Sandbox;
use kzsim::view::View;
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

/// Play speeds: (label, timer interval in ms, steps per tick).
pub const SPEEDS: &[(&str, u32, u64)] =
    &[("1/s", 1000, 1), ("2/s", 500, 1), ("5/s", 200, 1), ("10/s", 100, 1), ("30/s", 33, 1), ("100/s", 50, 5), ("500/s", 50, 25)];
pub const DEFAULT_SPEED: usize = 3;

/// "Run to the end" takes at most this many steps per timer turn, and stops
/// a turn early once it has taken [`CHUNK_MS`], so the page never freezes
/// however long the script; it redraws at most every [`REDRAW_MS`].
pub const END_CHUNK: u64 = 2000;
pub const CHUNK_MS: f64 = 50.0;
/// The first turn (the click itself) may take longer, so that a short
/// script is at its end as soon as the page redraws; not longer than the
/// 100 ms within which a page should answer a click (it was 400 ms, and on
/// a 50-broker cluster the click froze the page for 357 ms).
pub const FIRST_CHUNK_MS: f64 = 100.0;
/// Steps taken between two looks at the clock in a chunk: a step of a big
/// cluster's failover can take milliseconds, and with a hundred between
/// looks a 50 ms chunk could run on well past its budget.
const STEPS_PER_CLOCK_READ: u64 = 8;
pub const REDRAW_MS: f64 = 400.0;

/// A clock in milliseconds (the page's in the browser).
pub fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64() * 1000.0
    }
}

/// Why a scenario could not be used, located when it has a line.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub line: Option<usize>,
    pub message: String,
}

#[derive(Clone)]
pub struct AppState {
    pub source: Source,
    /// How the scenario is named in messages: `zk-basics.kzs` or `#kzs`.
    pub file: String,
    pub text: Rc<str>,
    pub sandbox: Option<Rc<RefCell<Sandbox>>>,
    pub problem: Option<Problem>,
    /// Bumped by every change: what memoised views and props compare.
    pub version: u64,
    pub playing: bool,
    pub speed: usize,
    /// "Run to the end" is under way, in chunks.
    pub to_end: bool,
    /// The last console action that did not parse.
    pub console_error: Option<String>,
    /// Why the last dropped or picked file could not be opened.
    pub file_error: Option<String>,
    pub embed: bool,
    /// The panels an embed shows (`panels=`; empty: the default set).
    pub panels: Vec<Panel>,
    /// `from=`/`to=`: the timeline locked to these steps, for a figure.
    pub from: Option<u64>,
    pub to: Option<u64>,
    /// `autoplay=1`: play while the page is on screen. A learner who
    /// presses play or pause takes over from it.
    pub autoplay: bool,
    /// Whether the page is on screen and its tab visible (autoplay's cue).
    pub on_screen: bool,
    pub lang: Lang,
    /// The language the address named (kept in the permalink).
    pub lang_given: Option<Lang>,
    pub help: bool,
    /// When "run to the end" last redrew the page.
    pub last_redraw: f64,
    /// The step an address asked for (`&step=N`) while the page is still
    /// on its way there, in chunks like "run to the end": a far step of a
    /// big cluster takes seconds to simulate, and the page shows it coming
    /// instead of staying blank. Only while `to_end`; already within the
    /// locked range.
    pub goal: Option<u64>,
    /// The address's actions (`do=`) not yet taken again on the way to the
    /// goal, the next one last: each is taken when its step is reached, so
    /// that a far action is reached in chunks too.
    pub replaying: Vec<(u64, String)>,
    /// The time a chunk of "run to the end" (or of the way to the goal)
    /// may take, the first chunk of the way included: [`CHUNK_MS`]. Tests
    /// set 0, a chunk then being one clock read's steps, to see every turn
    /// of a long way on a small scenario.
    pub chunk_ms: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Forward,
    Back,
    Seek(u64),
    Reset,
    ToEnd,
    EndChunk,
    TogglePlay,
    Tick,
    SetSpeed(usize),
    /// A learner's action: any scenario action line.
    Act(String),
    Load(Source, String),
    /// Re-read the whole address (it changed under us: `hashchange`).
    Reload(Address),
    /// The page came on screen (true) or left it, or its tab was hidden.
    OnScreen(bool),
    /// The language switch: the interface language, kept in the permalink.
    SetLang(Lang),
    /// A file the learner dropped or picked: a scenario or a trace, or why
    /// it could not be read.
    Open(Result<crate::files::Opened, String>),
    Help(Option<bool>),
    /// The guided tour's "Next": a bounded chunk of steps (at most
    /// [`END_CHUNK`] and [`CHUNK_MS`]) towards the first step of scenario
    /// line `n`; the tour sends it again until `View.line` reaches `n`.
    StepToLine(usize),
}

/// What panels receive: the view at one version, and the sandbox for the
/// trace. Equal when the version and the view are (the same version seen
/// through another partition window is another view).
#[derive(Clone)]
pub struct Snap {
    pub version: u64,
    pub view: Rc<View>,
    pub sandbox: Rc<RefCell<Sandbox>>,
}

impl PartialEq for Snap {
    fn eq(&self, other: &Snap) -> bool {
        self.version == other.version && Rc::ptr_eq(&self.view, &other.view) && Rc::ptr_eq(&self.sandbox, &other.sandbox)
    }
}

impl AppState {
    /// The state the address asks for.
    pub fn from_address(address: &Address) -> AppState {
        let (source, file, text) = match (&address.kzs, &address.scenario) {
            (Some(Ok(text)), _) => (Source::Text, "#kzs".to_string(), Ok(text.clone())),
            (Some(Err(message)), _) => (Source::Text, "#kzs".to_string(), Err(message.clone())),
            (None, name) => {
                let name = name.clone().unwrap_or_else(|| scenarios::default_name().to_string());
                let text = scenarios::find(&name).map(str::to_string).ok_or_else(|| {
                    let names: Vec<_> = scenarios::built_ins().into_iter().map(|(n, _)| n).collect();
                    format!("there is no built-in scenario named '{name}'; the built-ins are {}", names.join(", "))
                });
                (Source::BuiltIn(name.clone()), format!("{name}.kzs"), text)
            }
        };
        let mut state = AppState {
            source,
            file,
            text: Rc::from(""),
            sandbox: None,
            problem: None,
            version: 0,
            playing: false,
            speed: DEFAULT_SPEED,
            to_end: false,
            console_error: None,
            file_error: None,
            embed: address.embed,
            panels: address.panels.clone(),
            from: address.from,
            to: address.to.map(|to| to.max(address.from.unwrap_or(0))),
            autoplay: address.autoplay,
            on_screen: false,
            lang: address.lang.unwrap_or_else(Lang::preferred),
            lang_given: address.lang,
            help: false,
            last_redraw: 0.0,
            goal: None,
            replaying: Vec::new(),
            chunk_ms: CHUNK_MS,
        };
        match text {
            Err(message) => state.problem = Some(Problem { line: None, message }),
            Ok(text) => {
                state.load_text(text);
                state.replay(&address.actions, address.step.unwrap_or(0));
            }
        }
        state
    }

    /// Takes the learner's actions again, each after its step, then goes to
    /// `step`: a permalink's or a downloaded trace's state, rebuilt. What is
    /// not yet simulated is reached within a chunk or, failing that, chunk
    /// by chunk ([`AppState::goal`]).
    fn replay(&mut self, actions: &[(u64, String)], step: u64) {
        if self.sandbox.is_none() {
            return;
        }
        self.replaying = actions.iter().rev().cloned().collect();
        self.go_to(step);
    }

    /// Goes to `step` (after the actions still to replay): at once when it
    /// has been simulated, else as far as a chunk takes it, and the rest
    /// chunk by chunk ([`Action::EndChunk`]). The page's first drawing
    /// follows in the same task: a chunk, not the click's longer first one.
    fn go_to(&mut self, step: u64) {
        let Some(cell) = self.sandbox.clone() else { return };
        self.goal = Some(self.clamp(step));
        if self.goal_chunk(&mut cell.borrow_mut(), self.chunk_ms) {
            self.stop_going();
        } else {
            self.to_end = true;
        }
    }

    /// Stops a run to the end, or the way to the address's step.
    fn stop_going(&mut self) {
        (self.to_end, self.goal) = (false, None);
        self.replaying.clear();
    }

    /// One chunk of the way to the goal: the replayed actions, each taken
    /// when its step is reached, then the goal itself. True when there;
    /// the actions after one that cannot be taken (its step is past the
    /// script's end, or it fails) are dropped, as a replay drops them.
    fn goal_chunk(&mut self, sandbox: &mut Sandbox, budget_ms: f64) -> bool {
        let Some(goal) = self.goal else { return true };
        let start = now_ms();
        let left = || budget_ms - (now_ms() - start);
        while let Some(&(at, _)) = self.replaying.last() {
            if !AppState::reach(sandbox, at, left()) {
                return false;
            }
            let action = self.replaying.pop().map(|(_, action)| action).unwrap_or_default();
            if sandbox.position() != at || sandbox.act(&action).is_err() {
                self.replaying.clear();
            }
        }
        AppState::reach(sandbox, goal, left())
    }

    /// Goes to `step`, seeking when it is simulated already; true when
    /// there (or at the script's end before it), false when out of time.
    fn reach(sandbox: &mut Sandbox, step: u64, budget_ms: f64) -> bool {
        if step <= sandbox.known_steps() {
            sandbox.seek(step);
            return true;
        }
        AppState::end_chunk(sandbox, Some(step), budget_ms)
    }

    /// Opens a dropped or picked file.
    fn open(&mut self, opened: Result<crate::files::Opened, String>) {
        use crate::files::Opened;
        match opened {
            Err(message) => self.file_error = Some(message),
            Ok(Opened::Scenario { file, text }) => {
                self.file_error = None;
                (self.source, self.file) = (Source::Text, file);
                self.load_text(text);
            }
            Ok(Opened::Replay { file, replay }) => {
                self.file_error = None;
                let built_in = replay.name.filter(|name| scenarios::find(name) == Some(replay.text.as_str()));
                (self.source, self.file) = match built_in {
                    Some(name) => (Source::BuiltIn(name.clone()), format!("{name}.kzs")),
                    None => (Source::Text, file),
                };
                self.load_text(replay.text);
                self.replay(&replay.actions, replay.step);
            }
        }
    }

    fn load_text(&mut self, text: String) {
        match Sandbox::load(&text) {
            Ok(sandbox) => {
                self.sandbox = Some(Rc::new(RefCell::new(sandbox)));
                self.problem = None;
            }
            Err(e) => {
                self.sandbox = None;
                self.problem = Some(Problem { line: Some(e.line), message: e.render(&self.file) });
            }
        }
        self.text = Rc::from(text);
        self.playing = false;
        self.stop_going();
        self.console_error = None;
    }

    /// The query and fragment that reopen this very state, when there is a
    /// sandbox to reopen.
    pub fn permalink(&self) -> Option<String> {
        self.link(self.lang_given, true)
    }

    /// The permalink of this state in another interface language.
    pub fn permalink_in(&self, lang: Lang) -> Option<String> {
        self.link(Some(lang), true)
    }

    /// This state in the full sandbox: no embed chrome, no locked range,
    /// no autoplay (what an embed's own links open, in a new tab).
    pub fn full_view_link(&self) -> Option<String> {
        self.link(self.lang_given, false)
    }

    fn link(&self, lang: Option<Lang>, dressed: bool) -> Option<String> {
        let sandbox = self.sandbox.as_ref()?.borrow();
        let mut link = Link {
            source: Some(&self.source),
            text: &self.text,
            step: sandbox.position(),
            actions: sandbox.timeline().injections(),
            lang,
            ..Link::default()
        };
        if dressed {
            (link.embed, link.panels, link.from, link.to, link.autoplay) = (self.embed, &self.panels, self.from, self.to, self.autoplay);
        }
        Some(crate::address::permalink(&link))
    }

    /// The first step of the locked range (0 when unlocked).
    pub fn first_step(&self) -> u64 {
        self.from.unwrap_or(0)
    }

    /// A step moved into the locked range.
    pub fn clamp(&self, step: u64) -> u64 {
        step.max(self.first_step()).min(self.to.unwrap_or(u64::MAX))
    }

    /// Whether the timeline stands at its last step: the locked range's end,
    /// or the script's.
    fn at_last(&self, sandbox: &Sandbox) -> bool {
        match self.to {
            Some(to) => sandbox.position() >= to || sandbox.end() == Some(sandbox.position()),
            None => sandbox.end() == Some(sandbox.position()),
        }
    }

    /// One chunk of "run to the end" (of the script, or of the locked range
    /// `to`); true when the end (or an error) is reached.
    fn end_chunk(sandbox: &mut Sandbox, to: Option<u64>, budget_ms: f64) -> bool {
        let limit = to.unwrap_or(u64::MAX);
        if sandbox.position() < sandbox.known_steps().min(limit) {
            sandbox.seek(sandbox.known_steps().min(limit));
        }
        if sandbox.end() == Some(sandbox.position()) || sandbox.position() >= limit {
            return true;
        }
        let start = now_ms();
        let mut taken = 0;
        while taken < END_CHUNK {
            let want = STEPS_PER_CLOCK_READ.min(limit - sandbox.position());
            let n = sandbox.run_for(want);
            if n < want || sandbox.position() >= limit {
                return true;
            }
            taken += n;
            if now_ms() - start > budget_ms {
                break;
            }
        }
        false
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        next.version += 1;
        if let Action::Load(source, text) = action {
            next.file = match &source {
                Source::BuiltIn(name) => format!("{name}.kzs"),
                Source::Text => "#kzs".to_string(),
            };
            next.source = source;
            next.load_text(text);
            return Rc::new(next);
        }
        if let Action::Reload(address) = action {
            let mut fresh = AppState::from_address(&address);
            fresh.version = next.version;
            fresh.speed = next.speed;
            fresh.on_screen = next.on_screen;
            fresh.playing = fresh.autoplay && fresh.on_screen;
            return Rc::new(fresh);
        }
        if let Action::SetLang(lang) = action {
            (next.lang, next.lang_given) = (lang, Some(lang));
            return Rc::new(next);
        }
        if let Action::Open(opened) = action {
            next.open(opened);
            return Rc::new(next);
        }
        if let Action::OnScreen(visible) = action {
            next.on_screen = visible;
            if next.autoplay {
                next.playing = visible && next.sandbox.is_some();
                next.stop_going();
            }
            return Rc::new(next);
        }
        if let Action::Help(show) = action {
            next.help = show.unwrap_or(!next.help);
            return Rc::new(next);
        }
        if let Action::SetSpeed(speed) = action {
            next.speed = speed.min(SPEEDS.len() - 1);
            return Rc::new(next);
        }
        let Some(cell) = next.sandbox.clone() else { return self };
        let mut sandbox = cell.borrow_mut();
        match action {
            Action::Forward => {
                if self.at_last(&sandbox) {
                    return self;
                }
                sandbox.step_forward();
            }
            Action::Back => {
                if sandbox.position() <= next.first_step() {
                    return self;
                }
                sandbox.step_back();
                next.playing = false;
                next.to_end = false;
            }
            Action::Seek(n) => {
                sandbox.seek(next.clamp(n));
                next.playing = false;
                next.to_end = false;
            }
            Action::Reset => {
                sandbox.seek(next.first_step());
                next.playing = false;
                next.to_end = false;
            }
            Action::ToEnd if next.to_end => {
                // Pressed again while running: stop where it got to.
                next.to_end = false;
            }
            Action::ToEnd => {
                next.playing = false;
                next.to_end = !AppState::end_chunk(&mut sandbox, next.to, FIRST_CHUNK_MS);
                next.last_redraw = now_ms();
            }
            Action::EndChunk => {
                if !next.to_end {
                    return self;
                }
                // A turn either simulates or redraws, not both: a redraw of
                // a big cluster far from its last one costs tens of
                // milliseconds, and after a chunk the two made one long task.
                if now_ms() - self.last_redraw < REDRAW_MS {
                    next.to_end = !match next.goal {
                        Some(_) => next.goal_chunk(&mut sandbox, next.chunk_ms),
                        None => AppState::end_chunk(&mut sandbox, next.to, next.chunk_ms),
                    };
                    // Keep going without redrawing (the same state: Yew
                    // renders nothing); the counter catches up at the next
                    // redraw. Not after a replayed action: the old state
                    // still holds it, and would take it again.
                    if next.to_end && next.replaying.len() == self.replaying.len() {
                        return self;
                    }
                }
                next.last_redraw = now_ms();
            }
            Action::TogglePlay => {
                // The learner takes over from autoplay.
                next.autoplay = false;
                if next.playing {
                    next.playing = false;
                } else {
                    if self.at_last(&sandbox) {
                        sandbox.seek(next.first_step());
                    }
                    next.playing = true;
                    next.to_end = false;
                }
            }
            Action::Tick => {
                if !next.playing {
                    return self;
                }
                let want = SPEEDS[next.speed].2.min(next.to.map_or(u64::MAX, |to| to.saturating_sub(sandbox.position())));
                if want == 0 || sandbox.run_for(want) == 0 {
                    if next.autoplay {
                        // A figure loops while it is on screen.
                        sandbox.seek(next.first_step());
                    } else {
                        next.playing = false;
                    }
                }
            }
            Action::StepToLine(line) => {
                let start = now_ms();
                let mut taken = 0;
                while sandbox.timeline().current().current_line() < line
                    && taken < END_CHUNK
                    && now_ms() - start < CHUNK_MS
                    && sandbox.step_forward()
                {
                    taken += 1;
                }
                next.playing = false;
                next.to_end = false;
            }
            Action::Act(text) => {
                let text = text.trim().to_string();
                if text.is_empty() {
                    return self;
                }
                match sandbox.act(&text) {
                    // The action runs once the records of the event being
                    // handed out are through; take those steps and the
                    // action's own first one, so that it shows at once.
                    Ok(()) => {
                        let mut guard = 0;
                        while sandbox.timeline().current().sim().has_pending_steps() && guard < 10_000 && sandbox.step_forward() {
                            guard += 1;
                        }
                        sandbox.step_forward();
                        next.console_error = None;
                    }
                    Err(e) => next.console_error = Some(format!("column {}: {}", e.col, e.message)),
                }
            }
            Action::Load(..)
            | Action::Reload(_)
            | Action::OnScreen(_)
            | Action::SetLang(_)
            | Action::Open(_)
            | Action::Help(_)
            | Action::SetSpeed(_) => {
                unreachable!("handled above")
            }
        }
        drop(sandbox);
        if !next.to_end {
            next.stop_going();
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::address;

    fn state(search: &str, fragment: &str) -> Rc<AppState> {
        Rc::new(AppState::from_address(&address::parse(search, fragment)))
    }

    fn position(s: &AppState) -> u64 {
        s.sandbox.as_ref().unwrap().borrow().position()
    }

    /// The page's chunks (at most a hundred) until it stops going.
    fn chunks_until_there(s: AppState) -> Rc<AppState> {
        let mut s = Rc::new(s);
        for _ in 0..100 {
            if !s.to_end {
                break;
            }
            s = s.reduce(Action::EndChunk);
        }
        s
    }

    #[test]
    fn the_default_opens_at_step_zero_and_steps() {
        let s = state("", "");
        assert!(s.problem.is_none());
        assert_eq!(s.source, Source::BuiltIn(scenarios::default_name().into()));
        assert_eq!(position(&s), 0);
        let s = s.reduce(Action::Forward).reduce(Action::Forward);
        assert_eq!(position(&s), 2);
        let v = s.version;
        let s = s.reduce(Action::Back);
        assert_eq!(position(&s), 1);
        assert!(s.version > v);
        let s = s.reduce(Action::Reset).reduce(Action::Back);
        assert_eq!(position(&s), 0);
    }

    #[test]
    fn step_and_actions_in_the_address_reproduce_the_state() {
        let s = state("?scenario=zk-basics&step=5", "");
        assert_eq!(position(&s), 5);
        // Act after step 3, then go on: the permalink says so and reopens it.
        let s = state("?scenario=zk-basics&step=3", "").reduce(Action::Act("zk admin create /learner hello".into()));
        assert_eq!(s.console_error, None);
        assert_eq!(position(&s), 4);
        let s = s.reduce(Action::Forward).reduce(Action::Forward);
        let link = s.permalink().unwrap();
        assert!(link.contains("step=6") && link.contains("do=3."), "{link}");
        let again = state(&link, "");
        assert_eq!(position(&again), 6);
        let (a, b) = (s.sandbox.as_ref().unwrap().borrow().view(), again.sandbox.as_ref().unwrap().borrow().view());
        assert!(b.znodes.iter().any(|z| &*z.path == "/learner"));
        assert_eq!(a.znodes.len(), b.znodes.len());
    }

    #[test]
    fn acting_after_stepping_back_branches_the_future() {
        let s = state("?scenario=zk-basics", "").reduce(Action::ToEnd);
        let end = position(&s);
        assert!(end > 5);
        let s = s.reduce(Action::Seek(2)).reduce(Action::Act("zk admin create /branch x".into()));
        assert_eq!(position(&s), 3);
        assert_eq!(s.sandbox.as_ref().unwrap().borrow().known_steps(), 3, "the old future is forgotten");
        let s = s.reduce(Action::ToEnd);
        assert!(s.sandbox.as_ref().unwrap().borrow().view().znodes.iter().any(|z| &*z.path == "/branch"));
    }

    #[test]
    fn console_errors_are_kept_and_time_commands_refused() {
        let s = state("", "").reduce(Action::Act("frobnicate".into()));
        assert!(s.console_error.is_some());
        assert_eq!(position(&s), 0);
        let s = s.reduce(Action::Act("run 5s".into()));
        assert!(s.console_error.as_deref().unwrap().contains("step and play"), "{:?}", s.console_error);
        let v = s.version;
        assert_eq!(s.clone().reduce(Action::Act("   ".into())).version, v, "blank lines do nothing");
    }

    #[test]
    fn play_ticks_until_the_end() {
        let s = state("?scenario=zk-basics", "").reduce(Action::SetSpeed(5)).reduce(Action::TogglePlay);
        assert!(s.playing);
        let mut s = s.reduce(Action::Tick);
        assert_eq!(position(&s), SPEEDS[5].2);
        for _ in 0..100 {
            s = s.reduce(Action::Tick);
        }
        assert!(!s.playing, "play stops at the end");
        let end = position(&s);
        // Play at the end starts again from the beginning.
        let s = s.reduce(Action::TogglePlay).reduce(Action::Tick);
        assert!(position(&s) < end);
        let s = s.reduce(Action::TogglePlay);
        assert!(!s.playing);
    }

    #[test]
    fn errors_are_located_and_the_state_stays_usable() {
        let s = state("?scenario=nope", "");
        let p = s.problem.clone().unwrap();
        assert_eq!(p.line, None);
        assert!(p.message.contains("zk-basics"), "{}", p.message);
        // Stepping without a sandbox changes nothing and does not panic.
        let s = s.reduce(Action::Forward).reduce(Action::ToEnd);
        assert!(s.sandbox.is_none());
        assert_eq!(s.permalink(), None);

        let s = state("", &format!("#kzs={}", address::encode_base64url(b"zk-session a\nfrobnicate")));
        let p = s.problem.clone().unwrap();
        assert_eq!(p.line, Some(2));
        assert!(p.message.starts_with("#kzs:2:"), "{}", p.message);
        // Fixing it in the editor loads it.
        let s = s.reduce(Action::Load(Source::Text, "zk-session a\nzk a create /x hi".into()));
        assert!(s.problem.is_none());
        assert!(s.sandbox.is_some());
        assert!(s.permalink().unwrap().starts_with("#kzs="));
    }

    #[test]
    fn a_locked_range_bounds_every_move() {
        let s = state("?scenario=controller-failover&from=5&to=9", "");
        assert_eq!(position(&s), 5, "a figure opens at its first step");
        let s = s.reduce(Action::Back);
        assert_eq!(position(&s), 5);
        let s = s.reduce(Action::Seek(100));
        assert_eq!(position(&s), 9);
        let v = s.version;
        let s = s.reduce(Action::Forward);
        assert_eq!((position(&s), s.version), (9, v), "nothing past the range");
        let s = s.reduce(Action::Reset);
        assert_eq!(position(&s), 5);
        let s = s.reduce(Action::ToEnd);
        assert_eq!((position(&s), s.to_end), (9, false));
        // Play stops at the range's end; played again, it starts over.
        let mut s = s.reduce(Action::Seek(7)).reduce(Action::SetSpeed(6)).reduce(Action::TogglePlay);
        for _ in 0..3 {
            s = s.reduce(Action::Tick);
        }
        assert_eq!((position(&s), s.playing), (9, false));
        let s = s.reduce(Action::TogglePlay);
        assert_eq!(position(&s), 5);
        // The permalink keeps the range; the full view drops it.
        let link = s.permalink().unwrap();
        assert!(link.contains("from=5&to=9"), "{link}");
        assert!(!s.full_view_link().unwrap().contains("from="));
        // A step asked for outside the range is brought into it.
        assert_eq!(position(&state("?scenario=controller-failover&from=5&to=9&step=30", "")), 9);
    }

    #[test]
    fn a_far_step_is_reached_in_chunks_and_the_learner_can_stop_it() {
        // No time to spare: the page opens after one batch of steps and
        // goes on chunk by chunk (a far step of a big cluster, in the page).
        let mut s = (*state("?scenario=controller-failover", "")).clone();
        s.chunk_ms = 0.0;
        s.go_to(30);
        assert_eq!((s.goal, s.to_end), (Some(30), true));
        assert!(position(&s) < 30, "at {}", position(&s));
        let s = chunks_until_there(s);
        assert_eq!((position(&s), s.to_end, s.goal), (30, false, None), "it stops at the step asked for");
        let at_once = state("?scenario=controller-failover&step=30", "");
        assert_eq!(s.sandbox.as_ref().unwrap().borrow().view(), at_once.sandbox.as_ref().unwrap().borrow().view());
        // Pressing "run to the end" on the way stops there, as it stops a run.
        let mut s = (*state("?scenario=controller-failover", "")).clone();
        s.chunk_ms = 0.0;
        s.go_to(30);
        let s = Rc::new(s).reduce(Action::ToEnd);
        assert_eq!((s.to_end, s.goal), (false, None));
        assert!(position(&s) < 30);
        // A locked range's end still bounds it.
        let mut s = (*state("?scenario=controller-failover&from=5&to=9", "")).clone();
        s.chunk_ms = 0.0;
        s.go_to(9);
        let s = Rc::new(s).reduce(Action::EndChunk);
        assert_eq!((position(&s), s.to_end), (9, false));
    }

    #[test]
    fn a_far_action_in_the_address_is_replayed_in_chunks() {
        let acted = state("?scenario=controller-failover&step=20", "").reduce(Action::Act("kill broker 2".into()));
        assert_eq!(acted.console_error, None);
        let acted = acted.reduce(Action::Seek(30));
        let link = acted.permalink().unwrap();
        assert!(link.contains("do=20."), "{link}");
        let at_once = state(&link, "");
        // No time to spare: the action waits for its step, chunk by chunk.
        let mut s = (*state("?scenario=controller-failover", "")).clone();
        s.chunk_ms = 0.0;
        s.replay(acted.sandbox.as_ref().unwrap().borrow().timeline().injections(), 30);
        assert_eq!((s.goal, s.to_end, s.replaying.len()), (Some(30), true, 1));
        assert!(position(&s) < 20, "at {}", position(&s));
        let s = chunks_until_there(s);
        assert_eq!((position(&s), s.to_end, s.goal, s.replaying.len()), (30, false, None, 0));
        assert_eq!(s.sandbox.as_ref().unwrap().borrow().view(), at_once.sandbox.as_ref().unwrap().borrow().view());
        assert_eq!(s.permalink(), at_once.permalink(), "the same state, the same link");
        // Stopped on the way, the actions not yet taken are dropped with the goal.
        let mut s = (*state("?scenario=controller-failover", "")).clone();
        s.chunk_ms = 0.0;
        s.replay(&[(20, "kill broker 2".into())], 30);
        let s = Rc::new(s).reduce(Action::ToEnd);
        assert_eq!((s.to_end, s.goal, s.replaying.len()), (false, None, 0));
    }

    #[test]
    fn autoplay_follows_the_screen_and_loops() {
        let s = state("?scenario=zk-basics&autoplay=1&from=1&to=4", "");
        assert!(!s.playing, "nothing plays before the page is seen");
        let s = s.reduce(Action::OnScreen(true));
        assert!(s.playing);
        let mut s = s.reduce(Action::SetSpeed(6));
        for _ in 0..2 {
            s = s.reduce(Action::Tick);
        }
        assert!(s.playing && position(&s) == 1, "at the range's end a figure starts over: {}", position(&s));
        let s = s.reduce(Action::OnScreen(false));
        assert!(!s.playing, "off screen, it pauses");
        let s = s.reduce(Action::OnScreen(true)).reduce(Action::TogglePlay);
        assert!(!s.playing && !s.autoplay, "the learner's pause wins");
        assert!(!s.reduce(Action::OnScreen(true)).playing);
    }

    #[test]
    fn the_language_switch_keeps_the_place() {
        let s = state("?scenario=zk-basics&step=4", "").reduce(Action::SetLang(Lang::Zh));
        assert_eq!((s.lang, position(&s)), (Lang::Zh, 4));
        assert!(s.permalink().unwrap().contains("lang=zh"));
    }

    #[test]
    fn a_downloaded_trace_reopens_its_state() {
        let s = state("?scenario=zk-basics&step=3", "").reduce(Action::Act("zk admin create /learner hi".into()));
        let s = s.reduce(Action::Forward);
        let (trace, replay) = {
            let sandbox = s.sandbox.as_ref().unwrap().borrow();
            let replay = crate::files::Replay {
                name: Some("zk-basics".into()),
                text: s.text.to_string(),
                actions: sandbox.timeline().injections().to_vec(),
                step: sandbox.position(),
            };
            (crate::files::trace_jsonl(&sandbox.trace()[..sandbox.position() as usize], &replay), replay)
        };
        let opened = crate::files::open("zk-basics.trace.json", &trace);
        let back = state("", "").reduce(Action::Open(opened));
        assert_eq!(back.file_error, None);
        assert_eq!(back.source, Source::BuiltIn("zk-basics".into()));
        assert_eq!(position(&back), replay.step);
        assert!(back.sandbox.as_ref().unwrap().borrow().view().znodes.iter().any(|z| &*z.path == "/learner"));
        let bad = back.reduce(Action::Open(Err("nope.bin could not be read as text".into())));
        assert!(bad.file_error.is_some() && bad.sandbox.is_some(), "a bad file leaves the page as it was");
    }

    #[test]
    fn to_end_runs_in_bounded_chunks() {
        // A long script: 2000 steps is not enough for it.
        let text = "zk-session a\n".to_string() + &"zk a ls /\n".repeat(3000);
        let s = Rc::new(AppState { ..(*state("", &format!("#kzs={}", address::encode_base64url(text.as_bytes())))).clone() });
        let mut s = s.reduce(Action::ToEnd);
        assert!(s.to_end);
        assert!((100..=END_CHUNK).contains(&position(&s)), "{}", position(&s));
        let mut turns = 1;
        while s.to_end {
            s = s.reduce(Action::EndChunk);
            turns += 1;
        }
        assert!(turns >= 2);
        assert_eq!(position(&s), 3001);
        // Back at 0, "to end" jumps over the known steps first.
        let s = s.reduce(Action::Reset).reduce(Action::ToEnd);
        assert!(!s.to_end);
        assert_eq!(position(&s), 3001);
    }
}
