#!/usr/bin/env bash
# Fuzzes the scenario parser, the app's console and the #kzs address decoder
# with libFuzzer (cargo fuzz),
# each for SECONDS (default 20), seeded with the built-in scenarios, and
# prints the executions. A crash stops with the reproducing input under
# fuzz/artifacts/. The long version: scripts/fuzz.sh 3600
#
# cargo fuzz needs nightly flags; RUSTC_BOOTSTRAP lets this machine's stable
# toolchain accept them. No sanitizer: the targets check for panics.
set -euo pipefail
seconds="${1:-20}"
cd "$(dirname "${BASH_SOURCE[0]}")/../fuzz"
export RUSTC_BOOTSTRAP=1
for target in scenario_parser console kzs_address; do
  mkdir -p "corpus/$target"
  out="$(cargo fuzz run "$target" --sanitizer none "corpus/$target" -- -max_total_time="$seconds" 2>&1)" || {
    echo "$out" | tail -40
    echo "fuzz target $target FAILED"
    exit 1
  }
  echo "fuzz target $target: $(echo "$out" | grep -E '^Done [0-9]+ runs' | tail -1)"
done
