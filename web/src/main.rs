//! The browser app of the Kafka ZK Sandbox.
//!
//! Trunk builds this binary for `wasm32-unknown-unknown` from `index.html` at
//! the repository root; `../shared/design/ui-contract.md` is the contract the
//! page keeps (addresses and `data-testid` hooks).

mod address;
mod app;
mod panic;

fn main() {
    panic::install_hook();
    yew::Renderer::<app::App>::new().render();
}
