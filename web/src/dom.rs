//! The few places the app touches the browser directly: the address, the
//! history entry, and document-wide key and `hashchange` listeners. (Native
//! builds compile this too, for `cargo test`; nothing here runs there.)

use crate::address::{self, Address};
use crate::state::Action;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// The address of the page, parsed.
pub fn address() -> Address {
    let location = web_sys::window().map(|w| w.location());
    let search = location.as_ref().and_then(|l| l.search().ok()).unwrap_or_default();
    let hash = location.as_ref().and_then(|l| l.hash().ok()).unwrap_or_default();
    address::parse(&search, &hash)
}

/// The page's own address without its query and fragment (empty outside a
/// browser): what links to this state start with.
pub fn page_base() -> String {
    let Some(location) = web_sys::window().map(|w| w.location()) else { return String::new() };
    format!("{}{}", location.origin().unwrap_or_default(), location.pathname().unwrap_or_default())
}

/// Replaces the address (query and fragment) without a navigation, keeping
/// the path: the address bar stays a permalink.
pub fn replace_address(query_and_fragment: &str) {
    let Some(window) = web_sys::window() else { return };
    let location = window.location();
    let path = location.pathname().unwrap_or_default();
    let current = format!("{}{}", location.search().unwrap_or_default(), location.hash().unwrap_or_default());
    if current == query_and_fragment {
        return;
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("{path}{query_and_fragment}")));
    }
}

/// A document event listener, removed when dropped.
pub struct Listener {
    event: &'static str,
    closure: Closure<dyn FnMut(web_sys::Event)>,
}

impl Listener {
    fn new(target: &web_sys::EventTarget, event: &'static str, f: impl FnMut(web_sys::Event) + 'static) -> Listener {
        let closure = Closure::wrap(Box::new(f) as Box<dyn FnMut(web_sys::Event)>);
        let _ = target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
        Listener { event, closure }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(document) = web_sys::window().and_then(|w| w.document()) {
            let _ = document.remove_event_listener_with_callback(self.event, self.closure.as_ref().unchecked_ref());
        }
        if let Some(window) = web_sys::window() {
            let _ = window.remove_event_listener_with_callback(self.event, self.closure.as_ref().unchecked_ref());
        }
    }
}

/// Whether a key event belongs to a text field (where keys are for typing,
/// and not ours) — everything but a range slider, a checkbox or a button.
fn in_text_field(event: &web_sys::KeyboardEvent) -> bool {
    let Some(element) = event.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return false };
    match element.tag_name().to_ascii_lowercase().as_str() {
        "textarea" | "select" => true,
        "input" => {
            let kind = element.get_attribute("type").unwrap_or_default().to_ascii_lowercase();
            !matches!(kind.as_str(), "range" | "checkbox" | "radio" | "button" | "submit" | "reset")
        }
        _ => element.get_attribute("contenteditable").is_some_and(|v| v != "false"),
    }
}

/// The shortcut a key stands for (`ui-contract.md`, "Keyboard").
pub fn shortcut(key: &str) -> Option<Action> {
    Some(match key {
        "ArrowRight" => Action::Forward,
        "ArrowLeft" => Action::Back,
        " " | "Spacebar" => Action::TogglePlay,
        "Home" => Action::Reset,
        "End" => Action::ToEnd,
        "?" => Action::Help(None),
        "Escape" => Action::Help(Some(false)),
        _ => return None,
    })
}

/// Listens for the keyboard shortcuts on the whole document. Returns the
/// listeners (keydown, and keyup to stop a focused button's Space click).
pub fn keyboard(dispatch: impl Fn(Action) + 'static) -> Vec<Listener> {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return Vec::new() };
    let down = Listener::new(&document, "keydown", move |event| {
        let Ok(event) = event.dyn_into::<web_sys::KeyboardEvent>() else { return };
        if event.ctrl_key() || event.meta_key() || event.alt_key() || in_text_field(&event) {
            return;
        }
        if let Some(action) = shortcut(&event.key()) {
            event.prevent_default();
            dispatch(action);
        }
    });
    let up = Listener::new(&document, "keyup", move |event| {
        let Ok(event) = event.dyn_into::<web_sys::KeyboardEvent>() else { return };
        if event.key() == " " && !in_text_field(&event) {
            event.prevent_default();
        }
    });
    vec![down, up]
}

/// Calls `f` with the new address whenever the fragment changes by hand.
pub fn on_hash_change(f: impl Fn(Address) + 'static) -> Option<Listener> {
    let window = web_sys::window()?;
    Some(Listener::new(&window, "hashchange", move |_| f(address())))
}

/// Reports whether the page is worth animating: its root element on screen
/// (in a documentation page's iframe, inside the reader's viewport) and its
/// tab visible. Dropping it stops the reports.
pub struct OnScreen {
    observer: Option<web_sys::IntersectionObserver>,
    _intersect: Closure<dyn FnMut(js_sys::Array)>,
    _visibility: Option<Listener>,
}

impl Drop for OnScreen {
    fn drop(&mut self) {
        if let Some(o) = &self.observer {
            o.disconnect();
        }
    }
}

/// Calls `f` with "on screen and visible" each time that changes; once at
/// the start too. Where the browser has no IntersectionObserver the page
/// counts as on screen while its tab is visible.
pub fn on_screen(element: &web_sys::Element, f: impl Fn(bool) + 'static) -> OnScreen {
    use std::cell::Cell;
    use std::rc::Rc;
    let f = Rc::new(f);
    let intersecting = Rc::new(Cell::new(true));
    let hidden = || web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.hidden());
    let report = {
        let (f, intersecting) = (f.clone(), intersecting.clone());
        Rc::new(move || f(intersecting.get() && !hidden()))
    };
    let intersect = {
        let (report, intersecting) = (report.clone(), intersecting.clone());
        Closure::wrap(Box::new(move |entries: js_sys::Array| {
            if let Some(entry) = entries.iter().last().and_then(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok()) {
                intersecting.set(entry.is_intersecting());
                report();
            }
        }) as Box<dyn FnMut(js_sys::Array)>)
    };
    let observer = web_sys::IntersectionObserver::new(intersect.as_ref().unchecked_ref()).ok();
    if let Some(o) = &observer {
        o.observe(element);
    } else {
        report();
    }
    let visibility = web_sys::window().and_then(|w| w.document()).map(|d| {
        let report = report.clone();
        Listener::new(&d, "visibilitychange", move |_| report())
    });
    OnScreen { observer, _intersect: intersect, _visibility: visibility }
}

/// Whether the element `node` refers to is on screen: true until it is in
/// the page and watched, then as [`on_screen`] reports. The component
/// redraws when its element comes into view, so one that draws less out of
/// view (a long event log) catches up then; it reads the flag at render
/// time and in its effects.
#[yew::hook]
pub fn use_on_screen(node: &yew::NodeRef) -> std::rc::Rc<std::cell::Cell<bool>> {
    let state = yew::use_mut_ref(|| (std::rc::Rc::new(std::cell::Cell::new(true)), None::<OnScreen>));
    let redraw = yew::use_force_update();
    let visible = state.borrow().0.clone();
    let (node, flag) = (node.clone(), visible.clone());
    yew::use_effect(move || {
        let mut state = state.borrow_mut();
        if state.1.is_none() {
            if let Some(element) = node.cast::<web_sys::Element>() {
                state.1 = Some(on_screen(&element, move |now| {
                    if flag.replace(now) != now && now {
                        redraw.force_update();
                    }
                }));
            }
        }
    });
    visible
}

/// Offers `content` to the learner as a file download named `filename`.
pub fn download(filename: &str, mime: &str, content: &str) -> Result<(), String> {
    let fail = |what: &str| format!("the browser would not {what} for the download of {filename}");
    let document = web_sys::window().and_then(|w| w.document()).ok_or_else(|| fail("give a document"))?;
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(content));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(|_| fail("make a file"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| fail("make an address"))?;
    let a: web_sys::HtmlAnchorElement =
        document.create_element("a").map_err(|_| fail("make a link"))?.dyn_into().map_err(|_| fail("make a link"))?;
    a.set_href(&url);
    a.set_download(filename);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// The SVG element `[data-testid=testid]` as a standalone SVG file: every
/// element carries the colours and fonts the page's stylesheet gave it, so
/// the file looks the same anywhere.
pub fn standalone_svg(testid: &str) -> Option<String> {
    const PROPS: &[&str] =
        &["fill", "stroke", "stroke-width", "stroke-dasharray", "opacity", "font-family", "font-size", "font-weight", "text-anchor"];
    let window = web_sys::window()?;
    let svg = window.document()?.query_selector(&format!("[data-testid=\"{testid}\"]")).ok()??;
    let copy: web_sys::Element = svg.clone_node_with_deep(true).ok()?.dyn_into().ok()?;
    let (from, to) = (svg.query_selector_all("*").ok()?, copy.query_selector_all("*").ok()?);
    for i in 0..from.length().min(to.length()) {
        let (Some(a), Some(b)) = (from.item(i), to.item(i)) else { continue };
        let (Ok(a), Ok(b)) = (a.dyn_into::<web_sys::Element>(), b.dyn_into::<web_sys::Element>()) else { continue };
        if let Ok(Some(style)) = window.get_computed_style(&a) {
            let inline: String = PROPS
                .iter()
                .filter_map(|p| style.get_property_value(p).ok().filter(|v| !v.is_empty()).map(|v| format!("{p}:{v};")))
                .collect();
            let _ = b.set_attribute("style", &inline);
        }
    }
    if let Ok(Some(style)) = window.get_computed_style(&svg) {
        let background = style.get_property_value("background-color").unwrap_or_default();
        let _ = copy.set_attribute(
            "style",
            &format!("background:{background};font-family:{}", style.get_property_value("font-family").unwrap_or_default()),
        );
    }
    let text = web_sys::XmlSerializer::new().ok()?.serialize_to_string(&copy).ok()?;
    Some(format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{text}\n"))
}

/// The largest file a learner may drop or open: a scenario's limit.
pub const MAX_FILE_BYTES: f64 = kzsim::scenario::parser::MAX_SCRIPT_BYTES as f64;

/// Reads a file the learner dropped or picked as text, then calls `f` with
/// its name and its text (or why it could not be read).
pub fn read_file(file: web_sys::File, f: impl FnOnce(String, Result<String, String>) + 'static) {
    let name = file.name();
    if file.size() > MAX_FILE_BYTES {
        f(name.clone(), Err(format!("{name} is {} MB; a scenario or trace may be at most 16 MB", (file.size() / 1e6).round() as u64)));
        return;
    }
    let Ok(reader) = web_sys::FileReader::new() else {
        f(name.clone(), Err(format!("this browser cannot read {name}")));
        return;
    };
    let done = {
        let reader = reader.clone();
        let name = name.clone();
        Closure::once(move |_: web_sys::Event| {
            let text = reader.result().ok().and_then(|r| r.as_string()).ok_or_else(|| format!("{name} could not be read as text"));
            f(name, text);
        })
    };
    reader.set_onloadend(Some(done.as_ref().unchecked_ref()));
    done.forget(); // called once, by the reader; then freed with it
    if reader.read_as_text(&file).is_err() {
        web_sys::console::warn_1(&format!("could not start reading {name}").into());
    }
}

/// Runs `f` when the page is next idle: after the frame it owes and the
/// tasks already queued (`requestIdleCallback`; where a browser lacks it,
/// a timer set from the next frame's callback, which fires after that
/// frame is painted). For work that must not delay the frame, such as the
/// keyframe a heavy step earned (`Sandbox::settle`). A hidden tab may wait
/// long for it: the sandbox then settles at its next move.
pub fn when_idle(f: impl FnOnce() + 'static) {
    let Some(window) = web_sys::window() else { return };
    let f = Closure::once_into_js(f);
    if window.request_idle_callback(f.unchecked_ref()).is_ok() {
        return;
    }
    let frame = {
        let window = window.clone();
        Closure::once_into_js(move || {
            if window.set_timeout_with_callback_and_timeout_and_arguments_0(f.unchecked_ref(), 0).is_err() {
                web_sys::console::warn_1(&"could not set a timer after the frame".into());
            }
        })
    };
    if window.request_animation_frame(frame.unchecked_ref()).is_err() {
        web_sys::console::warn_1(&"could not ask for the next frame".into());
    }
}

/// The browser's local storage (absent in private windows and some embeds:
/// then nothing is kept, silently).
fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

pub fn stored(key: &str) -> Option<String> {
    storage()?.get_item(key).ok()?
}

pub fn store(key: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, value);
    }
}

pub fn forget(key: &str) {
    if let Some(s) = storage() {
        let _ = s.remove_item(key);
    }
}

/// Scrolls an element's content to its end.
pub fn scroll_to_bottom(element: &web_sys::Element) {
    element.set_scroll_top(element.scroll_height());
}

/// Keeps one entry of a scrolled list in the list's view: when the browser
/// reports (after its own layout) that the entry is not wholly in view, the
/// list scrolls it to a third of its height. Asking where the entry was at
/// every step made the browser lay the page out again at once, twice per
/// step on a big cluster (issue 9).
pub struct KeepInView {
    observer: web_sys::IntersectionObserver,
    _seen: Closure<dyn FnMut(js_sys::Array)>,
}

impl KeepInView {
    /// `None` where the browser has no IntersectionObserver.
    pub fn new(list: &web_sys::Element) -> Option<KeepInView> {
        let root = list.clone();
        let seen = Closure::wrap(Box::new(move |entries: js_sys::Array| {
            let entries = entries.iter().filter_map(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok());
            for entry in entries.filter(|e| e.intersection_ratio() < 1.0) {
                let top = entry.target().get_bounding_client_rect().top() - root.get_bounding_client_rect().top();
                let target = f64::from(root.scroll_top()) + top - f64::from(root.client_height()) / 3.0;
                root.set_scroll_top(target.max(0.0) as i32);
            }
        }) as Box<dyn FnMut(js_sys::Array)>);
        let options = web_sys::IntersectionObserverInit::new();
        options.set_root(Some(list));
        options.set_threshold(&wasm_bindgen::JsValue::from_f64(1.0));
        let observer = web_sys::IntersectionObserver::new_with_options(seen.as_ref().unchecked_ref(), &options).ok()?;
        Some(KeepInView { observer, _seen: seen })
    }

    /// Keeps `entry` in view from now on (and no other).
    pub fn follow(&self, entry: &web_sys::Element) {
        self.observer.disconnect();
        self.observer.observe(entry);
    }

    /// Keeps nothing in view until the next [`KeepInView::follow`].
    pub fn pause(&self) {
        self.observer.disconnect();
    }
}

impl Drop for KeepInView {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_keys() {
        assert_eq!(shortcut("ArrowRight"), Some(Action::Forward));
        assert_eq!(shortcut("ArrowLeft"), Some(Action::Back));
        assert_eq!(shortcut(" "), Some(Action::TogglePlay));
        assert_eq!(shortcut("Home"), Some(Action::Reset));
        assert_eq!(shortcut("End"), Some(Action::ToEnd));
        assert_eq!(shortcut("?"), Some(Action::Help(None)));
        assert_eq!(shortcut("a"), None);
    }
}
