//! The current step's explanation, the `expect` checkpoints and the event
//! log (filter by actor and kind; click an entry to go to it).

use crate::format;
use crate::i18n::Lang;
use crate::state::{Action, Snap};
use crate::viewport::VirtualList;
use std::collections::BTreeSet;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// The log shows the steps to come (greyed: what the script does next) up
/// to the next multiple of this, and one more of it.
const FUTURE: u64 = 100;

#[derive(Properties, PartialEq)]
pub struct EventsProps {
    pub snap: Snap,
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[function_component(Explanation)]
pub fn explanation(p: &EventsProps) -> Html {
    let view = &p.snap.view;
    let Some(e) = &view.current else {
        return html! {
            <section class="kz-panel kz-explain" aria-labelledby="kz-explain-h" data-testid="explanation">
                <h2 id="kz-explain-h" class="kz-panel-title">{ p.lang.t("This step") }</h2>
                <p class="kz-muted">{ p.lang.t("Before the first step.") }{ p.lang.t(" Press → to take the first step, Space to play.") }</p>
            </section>
        };
    };
    let detail = e.detail.value();
    let pairs = format::detail_pairs(&detail);
    html! {
        <section class="kz-panel kz-explain" aria-labelledby="kz-explain-h" data-testid="explanation">
            <h2 id="kz-explain-h" class="kz-panel-title">
                { p.lang.t("This step") }
                <span class="kz-panel-note">{ format!("{} · ", p.lang.step_n(e.step)) }<span translate="no">{ format!("t = {}", format::clock(e.time_ms)) }</span></span>
            </h2>
            <p class="kz-explain-head">
                <span class={classes!("kz-chip", format::actor_class(&e.actor))} translate="no">{ &e.actor }</span>
                <span class="kz-kind" title={e.kind.clone()}>{ p.lang.word(&e.kind) }</span>
                <code class="kz-source" translate="no">{ &e.source }</code>
                if let (Some(n), Some(of)) = (detail.get("step").and_then(|v| v.as_u64()), detail.get("of").and_then(|v| v.as_u64())) {
                    <span class="kz-method-step" data-testid="method-step">{ p.lang.step_of(n, of) }</span>
                }
            </p>
            <p class="kz-summary" data-testid="step-summary">{ p.lang.summary(&e.kind, &e.summary) }</p>
            if !format::source_explanation_in(p.lang, &e.source).is_empty() {
                <p class="kz-why kz-why-method" data-testid="method-explanation">{ crate::i18n::rich(format::source_explanation_in(p.lang, &e.source)) }</p>
            }
            <p class="kz-why">{ crate::i18n::rich(format::kind_explanation_in(p.lang, &e.kind)) }</p>
            if !pairs.is_empty() {
                <dl class="kz-detail-pairs" translate="no">
                    { for pairs.into_iter().map(|(k, v)| html! { <><dt>{ k }</dt><dd>{ v }</dd></> }) }
                </dl>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct CheckpointsProps {
    pub snap: Snap,
    pub text: std::rc::Rc<str>,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// The script's `expect` lines: green or red once the timeline has passed
/// them, grey before.
#[function_component(Checkpoints)]
pub fn checkpoints(p: &CheckpointsProps) -> Html {
    let lines: Vec<(usize, &str)> =
        p.text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| l.starts_with("expect ")).collect();
    if lines.is_empty() {
        return Html::default();
    }
    let outcomes = &p.snap.view.expectations;
    html! {
        <section class="kz-panel kz-checks" aria-labelledby="kz-checks-h">
            <h2 id="kz-checks-h" class="kz-panel-title">{ p.lang.t("Checkpoints") }
                <span class="kz-panel-note">{ format!("{} / {}", outcomes.iter().filter(|o| o.passed).count(), lines.len()) }</span>
            </h2>
            <ol class="kz-plain kz-check-list">
                { for lines.iter().map(|(line, text)| {
                    let outcome = outcomes.iter().find(|o| o.line == *line);
                    let (status, mark) = match outcome {
                        Some(o) if o.passed => ("passed", "✓"),
                        Some(_) => ("failed", "✗"),
                        None => ("pending", "○"),
                    };
                    let go = outcome.map(|o| {
                        let (on, step) = (p.on.clone(), o.step);
                        Callback::from(move |_: MouseEvent| on.emit(Action::Seek(step)))
                    });
                    html! {
                        <li class={classes!("kz-check", format!("kz-check-{status}"))} data-testid="checkpoint" data-status={status} data-line={line.to_string()}>
                            <span class="kz-check-mark" aria-label={p.lang.t(status)}>{ mark }</span>
                            <span class="kz-lineno">{ line }</span>
                            <code translate="no">{ *text }</code>
                            if let Some(o) = outcome {
                                <button class="kz-link" onclick={go} aria-label={p.lang.f("go to step {}", &[&o.step])}>{ format!("#{}", o.step) }</button>
                                if !o.passed {
                                    <span class="kz-actual">{ format!(" {}: ", p.lang.t("actual")) }<span translate="no">{ o.actual.to_string() }</span></span>
                                }
                            }
                        </li>
                    }
                }) }
            </ol>
        </section>
    }
}

/// Past this many entries the log is a virtual list (rows of one height,
/// only those near the view drawn); up to it every entry is in the page,
/// as the UI contract's `event-log` promises.
const VIRTUAL_FROM: usize = 1000;

#[function_component(EventLog)]
pub fn event_log(p: &EventsProps) -> Html {
    let actor_filter = use_state(String::new);
    let kind_filter = use_state(String::new);
    let list_ref = use_node_ref();
    let follower = use_mut_ref(|| None::<crate::dom::KeepInView>);
    let seen = crate::dom::use_on_screen(&list_ref);
    let virtual_list = use_mut_ref(VirtualLog::default);
    let redraw = use_force_update();
    let sandbox = p.snap.sandbox.borrow();
    let trace = sandbox.trace();
    let position = sandbox.position();
    // The filters' choices and the steps they keep, brought up to date with
    // the entries the trace gained since the last drawing.
    let branch = format::branch_of(sandbox.timeline().injections());
    let index = use_mut_ref(LogIndex::default);
    index.borrow_mut().update((SandboxRef(p.snap.sandbox.clone()), branch), trace, &actor_filter, &kind_filter);
    let index = index.borrow();
    let (actors, kinds, kept) = (&index.actors, &index.kinds, &index.kept);
    // The log shows the steps so far and the next hundred or two, greyed.
    // Its end moves a hundred steps at a time: a list that grew by an entry
    // at every step changed its scrolled extent, and the browser painted and
    // layerized the whole list again (most of a small scenario's frame).
    let horizon = (position / FUTURE + 2) * FUTURE;
    let shown = &kept[..kept.partition_point(|&s| s <= horizon)];
    let virtual_mode = shown.len() > VIRTUAL_FROM;
    let item = |step: u64| {
        let when = match step.cmp(&position) {
            std::cmp::Ordering::Greater => When::Future,
            std::cmp::Ordering::Equal => When::Current,
            std::cmp::Ordering::Less => When::Past,
        };
        html! { <EventItem key={step} sandbox={SandboxRef(p.snap.sandbox.clone())} {branch} {step} {when} clipped={virtual_mode} lang={p.lang} on={p.on.clone()} /> }
    };
    let entries = if virtual_mode {
        *follower.borrow_mut() = None;
        let mut list = virtual_list.borrow_mut();
        let mut drawn = list.follow(kept, index.version, shown.len(), position);
        // Out of view a long log draws no rows at all, only its height (a
        // seek on a big cluster redrew sixty rows nobody saw); it draws them
        // when it comes into view.
        if !seen.get() {
            drawn = drawn.start..drawn.start;
            list.list.drawn = drawn.clone();
        }
        let viewport = list.list.viewport;
        let (above, below) = (viewport.extent(drawn.start).round() as i64, viewport.extent(shown.len() - drawn.end).round() as i64);
        html! { <>
            <li key="above" class="kz-event-spacer" aria-hidden="true" style={format!("height:{above}px")}></li>
            { for shown[drawn].iter().map(|&s| item(s)) }
            <li key="below" class="kz-event-spacer" aria-hidden="true" style={format!("height:{below}px")}></li>
        </> }
    } else {
        // A list drawn whole again: a virtual one later starts afresh.
        *virtual_list.borrow_mut() = VirtualLog::default();
        html! { for shown.iter().map(|&s| item(s)) }
    };
    {
        // A short list follows the current entry with an observer, scrolling
        // only when it leaves the view: a scroll makes the browser repaint
        // and hit-test the whole list (issue 9). A virtual list has chosen
        // its scroll as it was drawn (`VirtualList::follow`) and applies it.
        //
        // Out of view the log does not scroll at all: a scroll makes the
        // browser lay the list out, a list in a panel out of view (skipped
        // by `content-visibility`) just for it, at every step (4-6 ms of
        // a small scenario's step, 10-20 ms of a big cluster's seek). It
        // catches up when it comes into view.
        let (list_ref, virtual_list, redraw) = (list_ref.clone(), virtual_list.clone(), redraw.clone());
        use_effect(move || {
            let Some(list) = list_ref.cast::<web_sys::Element>() else { return };
            let visible = seen.get();
            if virtual_mode {
                if visible && virtual_list.borrow_mut().settle(&list) {
                    redraw.force_update();
                }
                return;
            }
            let mut follower = follower.borrow_mut();
            if !visible {
                if let Some(f) = &*follower {
                    f.pause();
                }
                return;
            }
            if follower.is_none() {
                *follower = crate::dom::KeepInView::new(&list);
            }
            match (list.query_selector(".kz-event-current").ok().flatten(), &*follower) {
                (Some(current), Some(follower)) => follower.follow(&current),
                (Some(current), None) => current.scroll_into_view(),
                (None, _) => crate::dom::scroll_to_bottom(&list),
            }
        });
    }
    let onscroll = {
        let (virtual_list, count) = (virtual_list.clone(), shown.len());
        Callback::from(move |e: Event| {
            if virtual_mode && virtual_list.borrow_mut().list.scrolled(&e.target_unchecked_into(), count) {
                redraw.force_update();
            }
        })
    };
    let select =
        |state: UseStateHandle<String>| Callback::from(move |e: Event| state.set(e.target_unchecked_into::<HtmlSelectElement>().value()));
    let t = |s| p.lang.t(s);
    html! {
        <section class="kz-panel kz-log" aria-labelledby="kz-log-h">
            <h2 id="kz-log-h" class="kz-panel-title">{ t("Event log") }
                <span class="kz-filters">
                    <select aria-label={t("Filter by actor")} onchange={select(actor_filter.clone())}>
                        <option value="" selected={actor_filter.is_empty()}>{ t("all actors") }</option>
                        { for actors.iter().map(|a| html! { <option value={a.to_string()} selected={*a == *actor_filter} translate="no">{ a.clone() }</option> }) }
                    </select>
                    <select aria-label={t("Filter by kind")} onchange={select(kind_filter.clone())}>
                        <option value="" selected={kind_filter.is_empty()}>{ t("all kinds") }</option>
                        { for kinds.iter().map(|k| html! { <option value={k.to_string()} selected={*k == kind_filter.as_str()}>{ p.lang.word(k) }</option> }) }
                    </select>
                </span>
            </h2>
            <ol class={classes!("kz-events", virtual_mode.then_some("kz-events-virtual"))} data-testid="event-log" ref={list_ref} aria-label={t("Event log")} {onscroll}>
                { entries }
            </ol>
        </section>
    }
}

/// The event log's filter choices (every actor family and kind in the
/// trace) and the steps its filters keep, kept up to date as the trace
/// grows. On one sandbox and branch a trace only grows, and at its end a
/// step adds an entry: gathering them all again at each such step was 20-40
/// ms of a big cluster's step (80,000 entries; issue 9), as it is of every
/// step the first time through, played or clicked. Another sandbox or
/// branch starts it afresh; other filters, the kept steps.
#[derive(Default)]
struct LogIndex {
    of: Option<(SandboxRef, u64)>,
    /// The entries gathered into `actors` and `kinds`.
    gathered: usize,
    actors: BTreeSet<String>,
    kinds: BTreeSet<String>,
    /// The filters `kept` is for (actor family, kind; empty: any), and the
    /// entries it has looked at.
    filters: (String, String),
    looked: usize,
    kept: Vec<u64>,
    /// Moves whenever `kept` changes.
    version: u64,
}

impl LogIndex {
    fn update(&mut self, of: (SandboxRef, u64), trace: &[kzsim::trace::TraceEntry], actor: &str, kind: &str) {
        if self.of.as_ref() != Some(&of) || trace.len() < self.gathered {
            *self = LogIndex { of: Some(of), version: self.version + 1, ..LogIndex::default() };
        }
        for e in &trace[self.gathered..] {
            let family = format::actor_family(&e.actor);
            if !self.actors.contains(family) {
                self.actors.insert(family.to_string());
            }
            if !self.kinds.contains(&*e.kind) {
                self.kinds.insert(e.kind.to_string());
            }
        }
        self.gathered = trace.len();
        if (self.filters.0.as_str(), self.filters.1.as_str()) != (actor, kind) || trace.len() < self.looked {
            self.filters = (actor.to_string(), kind.to_string());
            self.looked = 0;
            self.kept.clear();
            self.version += 1;
        }
        let before = self.kept.len();
        let keep = |e: &&kzsim::trace::TraceEntry| {
            (actor.is_empty() || format::actor_family(&e.actor) == actor) && (kind.is_empty() || e.kind == kind)
        };
        self.kept.extend(trace[self.looked..].iter().filter(keep).map(|e| e.step));
        self.looked = trace.len();
        if self.kept.len() != before {
            self.version += 1;
        }
    }
}

/// A long log's scroll, and the position it last followed.
struct VirtualLog {
    list: VirtualList,
    /// The position it last followed, in which list of kept steps (by
    /// [`LogIndex::version`]: other filters, or more steps, another list).
    followed: Option<(u64, u64)>,
}

impl Default for VirtualLog {
    fn default() -> VirtualLog {
        VirtualLog { list: VirtualList::new(".kz-event"), followed: None }
    }
}

impl VirtualLog {
    /// The rows to draw now of the first `shown` of `kept`. When the
    /// timeline has moved since the last drawing (or the filters changed)
    /// and its entry is out of view, the list scrolls to it first, so that a
    /// step draws the rows it will show in one go.
    fn follow(&mut self, kept: &[u64], version: u64, shown: usize, position: u64) -> std::ops::Range<usize> {
        if self.followed != Some((position, version)) {
            self.followed = Some((position, version));
            self.list.reveal(kept[..shown].partition_point(|&s| s < position).min(shown.saturating_sub(1)));
        }
        self.list.draw(shown)
    }

    /// After a drawing: true when the first measure calls for drawing
    /// again, following afresh.
    fn settle(&mut self, list: &web_sys::Element) -> bool {
        let changed = self.list.settle(list);
        if changed {
            self.followed = None;
        }
        changed
    }
}

/// Where an entry stands against the timeline's position.
#[derive(Clone, Copy, PartialEq)]
pub enum When {
    Past,
    Current,
    Future,
}

/// The sandbox, compared by identity: an entry re-renders only when a
/// different scenario is loaded, never because the sandbox moved on.
#[derive(Clone)]
pub struct SandboxRef(pub std::rc::Rc<std::cell::RefCell<kzsim::sandbox::Sandbox>>);

impl PartialEq for SandboxRef {
    fn eq(&self, other: &SandboxRef) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Properties, PartialEq)]
pub struct EventItemProps {
    pub sandbox: SandboxRef,
    /// Which branch of the future the trace is on (the learner's actions,
    /// hashed): the same step on another branch is another entry.
    pub branch: u64,
    pub step: u64,
    pub when: When,
    /// Drawn in a virtual list: one line, its summary cut short (the whole
    /// of it in the tooltip).
    pub clipped: bool,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// One entry of the log: a component of its own, so that a step redraws
/// only the entries whose place changed (the one that was current, the one
/// that is), not a thousand (issue 9).
#[function_component(EventItem)]
fn event_item(p: &EventItemProps) -> Html {
    let sandbox = p.sandbox.0.borrow();
    let Some(e) = sandbox.trace().get(p.step as usize - 1) else { return Html::default() };
    let step = p.step;
    let go = {
        let on = p.on.clone();
        Callback::from(move |_: MouseEvent| on.emit(Action::Seek(step)))
    };
    let (current, future) = (p.when == When::Current, p.when == When::Future);
    let class =
        classes!("kz-event", format::actor_class(&e.actor), current.then_some("kz-event-current"), future.then_some("kz-event-future"));
    let label = p.lang.f("go to step {}: {}", &[&step, &p.lang.summary_text(&e.kind, &e.summary)]);
    let body = html! {
        <button class="kz-event-btn" onclick={go} aria-label={label.clone()} title={p.clipped.then_some(label)}>
            <span class="kz-event-step">{ step }</span>
            <span class="kz-event-time">{ format::clock(e.time_ms) }</span>
            <span class="kz-event-actor" translate="no">{ &e.actor }</span>
            <span class="kz-event-summary">{ p.lang.summary(&e.kind, &e.summary) }</span>
            <code class="kz-event-source" translate="no">{ &e.source }</code>
        </button>
    };
    if future {
        html! { <li {class} data-step={step.to_string()} data-future="true">{ body }</li> }
    } else {
        html! { <li {class} data-testid="event" data-step={step.to_string()} data-kind={e.kind.clone()} aria-current={current.then_some("step")}>{ body }</li> }
    }
}

#[cfg(test)]
mod tests {
    use super::{LogIndex, SandboxRef};
    use crate::format;
    use kzsim::sandbox::Sandbox;
    use kzsim::trace::TraceEntry;
    use std::cell::RefCell;
    use std::collections::BTreeSet;
    use std::rc::Rc;

    /// What the index must hold: the choices and kept steps of the whole trace.
    fn from_scratch(trace: &[TraceEntry], actor: &str, kind: &str) -> (BTreeSet<String>, BTreeSet<String>, Vec<u64>) {
        let actors = trace.iter().map(|e| format::actor_family(&e.actor).to_string()).collect();
        let kinds = trace.iter().map(|e| e.kind.to_string()).collect();
        let kept = trace
            .iter()
            .filter(|e| (actor.is_empty() || format::actor_family(&e.actor) == actor) && (kind.is_empty() || e.kind == kind))
            .map(|e| e.step)
            .collect();
        (actors, kinds, kept)
    }

    fn check(index: &LogIndex, trace: &[TraceEntry], actor: &str, kind: &str) {
        let (actors, kinds, kept) = from_scratch(trace, actor, kind);
        assert_eq!(
            (&index.actors, &index.kinds, &index.kept),
            (&actors, &kinds, &kept),
            "{} entries, filters {actor:?} {kind:?}",
            trace.len()
        );
    }

    #[test]
    fn the_index_grows_with_the_trace_as_if_gathered_afresh() {
        let text = crate::scenarios::find("controller-failover").expect("a built-in scenario");
        let sandbox = Rc::new(RefCell::new(Sandbox::load(text).unwrap()));
        let of = || (SandboxRef(sandbox.clone()), 1);
        let mut index = LogIndex::default();
        let filters = [("", ""), ("broker-1", ""), ("", "zk-request"), ("zk", "zk-session")];
        let mut versions = BTreeSet::new();
        for n in 0..400 {
            let (actor, kind) = filters[(n / 50) % filters.len()];
            let s = sandbox.borrow();
            index.update(of(), s.trace(), actor, kind);
            check(&index, s.trace(), actor, kind);
            versions.insert(index.version);
            drop(s);
            if !sandbox.borrow_mut().step_forward() {
                break;
            }
        }
        assert!(versions.len() > 10, "the kept steps changed as the trace grew");
        // Back in time the trace stays whole; on another branch it starts
        // afresh, shorter than what was gathered.
        sandbox.borrow_mut().seek(20);
        index.update(of(), sandbox.borrow().trace(), "", "");
        check(&index, sandbox.borrow().trace(), "", "");
        sandbox.borrow_mut().act("kill broker 1").unwrap();
        let s = sandbox.borrow();
        index.update((SandboxRef(sandbox.clone()), 2), s.trace(), "", "");
        check(&index, s.trace(), "", "");
        // Another sandbox: afresh too.
        let other = Rc::new(RefCell::new(Sandbox::load("zk-session a\nzk a create /a 1\n").unwrap()));
        while other.borrow_mut().step_forward() {}
        index.update((SandboxRef(other.clone()), 2), other.borrow().trace(), "", "");
        check(&index, other.borrow().trace(), "", "");
    }
}
