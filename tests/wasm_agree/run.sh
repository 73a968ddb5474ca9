#!/usr/bin/env bash
# Native and wasm agree: builds kzsim for wasm32 (no JS glue) and natively,
# then compares the traces of every built-in scenario (tests/wasm_agree/agree.mjs).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
cargo build -q --release -p kzsim-wasm-agree --target wasm32-unknown-unknown
cargo build -q --release -p kzsim
node tests/wasm_agree/agree.mjs "$target/wasm32-unknown-unknown/release/kzsim_wasm_agree.wasm" "$target/release/kzsim" static/scenarios/*.kzs
