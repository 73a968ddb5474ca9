//! The sequence diagram (SVG): ZooKeeper requests, watch notifications and
//! control requests between ZooKeeper, the brokers and console sessions, for
//! the last steps up to the current one.

use crate::format;
use crate::i18n::Lang;
use crate::seq;
use crate::state::{Action, Snap};
use std::rc::Rc;
use yew::prelude::*;

const MAX: usize = 30;
// The geometry in whole pixels: the page formats no floating-point numbers
// (their formatting code would be in the download).
const LANE: i64 = 160;
const ROW: i64 = 22;
const TOP: i64 = 34;
const LEFT: i64 = 110;

#[derive(Properties, PartialEq)]
pub struct SequenceProps {
    pub snap: Snap,
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[function_component(Sequence)]
pub fn sequence(p: &SequenceProps) -> Html {
    let sandbox = p.snap.sandbox.borrow();
    let position = sandbox.position() as usize;
    let entries = &sandbox.trace()[..position.min(sandbox.trace().len())];
    let brokers: Vec<i32> = p.snap.view.brokers.iter().map(|b| b.id).collect();
    // The last diagram, kept with the sandbox it was drawn from (held, so
    // that another scenario's sandbox can never pass for it).
    let recent = use_mut_ref(|| (p.snap.sandbox.clone(), seq::Recent::default()));
    let d = {
        let mut recent = recent.borrow_mut();
        if !Rc::ptr_eq(&recent.0, &p.snap.sandbox) {
            *recent = (p.snap.sandbox.clone(), seq::Recent::default());
        }
        let branch = format::branch_of(sandbox.timeline().injections());
        recent.1.diagram(branch, entries, &brokers, MAX)
    };
    // Expiries are labelled with their summary: in the page's language.
    let labels: Vec<String> = d
        .msgs
        .iter()
        .map(|m| match entries.get((m.step as usize).wrapping_sub(1)).filter(|e| m.kind == "expire" && e.step == m.step) {
            Some(e) => p.lang.summary_text(&e.kind, &e.summary).chars().take(48).collect(),
            None => m.label.clone(),
        })
        .collect();
    let current = d.msgs.iter().any(|m| m.step as usize == position).then_some(position as u64);
    html! {
        <section class="kz-panel kz-seq" aria-labelledby="kz-seq-h">
            <h2 id="kz-seq-h" class="kz-panel-title">{ p.lang.t("Sequence diagram") }
                <span class="kz-panel-note">{ p.lang.t("The last ZooKeeper requests, watch notifications and control requests.") }</span>
            </h2>
            <Drawing diagram={Rc::new(d)} {labels} {current} lang={p.lang} on={p.on.clone()} />
        </section>
    }
}

/// The diagram itself: redrawn only when its messages, their labels or the
/// highlighted one change, not at every step (a long run's fetch rounds
/// send none of the messages drawn).
#[derive(Properties)]
struct DrawingProps {
    diagram: Rc<seq::Diagram>,
    labels: Vec<String>,
    /// The step whose message is highlighted, if one of them is this step's.
    current: Option<u64>,
    lang: Lang,
    on: Callback<Action>,
}

impl PartialEq for DrawingProps {
    fn eq(&self, o: &DrawingProps) -> bool {
        self.diagram == o.diagram && (&self.labels, self.current, self.lang) == (&o.labels, o.current, o.lang) && self.on == o.on
    }
}

#[function_component(Drawing)]
fn drawing(p: &DrawingProps) -> Html {
    let d = &*p.diagram;
    let x = |lane: usize| LEFT + lane as i64 * LANE;
    let width = LEFT + (d.lanes.len().max(2) as i64 - 1) * LANE + 110;
    let height = TOP + d.msgs.len().max(1) as i64 * ROW + 10;
    html! {
            <div class="kz-seq-scroll">
                <svg class="kz-seq-svg" data-testid="sequence-diagram" width={width.to_string()} height={height.to_string()}
                    viewBox={format!("0 0 {width} {height}")} role="img" aria-label={p.lang.t("Sequence diagram")}>
                    { for d.lanes.iter().enumerate().map(|(i, lane)| html! {
                        <g class={classes!("kz-lane", format::actor_class(lane))}>
                            <line x1={x(i).to_string()} y1="22" x2={x(i).to_string()} y2={height.to_string()} />
                            <text x={x(i).to_string()} y="14" text-anchor="middle" translate="no">{ lane }</text>
                        </g>
                    }) }
                    // Each message is a group keyed by its step and placed by a
                    // transform: a new message moves the others down a row by
                    // an attribute each, instead of rewriting every row's text
                    // (issue 9: the diagram was most of a step's text layout).
                    // They have a group of their own: `html!` flattens a `for`
                    // into its parent's children, and beside the unkeyed lanes
                    // Yew matched them by position, so that a message's key at
                    // another row replaced its whole group (all thirty, at
                    // every step that sent one).
                    <g class="kz-msgs">
                    { for d.msgs.iter().zip(&p.labels).enumerate().map(|(row, (m, label))| {
                        let y = 8;
                        let place = format!("translate(0 {})", TOP + row as i64 * ROW);
                        let (x1, x2) = (x(m.from), x(m.to));
                        let current = Some(m.step) == p.current;
                        let class = classes!("kz-msg", format!("kz-msg-{}", m.kind), (!m.ok).then_some("kz-msg-err"), current.then_some("kz-msg-current"),
                            format::actor_class(&d.lanes[if m.kind == "watch" { m.to } else { m.from }]));
                        let go = {
                            let (on, step) = (p.on.clone(), m.step);
                            Callback::from(move |_: MouseEvent| on.emit(Action::Seek(step)))
                        };
                        let step_label = html! { <text class="kz-msg-step" x="6" y={(y + 4).to_string()}>{ format!("#{}", m.step) }</text> };
                        if m.from == m.to {
                            html! {
                                <g key={m.step} {class} transform={place} onclick={go} translate={(m.kind != "expire").then_some("no")}>
                                    <title>{ format!("#{} {}", m.step, label) }</title>
                                    { step_label }
                                    <circle cx={x1.to_string()} cy={y.to_string()} r="5" />
                                    <text x={(x1 + 9).to_string()} y={(y + 4).to_string()}>{ short(label, 40) }</text>
                                </g>
                            }
                        } else {
                            let dir = if x2 > x1 { 1 } else { -1 };
                            let head = format!("{},{} {},{} {},{}", x2, y, x2 - dir * 8, y - 4, x2 - dir * 8, y + 4);
                            html! {
                                <g key={m.step} {class} transform={place} onclick={go} translate="no">
                                    <title>{ format!("#{} {}", m.step, m.label) }</title>
                                    { step_label }
                                    <line x1={x1.to_string()} y1={y.to_string()} x2={(x2 - dir * 6).to_string()} y2={y.to_string()} />
                                    <polygon points={head} />
                                    <text x={((x1 + x2) / 2).to_string()} y={(y - 4).to_string()} text-anchor="middle">{ short(&m.label, ((x2 - x1).abs() * 10 / 66) as usize) }</text>
                                </g>
                            }
                        }
                    }) }
                    </g>
                    if d.msgs.is_empty() {
                        <text x={LEFT.to_string()} y={(TOP + 12).to_string()} class="kz-muted-svg">{ p.lang.t("Nothing sent yet.") }</text>
                    }
                </svg>
            </div>
    }
}

/// A label cut to `max` characters (the path's end is what tells).
fn short(label: &str, max: usize) -> String {
    let max = max.max(8);
    let n = label.chars().count();
    if n <= max {
        label.to_string()
    } else {
        format!("…{}", label.chars().skip(n - max + 1).collect::<String>())
    }
}
