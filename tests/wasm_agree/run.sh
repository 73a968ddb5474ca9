#!/usr/bin/env bash
# Native and wasm agree: builds kzsim for wasm32 (no JS glue) and natively,
# then compares the traces of every built-in scenario, every specification in
# tests/scenarios, the chaos regressions and the 10,000-partition failover of
# docs/performance.md (tests/wasm_agree/agree.mjs).
# The wasm is built against the std the app ships (kz_small_std, env.sh).
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/env.sh"
cd "$KZ_ROOT"
target="${CARGO_TARGET_DIR:-$KZ_ROOT/target}"
kz_small_std cargo build -q --release -p kzsim-wasm-agree --target wasm32-unknown-unknown
cargo build -q --release -p kzsim
node tests/wasm_agree/agree.mjs "$KZ_SMALL_STD_TARGET/wasm32-unknown-unknown/release/kzsim_wasm_agree.wasm" "$target/release/kzsim" static/scenarios/*.kzs tests/scenarios/*/*.kzs tests/chaos_regressions/*.kzs \
  benches/scenarios/failover-10k.kzs
