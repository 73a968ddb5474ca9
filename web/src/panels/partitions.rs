//! Partitions (replicas, leader, ISR, epochs, zkVersion, LEO/HW bars, the
//! controller's state machines) and "what each actor believes".

use crate::beliefs;
use crate::format;
use crate::i18n::Lang;
use crate::state::Snap;
use kzsim::sandbox::Sandbox;
use kzsim::view::{PartitionView, View, Window};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PartitionsProps {
    pub snap: Snap,
    pub lang: Lang,
}

/// The partitions panel draws the rows its [`Window`] asked the view for;
/// the window (the filter and how many pages are open) lives with the app,
/// which builds the view.
#[derive(Properties, PartialEq)]
pub struct PartitionListProps {
    pub snap: Snap,
    pub lang: Lang,
    pub window: Pages,
    pub on_window: Callback<Pages>,
}

fn chip(id: i32, extra: Option<&'static str>, title: String) -> Html {
    html! { <span class={classes!("kz-chip", format::broker_class(id), extra)} {title}>{ id }</span> }
}

/// Partition rows drawn at once: a 10,000-partition topic would make every
/// step redraw megabytes of rows nobody reads (issue 9). Beyond this, a
/// filter finds a partition and "show more" pages on. High enough that
/// every scenario short of a big-cluster demonstration shows one row per
/// partition, as ui-contract.md promises.
pub const PAGE: usize = 500;
/// Past [`PAGE`] partitions, the rows a page draws at once and "Show more"
/// adds. A row is some sixty elements (its replica table and LEO/HW bars):
/// 500 of them were 28,000 elements that the browser styled, laid out and
/// painted again at every step of a 10,000-partition cluster, three times
/// the rest of the page. Such a cluster is read through the filter. Twenty
/// rows are some three screens: fifty were 2,600 elements, most of what a
/// seek across the topic's creation drew anew, though a learner sees a few.
pub const BIG_PAGE: usize = 20;

/// Which partitions the panel shows: those whose name contains `filter`,
/// `pages` pages of them ("Show more" adds one).
#[derive(Clone, Debug, PartialEq)]
pub struct Pages {
    pub filter: String,
    pub pages: usize,
}

/// What a page opens with: no filter, one page.
pub fn first_page() -> Pages {
    Pages { filter: String::new(), pages: 1 }
}

/// The view a page draws: the partitions `pages` asks for, in pages of
/// [`PAGE`] rows, or of [`BIG_PAGE`] once the cluster has more than [`PAGE`]
/// partitions (found out by asking for the small page first; a cluster of
/// 51 to 500 partitions is asked again, and that view reuses what the
/// first one built).
pub fn view_for(sandbox: &Sandbox, pages: &Pages) -> View {
    let window = |size: usize| Window { filter: pages.filter.clone(), limit: pages.pages.saturating_mul(size) };
    let view = sandbox.view_window(&window(BIG_PAGE));
    if view.partition_count > PAGE || view.partitions.len() == view.partition_matches {
        view // a big cluster, or every wanted row is in already
    } else {
        sandbox.view_window(&window(PAGE))
    }
}

#[function_component(Partitions)]
pub fn partitions(p: &PartitionListProps) -> Html {
    let t = |s| p.lang.t(s);
    let view = &p.snap.view;
    let (all, wanted) = (view.partition_count, view.partition_matches);
    let on_filter = {
        let on_window = p.on_window.clone();
        Callback::from(move |e: InputEvent| {
            let filter = e.target_unchecked_into::<web_sys::HtmlInputElement>().value().trim().to_string();
            on_window.emit(Pages { filter, pages: 1 });
        })
    };
    let more = {
        let (on_window, window) = (p.on_window.clone(), p.window.clone());
        Callback::from(move |_: MouseEvent| on_window.emit(Pages { pages: window.pages.saturating_add(1), ..window.clone() }))
    };
    html! {
        <section class="kz-panel kz-partitions" aria-labelledby="kz-parts-h">
            <h2 id="kz-parts-h" class="kz-panel-title">{ t("Partitions") }</h2>
            if all == 0 {
                <p class="kz-muted">{ t("No partitions yet.") }</p>
            }
            if all > PAGE {
                <label class="kz-filter">
                    <span>{ t("Find a partition") }</span>
                    <input type="search" class="kz-input" data-testid="partition-filter" placeholder="t-42" value={p.window.filter.clone()} oninput={on_filter} />
                </label>
                <p class="kz-muted" data-testid="partition-count">{ p.lang.f("Showing {} of {} partitions ({} in all).", &[&view.partitions.len(), &wanted, &all]) }</p>
            }
            // Keyed rows in a container of their own: `html!` flattens a `for`
            // into its parent's children, and beside the heading and the
            // filter Yew matched them by position, redrawing every row whose
            // key moved (a filter typed, a page of others shown).
            <div class="kz-partition-list">
                { for (0..view.partitions.len()).map(|index| html! {
                    <PartitionRow key={view.partitions[index].tp.clone()} view={view.clone()} {index} lang={p.lang} />
                }) }
            </div>
            if wanted > view.partitions.len() {
                <button class="kz-btn kz-btn-small" data-testid="partitions-more" onclick={more}>{ t("Show more") }</button>
            }
        </section>
    }
}

/// One partition's row: the view it comes from and its place there. Equal
/// when the rows are, so a step that leaves a partition as it was does not
/// redraw it.
#[derive(Properties)]
struct RowProps {
    view: Rc<View>,
    index: usize,
    lang: Lang,
}

impl PartialEq for RowProps {
    fn eq(&self, other: &RowProps) -> bool {
        self.lang == other.lang && self.view.partitions.get(self.index) == other.view.partitions.get(other.index)
    }
}

#[function_component(PartitionRow)]
fn partition_row(p: &RowProps) -> Html {
    p.view.partitions.get(p.index).map(|part| row(part, p.lang)).unwrap_or_default()
}

fn row(part: &PartitionView, lang: Lang) -> Html {
    let t = |s| lang.t(s);
    let max_leo = part.replica_views.iter().filter_map(|r| r.leo).max().unwrap_or(0).max(1);
    html! {
        <div key={part.tp.clone()} class="kz-partition" data-testid="partition" data-tp={part.tp.clone()}
            data-leader={part.leader.map(|l| l.to_string())} data-isr={format::ids(&part.isr)}
            data-leader-epoch={part.leader_epoch.map(|e| e.to_string())}>
            <div class="kz-part-head">
                <span class="kz-tp" translate="no">{ &part.tp }</span>
                if let Some(state) = part.state {
                    <span class={classes!("kz-pstate", format!("kz-pstate-{state}"))} title={t("the controller's partition state machine")} translate="no">{ state }</span>
                }
            </div>
            <dl class="kz-part-facts">
                <dt>{ t("leader") }</dt>
                <dd>{ match part.leader {
                    Some(l) if l >= 0 => html! { <>{ "★ " }{ chip(l, Some("kz-leader"), t("leader").into()) }</> },
                    Some(_) => html! { <span class="kz-bad">{ t("none (-1)") }</span> },
                    None => html! { "—" },
                } }</dd>
                <dt>{ "ISR" }</dt>
                <dd class="kz-chips">{ for part.isr.iter().map(|i| chip(*i, None, t("in sync").into())) }</dd>
                <dt>{ t("leader epoch") }</dt>
                <dd>{ part.leader_epoch.map(|e| e.to_string()).unwrap_or_else(|| "—".into()) }</dd>
                <dt>{ "zkVersion" }</dt>
                <dd>{ part.zk_version.map(|e| e.to_string()).unwrap_or_else(|| "—".into()) }</dd>
                <dt>{ t("replicas") }</dt>
                <dd class="kz-chips">{ for part.replicas.iter().map(|i| chip(*i, None, t("assigned replica").into())) }</dd>
            </dl>
            <table class="kz-replicas">
                <thead><tr><th>{ t("replica") }</th><th>{ t("role") }</th><th class="kz-bar-col">{"LEO / HW"}</th><th>{ t("state") }</th></tr></thead>
                <tbody>
                    { for part.replica_views.iter().map(|r| {
                        let leo = r.leo.unwrap_or(0);
                        let hw = r.hw.unwrap_or(0);
                        let style = format!("--leo: {}; --hw: {}", format::percent(leo, max_leo, 1), format::percent(hw, max_leo, 1));
                        let lagging = r.leo.is_some() && leo < max_leo && r.role == "follower";
                        html! {
                            <tr class={classes!(r.offline.then_some("kz-offline"), (!r.in_isr).then_some("kz-out-of-isr"))}>
                                <td>{ chip(r.broker, None, format!("broker {}", r.broker)) }{ if r.in_isr { " ✓" } else { "" } }</td>
                                <td>{ if r.offline { t("offline") } else { lang.word(r.role) } }</td>
                                <td class="kz-bar-col">
                                    if r.leo.is_some() {
                                        <div class={classes!("kz-bar", format::broker_class(r.broker), lagging.then_some("kz-lagging"))} {style}
                                            title={format!("LEO {leo}, HW {hw}")}><span class="kz-bar-hw"></span></div>
                                        <span class="kz-bar-num">{ format!("{leo} / {hw}") }</span>
                                    } else {
                                        <span class="kz-muted">{ "—" }</span>
                                    }
                                </td>
                                <td class="kz-rstate" translate="no">{ r.state.unwrap_or("—") }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}

#[function_component(Beliefs)]
pub fn beliefs_panel(p: &PartitionsProps) -> Html {
    let view = &p.snap.view;
    let controller = view.brokers.iter().find(|b| b.controller && !b.zombie).map(|b| b.id);
    let (registered, live) = beliefs::live_broker_beliefs(&view.znodes, &view.brokers);
    // The view carries the partitions worth a table, in the order they come.
    let tables: Vec<_> = beliefs::tables(&view.belief_partitions, &view.brokers, controller)
        .into_iter()
        .map(|(part, rows, hidden)| (part.clone(), rows, hidden))
        .collect();
    html! {
        <BeliefTables {registered} {live} any_brokers={!view.brokers.is_empty()} many_brokers={view.brokers.len() > beliefs::ALL_ROWS_UP_TO} {tables}
            partition_count={view.partition_count} lang={p.lang} />
    }
}

/// What the belief tables draw: the same at most steps of a quiet cluster,
/// so that the tables (some 850 elements on 50 brokers) are neither built
/// nor compared with the page again then (issue 9).
#[derive(Properties, PartialEq)]
struct BeliefTablesProps {
    registered: Vec<i32>,
    live: Vec<beliefs::LiveBelief>,
    any_brokers: bool,
    many_brokers: bool,
    tables: Vec<(PartitionView, Vec<beliefs::Belief>, beliefs::Hidden)>,
    partition_count: usize,
    lang: Lang,
}

#[function_component(BeliefTables)]
fn belief_tables(p: &BeliefTablesProps) -> Html {
    let t = |s| p.lang.t(s);
    let (registered, live, many_brokers, shown) = (&p.registered, &p.live, p.many_brokers, &p.tables);
    // With many brokers only the caches that differ get a row (50 rows of
    // 50 chips were a third of the page's elements); the rest are counted.
    let agreeing = live.iter().filter(|(_, _, differs)| !differs).count();
    let differing_hidden = if many_brokers { (live.len() - agreeing).saturating_sub(beliefs::SHOWN_DIFFERING) } else { 0 };
    let rest = p.partition_count.saturating_sub(shown.len());
    let cell = |differs: bool, content: Html| html! { <td class={classes!(differs.then_some("kz-differs"))}>{ content }</td> };
    let claim_cells = |claim: &Option<beliefs::Leadership>, differs: [bool; 3]| match claim {
        Some((l, e, isr)) => html! {
            <>
                { cell(differs[0], html! { if *l >= 0 { { chip(*l, None, t("leader").into()) } } else { { "-1" } } }) }
                { cell(differs[1], html! { { e } }) }
                { cell(differs[2], html! { <span class="kz-chips">{ for isr.iter().map(|i| chip(*i, None, "ISR".into())) }</span> }) }
            </>
        },
        None => html! { <td colspan="3" class={classes!(differs.iter().any(|d| *d).then_some("kz-differs"))}>{ t("unknown") }</td> },
    };
    html! {
        <section class="kz-panel kz-beliefs" aria-labelledby="kz-beliefs-h" data-testid="beliefs">
            <h2 id="kz-beliefs-h" class="kz-panel-title">{ t("What each actor believes") }</h2>
            if p.any_brokers {
                <table class="kz-table kz-belief-table">
                    <caption>{ t("live brokers") }</caption>
                    // The keyed rows in a body of their own: `html!` flattens a
                    // `for` into its parent's children, and beside unkeyed
                    // rows Yew matches keyed ones by position, replacing a
                    // row whose key moved (most of them, as caches converge).
                    <tbody>
                        <tr><th>{ t("ZooKeeper's truth") }</th><td class="kz-chips">{ for registered.iter().map(|i| chip(*i, None, t("registered").into())) }</td></tr>
                    </tbody>
                    <tbody>
                        { for live.iter().filter(|(_, _, differs)| *differs || !many_brokers).take(if many_brokers { beliefs::SHOWN_DIFFERING } else { usize::MAX }).map(|(id, list, differs)| html! {
                            <tr key={*id} class={classes!(differs.then_some("kz-row-differs"))}>
                                <th>{ chip(*id, None, format!("broker {id}")) }{ " " }{ t("metadata cache") }</th>
                                { cell(*differs, html! { <span class="kz-chips">{ for list.iter().map(|i| chip(*i, None, t("live").into())) }</span> }) }
                            </tr>
                        }) }
                    </tbody>
                    <tbody>
                        if differing_hidden > 0 {
                            <tr class="kz-agree"><td colspan="2" class="kz-muted">{ p.lang.f("{} more brokers' metadata caches disagree with ZooKeeper too.", &[&differing_hidden]) }</td></tr>
                        }
                        if many_brokers && agreeing > 0 {
                            <tr class="kz-agree"><td colspan="2" class="kz-muted">{ p.lang.f("{} other brokers' metadata caches agree with ZooKeeper.", &[&agreeing]) }</td></tr>
                        }
                    </tbody>
                </table>
            }
            // The partitions' tables keyed, in a container of their own (above).
            <div class="kz-belief-parts">
            { for shown.iter().map(|(part, rows, hidden)| {
                html! {
                    <table class="kz-table kz-belief-table" key={part.tp.clone()}>
                        <caption translate="no">{ &part.tp }</caption>
                        <thead><tr><th></th><th>{ t("leader") }</th><th>{ "epoch" }</th><th>{ "ISR" }</th></tr></thead>
                        <tbody>
                            { for rows.iter().map(|b| {
                                let who = match (b.who.as_str(), b.broker) {
                                    ("zk", _) => html! { <span class="kz-chip kz-czk">{ t("ZooKeeper's truth") }</span> },
                                    ("controller", Some(c)) => html! { <>{ chip(c, None, format!("broker {c}")) }{ " " }{ t("controller's cache") }</> },
                                    (_, Some(id)) => html! { <>{ chip(id, None, format!("broker {id}")) }{ " " }{ t("metadata cache") }</> },
                                    _ => html! { { &b.who } },
                                };
                                html! {
                                    <tr key={b.who.clone()} class={classes!(b.any_difference().then_some("kz-row-differs"))}
                                        title={if b.any_difference() { t("differs from ZooKeeper") } else { "" }}>
                                        <th>{ who }</th>
                                        { claim_cells(&b.claim, b.differs) }
                                    </tr>
                                }
                            }) }
                        </tbody>
                        <tbody>
                            if hidden.differing > 0 {
                                <tr class="kz-agree"><td colspan="4" class="kz-muted">{ p.lang.f("{} more brokers' metadata caches disagree with ZooKeeper too.", &[&hidden.differing]) }</td></tr>
                            }
                            if hidden.agreeing > 0 {
                                <tr class="kz-agree"><td colspan="4" class="kz-muted">{ p.lang.f("{} other brokers' metadata caches agree with ZooKeeper.", &[&hidden.agreeing]) }</td></tr>
                            }
                        </tbody>
                    </table>
                }
            }) }
            </div>
            if rest > 0 {
                <p class="kz-muted" data-testid="beliefs-more">{ p.lang.f("{} more partitions are not drawn (those where an actor disagrees with ZooKeeper come first).", &[&rest]) }</p>
            }
        </section>
    }
}
