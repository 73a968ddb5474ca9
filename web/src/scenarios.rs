//! The built-in scenarios: every `static/scenarios/*.kzs`, embedded at build
//! time by `build.rs` (no fetch at run time), and the guided tour kept beside
//! one (`NAME.tour.json`, docs/tours.md), which the page fetches from
//! `dist/scenarios/` (Trunk copies the folder there) when its scenario opens:
//! the tours stay out of the first download (docs/performance.md, Download).
//! Native builds (the tests) embed the tours instead.

include!(concat!(env!("OUT_DIR"), "/scenarios.rs"));

/// The contract's built-ins in the order the picker lists them; any other
/// file follows, by name.
const ORDER: &[&str] = &["controller-failover", "zk-basics", "broker-bounce", "isr-shrink", "config-change", "log-dir-failure"];

/// The built-ins, in picker order: (name, text). (`FILES` is sorted by
/// name already: no sort, one fewer in the download.)
pub fn built_ins() -> Vec<(&'static str, &'static str)> {
    let mut all: Vec<_> = ORDER.iter().filter_map(|o| FILES.iter().find(|(n, _)| n == o).copied()).collect();
    all.extend(FILES.iter().filter(|(n, _)| !ORDER.contains(n)).copied());
    all
}

pub fn find(name: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

/// Whether a built-in scenario has a tour beside it.
pub fn has_tour(name: &str) -> bool {
    TOUR_NAMES.contains(&name)
}

/// The tour of a built-in scenario (its JSON text), when it has one; native
/// builds only (the page fetches it: [`fetch_tour`]).
#[cfg(not(target_arch = "wasm32"))]
pub fn tour(name: &str) -> Option<&'static str> {
    TOURS.iter().find(|(n, _)| *n == name).map(|(_, json)| *json)
}

/// Fetches the tour of a built-in scenario (its JSON text) from where Trunk
/// copies it, or says why it could not.
#[cfg(target_arch = "wasm32")]
pub async fn fetch_tour(name: &str) -> Result<String, String> {
    fetch_text(&format!("scenarios/{name}.tour.json")).await
}

/// Fetches a text file of the page's own (a relative address, so that dist/
/// works from any static file server at any path), or says why it could not: the address and the HTTP status or the browser's message.
/// The data the first render does not need is fetched so, on demand (tours,
/// the Chinese summary templates).
#[cfg(target_arch = "wasm32")]
pub async fn fetch_text(url: &str) -> Result<String, String> {
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    let failed = |e: JsValue| {
        let why = e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).or_else(|| e.as_string()).unwrap_or_default();
        format!("{url}: {why}")
    };
    let window = web_sys::window().ok_or_else(|| format!("{url}: no window"))?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url)).await.map_err(failed)?.unchecked_into();
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let text = JsFuture::from(response.text().map_err(failed)?).await.map_err(failed)?;
    text.as_string().ok_or_else(|| format!("{url}: not text"))
}

/// Every embedded tour: (scenario name, JSON text).
#[cfg(test)]
pub fn tours() -> &'static [(&'static str, &'static str)] {
    TOURS
}

/// What `/` opens: controller-failover once it exists, zk-basics before.
pub fn default_name() -> &'static str {
    ["controller-failover", "zk-basics"].into_iter().find(|n| find(n).is_some()).or_else(|| FILES.first().map(|(n, _)| *n)).unwrap_or("")
}

/// The first comment line of a scenario: its one-line description.
pub fn describe(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .take_while(|l| l.is_empty() || l.starts_with('#'))
        .find_map(|l| l.strip_prefix('#').map(str::trim).filter(|l| !l.is_empty()))
        .unwrap_or_default()
        .to_string()
}

/// How many brokers a scenario's `cluster brokers=N` line declares (0 for
/// a bare ZooKeeper): the broker cards exist before that line has run.
pub fn declared_brokers(text: &str) -> usize {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| l.split_whitespace().next() == Some("cluster"))
        .find_map(|l| l.split_whitespace().find_map(|t| t.strip_prefix("brokers=")?.parse().ok()))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kzsim::sandbox::Sandbox;

    #[test]
    fn every_tour_belongs_to_a_built_in_and_is_named() {
        assert_eq!(TOUR_NAMES.len(), TOURS.len());
        for (name, _) in TOURS {
            assert!(has_tour(name) && find(name).is_some(), "{name}");
        }
        assert!(!has_tour("no-such-scenario"));
    }

    #[test]
    fn zk_basics_is_built_in_and_a_default_exists() {
        assert!(find("zk-basics").is_some());
        assert!(find(default_name()).is_some());
        assert!(find("no-such-scenario").is_none());
        let names: Vec<_> = built_ins().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), FILES.len());
        assert_eq!(names[..ORDER.len()], *ORDER);
    }

    #[test]
    fn finds_the_declared_brokers() {
        assert_eq!(declared_brokers("seed 1\ncluster brokers=3 log-dirs=2\nstart all"), 3);
        assert_eq!(declared_brokers("# cluster brokers=9\nzk-session a"), 0);
        assert_eq!(declared_brokers("cluster log-dirs=2 brokers=2 # two"), 2);
        assert_eq!(declared_brokers(""), 0);
    }

    #[test]
    fn describes_a_scenario_by_its_first_comment() {
        assert_eq!(describe("# A primer.\n# more\nseed 1"), "A primer.");
        assert_eq!(describe("\n#\n#  Two.\n"), "Two.");
        assert_eq!(describe("seed 1\n# late"), "");
    }

    /// A wasm panic is a bug: every built-in plays to its end, back and
    /// forth, and every view along the way renders, without one; and every
    /// `expect` holds.
    #[test]
    fn every_built_in_plays_to_the_end_without_a_panic_or_a_failed_expect() {
        for (name, text) in built_ins() {
            let mut sandbox = Sandbox::load(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let mut views = 0;
            while sandbox.step_forward() {
                if sandbox.position().is_multiple_of(7) {
                    let _ = sandbox.view();
                    views += 1;
                }
            }
            let view = sandbox.view();
            assert_eq!(view.error, None, "{name}");
            assert!(view.end.is_some(), "{name} did not reach its end");
            for e in &view.expectations {
                assert!(e.passed, "{name}:{}: {} (actual {})", e.line, e.text, e.actual);
            }
            let end = sandbox.position();
            sandbox.seek(end / 2);
            assert_eq!(sandbox.position(), end / 2);
            sandbox.step_back();
            let _ = sandbox.view();
            sandbox.seek(0);
            assert_eq!(sandbox.view().step, 0);
            assert!(views > 0 || end < 7, "{name}");
        }
    }
}
