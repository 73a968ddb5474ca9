//! Playback: step, back, play/pause with speed, reset, run to end, the
//! timeline slider with the `expect` checkpoints on it, the step counter and
//! the virtual clock.

use crate::format;
use crate::i18n::Lang;
use crate::panels::icons;
use crate::state::{Action, SPEEDS};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub step: u64,
    pub known: u64,
    pub end: Option<u64>,
    pub time_ms: u64,
    /// (step, passed) of each `expect` checked so far.
    pub checkpoints: Vec<(u64, bool, String)>,
    pub playing: bool,
    pub speed: usize,
    pub to_end: bool,
    /// A figure's locked range (`from=`/`to=`): the slider spans only it.
    #[prop_or_default]
    pub from: u64,
    #[prop_or_default]
    pub to: Option<u64>,
    /// The script line being played and the script's length: the progress
    /// of a long "run to the end".
    #[prop_or_default]
    pub line: usize,
    #[prop_or_default]
    pub lines: usize,
    /// The step an address asked for, while the page is on its way there.
    #[prop_or_default]
    pub goal: Option<u64>,
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[function_component(Controls)]
pub fn controls(p: &ControlsProps) -> Html {
    let t = |s| p.lang.t(s);
    // A run's progress: towards the step an address asked for, or through
    // the script's lines.
    let progress = match (p.to_end, p.goal) {
        (true, Some(goal)) => Some((
            goal.to_string(),
            p.step.to_string(),
            p.lang.f("going to step {}, which the address asks for: step {} so far", &[&goal, &p.step]),
        )),
        (true, None) if p.lines > 0 => {
            Some((p.lines.to_string(), p.line.to_string(), p.lang.f("running to the end: line {} of {}", &[&p.line, &p.lines])))
        }
        _ => None,
    };
    let send = |a: Action| {
        let on = p.on.clone();
        Callback::from(move |_: MouseEvent| on.emit(a.clone()))
    };
    let seek = {
        let on = p.on.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(n) = e.target_unchecked_into::<HtmlInputElement>().value().parse() {
                on.emit(Action::Seek(n))
            }
        })
    };
    let seek_change = {
        let on = p.on.clone();
        let step = p.step;
        Callback::from(move |e: Event| {
            if let Ok(n) = e.target_unchecked_into::<HtmlInputElement>().value().parse::<u64>() {
                if n != step {
                    on.emit(Action::Seek(n))
                }
            }
        })
    };
    let speed = {
        let on = p.on.clone();
        Callback::from(move |e: Event| {
            if let Ok(i) = e.target_unchecked_into::<HtmlSelectElement>().value().parse() {
                on.emit(Action::SetSpeed(i))
            }
        })
    };
    let at_end = p.end == Some(p.step);
    let play_label = if p.playing { t("Pause") } else { t("Play") };
    let (min, max) = (p.from, p.to.unwrap_or(p.known).max(p.from + 1));
    html! {
        <div class="kz-controls-wrap">
            <div class="kz-controls" role="toolbar" aria-label={t("Playback")}>
                <button class="kz-btn" data-testid="reset" aria-label={t("Reset to step 0")} title={format!("{} (Home)", t("Reset to step 0"))} onclick={send(Action::Reset)}>{ icons::control("reset") }</button>
                <button class="kz-btn" data-testid="step-back" aria-label={t("Step back")} title={format!("{} (←)", t("Step back"))} onclick={send(Action::Back)}>{ icons::control("back") }</button>
                <button class={classes!("kz-btn", "kz-btn-play", p.playing.then_some("kz-on"))} data-testid="play-pause" aria-label={play_label} aria-pressed={p.playing.to_string()} title={format!("{play_label} ({})", t("Space"))} onclick={send(Action::TogglePlay)}>
                    { icons::control(if p.playing { "pause" } else { "play" }) }
                </button>
                <button class="kz-btn" data-testid="step-forward" aria-label={t("Step forward")} title={format!("{} (→)", t("Step forward"))} onclick={send(Action::Forward)}>{ icons::control("forward") }</button>
                <button class={classes!("kz-btn", p.to_end.then_some("kz-busy"))} data-testid="to-end"
                    aria-label={if p.to_end { t("Stop running to the end") } else { t("Run to the end") }}
                    title={if p.to_end { t("Stop running to the end").to_string() } else { format!("{} (End)", t("Run to the end")) }}
                    aria-busy={p.to_end.to_string()} onclick={send(Action::ToEnd)}>{ icons::control(if p.to_end { "pause" } else { "end" }) }</button>
                <label class="kz-speed">
                    <span class="kz-sr">{ t("Speed") }</span>
                    <select aria-label={t("Speed")} onchange={speed}>
                        { for SPEEDS.iter().enumerate().map(|(i, (label, _, _))| html! {
                            <option value={i.to_string()} selected={i == p.speed}>{ *label }</option>
                        }) }
                    </select>
                </label>
                <span class="kz-counter" aria-label={t("Step")}>
                    <span class="kz-counter-label">{ "#" }</span>
                    <span data-testid="step-counter" aria-live="polite">{ p.step }</span>
                    <span class="kz-counter-of">{ match p.to {
                        Some(to) => format!(" / {to}"),
                        None => format!(" / {}{}", p.known, if p.end.is_some() { "" } else { "+" }),
                    } }</span>
                </span>
                <span class="kz-clock" title={t("Virtual time")}>
                    <span class="kz-clock-label" translate="no">{ "t = " }</span>
                    <span data-testid="clock" aria-label={t("Virtual time")}>{ format::clock(p.time_ms) }</span>
                </span>
                if at_end {
                    <span class="kz-end-badge" title={t("the script has ended; an action here plays the cluster on for 60 s")}>{ t("end of the script") }</span>
                }
                <button class="kz-btn kz-btn-help" aria-label={t("Keyboard shortcuts")} aria-keyshortcuts="?" title={format!("{} (?)", t("Keyboard shortcuts"))} onclick={send(Action::Help(None))}>{ "?" }</button>
            </div>
            if let Some((max, value, label)) = progress {
                <div class="kz-progress">
                    <progress data-testid="to-end-progress" {max} {value}></progress>
                    <span class="kz-muted">{ label }</span>
                </div>
            }
            <div class="kz-timeline">
                <input type="range" data-testid="timeline" aria-label={t("Timeline")} min={min.to_string()} max={p.to.unwrap_or(p.known).to_string()} step="1"
                    value={p.step.to_string()} aria-valuetext={p.lang.step_n(p.step)} oninput={seek} onchange={seek_change} />
                <div class="kz-ticks" aria-hidden="true">
                    { for p.checkpoints.iter().filter(|(step, _, _)| (min..=max).contains(step)).map(|(step, passed, text)| {
                        let left = format!("left: {}", format::percent(*step - min, max - min, 3));
                        html! { <span class={classes!("kz-tick", if *passed { "kz-pass" } else { "kz-fail" })} style={left} title={text.clone()} translate="no"></span> }
                    }) }
                </div>
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct HelpProps {
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// The `?` overlay: the keyboard shortcuts.
#[function_component(Help)]
pub fn help(p: &HelpProps) -> Html {
    let close = {
        let on = p.on.clone();
        Callback::from(move |_: MouseEvent| on.emit(Action::Help(Some(false))))
    };
    let keys: &[(&str, &str)] = &[
        ("→", "Step forward"),
        ("←", "Step back"),
        ("Space", "Play"),
        ("Home", "Reset to step 0"),
        ("End", "Run to the end"),
        ("?", "Keyboard shortcuts"),
    ];
    html! {
        <div class="kz-overlay" data-testid="help" role="dialog" aria-modal="true" aria-label={p.lang.t("Keyboard shortcuts")}>
            <div class="kz-overlay-box">
                <h2>{ p.lang.t("Keyboard shortcuts") }</h2>
                <dl class="kz-keys">
                    { for keys.iter().map(|(k, what)| html! { <><dt><kbd translate="no">{ *k }</kbd></dt><dd>{ p.lang.t(what) }</dd></> }) }
                </dl>
                <p class="kz-muted">{ p.lang.t("Keys work when the focus is not in a text field. Stepping back and then acting (a broker's buttons, the console) branches a new future from that step.") }</p>
                <button class="kz-btn" aria-label={p.lang.t("Close")} onclick={close}>{ p.lang.t("Close") }</button>
            </div>
        </div>
    }
}
