//! Small inline SVG icons (no icon font, no emoji font needed).

use yew::prelude::*;

/// The controller's crown; cracked for a zombie.
pub fn crown(cracked: bool) -> Html {
    html! {
        <svg class={classes!("kz-icon", "kz-crown", cracked.then_some("kz-cracked"))} viewBox="0 0 24 24" aria-hidden="true">
            <path d="M3 18 L2 7 L8 11 L12 4 L16 11 L22 7 L21 18 Z" />
            if cracked {
                <path class="kz-crack" d="M12 5 L10.5 10 L13 13 L11 18" />
            }
        </svg>
    }
}

/// A watch: an eye, drawn by the stylesheet (`.kz-eye`: the picture is a
/// mask over the text colour). One element, not an SVG of three with ten
/// attributes: a big cluster's tree shows a watch on hundreds of rows, and a
/// seek that redrew them spent a tenth of its time making eyes (issue 9).
pub fn eye() -> Html {
    html! { <span class="kz-icon kz-eye" aria-hidden="true"></span> }
}

/// The playback buttons' pictures.
pub fn control(name: &str) -> Html {
    let path = match name {
        "reset" => "M5 4h2.5v16H5z M20 4v16L9 12z",
        "back" => "M17 4v16L6 12z",
        "play" => "M7 4v16l13-8z",
        "pause" => "M6 4h4.5v16H6z M13.5 4H18v16h-4.5z",
        "forward" => "M5 4v16l10-8z M16.5 4H19v16h-2.5z",
        _ => "M3 4v16l8.5-8z M11 4v16l8.5-8z M19 4h2.5v16H19z",
    };
    html! {
        <svg class="kz-icon kz-ctl-icon" viewBox="0 0 24 24" aria-hidden="true"><path d={path} /></svg>
    }
}
