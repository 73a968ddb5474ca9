# Sourced by the other scripts (not run): the repository root and a PATH on
# which the tools that setup.sh installs are found before any others.
# shellcheck shell=bash

KZ_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export KZ_ROOT

# Pinned tool versions. wasm-bindgen's is not here: it must equal the
# `wasm-bindgen` entry in Cargo.lock, and setup.sh reads it from there.
export KZ_TRUNK_VERSION="0.21.14"
export KZ_KAZOO_VERSION="2.11.0"

# cargo-installed tools (trunk, wasm-bindgen), then binaryen's wasm-opt from
# npm (scripts/tools/package.json), which Trunk finds on PATH.
export PATH="$KZ_ROOT/scripts/tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# Trunk must never try to download a tool: fail instead (see Trunk.toml).
export TRUNK_OFFLINE=true
export TRUNK_SKIP_VERSION_CHECK=true

# The version of the `wasm-bindgen` package that Cargo.lock pins.
kz_lock_version() {
  awk -v name="$1" '
    $0 == "name = \"" name "\"" { found = 1; next }
    found && /^version = / { gsub(/"/, "", $3); print $3; exit }
  ' "$KZ_ROOT/Cargo.lock"
}
