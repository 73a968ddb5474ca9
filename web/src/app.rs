//! The page. For now it loads a scenario (the built-in one, or `#kzs=` from
//! the address), parses it with `kzsim` and shows the script or the located
//! error; the step-by-step simulator view comes next.

use kzsim::scenario::{self, Script};
use yew::prelude::*;

use crate::address;

/// The default built-in scenario (`ui-contract.md`: `/` opens it).
const BUILT_IN_NAME: &str = "zk-basics";
const BUILT_IN_TEXT: &str = include_str!("../../static/scenarios/zk-basics.kzs");

/// What the page loaded: where the scenario came from and what became of it.
#[derive(Debug)]
pub struct Loaded {
    /// How the scenario is named in messages, like a file name.
    pub source: String,
    /// The scenario text, when there was one to read.
    pub text: Option<String>,
    pub outcome: Result<Script, Problem>,
}

/// Why a scenario could not be used, located when it has a line.
#[derive(Debug)]
pub struct Problem {
    pub line: Option<usize>,
    pub message: String,
}

/// Loads the scenario that the address fragment asks for, or the built-in one.
pub fn load(fragment: &str) -> Loaded {
    let (source, text) = match address::scenario_from_fragment(fragment) {
        None => (format!("{BUILT_IN_NAME}.kzs"), Ok(BUILT_IN_TEXT.to_string())),
        Some(text) => ("#kzs".to_string(), text),
    };
    match text {
        Err(message) => Loaded { source, text: None, outcome: Err(Problem { line: None, message }) },
        Ok(text) => {
            let outcome = scenario::parse(&text).map_err(|e| Problem { line: Some(e.line), message: e.render(&source) });
            Loaded { source, text: Some(text), outcome }
        }
    }
}

fn current_fragment() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

#[function_component(App)]
pub fn app() -> Html {
    let loaded = use_memo((), |_| load(&current_fragment()));
    html! {
        <div class="kz-app">
            <header class="kz-header">
                <h1 class="kz-title" data-testid="title">{ "Kafka ZK Sandbox" }</h1>
                <p class="kz-tagline">
                    { "Watch Kafka's ZooKeeper-era control plane work, one step at a time." }
                </p>
            </header>
            <main class="kz-main">
                <section class="kz-card" aria-labelledby="kz-scenario-heading">
                    <h2 id="kz-scenario-heading" class="kz-card-title">
                        { "Scenario " }<code>{ &loaded.source }</code>
                    </h2>
                    { view_outcome(&loaded) }
                </section>
                <p class="kz-note">
                    { "The simulator's controls, the znode tree, the brokers and the \
                       partitions arrive here next." }
                </p>
            </main>
        </div>
    }
}

fn view_outcome(loaded: &Loaded) -> Html {
    match &loaded.outcome {
        Ok(script) => {
            let count = script.lines.len();
            let noun = if count == 1 { "command" } else { "commands" };
            html! {
                <>
                    <p class="kz-status kz-status-ok" data-testid="parse-summary">
                        { format!("{count} {noun} parsed · seed {}", script.seed) }
                    </p>
                    <ol class="kz-script">
                        { for script.lines.iter().map(|line| html! {
                            <li class="kz-script-line">
                                <span class="kz-lineno">{ line.line }</span>
                                <code>{ &line.text }</code>
                            </li>
                        }) }
                    </ol>
                </>
            }
        }
        Err(problem) => html! {
            <>
                <p class="kz-error" data-testid="error" role="alert">{ &problem.message }</p>
                { view_source(loaded.text.as_deref(), problem.line) }
            </>
        },
    }
}

/// The scenario text with line numbers, the faulty line marked.
fn view_source(text: Option<&str>, bad_line: Option<usize>) -> Html {
    let Some(text) = text else { return Html::default() };
    html! {
        <ol class="kz-script kz-source">
            { for text.lines().enumerate().map(|(i, line)| {
                let number = i + 1;
                let class = classes!(
                    "kz-script-line",
                    (Some(number) == bad_line).then_some("kz-bad-line")
                );
                html! {
                    <li {class}>
                        <span class="kz-lineno">{ number }</span>
                        <code>{ line }</code>
                    </li>
                }
            }) }
        </ol>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_scenario_parses() {
        let loaded = load("");
        assert_eq!(loaded.source, "zk-basics.kzs");
        let script = loaded.outcome.expect("the built-in scenario parses");
        assert!(!script.lines.is_empty());
    }

    #[test]
    fn a_broken_kzs_scenario_is_located() {
        // "frobnicate" in base64url.
        let loaded = load("#kzs=ZnJvYm5pY2F0ZQ");
        assert_eq!(loaded.text.as_deref(), Some("frobnicate"));
        let problem = loaded.outcome.expect_err("frobnicate is no command");
        assert_eq!(problem.line, Some(1));
        assert!(problem.message.starts_with("#kzs:1:"), "{}", problem.message);
    }

    #[test]
    fn a_malformed_kzs_value_is_an_error() {
        let loaded = load("#kzs=not*base64");
        assert!(loaded.text.is_none());
        assert!(loaded.outcome.unwrap_err().message.contains("base64url"));
    }
}
