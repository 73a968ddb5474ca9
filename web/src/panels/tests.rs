//! Component tests: the panels rendered to HTML natively (Yew's server-side
//! renderer), checked for the contract's hooks and for text that must stay
//! text.

use super::brokers::{Brokers, BrokersProps};
use super::controls::{Controls, ControlsProps};
use super::events::{EventLog, EventsProps};
use super::partitions::{first_page, PartitionListProps, Partitions, PartitionsProps};
use super::znodes::{Znodes, ZnodesProps};
use crate::i18n::Lang;
use crate::scenarios;
use crate::state::Snap;
use kzsim::sandbox::Sandbox;
use std::cell::RefCell;
use std::rc::Rc;
use yew::{BaseComponent, Callback, LocalServerRenderer};

fn render<C: BaseComponent>(props: C::Properties) -> String {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    tokio::task::LocalSet::new().block_on(&runtime, LocalServerRenderer::<C>::with_props(props).render())
}

fn snap(text: &str, step: Option<u64>) -> Snap {
    let mut sandbox = Sandbox::load(text).unwrap();
    match step {
        Some(n) => sandbox.seek(n),
        None => while sandbox.step_forward() {},
    }
    let view = Rc::new(sandbox.view());
    Snap { version: 1, view, sandbox: Rc::new(RefCell::new(sandbox)) }
}

fn count(html: &str, needle: &str) -> usize {
    html.matches(needle).count()
}

#[test]
fn znode_data_that_looks_like_html_is_escaped_text() {
    let s = snap("zk-session a\nzk a create /evil \"<img src=x onerror=alert(1)>\"\nzk a create -e /e 1\n", Some(3));
    let html = render::<Znodes>(ZnodesProps { snap: s, lang: Lang::En });
    assert!(html.contains(r#"data-testid="znode-tree""#), "{html}");
    assert!(html.contains(r#"data-znode-path="/evil""#));
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "{html}");
    assert!(!html.contains("<img"), "{html}");
    // The ephemeral is marked so, the persistent one not.
    let row = |path: &str| html.split(&format!(r#"data-znode-path="{path}""#)).nth(1).unwrap().split('>').next().unwrap().to_string();
    assert!(row("/e").starts_with(r#" data-ephemeral="true""#), "{html}");
    assert!(!row("/evil").contains("data-ephemeral"));
    assert!(html.contains(r#"data-testid="znode-detail""#));
}

#[test]
fn broker_cards_carry_state_and_the_controller() {
    let s = snap(scenarios::find("controller-failover").unwrap_or("cluster brokers=3\nstart all\nrun 1s\n"), None);
    let controller = s.view.controller;
    let n = s.view.brokers.len();
    let html = render::<Brokers>(BrokersProps { snap: s, declared: 0, lang: Lang::En, on: Callback::noop() });
    assert_eq!(count(&html, r#"data-testid="broker""#), n);
    assert_eq!(count(&html, r#"data-controller="true""#), 1, "{html}");
    assert!(html.contains(&format!(r#"data-broker-id="{}""#, controller.unwrap())));
    assert!(html.contains(r#"data-state="running""#));
    assert!(html.contains("kill broker"), "the cards offer their actions");
}

#[test]
fn declared_brokers_show_before_the_cluster_line_runs() {
    let s = snap("cluster brokers=2\nstart all\n", Some(0));
    let html = render::<Brokers>(BrokersProps { snap: s, declared: 2, lang: Lang::En, on: Callback::noop() });
    assert_eq!(count(&html, r#"data-testid="broker""#), 2);
    assert_eq!(count(&html, r#"data-state="stopped""#), 2);
}

#[test]
fn partition_rows_carry_leader_isr_and_epoch() {
    let s = snap("cluster brokers=3\nstart all\ntopic create t assignment=0:1,2,0\nrun 1s\n", None);
    let html = render::<Partitions>(PartitionListProps { snap: s, lang: Lang::En, window: first_page(), on_window: Callback::noop() });
    assert!(html.contains(r#"data-tp="t-0""#), "{html}");
    assert!(html.contains(r#"data-leader="1""#));
    assert!(html.contains(r#"data-isr="1,2,0""#));
    assert!(html.contains(r#"data-leader-epoch="0""#));
}

#[test]
fn the_event_log_has_an_entry_per_step_so_far_and_the_future_dimmed() {
    let text = scenarios::find("zk-basics").unwrap();
    let mut s = snap(text, None);
    s.sandbox.borrow_mut().seek(5);
    s.view = Rc::new(s.sandbox.borrow().view());
    let html = render::<EventLog>(EventsProps { snap: s, lang: Lang::En, on: Callback::noop() });
    assert_eq!(count(&html, r#"data-testid="event""#), 5);
    assert!(count(&html, r#"data-future="true""#) > 0);
    assert!(html.contains(r#"data-testid="event-log""#));
}

#[test]
fn the_controls_show_the_step_digits_only_and_speak_chinese() {
    let props = |lang| ControlsProps {
        step: 12,
        known: 40,
        end: None,
        time_ms: 18_004,
        checkpoints: vec![(10, true, "ok".into())],
        playing: false,
        speed: 0,
        to_end: false,
        from: 0,
        to: None,
        line: 3,
        lines: 10,
        goal: None,
        lang,
        on: Callback::noop(),
    };
    let html = render::<Controls>(props(Lang::En));
    assert!(html.contains(r#"data-testid="step-counter" aria-live="polite">12</span>"#), "{html}");
    assert!(html.contains("18.004 s"));
    for hook in ["step-forward", "step-back", "play-pause", "reset", "to-end", "timeline", "clock"] {
        assert!(html.contains(&format!(r#"data-testid="{hook}""#)), "{hook}");
    }
    assert!(html.contains(r#"max="40""#));
    let zh = render::<Controls>(props(Lang::Zh));
    assert!(zh.contains("前进一步"));
    // On the way to a permalink's far step, the bar counts the steps.
    let going = render::<Controls>(ControlsProps { to_end: true, goal: Some(60_000), ..props(Lang::En) });
    assert!(going.contains(r#"max="60000" value="12""#), "{going}");
    assert!(going.contains("going to step 60000, which the address asks for: step 12 so far"), "{going}");
}

/// Where a step's render time goes on a big cluster (issue 9): prints the
/// cost of the view and of each panel's render, natively. Run with
/// `cargo test --release -p kzsim-web render_cost -- --ignored --nocapture`.
#[test]
#[ignore]
fn render_cost_on_a_big_cluster() {
    use super::partitions::Beliefs;
    use super::sequence::{Sequence, SequenceProps};
    use std::time::Instant;
    let p = std::env::var("KZ_PARTITIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let text =
        format!("cluster brokers=50\nstart all\ntopic create big partitions={p} replication-factor=3\nrun 10s\nkill broker 0\nrun 60s\n");
    let t = Instant::now();
    let mut sandbox = Sandbox::load(&text).unwrap();
    while sandbox.step_forward() {}
    let end = sandbox.position();
    eprintln!("{p} partitions: {end} steps simulated in {:?}", t.elapsed());
    let t = Instant::now();
    sandbox.seek(end - 300);
    eprintln!("seek back 300: {:?}", t.elapsed());
    let t = Instant::now();
    let view = Rc::new(sandbox.view());
    eprintln!("view(): {:?} ({} znodes, {} partitions)", t.elapsed(), view.znodes.len(), view.partitions.len());
    let s = Snap { version: 1, view, sandbox: Rc::new(RefCell::new(sandbox)) };
    let time = |name: &str, f: &dyn Fn() -> String| {
        let t = Instant::now();
        let html = f();
        eprintln!("{name}: {:?} ({} KB of HTML)", t.elapsed(), html.len() / 1024);
    };
    time("znodes", &|| render::<Znodes>(ZnodesProps { snap: s.clone(), lang: Lang::En }));
    time("brokers", &|| render::<Brokers>(BrokersProps { snap: s.clone(), declared: 0, lang: Lang::En, on: Callback::noop() }));
    time("partitions", &|| {
        render::<Partitions>(PartitionListProps { snap: s.clone(), lang: Lang::En, window: first_page(), on_window: Callback::noop() })
    });
    time("beliefs", &|| render::<Beliefs>(PartitionsProps { snap: s.clone(), lang: Lang::En }));
    time("events", &|| render::<EventLog>(EventsProps { snap: s.clone(), lang: Lang::En, on: Callback::noop() }));
    time("events zh", &|| render::<EventLog>(EventsProps { snap: s.clone(), lang: Lang::Zh, on: Callback::noop() }));
    time("sequence", &|| render::<Sequence>(SequenceProps { snap: s.clone(), lang: Lang::En, on: Callback::noop() }));
}
