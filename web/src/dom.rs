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

/// Scrolls an element's content to its end.
pub fn scroll_to_bottom(element: &web_sys::Element) {
    element.set_scroll_top(element.scroll_height());
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
