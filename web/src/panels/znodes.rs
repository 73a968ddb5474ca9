//! The znode tree (expandable; ephemeral, sequential and watch marks; this
//! step's created / changed / deleted highlight), the selected znode's data
//! and stat, and the sessions.

use crate::format;
use crate::i18n::Lang;
use crate::panels::icons;
use crate::state::Snap;
use crate::viewport::VirtualList;
use kzsim::trace::TraceEntry;
use kzsim::view::{View, ZnodeView};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ZnodesProps {
    pub snap: Snap,
    pub lang: Lang,
}

/// The znodes written in the few steps before the current one, with how many
/// steps ago (1 = the step before): their highlight fades over those steps.
pub fn recent_writes(entries: &[TraceEntry], position: usize, span: usize) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    let from = position.saturating_sub(span + 1);
    let to = position.saturating_sub(1).min(entries.len());
    for e in entries.get(from..to).unwrap_or_default() {
        if !matches!(&*e.kind, "zk-request" | "zk-result") {
            continue;
        }
        let detail = e.detail.value();
        if detail.get("ok").and_then(|v| v.as_bool()) != Some(true) {
            continue;
        }
        let age = position.saturating_sub(e.step as usize);
        let mut paths = Vec::new();
        match detail.get("op").and_then(|v| v.as_str()) {
            Some("create") => paths.extend(detail.get("created").or(detail.get("path")).and_then(|v| v.as_str())),
            Some("set" | "delete") => paths.extend(detail.get("path").and_then(|v| v.as_str())),
            Some("multi") => paths.extend(
                detail
                    .get("ops")
                    .and_then(|v| v.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|op| op.as_str()?.split_once(' ').map(|(_, p)| p)),
            ),
            _ => {}
        }
        for p in paths {
            out.insert(p.to_string(), age);
        }
    }
    out
}

/// Whether a collapsed ancestor hides `path`.
pub fn hidden(path: &str, collapsed: &BTreeSet<String>) -> bool {
    collapsed.iter().any(|c| is_under(path, c))
}

/// Children of one znode drawn at most, unless the learner opens them all:
/// a 10,000-partition topic has 10,000 children under `partitions`, and
/// redrawing them at every step is what made a big cluster stutter (issue
/// 9). Nodes changed or written in the last steps, and the selected one,
/// are always drawn. High enough that no ordinary scenario meets it: the
/// contract's "every znode row" holds for them.
pub const SIBLINGS: usize = 200;

/// A row of the tree: a znode (its index in the view's list), or the row
/// that offers the rest of a parent's children: (parent, how many left out,
/// depth), placed where the first left-out sibling was.
type Line = Result<usize, (String, usize, usize)>;

/// What decides which rows are drawn. The znode list is shared between
/// views while ZooKeeper stays the same, so comparing it is comparing a
/// pointer: a step that writes nothing recomputes nothing here.
#[derive(PartialEq)]
struct Drawn {
    znodes: Shared,
    collapsed: BTreeSet<String>,
    opened: BTreeSet<String>,
    selected: Option<String>,
    recent: BTreeMap<String, usize>,
}

/// The view's znode list, equal when it is the very same list.
struct Shared(Rc<Vec<Rc<ZnodeView>>>);

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Which nodes to draw: not under a collapsed node, and within the sibling
/// cap of their parent. Znodes come in tree order, a parent before its
/// subtree, so the ancestors of the node at hand are a stack, each with its
/// number of children and how many of them are drawn (maps of every path
/// were most of this walk over a big cluster's 30,000 znodes).
fn lines(d: &Drawn) -> Vec<Line> {
    let mut ancestors: Vec<(&str, usize, usize)> = Vec::new();
    let mut skipped: Option<&str> = None;
    let mut out = Vec::new();
    for (i, z) in d.znodes.0.iter().enumerate().filter(|(_, z)| !hidden(&z.path, &d.collapsed)) {
        if let Some(prefix) = skipped {
            if is_under(&z.path, prefix) {
                continue;
            }
            skipped = None;
        }
        while ancestors.last().is_some_and(|(a, ..)| !is_under(&z.path, a)) {
            ancestors.pop();
        }
        let wanted = !z.change.is_empty() || d.recent.contains_key(&*z.path) || d.selected.as_deref() == Some(&*z.path);
        if let Some((parent, total, n)) = ancestors.last_mut() {
            if *n >= SIBLINGS && !d.opened.contains(*parent) && !wanted {
                if *n == SIBLINGS {
                    out.push(Err((parent.to_string(), total.saturating_sub(SIBLINGS), z.depth)));
                    *n += 1;
                }
                skipped = Some(&z.path);
                continue;
            }
            *n += 1;
        }
        out.push(Ok(i));
        ancestors.push((&z.path, z.children, 0));
    }
    out
}

/// Whether `path` lies below `ancestor`.
fn is_under(path: &str, ancestor: &str) -> bool {
    if ancestor == "/" {
        path != "/"
    } else {
        path.len() > ancestor.len() && path.starts_with(ancestor) && path.as_bytes()[ancestor.len()] == b'/'
    }
}

/// Past this many rows the tree is a virtual list (rows of one height, only
/// those near its view drawn); up to it every row is in the page, as the UI
/// contract's `znode-tree` promises. A big cluster's tree has some 1,300
/// rows (10,000 more once a topic's partitions are all shown), and a seek
/// that moved the first partitions' rows redrew and laid out hundreds of
/// them, most scrolled out of the tree's view (issue 9).
const VIRTUAL_FROM: usize = 400;

#[function_component(Znodes)]
pub fn znodes(p: &ZnodesProps) -> Html {
    let list_ref = use_node_ref();
    let virtual_list = use_mut_ref(|| VirtualList::new(".kz-znode"));
    let redraw = use_force_update();
    let collapsed = use_state(BTreeSet::<String>::new);
    let opened = use_state(BTreeSet::<String>::new);
    let selected = use_state(|| None::<String>);
    let view = &p.snap.view;
    let recent = {
        let sandbox = p.snap.sandbox.borrow();
        recent_writes(sandbox.trace(), view.step as usize, 3)
    };
    let lang = p.lang;
    let on_select = {
        let selected = selected.clone();
        use_callback((), move |path: String, _| selected.set(Some(path)))
    };
    let on_toggle = {
        let collapsed = collapsed.clone();
        use_callback((*collapsed).clone(), move |path: String, now| {
            let mut next = now.clone();
            if !next.remove(&path) {
                next.insert(path);
            }
            collapsed.set(next);
        })
    };
    let drawn = Drawn {
        znodes: Shared(view.znodes.clone()),
        collapsed: (*collapsed).clone(),
        opened: (*opened).clone(),
        selected: (*selected).clone(),
        recent: recent.clone(),
    };
    let visible = use_memo(drawn, lines);
    let virtual_mode = visible.len() > VIRTUAL_FROM;
    // The measures are kept while the tree is drawn whole: its rows' height
    // and its view's do not change, and measuring them again each time a
    // seek made the tree long again forced the browser to lay the page out
    // in the middle of the redraw (10 ms of such a seek).
    let in_page = if virtual_mode { virtual_list.borrow_mut().draw(visible.len()) } else { 0..visible.len() };
    let spacer = |key: &'static str, rows: usize| {
        let height = virtual_list.borrow().viewport.extent(rows).round() as i64;
        virtual_mode
            .then(|| html! { <li {key} class="kz-tree-spacer" role="none" aria-hidden="true" style={format!("height:{height}px")}></li> })
    };
    let (above, below) = (spacer("above", in_page.start), spacer("below", visible.len() - in_page.end));
    {
        // A virtual tree measures itself once drawn (its rows' height and
        // its view's were guesses) and draws again if they were wrong.
        let (list_ref, virtual_list, redraw) = (list_ref.clone(), virtual_list.clone(), redraw.clone());
        use_effect(move || {
            if let Some(list) = list_ref.cast::<web_sys::Element>().filter(|_| virtual_mode) {
                if virtual_list.borrow_mut().settle(&list) {
                    redraw.force_update();
                }
            }
        });
    }
    let onscroll = {
        let (virtual_list, count) = (virtual_list.clone(), visible.len());
        Callback::from(move |e: Event| {
            let list = e.target_unchecked_into();
            if !virtual_mode {
                virtual_list.borrow_mut().viewport.top = f64::from(web_sys::Element::scroll_top(&list));
            } else if virtual_list.borrow_mut().scrolled(&list, count) {
                redraw.force_update();
            }
        })
    };
    let rows = visible[in_page].iter().map(|line| match line {
        Ok(i) => {
            let z = &view.znodes[*i];
            html! {
                <ZnodeRow key={if z.change == "deleted" { format!("deleted:{}", z.path) } else { z.path.to_string() }}
                    node={z.clone()} collapsed={collapsed.contains(&*z.path)}
                    selected={selected.as_deref() == Some(&*z.path)} age={recent.get(&*z.path).copied()} {lang}
                    on_select={on_select.clone()} on_toggle={on_toggle.clone()} />
            }
        }
        Err((parent, rest, depth)) => {
            let open_all = {
                let opened = opened.clone();
                let parent = parent.clone();
                Callback::from(move |_: MouseEvent| {
                    let mut next = (*opened).clone();
                    next.insert(parent.clone());
                    opened.set(next);
                })
            };
            html! {
                <li key={format!("more:{parent}")} class="kz-znode kz-more" role="none" style={format!("--depth: {depth}")}>
                    <button class="kz-btn kz-btn-small" data-testid="znode-more" onclick={open_all}>
                        { lang.f("{} more children of {}: show them all", &[rest, parent]) }
                    </button>
                </li>
            }
        }
    });
    let selected_node = selected.as_ref().and_then(|s| view.znodes.iter().find(|z| *z.path == **s && z.change != "deleted"));
    html! {
        <section class="kz-panel kz-zk" aria-labelledby="kz-zk-h">
            <h2 id="kz-zk-h" class="kz-panel-title"><span class="kz-dot kz-czk"></span>{ p.lang.t("ZooKeeper") }
                <span class="kz-legend"><span class="kz-badge kz-badge-e">{"E"}</span>{ format!(" {} ", p.lang.t("ephemeral")) }<span class="kz-badge kz-badge-s">{"S"}</span>{ format!(" {} ", p.lang.t("sequential")) }{ icons::eye() }{" watch"}</span>
            </h2>
            <ul class={classes!("kz-tree", virtual_mode.then_some("kz-tree-virtual"))} data-testid="znode-tree" role="tree"
                aria-label={p.lang.t("znode tree")} ref={list_ref} {onscroll}>
                { above }{ for rows }{ below }
            </ul>
            <div class="kz-znode-detail" data-testid="znode-detail" aria-live="polite">
                { match (selected.as_ref(), selected_node) {
                    (_, Some(z)) => detail(z, p.lang),
                    (Some(path), None) => html! { <p class="kz-muted">{ p.lang.f("{} does not exist at this step.", &[path]) }</p> },
                    (None, None) => html! { <p class="kz-muted">{ p.lang.t("Select a znode to see its data and stat.") }</p> },
                } }
            </div>
            { sessions(view, p.lang) }
        </section>
    }
}

/// One znode's row. Equal when the znode and how it is shown are, so a
/// step redraws only the rows it changed.
#[derive(Properties)]
struct ZnodeRowProps {
    /// Shared with the view, and with the views before it while the znode
    /// stands still (`kzsim::view` reuses the row).
    node: Rc<ZnodeView>,
    collapsed: bool,
    selected: bool,
    /// Written this many steps ago (the fading highlight).
    age: Option<usize>,
    lang: Lang,
    on_select: Callback<String>,
    on_toggle: Callback<String>,
}

impl PartialEq for ZnodeRowProps {
    fn eq(&self, o: &ZnodeRowProps) -> bool {
        (self.collapsed, self.selected, self.age, self.lang) == (o.collapsed, o.selected, o.age, o.lang)
            && self.on_select == o.on_select
            && self.on_toggle == o.on_toggle
            && (Rc::ptr_eq(&self.node, &o.node) || self.node == o.node)
    }
}

#[function_component(ZnodeRow)]
fn znode_row(p: &ZnodeRowProps) -> Html {
    let z = &p.node;
    let lang = p.lang;
    let path = z.path.to_string();
    let select = {
        let (on, path) = (p.on_select.clone(), path.clone());
        Callback::from(move |_: MouseEvent| on.emit(path.clone()))
    };
    let select_key = {
        let (on, path) = (p.on_select.clone(), path.clone());
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                on.emit(path.clone())
            }
        })
    };
    let toggle = {
        let (on, path) = (p.on_toggle.clone(), path.clone());
        Callback::from(move |e: MouseEvent| {
            e.stop_propagation();
            on.emit(path.clone());
        })
    };
    let deleted = z.change == "deleted";
    let fading = p.age.filter(|_| z.change.is_empty());
    let class = classes!(
        "kz-znode",
        (!z.change.is_empty()).then(|| format!("kz-{}", z.change)),
        fading.map(|age| format!("kz-recent kz-age-{age}")),
        p.selected.then_some("kz-selected"),
        z.ephemeral.then_some("kz-ephemeral")
    );
    let indent = format!("--depth: {}", z.depth);
    let twisty = if z.children > 0 {
        html! {
            <button class="kz-twisty" aria-label={lang.f(if p.collapsed { "Expand {}" } else { "Collapse {}" }, &[&z.path])}
                aria-expanded={(!p.collapsed).to_string()} onclick={toggle}>{ if p.collapsed { "▸" } else { "▾" } }</button>
        }
    } else {
        html! { <span class="kz-twisty-space"></span> }
    };
    let preview: String = z.data.chars().take(40).collect();
    let inner = html! {
        <>
            { twisty }
            <span class="kz-zname" translate="no">{ z.name() }</span>
            if z.ephemeral {
                <span class={classes!("kz-badge", "kz-badge-e", z.owner.as_deref().map(format::actor_class))}
                    title={lang.f("ephemeral, owned by {}", &[&z.owner.clone().unwrap_or_default()])}>{ "E" }</span>
            }
            if z.sequential {
                <span class="kz-badge kz-badge-s" title={lang.t("sequential")}>{ "S" }</span>
            }
            { for z.watchers.iter().map(|w| html! {
                <span class={classes!("kz-watch", format::actor_class(&w.owner))} title={lang.f("{} watch by {}", &[&lang.word(w.kind), &w.owner])}>
                    { icons::eye() }<span class="kz-watch-kind" translate="no">{ &w.kind[..1] }</span>
                </span>
            }) }
            if !preview.is_empty() {
                <span class="kz-zdata" translate="no">{ preview }</span>
            }
        </>
    };
    if deleted {
        // Gone this step: shown struck through, without the contract's
        // `data-znode-path` (the node no longer exists).
        html! {
            <li class={class} role="treeitem" aria-level={(z.depth + 1).to_string()} style={indent}
                data-deleted-path={path} title={lang.t("deleted this step")}>{ inner }</li>
        }
    } else {
        html! {
            <li class={class} role="treeitem" aria-level={(z.depth + 1).to_string()} aria-selected={p.selected.to_string()}
                tabindex="0" style={indent} data-znode-path={path} data-ephemeral={z.ephemeral.then_some("true")}
                onclick={select} onkeydown={select_key}>{ inner }</li>
        }
    }
}

fn detail(z: &ZnodeView, lang: Lang) -> Html {
    let s = &z.stat;
    let owner = if s.ephemeral_owner == 0 {
        "0x0".to_string()
    } else {
        format!("{} ({})", format::hex(s.ephemeral_owner), z.owner.clone().unwrap_or_default())
    };
    let stat: Vec<(&str, String)> = vec![
        ("czxid", format::hex(s.czxid)),
        ("mzxid", format::hex(s.mzxid)),
        ("pzxid", format::hex(s.pzxid)),
        ("ctime", format!("{} ms", s.ctime)),
        ("mtime", format!("{} ms", s.mtime)),
        ("version", s.version.to_string()),
        ("cversion", s.cversion.to_string()),
        ("aversion", s.aversion.to_string()),
        ("ephemeralOwner", owner),
        ("dataLength", s.data_length.to_string()),
        ("numChildren", s.num_children.to_string()),
    ];
    let data = format::pretty_json(&z.data).unwrap_or_else(|| z.data.clone());
    html! {
        <>
            <h3 class="kz-detail-path"><code translate="no">{ &z.path }</code></h3>
            <div class="kz-detail-grid">
                <div>
                    <h4>{ lang.t("data") }</h4>
                    if data.is_empty() {
                        <pre class="kz-data" data-testid="znode-data">{ lang.t("(empty)") }</pre>
                    } else {
                        <pre class="kz-data" data-testid="znode-data" translate="no">{ data }</pre>
                    }
                    if !z.watchers.is_empty() {
                        <h4>{ lang.t("watches") }</h4>
                        <ul class="kz-plain">
                            { for z.watchers.iter().map(|w| html! {
                                <li><span class={classes!("kz-chip", format::actor_class(&w.owner))} translate="no">{ &w.owner }</span>{ lang.f(" {} watch", &[&lang.word(w.kind)]) }</li>
                            }) }
                        </ul>
                    }
                </div>
                <dl class="kz-stat" data-testid="znode-stat" translate="no">
                    { for stat.into_iter().map(|(k, v)| html! { <><dt>{ k }</dt><dd>{ v }</dd></> }) }
                </dl>
            </div>
        </>
    }
}

fn sessions(view: &View, lang: Lang) -> Html {
    if view.sessions.is_empty() {
        return Html::default();
    }
    html! {
        <details class="kz-sessions" open=true>
            <summary>{ lang.f("sessions ({})", &[&view.sessions.len()]) }</summary>
            <table class="kz-table">
                <thead><tr><th>{ lang.t("owner") }</th><th>{ lang.t("expires in") }</th><th title={lang.t("ephemeral znodes")}>{"E"}</th></tr></thead>
                <tbody>
                    { for view.sessions.iter().map(|s| {
                        let pct = format::percent(s.expires_in_ms, s.timeout_ms, super::brokers::METER_DECIMALS);
                        html! {
                            <tr>
                                <td><span class={classes!("kz-chip", format::actor_class(&s.owner))} title={format!("session {}", s.id)} translate="no">{ &s.owner }</span></td>
                                <td>
                                    <span class="kz-meter" style={format!("--pct: {pct}")}></span>
                                    { format!(" {}", lang.f("{} of {}", &[&format::countdown(s.expires_in_ms), &format::countdown(s.timeout_ms)])) }
                                </td>
                                <td>{ s.ephemerals }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree with `/` and `/wide` holding `n` children, each with a child
    /// of its own, as the view lists them (tree order, parents first).
    fn wide(n: usize) -> Drawn {
        let node = |path: &str, children: usize| {
            Rc::new(ZnodeView {
                path: path.into(),
                depth: if path == "/" { 0 } else { path.matches('/').count() },
                data: String::new(),
                stat: Default::default(),
                ephemeral: false,
                owner: None,
                sequential: false,
                change: "",
                watchers: Vec::new(),
                children,
            })
        };
        let mut paths: Vec<String> = (0..n).flat_map(|i| [format!("/wide/c{i:04}"), format!("/wide/c{i:04}/leaf")]).collect();
        paths.sort();
        let mut znodes = vec![node("/", 2), node("/after", 0)];
        znodes.push(node("/wide", n));
        znodes.extend(paths.iter().map(|p| node(p, usize::from(!p.ends_with("leaf")))));
        znodes.sort_by(|a, b| kzsim::zookeeper::data_tree::tree_order(&a.path, &b.path));
        Drawn {
            znodes: Shared(Rc::new(znodes)),
            collapsed: BTreeSet::new(),
            opened: BTreeSet::new(),
            selected: None,
            recent: BTreeMap::new(),
        }
    }

    fn drawn_paths(d: &Drawn) -> Vec<String> {
        lines(d)
            .into_iter()
            .map(|l| match l {
                Ok(i) => d.znodes.0[i].path.to_string(),
                Err((parent, rest, depth)) => format!("more:{parent}:{rest}:{depth}"),
            })
            .collect()
    }

    #[test]
    fn a_wide_znode_draws_its_first_children_and_offers_the_rest() {
        let d = wide(250);
        let drawn = drawn_paths(&d);
        // `/`, `/after`, `/wide`, 200 children with their leaves, the offer.
        assert_eq!(drawn.len(), 3 + 2 * SIBLINGS + 1, "{:?}", &drawn[..5]);
        assert_eq!(drawn[3], "/wide/c0000");
        assert_eq!(drawn[4], "/wide/c0000/leaf");
        assert_eq!(drawn.last().unwrap(), "more:/wide:50:2");
        assert!(!drawn.iter().any(|p| p.starts_with("/wide/c0200")));
        // Fewer than the cap: all of them, no offer.
        assert_eq!(drawn_paths(&wide(20)).len(), 3 + 2 * 20);
    }

    #[test]
    fn opened_changed_selected_and_collapsed_znodes() {
        let mut d = wide(250);
        d.opened.insert("/wide".into());
        assert_eq!(drawn_paths(&d).len(), 3 + 2 * 250);
        let mut d = wide(250);
        d.recent.insert("/wide/c0240".into(), 1);
        d.selected = Some("/wide/c0230".into());
        let drawn = drawn_paths(&d);
        assert!(drawn.contains(&"/wide/c0240".to_string()) && drawn.contains(&"/wide/c0230".to_string()));
        assert!(drawn.contains(&"/wide/c0240/leaf".to_string()), "a drawn znode's children come with it");
        assert!(!drawn.contains(&"/wide/c0239".to_string()));
        assert_eq!(drawn.iter().filter(|p| p.starts_with("more:")).count(), 1);
        let mut d = wide(250);
        d.collapsed.insert("/wide".into());
        assert_eq!(drawn_paths(&d), ["/", "/after", "/wide"]);
    }

    #[test]
    fn recent_writes_fade_over_three_steps() {
        let text = "zk-session a\nzk a create /a 1\nzk a set /a 2\nzk a get /a\nzk a create /b 1\nzk a create /b 1\n";
        let mut sandbox = kzsim::sandbox::Sandbox::load(text).unwrap();
        while sandbox.step_forward() {}
        let trace = sandbox.trace();
        // At step 6: step 5 (create /b) is 1 ago, step 3 (set /a) 3 ago;
        // step 6's failed create and step 4's get write nothing.
        let recent = recent_writes(trace, 6, 3);
        assert_eq!(recent.get("/b"), Some(&1));
        assert_eq!(recent.get("/a"), Some(&3));
        assert_eq!(recent.len(), 2);
        assert!(recent_writes(trace, 0, 3).is_empty());
        assert!(recent_writes(trace, 1, 3).is_empty());
    }

    #[test]
    fn collapsing_hides_descendants_only() {
        let collapsed: BTreeSet<String> = ["/brokers".to_string()].into();
        assert!(hidden("/brokers/ids", &collapsed));
        assert!(hidden("/brokers/ids/0", &collapsed));
        assert!(!hidden("/brokers", &collapsed));
        assert!(!hidden("/brokersX", &collapsed));
        assert!(!hidden("/controller", &collapsed));
        let root: BTreeSet<String> = ["/".to_string()].into();
        assert!(hidden("/controller", &root));
        assert!(!hidden("/", &root));
    }
}
