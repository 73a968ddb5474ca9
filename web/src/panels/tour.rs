//! The guided tour: a card docked at the bottom of the page that walks the
//! built-in scenario's narration (`crate::tour`), beat by beat.
//!
//! It only sends the app's actions (seek, load, step to a line): the tour
//! never touches the sandbox itself, so a tour step is exactly what the
//! learner would get with the controls. It points at other panels through a
//! `<style>` element built from the contract's hooks (`data-znode-path`,
//! `data-broker-id`, `data-tp`, the explanation), so no panel knows about
//! tours. Where the learner is in the tour (a [`Walk`]) is this component's
//! own state; the address can open it (`&tour=1`). The tour's file is fetched
//! when its scenario opens (after the first render, once a page): until it
//! is in, there is no card; if it cannot be had, the card says why.

use crate::address::Source;
use crate::i18n::Lang;
use crate::scenarios;
use crate::state::{Action, Snap};
use crate::tour::{self, Tour, Walk};
use gloo_timers::callback::Timeout;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TourProps {
    pub snap: Snap,
    /// The built-in scenario on show; tours belong to built-ins only (an
    /// edited or typed scenario has none).
    pub name: Option<String>,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// "beat 3 of 9" / "第 3 段（共 9 段）".
fn beat_of(lang: Lang, k: usize, n: usize) -> String {
    match lang {
        Lang::En => format!("beat {k} of {n}"),
        Lang::Zh => format!("第 {k} 段（共 {n} 段）"),
    }
}

/// Whether the address asks for the tour to open at once (`tour=1` in the
/// query). Read straight from the page, so the address module stays as is.
fn address_asks() -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
        search.trim_start_matches('?').split('&').any(|pair| pair == "tour=1" || pair == "tour=true")
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        false
    }
}

/// A tour text: prose, with its backticked Kafka identifiers as code that no
/// page translator touches.
fn rich(text: &str) -> Html {
    html! {
        { for tour::pieces(text).map(|(code, s)| if code { html! { <code translate="no">{ s }</code> } } else { html! { { s } } }) }
    }
}

/// Brings the highlighted element into view inside the scrolling znode tree,
/// where a deep path may sit below the fold; the page itself stays where the
/// learner put it.
fn reveal(selector: &str) {
    #[cfg(target_arch = "wasm32")]
    {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
        let Ok(Some(element)) = document.query_selector(selector) else { return };
        let Ok(Some(tree)) = element.closest(".kz-tree") else { return };
        let (e, t) = (element.get_bounding_client_rect(), tree.get_bounding_client_rect());
        if e.top() < t.top() || e.bottom() > t.bottom() {
            let top = e.top() - t.top() + f64::from(tree.scroll_top()) - t.height() / 3.0;
            tree.set_scroll_top(top.max(0.0) as i32);
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = selector;
}

/// The rule that rings the highlighted element.
fn highlight_rule(selector: &str) -> String {
    // Drawn inside the element (negative offset), so that a scrolling panel
    // (the znode tree) cannot clip it.
    format!("{selector} {{ outline: 3px solid var(--kz-tour-ring); outline-offset: -3px; background-color: var(--kz-tour-glow); }}")
}

/// Why a built-in's tour is not there: the fetch failed (the address and
/// the status or the browser's message), or the file is malformed.
#[derive(Clone, Debug, PartialEq)]
enum Problem {
    // Natively the tours are embedded: nothing is fetched.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    Fetch(String),
    Malformed(tour::TourError),
}

/// A built-in's tour as the card has it.
type Loaded = Result<Rc<Tour>, Problem>;

thread_local! {
    /// The tours fetched so far (scenario, tour): each is fetched once a page.
    /// (A few entries: a list, not one more map type in the download.)
    static FETCHED: RefCell<Vec<(String, Rc<Tour>)>> = const { RefCell::new(Vec::new()) };
}

/// The tour of `name` when the card can have it at once: fetched before, or
/// (natively, for the tests) embedded.
fn known(name: &str) -> Option<Loaded> {
    if let Some(tour) = FETCHED.with(|f| f.borrow().iter().find(|(n, _)| n == name).map(|(_, t)| t.clone())) {
        return Some(Ok(tour));
    }
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(json) = scenarios::tour(name) {
        return Some(tour::parse(json).map(Rc::new).map_err(Problem::Malformed));
    }
    None
}

/// Fetches the tour of `name` (off the first render: the page is already
/// interactive) and hands it, or what went wrong, to `done`.
#[cfg(target_arch = "wasm32")]
fn fetch(name: String, done: impl FnOnce(String, Loaded) + 'static) {
    yew::platform::spawn_local(async move {
        let loaded = match scenarios::fetch_tour(&name).await {
            Ok(json) => tour::parse(&json).map(Rc::new).map_err(Problem::Malformed),
            Err(e) => Err(Problem::Fetch(e)),
        };
        if let Ok(tour) = &loaded {
            FETCHED.with(|f| f.borrow_mut().push((name.clone(), tour.clone())));
        }
        done(name, loaded);
    });
}

#[function_component(TourCard)]
pub fn tour_card(p: &TourProps) -> Html {
    // (scenario, its tour): set when a fetch comes back, so only the current
    // scenario's counts.
    let loaded = use_state(|| p.name.as_deref().filter(|n| scenarios::has_tour(n)).and_then(|n| Some((n.to_string(), known(n)?))));
    let current: Option<Loaded> = loaded.as_ref().filter(|(n, _)| Some(n) == p.name.as_ref()).map(|(_, l)| l.clone());
    let tour: Option<Rc<Tour>> = current.as_ref().and_then(|r| r.as_ref().ok()).cloned();
    let walk = use_state(|| None::<Walk>);
    // `&tour=1` opens the tour once, for the scenario the page opened with,
    // as soon as its tour is in.
    let asked = use_memo((), |_| RefCell::new(if address_asks() { p.name.clone() } else { None }));
    let view = &p.snap.view;
    let injected = !p.snap.sandbox.borrow().timeline().injections().is_empty();

    // Back to the scripted timeline (no learner actions), at `step`.
    let rejoin = {
        let (on, name) = (p.on.clone(), p.name.clone());
        move |injected: bool, step: u64| {
            if let (true, Some(name)) = (injected, name.as_ref()) {
                if let Some(text) = scenarios::find(name) {
                    on.emit(Action::Load(Source::BuiltIn(name.clone()), text.to_string()));
                }
            }
            on.emit(Action::Seek(step));
        }
    };
    let start = {
        let (walk, tour, rejoin) = (walk.clone(), tour.clone(), rejoin.clone());
        move |injected: bool| {
            if let Some(t) = &tour {
                rejoin(injected, 0);
                walk.set(Some(Walk::start(t)));
            }
        }
    };

    // A new scenario closes the tour and brings its own, fetched when the
    // page has not had it yet.
    {
        let (walk, asked, loaded) = (walk.clone(), asked.clone(), loaded.clone());
        use_effect_with(p.name.clone(), move |name| {
            walk.set(None);
            if asked.borrow().as_ref() != name.as_ref() {
                asked.take();
            }
            if let Some(name) = name.clone().filter(|n| scenarios::has_tour(n)) {
                match known(&name) {
                    Some(tour) => loaded.set(Some((name, tour))),
                    #[cfg(target_arch = "wasm32")]
                    None => fetch(name, move |name, tour| loaded.set(Some((name, tour)))),
                    #[cfg(not(target_arch = "wasm32"))]
                    None => {}
                }
            }
        });
    }
    // The tour is in: open it, when the address asked.
    {
        let (asked, start) = (asked.clone(), start.clone());
        use_effect_with((p.name.clone(), tour.is_some()), move |(name, ready)| {
            if *ready && name.is_some() && asked.borrow().as_ref() == name.as_ref() {
                asked.take();
                start(injected);
            }
        });
    }

    // Heading for a beat: step towards its line in bounded chunks (one app
    // action per timer turn, so the page redraws in between), then arrive.
    {
        let (walk, on) = (walk.clone(), p.on.clone());
        let target = walk.as_ref().and_then(|w| w.heading).and_then(|k| Some(tour.as_ref()?.beats.get(k)?.line));
        let stuck = view.error.is_some() || view.end == Some(view.step);
        let (line, step) = (view.line, view.step);
        use_effect_with((p.snap.version, target), move |(_, target)| {
            let mut timer = None;
            if let Some(target) = *target {
                if line >= target || stuck {
                    if let Some(mut w) = (*walk).clone() {
                        w.arrive(step);
                        walk.set(Some(w));
                    }
                } else {
                    timer = Some(Timeout::new(0, move || on.emit(Action::StepToLine(target))));
                }
            }
            move || drop(timer)
        });
    }

    // The highlighted element, once the beat is reached: scrolled into view.
    {
        let shown = walk
            .as_ref()
            .filter(|w| w.heading.is_none() && !w.done)
            .and_then(|w| tour.as_ref()?.beats.get(w.beat)?.highlight.as_ref().map(|h| h.selector()));
        use_effect_with(shown, |shown| {
            if let Some(selector) = shown {
                reveal(selector);
            }
        });
    }

    let t = |s| p.lang.t(s);
    if let Some(Err(problem)) = &current {
        // A malformed built-in tour is a bug the unit tests catch, a failed
        // fetch a server's; either way the card says so rather than panic.
        let message = match problem {
            Problem::Malformed(e) => format!("{}: {e}", t("Guided tour")),
            Problem::Fetch(e) => format!("{}: {e}", t("The guided tour could not be loaded")),
        };
        return html! { <p class="kz-error kz-noembed" data-testid="tour-error" role="alert">{ message }</p> };
    }
    let Some(tour) = tour else { return Html::default() };
    let title = tour.title.get(p.lang);

    let Some(w) = (*walk).clone() else {
        let start = start.clone();
        return html! {
            <div class="kz-tour-bar kz-noembed">
                <span class="kz-tour-kicker">{ t("Guided tour") }</span>
                <span class="kz-tour-title">{ title }</span>
                <button class="kz-btn kz-tour-go" data-testid="tour-start" onclick={Callback::from(move |_: MouseEvent| start(injected))}>{ t("Start the tour") }</button>
            </div>
        };
    };

    let n = tour.beats.len();
    let k = w.beat.min(n - 1);
    let beat = &tour.beats[k];
    let stepping = w.heading.is_some();
    let off_path = !stepping && (injected || (!w.done && !tour.is_current(k, view.line)));

    let set = {
        let walk = walk.clone();
        move |w: Walk| walk.set(Some(w))
    };
    let next = {
        let (w, set, on, tour) = (w.clone(), set.clone(), p.on.clone(), tour.clone());
        Callback::from(move |_: MouseEvent| {
            let mut w = w.clone();
            w.next(&tour);
            if w.done {
                on.emit(Action::ToEnd);
            }
            set(w);
        })
    };
    let previous = {
        let (w, set, on) = (w.clone(), set.clone(), p.on.clone());
        Callback::from(move |_: MouseEvent| {
            let mut w = w.clone();
            if let Some(step) = w.previous() {
                on.emit(Action::Seek(step));
                set(w);
            }
        })
    };
    let exit = {
        let walk = walk.clone();
        Callback::from(move |_: MouseEvent| walk.set(None))
    };
    let back = {
        let (w, set, rejoin) = (w.clone(), set.clone(), rejoin.clone());
        Callback::from(move |_: MouseEvent| {
            let mut w = w.clone();
            w.done = false;
            match w.marks.get(w.beat).copied().flatten() {
                Some(step) => rejoin(injected, step),
                None => {
                    // Never reached on the script: walk to it again.
                    rejoin(injected, 0);
                    w.heading = Some(w.beat);
                }
            }
            set(w);
        })
    };
    let restart = {
        let start = start.clone();
        Callback::from(move |_: MouseEvent| start(injected))
    };

    let verdict = w.verdict(&tour).map(|(right, q)| {
        let chosen = w.answer.and_then(|(_, c)| q.choices.get(c)).map(|c| rich(c.get(p.lang))).unwrap_or_default();
        html! {
            <div class={classes!("kz-tour-verdict", if right { "kz-right" } else { "kz-wrong" })} data-testid="tour-verdict" data-correct={right.to_string()} role="status">
                <p><strong>{ if right { t("Right.") } else { t("Not quite.") } }</strong>{ " " }{ t("You predicted:") }{ " " }<q>{ chosen }</q></p>
                if !right {
                    <p>{ t("The answer:") }{ " " }<q>{ rich(q.choices[q.answer].get(p.lang)) }</q></p>
                }
                <p class="kz-tour-why">{ rich(q.why.get(p.lang)) }</p>
            </div>
        }
    });
    let asked_here = w.answer.is_some_and(|(q, _)| q == k);
    let question = beat.question.as_ref().filter(|_| !asked_here && !w.done && !stepping && !off_path).map(|q| {
        let choices = q.choices.iter().enumerate().map(|(i, c)| {
            let (w, set, tour, on) = (w.clone(), set.clone(), tour.clone(), p.on.clone());
            let pick = Callback::from(move |_: MouseEvent| {
                let mut w = w.clone();
                w.predict(&tour, i);
                if w.done {
                    on.emit(Action::ToEnd);
                }
                set(w);
            });
            html! { <li><button class="kz-btn kz-tour-choice" data-testid="tour-choice" data-index={i.to_string()} onclick={pick}><span>{ rich(c.get(p.lang)) }</span></button></li> }
        });
        html! {
            <div class="kz-tour-question" data-testid="tour-question">
                <p><span class="kz-tour-kicker">{ t("Predict, then step") }</span>{ " " }{ rich(q.ask.get(p.lang)) }</p>
                <ol class="kz-tour-choices">{ for choices }</ol>
            </div>
        }
    });
    let style = (!off_path && !stepping && !w.done).then(|| beat.highlight.as_ref().map(|h| highlight_rule(&h.selector()))).flatten();
    let can_back =
        if w.done { w.marks.get(k).copied().flatten().is_some() } else { k > 0 && w.marks.get(k - 1).copied().flatten().is_some() };

    html! {
        <section class="kz-panel kz-tour kz-noembed" data-testid="tour" aria-labelledby="kz-tour-h" aria-busy={stepping.to_string()}>
            if let Some(rule) = style {
                <style data-testid="tour-highlight">{ rule }</style>
            }
            <header class="kz-tour-head">
                <h2 id="kz-tour-h" class="kz-panel-title"><span class="kz-tour-kicker">{ t("Guided tour") }</span>{ " " }{ title }</h2>
                <span class="kz-tour-progress" data-testid="tour-progress">
                    { if w.done { t("The end").to_string() } else { beat_of(p.lang, k + 1, n) } }
                </span>
            </header>
            { for verdict }
            if off_path {
                <p class="kz-tour-off" data-testid="tour-off-path" role="status">
                    { t("You have left the narrated path: you took an action of your own, or moved the timeline away from this beat.") }
                </p>
            } else if w.done {
                <p class="kz-tour-text" data-testid="tour-done">{ t("That is the end of the tour. Keep exploring: step, play, or take actions of your own.") }</p>
            } else if stepping {
                <p class="kz-tour-text kz-muted" data-testid="tour-stepping">{ t("Stepping to the next beat…") }</p>
            } else {
                if let Some(text) = &beat.text {
                    <p class="kz-tour-text" data-testid="tour-beat" data-beat={k.to_string()} data-line={beat.line.to_string()}>{ rich(text.get(p.lang)) }</p>
                }
                <p class="kz-tour-source">{ t("Kafka method") }{ ": " }<code translate="no" data-testid="tour-source">{ &beat.source }</code></p>
                { for question }
            }
            <nav class="kz-tour-nav" aria-label={t("Guided tour")}>
                if off_path {
                    <button class="kz-btn kz-tour-go" data-testid="tour-rejoin" onclick={back}>{ t("Back to the tour") }</button>
                } else {
                    <button class="kz-btn" data-testid="tour-prev" disabled={!can_back || stepping} onclick={previous}>{ t("Previous") }</button>
                    if w.done {
                        <button class="kz-btn kz-tour-go" data-testid="tour-restart" onclick={restart}>{ t("Start again") }</button>
                    } else {
                        <button class="kz-btn kz-tour-go" data-testid="tour-next" disabled={stepping} onclick={next}>{ t("Next") }</button>
                    }
                }
                <button class="kz-btn kz-tour-exit" data-testid="tour-exit" onclick={exit}>{ t("Exit tour") }</button>
            </nav>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kzsim::sandbox::Sandbox;
    use std::cell::RefCell;
    use yew::LocalServerRenderer;

    fn render(name: Option<&str>, lang: Lang) -> String {
        let text = name.and_then(scenarios::find).unwrap_or("zk-session a\n");
        let sandbox = Sandbox::load(text).unwrap();
        let snap = Snap { version: 1, view: Rc::new(sandbox.view()), sandbox: Rc::new(RefCell::new(sandbox)) };
        let props = TourProps { snap, name: name.map(str::to_string), lang, on: Callback::noop() };
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        strip_comments(&tokio::task::LocalSet::new().block_on(&runtime, LocalServerRenderer::<TourCard>::with_props(props).render()))
    }

    /// The HTML without the renderer's `<!--<[Component]>-->` markers.
    fn strip_comments(html: &str) -> String {
        let mut out = String::new();
        let mut rest = html;
        while let Some(at) = rest.find("<!--") {
            out.push_str(&rest[..at]);
            rest = rest[at..].find("-->").map_or("", |end| &rest[at + end + 3..]);
        }
        out + rest
    }

    #[test]
    fn a_built_in_with_a_tour_offers_it_in_the_page_language() {
        let en = render(Some("controller-failover"), Lang::En);
        assert!(en.contains(r#"data-testid="tour-start""#), "{en}");
        assert!(en.contains("Controller election and failover"));
        let zh = render(Some("controller-failover"), Lang::Zh);
        assert!(zh.contains("Controller 的选举与故障转移"), "{zh}");
        assert!(zh.contains("开始导览"));
    }

    #[test]
    fn no_tour_no_card() {
        assert_eq!(render(None, Lang::En).trim(), "");
    }

    #[test]
    fn backticked_identifiers_render_as_untranslated_code() {
        let html = render_html(rich("the `/controller` znode <b>"));
        assert_eq!(html, r#"the <code translate="no">/controller</code> znode &lt;b&gt;"#);
    }

    fn render_html(node: Html) -> String {
        #[function_component(Probe)]
        fn probe(p: &ProbeProps) -> Html {
            p.node.clone()
        }
        #[derive(Properties, PartialEq)]
        struct ProbeProps {
            node: Html,
        }
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let html = tokio::task::LocalSet::new().block_on(&runtime, LocalServerRenderer::<Probe>::with_props(ProbeProps { node }).render());
        strip_comments(&html)
    }
}
