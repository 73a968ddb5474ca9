//! The page: one reducer-held [`AppState`], the effects that drive it
//! (keyboard, play timer, run-to-end chunks, the permalink in the address
//! bar) and the panels laid out around it.

use crate::address::{Panel, Source};
use crate::dom;
use crate::format;
use crate::panels::brokers::Brokers;
use crate::panels::controls::{Controls, Help};
use crate::panels::events::{Checkpoints, EventLog, Explanation};
use crate::panels::partitions::{Beliefs, Partitions};
use crate::panels::sequence::Sequence;
use crate::panels::share::Share;
use crate::panels::tools::{Console, Editor, Picker};
use crate::panels::tour::TourCard;
use crate::panels::znodes::Znodes;
use crate::scenarios;
use crate::state::{Action, AppState, Snap, SPEEDS};
use gloo_timers::callback::Interval;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| AppState::from_address(&dom::address()));
    // One callback for the app's life: components that take it (a thousand
    // event-log entries) compare it by identity.
    let on = use_callback(state.dispatcher(), |a: Action, dispatcher| dispatcher.dispatch(a));

    // Keyboard shortcuts and a hand-edited fragment, for the page's life.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let keys = {
                let dispatcher = dispatcher.clone();
                dom::keyboard(move |a| dispatcher.dispatch(a))
            };
            let hash = dom::on_hash_change(move |address| dispatcher.dispatch(Action::Reload(address)));
            move || drop((keys, hash))
        });
    }
    // Autoplay (`&autoplay=1`): play while on screen, pause off it.
    let root = use_node_ref();
    {
        let (dispatcher, root, autoplay) = (state.dispatcher(), root.clone(), state.autoplay);
        use_effect_with((), move |_| {
            let watcher = autoplay
                .then(|| root.cast::<web_sys::Element>())
                .flatten()
                .map(|element| dom::on_screen(&element, move |visible| dispatcher.dispatch(Action::OnScreen(visible))));
            move || drop(watcher)
        });
    }
    // A file dropped anywhere on the page: a scenario or a trace.
    let dragging = use_state(|| false);
    let drag = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(e.type_() != "dragleave");
        })
    };
    let drop_file = {
        let (dispatcher, dragging) = (state.dispatcher(), dragging.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            if let Some(file) = e.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
                let dispatcher = dispatcher.clone();
                crate::panels::share::open_file(file, move |a| dispatcher.dispatch(a));
            }
        })
    };
    // Play: a timer at the chosen speed.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((state.playing, state.speed), move |(playing, speed)| {
            let interval = playing.then(|| Interval::new(SPEEDS[*speed].1, move || dispatcher.dispatch(Action::Tick)));
            move || drop(interval)
        });
    }
    // Run to the end: one chunk per timer turn, so the page stays live.
    {
        let dispatcher = state.dispatcher();
        use_effect_with(state.to_end, move |to_end| {
            let interval = to_end.then(|| Interval::new(0, move || dispatcher.dispatch(Action::EndChunk)));
            move || drop(interval)
        });
    }
    // What a heavy step left for later (the keyframe it earned), done once
    // the page is idle: the learner sees the step that much sooner.
    {
        let sandbox = state.sandbox.clone();
        use_effect_with(state.version, move |_| {
            if let Some(cell) = sandbox.filter(|c| c.try_borrow().is_ok_and(|s| !s.is_settled())) {
                dom::when_idle(move || {
                    if let Ok(mut sandbox) = cell.try_borrow_mut() {
                        sandbox.settle();
                    }
                });
            }
        });
    }
    // The address bar is always a permalink (not rewritten mid-play), once
    // the learner pauses: a changed link is written [`ADDRESS_QUIET_MS`]
    // after the last change. `replaceState` costs the browser a same-document
    // navigation, 4-5 ms of every step when it was written at each one
    // (issue 9); stepping with → now writes it once, when the learner stops.
    // The first one waits until the page is drawn: panels read the address
    // they were opened with (`&tour=1`) as they mount.
    {
        let written = use_mut_ref(AddressWriter::default);
        let link = if state.playing || state.to_end { None } else { state.permalink() };
        let mounted = written.borrow().mounted;
        if mounted {
            AddressWriter::later(&written, link.clone());
        }
        use_effect_with((), move |_| AddressWriter::now(&written, link));
    }
    // `<html lang>` follows the interface language.
    use_effect_with(state.lang, |lang| lang.apply_to_document());
    // The title says where we are.
    {
        let title = match &state.source {
            Source::BuiltIn(name) => format!("{name} · Kafka ZK Sandbox"),
            Source::Text => "Kafka ZK Sandbox".to_string(),
        };
        use_effect_with(title, |title| {
            if let Some(d) = web_sys::window().and_then(|w| w.document()) {
                d.set_title(title);
            }
        });
    }

    // The partition rows the partitions panel asks for (its filter and pages).
    let window = use_state(crate::panels::partitions::first_page);
    let on_window = {
        let window = window.clone();
        use_callback((), move |w: crate::panels::partitions::Pages, _| window.set(w))
    };
    let snap = {
        let sandbox = state.sandbox.clone();
        let view = use_memo((state.version, (*window).clone()), move |(_, window)| {
            sandbox.map(|s| Rc::new(crate::panels::partitions::view_for(&s.borrow(), window)))
        });
        match (&*view, &state.sandbox) {
            (Some(view), Some(sandbox)) => Some(Snap { version: state.version, view: view.clone(), sandbox: sandbox.clone() }),
            _ => None,
        }
    };
    let lang = state.lang;
    let t = |s| lang.t(s);
    let errors: Vec<String> = state
        .problem
        .iter()
        .map(|p| p.message.clone())
        .chain(state.file_error.clone())
        .chain(snap.as_ref().and_then(|s| s.view.error.clone()).map(|e| format::run_error_in(state.lang, &state.file, &e)))
        .collect();
    let (step, known, end, time_ms, checkpoints) = match &snap {
        Some(s) => (
            s.view.step,
            s.view.known_steps,
            s.view.end,
            s.view.time_ms,
            s.view.expectations.iter().map(|e| (e.step, e.passed, format!("{}: {}", e.line, e.text))).collect(),
        ),
        None => (0, 0, None, 0, Vec::new()),
    };
    let taken = snap.as_ref().map(|s| s.sandbox.borrow().timeline().injections().to_vec()).unwrap_or_default();
    let lang_link = |other: crate::i18n::Lang| -> String { state.permalink_in(other).unwrap_or_else(|| format!("?lang={}", other.code())) };
    // The switch changes the language in place (the tour, the selection and
    // the scroll stay); a ctrl- or middle-click still opens the link.
    let switch_to = |other: crate::i18n::Lang| {
        let on = on.clone();
        Callback::from(move |e: MouseEvent| {
            if !(e.ctrl_key() || e.meta_key() || e.shift_key() || e.button() != 0) {
                e.prevent_default();
                let on = on.clone();
                crate::i18n::summaries::when_ready(other, move || on.emit(Action::SetLang(other)));
            }
        })
    };
    // An embed's own links open the full sandbox in a new tab.
    let link_target = state.embed.then_some("_blank");
    let full_view = state.full_view_link().unwrap_or_default();
    let embed_panels: Vec<Panel> = if state.panels.is_empty() { Panel::EMBED_DEFAULT.to_vec() } else { state.panels.clone() };
    let panel = |which: Panel, snap: &Snap| -> Html {
        let snap = snap.clone();
        match which {
            Panel::Tree => html! { <Znodes {snap} {lang} /> },
            Panel::Brokers => html! { <Brokers {snap} declared={scenarios::declared_brokers(&state.text)} {lang} on={on.clone()} /> },
            Panel::Explain => html! { <Explanation {snap} {lang} on={on.clone()} /> },
            Panel::Partitions => html! { <Partitions {snap} {lang} window={(*window).clone()} on_window={on_window.clone()} /> },
            Panel::Beliefs if !snap.view.brokers.is_empty() => html! { <Beliefs {snap} {lang} /> },
            Panel::Beliefs => Html::default(),
            Panel::Checkpoints => html! { <Checkpoints {snap} text={state.text.clone()} {lang} on={on.clone()} /> },
            Panel::Sequence => html! { <Sequence {snap} {lang} on={on.clone()} /> },
            Panel::Events => html! { <EventLog {snap} {lang} on={on.clone()} /> },
        }
    };

    html! {
        <div class={classes!("kz-app", state.embed.then_some("kz-embed"), dragging.then_some("kz-dragging"))} lang={lang.code()} ref={root}
            ondragenter={drag.clone()} ondragover={drag.clone()} ondragleave={drag} ondrop={drop_file}>
            <header class="kz-header">
                <h1 class="kz-title" data-testid="title" translate="no">{ "Kafka ZK Sandbox" }</h1>
                <p class="kz-tagline kz-noembed">{ t("Watch Kafka's ZooKeeper-era control plane work, one step at a time.") }</p>
                <div class="kz-header-tools">
                    if !state.embed {
                        <Picker source={state.source.clone()} {lang} on={on.clone()} />
                    }
                    <nav class="kz-langs kz-noembed" aria-label={t("Language")} data-testid="lang-switch">
                        <a href={lang_link(crate::i18n::Lang::En)} onclick={switch_to(crate::i18n::Lang::En)} aria-current={(lang == crate::i18n::Lang::En).then_some("true")}
                            lang="en" hreflang="en" translate="no" title="English" data-lang="en">{ "EN" }</a>
                        <a href={lang_link(crate::i18n::Lang::Zh)} onclick={switch_to(crate::i18n::Lang::Zh)} aria-current={(lang == crate::i18n::Lang::Zh).then_some("true")}
                            lang="zh-CN" hreflang="zh" translate="no" title="中文" data-lang="zh">{ "中文" }</a>
                    </nav>
                    if state.embed && !full_view.is_empty() {
                        <a class="kz-open-full" data-testid="open-full" href={full_view} target={link_target} rel="noopener">{ t("Open in the full sandbox ↗") }</a>
                    }
                </div>
            </header>
            <div class="kz-sticky">
                <Controls {step} {known} {end} {time_ms} {checkpoints} playing={state.playing} speed={state.speed} to_end={state.to_end} goal={state.goal} from={state.first_step()} to={state.to}
                    line={snap.as_ref().map_or(0, |s| s.view.line)} lines={state.text.lines().count()} {lang} on={on.clone()} />
            </div>
            { for errors.iter().map(|e| html! { <p class="kz-error" data-testid="error" role="alert">
                if lang == crate::i18n::Lang::Zh { { format!("{}：", t("Error")) } }
                <span translate="no">{ e }</span>
            </p> }) }
            if let (true, Some(snap)) = (state.embed, &snap) {
                <main class="kz-grid kz-embed-grid">
                    { for embed_panels.iter().map(|which| html! {
                        <div class={classes!("kz-cell", matches!(which, Panel::Sequence | Panel::Events).then_some("kz-wide"))} data-panel={which.code()}>
                            { panel(*which, snap) }
                        </div>
                    }) }
                </main>
            } else if let Some(snap) = &snap {
                <main class="kz-grid">
                    <div class="kz-col kz-col-zk">
                        <Znodes snap={snap.clone()} {lang} />
                    </div>
                    <div class="kz-col kz-col-brokers">
                        <Brokers snap={snap.clone()} declared={scenarios::declared_brokers(&state.text)} {lang} on={on.clone()} />
                        <Explanation snap={snap.clone()} {lang} on={on.clone()} />
                    </div>
                    <div class="kz-col kz-col-parts">
                        <Partitions snap={snap.clone()} {lang} window={(*window).clone()} on_window={on_window.clone()} />
                        if !snap.view.brokers.is_empty() {
                            <Beliefs snap={snap.clone()} {lang} />
                        }
                        <Checkpoints snap={snap.clone()} text={state.text.clone()} {lang} on={on.clone()} />
                    </div>
                    <div class="kz-wide kz-noembed-seq">
                        <Sequence snap={snap.clone()} {lang} on={on.clone()} />
                    </div>
                    <div class="kz-wide">
                        <EventLog snap={snap.clone()} {lang} on={on.clone()} />
                    </div>
                    <div class="kz-wide kz-tools kz-noembed">
                        <Console error={state.console_error.clone()} {taken} at_end={end == Some(step)} {lang} on={on.clone()} />
                        <Editor text={state.text.clone()} problem={state.problem.clone()} {lang} on={on.clone()} />
                        <Share snap={snap.clone()} source={state.source.clone()} text={state.text.clone()}
                            link={state.permalink().map(|l| format!("{}{l}", dom::page_base())).unwrap_or_default()} {lang} on={on.clone()} />
                    </div>
                </main>
                <TourCard snap={snap.clone()} name={if let Source::BuiltIn(n) = &state.source { Some(n.clone()) } else { None }} {lang} on={on.clone()} />
            } else {
                <main class="kz-grid kz-grid-empty">
                    <div class="kz-wide kz-tools">
                        <Editor text={state.text.clone()} problem={state.problem.clone()} {lang} on={on.clone()} />
                    </div>
                </main>
            }
            if *dragging {
                <div class="kz-drop-hint" aria-hidden="true">{ t("Drop a .kzs scenario or a downloaded trace to open it") }</div>
            }
            if state.help {
                <Help {lang} on={on.clone()} />
            }
            <footer class="kz-footer kz-noembed">
                { format!("{} ", t("Kafka 2.8.2 on ZooKeeper 3.8, simulated step by step in your browser.")) }
                <span class="kz-muted">{ format!("{} {}", t("virtual time"), format::clock(time_ms)) }</span>
            </footer>
        </div>
    }
}

/// How long the address waits, after the last change, to be written.
const ADDRESS_QUIET_MS: u32 = 300;

/// Writes the permalink into the address bar once the page has been quiet
/// for [`ADDRESS_QUIET_MS`]: a run of steps writes it once, at its end.
#[derive(Default)]
struct AddressWriter {
    /// The first link is written as the page is first drawn.
    mounted: bool,
    /// The link last written, or waiting to be.
    link: Option<String>,
    pending: Option<gloo_timers::callback::Timeout>,
}

impl AddressWriter {
    fn now(writer: &RefCell<AddressWriter>, link: Option<String>) {
        let mut w = writer.borrow_mut();
        w.mounted = true;
        w.pending = None;
        if let Some(l) = &link {
            dom::replace_address(l);
        }
        w.link = link;
    }

    /// A link that differs from the last one is written when the page has
    /// been quiet for a while; none (mid-play) leaves the address as it is.
    fn later(writer: &Rc<RefCell<AddressWriter>>, link: Option<String>) {
        let mut w = writer.borrow_mut();
        if link.is_none() || w.link == link {
            return;
        }
        w.link = link.clone();
        let writer = writer.clone();
        w.pending = Some(gloo_timers::callback::Timeout::new(ADDRESS_QUIET_MS, move || {
            writer.borrow_mut().pending = None;
            if let Some(l) = &link {
                dom::replace_address(l);
            }
        }));
    }
}
