//! A panic must never leave a dead, blank page: the hook writes a readable
//! message into a visible banner (and to the console) before the module traps.
//!
//! The hook goes in through `yew::set_custom_panic_hook` (which calls
//! `std::panic::set_hook`): Yew's `Renderer` replaces any hook set otherwise
//! with its own console-only one.

use std::panic::Location;

use wasm_bindgen::JsValue;

/// The `id` (and `data-testid`) of the banner a panic writes into.
pub const BANNER_ID: &str = "kzsim-panic";

pub fn install_hook() {
    yew::set_custom_panic_hook(Box::new(|info| {
        // (`payload_as_str` is newer than the workspace's rust-version.)
        let payload = info.payload();
        let text = payload.downcast_ref::<&str>().copied().or_else(|| payload.downcast_ref::<String>().map(String::as_str));
        let info = describe(text, info.location());
        let message = format!(
            "The sandbox stopped because of a bug: {info}. \
             Reload the page to start again."
        );
        web_sys::console::error_1(&JsValue::from_str(&message));
        // The banner speaks the page's language (`<html lang>`, which the
        // app keeps); the bug's own message stays as Rust wrote it.
        let chinese = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
            .and_then(|e| e.get_attribute("lang"))
            .is_some_and(|l| l.starts_with("zh"));
        let shown = if chinese { format!("沙盒因为一个程序错误停止了：{info}。请重新加载页面。") } else { message };
        // Best effort: if there is no document to write into, the console
        // message above is all we can do.
        let _ = show_banner(&shown);
    }));
}

/// The bug in the banner's words: the panic's message, then where it was
/// raised when the build kept that. The release build has no locations
/// (`-Zlocation-detail=none`, `kz_small_std` in scripts/env.sh: every one
/// reads line 0), and its message stands alone rather than beside a
/// `<redacted>:0:0`.
fn describe(message: Option<&str>, location: Option<&Location<'_>>) -> String {
    let message = message.unwrap_or("a panic without a message");
    match location {
        Some(at) if at.line() != 0 => format!("{message} (at {at})"),
        _ => message.to_owned(),
    }
}

fn show_banner(message: &str) -> Option<()> {
    let document = web_sys::window()?.document()?;
    let banner = match document.get_element_by_id(BANNER_ID) {
        Some(banner) => banner,
        None => {
            let banner = document.create_element("div").ok()?;
            banner.set_id(BANNER_ID);
            banner.set_class_name("kz-panic");
            banner.set_attribute("role", "alert").ok()?;
            banner.set_attribute("data-testid", BANNER_ID).ok()?;
            let body = document.body()?;
            body.insert_before(&banner, body.first_child().as_ref()).ok()?;
            banner
        }
    };
    banner.set_text_content(Some(message));
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banner_says_what_went_wrong_and_where_when_it_is_known() {
        let here = Location::caller();
        assert_eq!(
            describe(Some("index out of bounds"), Some(here)),
            format!("index out of bounds (at {}:{}:{})", here.file(), here.line(), here.column())
        );
        assert_eq!(describe(Some("index out of bounds"), None), "index out of bounds");
        assert_eq!(describe(None, None), "a panic without a message");
    }
}
