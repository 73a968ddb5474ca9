//! The actions console (any scenario action line, `zk` lines included), the
//! scenario picker and the scenario editor with errors at their line.

use crate::address::Source;
use crate::i18n::Lang;
use crate::scenarios;
use crate::state::{Action, Problem};
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

/// Templates the console offers (they fill the input; edit, then send).
pub const TEMPLATES: &[(&str, &str)] = &[
    ("create topic", "topic create orders partitions=3 replication-factor=2"),
    ("delete topic", "topic delete orders"),
    ("produce", "produce orders-0 messages=10"),
    ("alter config", "config alter topics orders set retention.ms=1000"),
    ("reassign", "reassign orders-0 replicas=1,2"),
    ("elect preferred", "elect-preferred"),
    ("pause fetch", "pause-fetch broker 2 orders-0"),
    ("zk session", "zk-session me"),
    ("zk create", "zk me create -e /me hello"),
    ("zk get -w", "zk me get -w /controller"),
    ("zk ls -w", "zk me ls -w /brokers/ids"),
];

/// A form for one kind of action: its fields (name, default) and how the
/// scenario line is built from their values.
pub struct Form {
    pub label: &'static str,
    pub fields: &'static [(&'static str, &'static str)],
    pub build: fn(&[String]) -> String,
}

pub const FORMS: &[Form] = &[
    Form {
        label: "create topic",
        fields: &[("name", "orders"), ("partitions", "3"), ("replication-factor", "2")],
        build: |v| format!("topic create {} partitions={} replication-factor={}", v[0], v[1], v[2]),
    },
    Form { label: "delete topic", fields: &[("name", "orders")], build: |v| format!("topic delete {}", v[0]) },
    Form {
        label: "produce",
        fields: &[("partition", "orders-0"), ("messages", "10")],
        build: |v| format!("produce {} messages={}", v[0], v[1]),
    },
    Form {
        label: "alter config",
        fields: &[("entity type", "topics"), ("entity name", "orders"), ("set KEY=VALUE", "retention.ms=1000")],
        build: |v| format!("config alter {} {} set {}", v[0], v[1], v[2]),
    },
    Form {
        label: "reassign",
        fields: &[("partition", "orders-0"), ("replicas", "1,2")],
        build: |v| format!("reassign {} replicas={}", v[0], v[1]),
    },
    Form {
        label: "elect preferred",
        fields: &[("partitions (blank: all)", "")],
        build: |v| format!("elect-preferred {}", v[0]).trim_end().to_string(),
    },
];

/// What the scenario parser says of a line as it is typed (`None`: fine,
/// or nothing typed yet). The line is checked again when sent, against the
/// cluster as it stands.
pub fn check(line: &str) -> Option<String> {
    if line.trim().is_empty() {
        return None;
    }
    kzsim::scenario::parse(line).err().map(|e| format!("column {}: {}", e.col, e.message))
}

#[derive(Properties, PartialEq)]
pub struct ConsoleProps {
    pub error: Option<String>,
    /// The actions taken so far on this branch: (after step, text).
    pub taken: Vec<(u64, String)>,
    /// The timeline is at the end of the script.
    pub at_end: bool,
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[derive(Properties, PartialEq)]
pub struct FormsProps {
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// Forms for the admin actions: each builds a scenario line, checked by the
/// parser as it is typed, and sends it like the console.
#[function_component(ActionForms)]
pub fn action_forms(p: &FormsProps) -> Html {
    let chosen = use_state(|| 0usize);
    let values = use_state(|| FORMS[0].fields.iter().map(|(_, d)| d.to_string()).collect::<Vec<_>>());
    let form = &FORMS[*chosen];
    let line = (form.build)(&values);
    let problem = check(&line);
    let pick = {
        let (chosen, values) = (chosen.clone(), values.clone());
        Callback::from(move |e: Event| {
            let i: usize = e.target_unchecked_into::<HtmlSelectElement>().value().parse().unwrap_or(0).min(FORMS.len() - 1);
            chosen.set(i);
            values.set(FORMS[i].fields.iter().map(|(_, d)| d.to_string()).collect());
        })
    };
    let send = {
        let (on, line) = (p.on.clone(), line.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            on.emit(Action::Act(line.clone()));
        })
    };
    html! {
        <form class="kz-forms" onsubmit={send} aria-label={p.lang.t("admin actions")}>
            <select aria-label={p.lang.t("action")} onchange={pick} data-testid="form-kind">
                { for FORMS.iter().enumerate().map(|(i, f)| html! { <option value={i.to_string()} selected={i == *chosen}>{ p.lang.t(f.label) }</option> }) }
            </select>
            { for form.fields.iter().enumerate().map(|(i, (name, _))| {
                let value = values.get(i).cloned().unwrap_or_default();
                let values = values.clone();
                let oninput = Callback::from(move |e: InputEvent| {
                    let mut next = (*values).clone();
                    next[i] = e.target_unchecked_into::<HtmlInputElement>().value();
                    values.set(next);
                });
                html! {
                    <label class="kz-field">
                        <span>{ p.lang.t(name) }</span>
                        <input type="text" class="kz-input" aria-label={p.lang.t(name)} spellcheck="false" translate="no" {value} {oninput} />
                    </label>
                }
            }) }
            <code class="kz-form-line" data-testid="form-line" translate="no">{ &line }</code>
            <button type="submit" class="kz-btn" data-testid="form-send" aria-label={format!("{}: {line}", p.lang.t("Send"))} disabled={problem.is_some()}>{ p.lang.t("Send") }</button>
            if let Some(problem) = problem {
                <p class="kz-check-as-typed">{ p.lang.error_frame(&problem) }</p>
            }
        </form>
    }
}

#[function_component(Console)]
pub fn console(p: &ConsoleProps) -> Html {
    let text = use_state(String::new);
    let t = |s| p.lang.t(s);
    let submit = {
        let (on, text) = (p.on.clone(), text.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            on.emit(Action::Act((*text).clone()));
        })
    };
    let input = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| text.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    html! {
        <section class="kz-panel kz-console" aria-labelledby="kz-console-h">
            <h2 id="kz-console-h" class="kz-panel-title">{ t("Actions") }
                <span class="kz-panel-note">{ t("any scenario action or zk line, taken now: it is the next step") }</span>
            </h2>
            <form class="kz-console-form" onsubmit={submit}>
                <input type="text" data-testid="console-input" class="kz-input" aria-label={t("scenario action")} spellcheck="false" translate="no"
                    placeholder={t("Type a scenario action, e.g. kill broker 1")} value={(*text).clone()} oninput={input} />
                <button type="submit" class="kz-btn" data-testid="console-send" aria-label={t("Send")}>{ t("Send") }</button>
            </form>
            if let Some(error) = &p.error {
                <p class="kz-inline-error" data-testid="console-error" role="alert">{ p.lang.error_frame(error) }</p>
            } else if let Some(problem) = check(&text) {
                <p class="kz-check-as-typed" data-testid="console-check">{ p.lang.error_frame(&problem) }</p>
            }
            if p.at_end {
                <p class="kz-hint">{ t("The script has ended: an action here lets the cluster play on for another 60 s of virtual time, \
                    long enough to watch it react (a kill leads to a session expiry and a new controller).") }</p>
            }
            <ActionForms lang={p.lang} on={p.on.clone()} />
            <div class="kz-templates" role="group" aria-label={t("Templates")}>
                { for TEMPLATES.iter().map(|(label, line)| {
                    let text = text.clone();
                    let line = line.to_string();
                    html! { <button type="button" class="kz-btn kz-btn-small" aria-label={p.lang.f("template: {}", &[&t(label)])} title={line.clone()} translate="no"
                        onclick={Callback::from(move |_: MouseEvent| text.set(line.clone()))}><span translate="yes">{ t(label) }</span></button> }
                }) }
            </div>
            if !p.taken.is_empty() {
                <ol class="kz-plain kz-taken" aria-label={t("actions taken")}>
                    { for p.taken.iter().map(|(at, line)| html! { <li><span class="kz-lineno">{ format!("#{at}") }</span><code translate="no">{ line }</code></li> }) }
                </ol>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct PickerProps {
    pub source: Source,
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[function_component(Picker)]
pub fn picker(p: &PickerProps) -> Html {
    let change = {
        let on = p.on.clone();
        Callback::from(move |e: Event| {
            let name = e.target_unchecked_into::<HtmlSelectElement>().value();
            if let Some(text) = scenarios::find(&name) {
                on.emit(Action::Load(Source::BuiltIn(name), text.to_string()));
            }
        })
    };
    let current = match &p.source {
        Source::BuiltIn(n) => n.as_str(),
        Source::Text => "",
    };
    html! {
        <label class="kz-picker">
            <span class="kz-picker-label">{ p.lang.t("Scenario") }</span>
            <select data-testid="scenario-picker" aria-label={p.lang.t("Apply a built-in scenario")} onchange={change}>
                if current.is_empty() || scenarios::find(current).is_none() {
                    <option value="" selected=true>{ if current.is_empty() { p.lang.t("(your own)").to_string() } else { format!("({current}?)") } }</option>
                }
                { for scenarios::built_ins().into_iter().map(|(name, text)| html! {
                    <option value={name} selected={name == current} title={scenarios::describe(text)} translate="no">{ name }</option>
                }) }
            </select>
        </label>
    }
}

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    pub text: Rc<str>,
    pub problem: Option<Problem>,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// Where the editor keeps an unsaved edit across reloads (local storage):
/// a fingerprint of the scenario it started from, a newline, the edit.
const DRAFT_KEY: &str = "kzsim.editor.draft";

/// Which scenario a stored edit belongs to.
fn fingerprint(text: &str) -> String {
    format!("{:016x}", crate::format::fnv1a(text.bytes()))
}

/// The edit stored for the scenario `text`, if it differs from it.
pub fn stored_draft(stored: Option<String>, text: &str) -> Option<String> {
    let stored = stored?;
    let (base, draft) = stored.split_once('\n')?;
    (base == fingerprint(text) && draft != text).then(|| draft.to_string())
}

/// The scenario text, editable; Load plays it (and puts it in the address).
/// An edit not yet loaded survives a reload: it is kept in the browser's
/// local storage with the scenario it was made from, and offered back when
/// that scenario opens again.
#[function_component(Editor)]
pub fn editor(p: &EditorProps) -> Html {
    let draft = use_state(|| p.text.to_string());
    let restored = use_state(|| false);
    {
        // A scenario opened (at start, or from the picker): show its text,
        // or the learner's unsaved edit of it.
        let (draft, restored, text) = (draft.clone(), restored.clone(), p.text.clone());
        use_effect_with(text, move |text| match stored_draft(crate::dom::stored(DRAFT_KEY), text) {
            Some(edit) => {
                draft.set(edit);
                restored.set(true);
            }
            None => {
                draft.set(text.to_string());
                restored.set(false);
            }
        });
    }
    let input = {
        let (draft, text) = (draft.clone(), p.text.clone());
        Callback::from(move |e: InputEvent| {
            let value = e.target_unchecked_into::<HtmlTextAreaElement>().value();
            if value == *text {
                crate::dom::forget(DRAFT_KEY);
            } else {
                crate::dom::store(DRAFT_KEY, &format!("{}\n{value}", fingerprint(&text)));
            }
            draft.set(value);
        })
    };
    let discard = {
        let (draft, restored, text) = (draft.clone(), restored.clone(), p.text.clone());
        Callback::from(move |_: MouseEvent| {
            crate::dom::forget(DRAFT_KEY);
            draft.set(text.to_string());
            restored.set(false);
        })
    };
    let load = {
        let (on, draft) = (p.on.clone(), draft.clone());
        Callback::from(move |_: MouseEvent| {
            // Loaded, the edit lives in the address (#kzs=…): no longer unsaved.
            crate::dom::forget(DRAFT_KEY);
            on.emit(Action::Load(Source::Text, (*draft).clone()))
        })
    };
    let bad_line = p.problem.as_ref().and_then(|e| e.line);
    let lines = draft.lines().count().max(1);
    html! {
        <section class="kz-panel kz-editor" aria-labelledby="kz-editor-h">
            <h2 id="kz-editor-h" class="kz-panel-title">{ p.lang.t("Scenario editor") }
                <span class="kz-panel-note">{ p.lang.t("the scenario language; Load plays it and puts it in the address (#kzs=…)") }</span>
            </h2>
            <div class="kz-editor-box">
                <ol class="kz-gutter" aria-hidden="true">
                    { for (1..=lines).map(|n| html! { <li class={classes!((Some(n) == bad_line).then_some("kz-bad-line"))}>{ n }</li> }) }
                </ol>
                <textarea data-testid="editor" class="kz-textarea" aria-label={p.lang.t("scenario text")} spellcheck="false" translate="no" rows={lines.max(8).to_string()}
                    value={(*draft).clone()} oninput={input}></textarea>
            </div>
            if *restored {
                <p class="kz-note" data-testid="editor-restored">
                    { p.lang.t("Your unsaved edit of this scenario was restored from this browser.") }{ " " }
                    <button class="kz-btn kz-btn-small" data-testid="editor-discard" onclick={discard}>{ p.lang.t("Discard it") }</button>
                </p>
            }
            if let Some(problem) = &p.problem {
                <p class="kz-inline-error" data-testid="editor-error">
                    { problem.line.map(|l| p.lang.f("line {}: ", &[&l])).unwrap_or_default() }<span lang="en" translate="no">{ &problem.message }</span>
                </p>
            }
            <button class="kz-btn" data-testid="editor-load" aria-label={p.lang.t("Load")} onclick={load}>{ p.lang.t("Load") }</button>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_edit_comes_back_only_to_its_own_scenario() {
        let stored = Some(format!("{}\nzk-session b", fingerprint("zk-session a")));
        assert_eq!(stored_draft(stored.clone(), "zk-session a").as_deref(), Some("zk-session b"));
        assert_eq!(stored_draft(stored, "zk-session c"), None);
        assert_eq!(stored_draft(Some(format!("{}\nsame", fingerprint("same"))), "same"), None);
        assert_eq!(stored_draft(Some("garbage".into()), "x"), None);
        assert_eq!(stored_draft(None, "x"), None);
    }

    #[test]
    fn lines_are_checked_as_typed_and_every_template_parses() {
        assert_eq!(check(""), None);
        assert_eq!(check("kill broker 1"), None);
        assert!(check("kill broker one").is_some());
        assert!(check("frobnicate").unwrap().starts_with("column 1:"));
        for (label, line) in TEMPLATES {
            assert_eq!(check(line), None, "{label}: {line}");
        }
        // Every form's defaults build a line the parser accepts.
        for form in FORMS {
            let values: Vec<String> = form.fields.iter().map(|(_, d)| d.to_string()).collect();
            let line = (form.build)(&values);
            assert_eq!(check(&line), None, "{}: {line}", form.label);
        }
        assert_eq!((FORMS[5].build)(&["".into()]), "elect-preferred");
        assert!(check(&(FORMS[0].build)(&["t".into(), "x".into(), "2".into()])).is_some(), "partitions must be a number");
    }
}
