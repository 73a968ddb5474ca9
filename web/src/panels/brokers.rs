//! A card per broker: state, controller crown with its epoch (cracked for a
//! zombie), broker epoch, session and its expiry countdown, log dirs, the
//! controller's event queue, and the actions a learner can take on it.

use crate::format;
use crate::i18n::Lang;
use crate::panels::icons;
use crate::state::Action;
use crate::state::Snap;
use kzsim::view::{BrokerView, View};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BrokersProps {
    pub snap: Snap,
    /// Brokers the script declares (shown, stopped, before `cluster` runs).
    pub declared: usize,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// The actions that apply to a broker in `state`: (label, command text).
pub fn actions_for(b: &BrokerView) -> Vec<(&'static str, String)> {
    let id = b.id;
    let mut out = Vec::new();
    match b.state {
        "stopped" => out.push(("start", format!("start broker {id}"))),
        "running" => {
            out.push(("kill", format!("kill broker {id}")));
            out.push(("shutdown", format!("shutdown broker {id}")));
            out.push(("pause", format!("pause broker {id}")));
            if b.session.is_some() {
                out.push(("expire session", format!("expire-session broker {id}")));
            }
            if b.fetch_paused {
                out.push(("resume fetch", format!("resume-fetch broker {id}")));
            } else {
                out.push(("pause fetch", format!("pause-fetch broker {id}")));
            }
        }
        "paused" => {
            out.push(("resume", format!("resume broker {id}")));
            out.push(("kill", format!("kill broker {id}")));
            if b.session.is_some() {
                out.push(("expire session", format!("expire-session broker {id}")));
            }
        }
        _ => out.push(("kill", format!("kill broker {id}"))),
    }
    out
}

#[function_component(Brokers)]
pub fn brokers(p: &BrokersProps) -> Html {
    let view = &p.snap.view;
    html! {
        <section class="kz-panel kz-brokers" aria-labelledby="kz-brokers-h">
            <h2 id="kz-brokers-h" class="kz-panel-title">{ p.lang.t("Brokers") }
                if let (Some(c), Some(e)) = (view.controller, view.controller_epoch) {
                    <span class="kz-panel-note" translate="no">{ format!("/controller → {c}, /controller_epoch = {e}") }</span>
                }
            </h2>
            if view.brokers.is_empty() && p.declared == 0 {
                <p class="kz-muted">{ p.lang.t("No brokers: this scenario is a bare ZooKeeper.") }</p>
            }
            <ContextProvider<Clock> context={Clock(view.clone())}>
                <div class="kz-cards">
                    { for view.brokers.iter().enumerate().map(|(index, b)| html! {
                        <Card key={b.id} view={view.clone()} {index} lang={p.lang} on={p.on.clone()} />
                    }) }
                    if view.brokers.is_empty() {
                        { for (0..p.declared as i32).map(|id| not_yet(id, p.lang)) }
                    }
                </div>
            </ContextProvider<Clock>>
        </section>
    }
}

/// A declared broker before the `cluster` line has run: not started.
fn not_yet(id: i32, lang: Lang) -> Html {
    html! {
        <article key={id} class={classes!("kz-broker", format::broker_class(id), "kz-state-stopped")}
            data-testid="broker" data-broker-id={id.to_string()} data-state="stopped" aria-label={lang.f("broker {} ({})", &[&id, &lang.t("stopped")])}>
            <header class="kz-broker-head">
                <span class="kz-dot"></span>
                <span class="kz-broker-name">{ format!("broker {id}") }</span>
                <span class="kz-state kz-state-badge-stopped">{ lang.t("stopped") }</span>
            </header>
            <p class="kz-muted">{ lang.t("declared by the script; not started yet") }</p>
        </article>
    }
}

/// The view the session countdowns read: they move at every step, so they
/// are drawn by [`Expiry`], which follows it, and a card redraws only when
/// something else on it changes (issue 9: fifty cards redrawn at every step).
#[derive(Clone)]
struct Clock(Rc<View>);

impl PartialEq for Clock {
    fn eq(&self, other: &Clock) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// What a card draws of a broker, but for the session countdown.
fn drawn(b: &BrokerView) -> impl PartialEq + '_ {
    (
        (b.id, b.state, b.controller, b.zombie, b.controller_epoch, b.broker_epoch, b.fetch_paused, b.port),
        (&b.session, &b.log_dirs, &b.controller_queue, &b.controller_busy_with, &b.host),
    )
}

#[derive(Properties)]
struct CardProps {
    view: Rc<View>,
    /// The broker's place in `view.brokers`.
    index: usize,
    lang: Lang,
    on: Callback<Action>,
}

impl PartialEq for CardProps {
    fn eq(&self, o: &CardProps) -> bool {
        (self.lang, &self.on) == (o.lang, &o.on) && self.view.brokers.get(self.index).map(drawn) == o.view.brokers.get(o.index).map(drawn)
    }
}

#[function_component(Card)]
fn card_component(p: &CardProps) -> Html {
    p.view.brokers.get(p.index).map(|b| card(b, p.index, p.lang, &p.on)).unwrap_or_default()
}

#[derive(Properties, PartialEq)]
struct ExpiryProps {
    index: usize,
    lang: Lang,
}

/// A session meter is 4rem wide, so a whole percent is under a pixel. In
/// tenths its style changed at every step that moved the clock, fifty
/// meters restyled (and as many in ZooKeeper's session table); in whole
/// percents, at one such step in five (issue 9: over five steps of a big
/// cluster's heartbeats, 245 style changes became 50). The countdown
/// beside it keeps its tenths of a second.
pub const METER_DECIMALS: u32 = 0;

/// A broker's session countdown, read from the [`Clock`].
#[function_component(Expiry)]
fn expiry(p: &ExpiryProps) -> Html {
    let Some(Clock(view)) = use_context::<Clock>() else { return Html::default() };
    let Some(b) = view.brokers.get(p.index) else { return Html::default() };
    let Some(left) = b.session_expires_in_ms else { return Html::default() };
    let timeout = b.session.as_ref().and_then(|s| view.sessions.iter().find(|v| &v.id == s)).map(|s| s.timeout_ms);
    html! {
        <div class="kz-expiry" title={p.lang.t("expires in")}>
            <span class="kz-meter" style={format!("--pct: {}", timeout.map_or_else(|| "100%".to_string(), |t| format::percent(left, t.max(1), METER_DECIMALS)))}></span>
            { format!(" {}", format::countdown(left)) }
        </div>
    }
}

fn card(b: &BrokerView, index: usize, lang: Lang, on: &Callback<Action>) -> Html {
    let t = |s| lang.t(s);
    let act = |command: String| {
        let on = on.clone();
        Callback::from(move |_: MouseEvent| on.emit(Action::Act(command.clone())))
    };
    let state_class = format!("kz-state-{}", b.state);
    html! {
        <article key={b.id} class={classes!("kz-broker", format::broker_class(b.id), state_class, b.controller.then_some("kz-is-controller"))}
            data-testid="broker" data-broker-id={b.id.to_string()} data-state={b.state}
            data-controller={b.controller.then_some("true")} data-zombie={b.zombie.then_some("true")}
            aria-label={lang.f("broker {} ({})", &[&b.id, &t(b.state)])}>
            <header class="kz-broker-head">
                <span class="kz-dot"></span>
                <span class="kz-broker-name">{ format!("broker {}", b.id) }</span>
                <span class={classes!("kz-state", format!("kz-state-badge-{}", b.state))}>{ t(b.state) }</span>
                if b.controller {
                    <span class={classes!("kz-crown-wrap", b.zombie.then_some("kz-zombie"))}
                        title={if b.zombie { t("zombie controller") } else { t("controller") }}>
                        { icons::crown(b.zombie) }
                        { format!("e={}", b.controller_epoch.unwrap_or_default()) }
                        if b.zombie { <span class="kz-zombie-word">{ format!(" {}", t("zombie")) }</span> }
                    </span>
                }
            </header>
            <dl class="kz-facts">
                <dt>{ t("broker epoch") }</dt>
                <dd>{ b.broker_epoch.map(|e| format!("{} (czxid)", format::hex(e))).unwrap_or_else(|| "—".into()) }</dd>
                <dt>{ t("session") }</dt>
                <dd>
                    <span translate="no">{ b.session.clone().unwrap_or_else(|| "—".into()) }</span>
                    <Expiry {index} {lang} />
                </dd>
                <dt>{ t("listener") }</dt>
                <dd translate="no">{ format!("{}:{}", b.host, b.port) }</dd>
                <dt>{ t("log dirs") }</dt>
                <dd class="kz-dirs">
                    { for b.log_dirs.iter().enumerate().map(|(k, ok)| html! {
                        <span class={classes!("kz-dir", if *ok { "kz-ok" } else { "kz-bad" })} title={format!("/var/kafka/data-{k}: {}", t(if *ok { "online" } else { "offline" }))}>
                            { format!("{} data-{k}", if *ok { "●" } else { "✕" }) }
                        </span>
                    }) }
                </dd>
                if b.fetch_paused {
                    <dt>{ t("fetching") }</dt><dd class="kz-warn">{ t("paused") }</dd>
                }
            </dl>
            if b.controller {
                <div class="kz-queue">
                    <div class="kz-queue-title">{ t("controller queue") }</div>
                    if let Some(busy) = &b.controller_busy_with {
                        <div class="kz-queue-busy" translate="no">{ format!("▶ {busy}") }</div>
                    }
                    if b.controller_queue.is_empty() && b.controller_busy_with.is_none() {
                        <div class="kz-muted">{ t("idle") }</div>
                    }
                    <ol class="kz-queue-list" translate="no">
                        { for b.controller_queue.iter().map(|e| html! { <li>{ e }</li> }) }
                    </ol>
                </div>
            }
            <div class="kz-actions" role="group" aria-label={lang.f("actions on broker {}", &[&b.id])}>
                { for actions_for(b).into_iter().map(|(label, command)| html! {
                    <button class={classes!("kz-btn", "kz-btn-small", (label == "kill").then_some("kz-danger"))}
                        data-action={label.replace(' ', "-")} aria-label={lang.f("{} broker {}", &[&t(label), &b.id])} title={command.clone()}
                        onclick={act(command)}>{ t(label) }</button>
                }) }
                if b.state == "running" {
                    { for b.log_dirs.iter().enumerate().filter(|(_, ok)| **ok).map(|(k, _)| {
                        let command = format!("fail-log-dir broker {} dir {k}", b.id);
                        html! {
                            <button class="kz-btn kz-btn-small" data-action="fail-log-dir" aria-label={lang.f("{} {} on broker {}", &[&t("fail log dir"), &k, &b.id])}
                                title={command.clone()} onclick={act(command)}>{ format!("{} {k}", t("fail log dir")) }</button>
                        }
                    }) }
                }
            </div>
        </article>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::beliefs::tests::broker;

    #[test]
    fn each_state_offers_the_actions_that_apply() {
        let labels = |b: &BrokerView| actions_for(b).into_iter().map(|(l, _)| l).collect::<Vec<_>>();
        let mut b = broker(1, "running", &[], &[]);
        assert_eq!(labels(&b), ["kill", "shutdown", "pause", "pause fetch"]);
        b.session = Some("0x1".into());
        b.fetch_paused = true;
        assert_eq!(labels(&b), ["kill", "shutdown", "pause", "expire session", "resume fetch"]);
        assert_eq!(actions_for(&b)[0].1, "kill broker 1");
        b.state = "paused";
        assert_eq!(labels(&b), ["resume", "kill", "expire session"]);
        b.state = "stopped";
        assert_eq!(actions_for(&b), [("start", "start broker 1".to_string())]);
        b.state = "shutting-down";
        assert_eq!(labels(&b), ["kill"]);
        // Every command is a scenario line the core accepts.
        for state in ["running", "paused", "stopped", "shutting-down"] {
            b.state = state;
            for (_, command) in actions_for(&b) {
                kzsim::scenario::parse(&format!("cluster brokers=2\n{command}")).unwrap_or_else(|e| panic!("{command}: {e}"));
            }
        }
    }
}
