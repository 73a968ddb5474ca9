//! Save and share: download the trace (JSON lines, the `--trace` schema)
//! and the sequence diagram (SVG), open a scenario or trace file (or drop
//! one anywhere on the page), and copy this state as a link or as an embed
//! for a documentation page.

use crate::address::Source;
use crate::dom;
use crate::files::{self, Replay};
use crate::i18n::Lang;
use crate::state::{Action, Snap};
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ShareProps {
    pub snap: Snap,
    pub source: Source,
    pub text: std::rc::Rc<str>,
    /// This state's permalink, absolute (empty outside a browser).
    pub link: String,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// The file name a download of this scenario starts with.
fn stem(source: &Source) -> String {
    match source {
        Source::BuiltIn(name) => name.clone(),
        Source::Text => "scenario".to_string(),
    }
}

/// Reads a file the learner picked or dropped and sends what it holds
/// (a scenario, a trace, or why neither) as [`Action::Open`].
pub fn open_file(file: web_sys::File, send: impl FnOnce(Action) + 'static) {
    dom::read_file(file, move |name, text| send(Action::Open(text.and_then(|text| files::open(&name, &text)))));
}

#[function_component(Share)]
pub fn share(p: &ShareProps) -> Html {
    let t = |s| p.lang.t(s);
    let problem = use_state(|| None::<String>);
    let position = p.snap.view.step;
    let download_trace = {
        let (snap, source, text, problem) = (p.snap.clone(), p.source.clone(), p.text.clone(), problem.clone());
        Callback::from(move |_: MouseEvent| {
            let sandbox = snap.sandbox.borrow();
            let replay = Replay {
                name: match &source {
                    Source::BuiltIn(name) => Some(name.clone()),
                    Source::Text => None,
                },
                text: text.to_string(),
                actions: sandbox.timeline().injections().to_vec(),
                step: sandbox.position(),
            };
            let taken = &sandbox.trace()[..(sandbox.position() as usize).min(sandbox.trace().len())];
            let file = format!("{}-step-{}.trace.json", stem(&source), replay.step);
            problem.set(dom::download(&file, "application/x-ndjson", &files::trace_jsonl(taken, &replay)).err());
        })
    };
    let download_svg = {
        let (source, problem) = (p.source.clone(), problem.clone());
        Callback::from(move |_: MouseEvent| {
            let result = match dom::standalone_svg("sequence-diagram") {
                Some(svg) => dom::download(&format!("{}-step-{position}.sequence.svg", stem(&source)), "image/svg+xml", &svg),
                None => Err("the sequence diagram is not on the page".to_string()),
            };
            problem.set(result.err());
        })
    };
    let pick = {
        let on = p.on.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                let on = on.clone();
                open_file(file, move |a| on.emit(a));
            }
            input.set_value("");
        })
    };
    let select_all = Callback::from(|e: FocusEvent| e.target_unchecked_into::<HtmlInputElement>().select());
    let embed = if p.link.is_empty() {
        String::new()
    } else {
        let sep = if p.link.contains('?') || p.link.contains('#') { "&" } else { "?" };
        format!("<iframe src=\"{}{sep}embed=1\" width=\"100%\" height=\"520\" style=\"border:0\" loading=\"lazy\" title=\"Kafka ZK Sandbox\"></iframe>", p.link)
    };
    html! {
        <section class="kz-panel kz-share" aria-labelledby="kz-share-h" data-testid="share">
            <h2 id="kz-share-h" class="kz-panel-title">{ t("Save and share") }
                <span class="kz-panel-note">{ t("Drop a .kzs scenario or a downloaded trace anywhere on the page to open it.") }</span>
            </h2>
            <div class="kz-share-row">
                <button class="kz-btn" data-testid="download-trace" disabled={position == 0} onclick={download_trace}
                    title={t("The steps so far as JSON lines (the --trace schema); opening the file again returns here.")}>{ t("Download trace (JSON)") }</button>
                <button class="kz-btn" data-testid="download-svg" onclick={download_svg}>{ t("Download sequence diagram (SVG)") }</button>
                <label class="kz-btn kz-file">
                    { t("Open a file…") }
                    <input type="file" data-testid="open-file" accept=".kzs,.json,.jsonl,.txt,text/plain,application/json" onchange={pick} />
                </label>
            </div>
            if let Some(problem) = &*problem {
                <p class="kz-inline-error" role="alert">{ problem }</p>
            }
            if !p.link.is_empty() {
                <label class="kz-share-field">
                    <span>{ t("Link to this step") }</span>
                    <input type="text" readonly=true class="kz-input" data-testid="share-link" translate="no" value={p.link.clone()} onfocus={select_all.clone()} />
                </label>
                <label class="kz-share-field">
                    <span>{ t("Embed in a page") }</span>
                    <input type="text" readonly=true class="kz-input" data-testid="share-embed" translate="no" value={embed} onfocus={select_all} />
                </label>
            }
        </section>
    }
}
