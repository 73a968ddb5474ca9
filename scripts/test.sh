#!/usr/bin/env bash
# Runs every test, phase by phase, and stops at the first failure (exit 1).
# The same command CI runs (.ci/run). Installs what is missing first.
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$KZ_ROOT"

passed=0
skipped=0
timings=()

print_timings() {
  echo
  echo "=== phase times"
  local t
  for t in "${timings[@]}"; do echo "  $t"; done
}

# phase NAME COMMAND...: runs one phase under a header and times it.
phase() {
  local name="$1" start status
  shift
  echo
  echo "=== phase $((passed + skipped + 1)): $name"
  echo "    \$ $*"
  start=$SECONDS
  set +e
  "$@"
  status=$?
  set -e
  timings+=("$(printf '%4ds  %s' $((SECONDS - start)) "$name")")
  if ((status != 0)); then
    echo "=== FAILED: $name (exit $status)"
    print_timings
    echo "$passed passed, 1 failed"
    exit 1
  fi
  passed=$((passed + 1))
}

skip() {
  echo
  echo "=== phase $((passed + skipped + 1)): $1: skipped ($2)"
  timings+=("$(printf '%4s   %s (skipped)' - "$1")")
  skipped=$((skipped + 1))
}

phase "setup (install missing tools)" scripts/setup.sh
phase "cargo fmt" cargo fmt --all --check
phase "cargo clippy" cargo clippy --workspace --all-targets -- -D warnings
phase "cargo test" cargo test --workspace
phase "wasm32 build" cargo build -p kzsim-web --target wasm32-unknown-unknown
phase "trunk build --release (std rebuilt for size)" scripts/trunk.sh build --release
if [[ -f tests/zk_differential/run.sh ]]; then
  phase "ZooKeeper differential test" bash tests/zk_differential/run.sh
else
  skip "ZooKeeper differential test" "tests/zk_differential/run.sh does not exist yet"
fi
phase "chaos: seeded fault schedules, invariants after every step" cargo run --release -q -p kzsim -- chaos --seeds 20 --actions 100
phase "performance: no large regression against this run's baselines" bash scripts/perf.sh
phase "native and wasm traces agree" bash tests/wasm_agree/run.sh
phase "fuzzing: scenario parser, console and #kzs decoder (libFuzzer)" bash scripts/fuzz.sh 20
phase "browser tests" bash -c 'cd tests/browser && node --test'
phase "browser performance: no large regression against this run's baseline" bash -c 'cd tests/browser && node perf.mjs --quick'

print_timings
if ((skipped)); then
  echo "$passed passed, 0 failed, $skipped skipped"
else
  echo "$passed passed, 0 failed"
fi
