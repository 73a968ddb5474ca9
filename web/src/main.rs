//! The browser app of the Kafka ZK Sandbox.
//!
//! Trunk builds this binary for `wasm32-unknown-unknown` from `index.html` at
//! the repository root; `../shared/design/ui-contract.md` is the contract the
//! page keeps (addresses and `data-testid` hooks). The view logic lives in
//! plain modules with unit tests (`cargo test -p kzsim-web`, natively); the
//! panels are small function components over one reducer-held state.

mod address;
mod app;
mod beliefs;
mod dom;
mod files;
mod format;
mod i18n;
mod panels;
mod panic;
mod scenarios;
mod seq;
mod state;
mod tour;
mod viewport;

fn main() {
    panic::install_hook();
    // A page that opens in Chinese fetches the summary templates first (one
    // small file, kept out of the download: docs/performance.md); in English
    // it renders at once. The language is the one `AppState` will take.
    let lang = dom::address().lang.unwrap_or_else(i18n::Lang::preferred);
    i18n::summaries::when_ready(lang, || {
        yew::Renderer::<app::App>::new().render();
    });
}
