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

# kz_small_std COMMAND…: runs a wasm32 build (trunk, or cargo with --target
# wasm32-unknown-unknown) against a standard library rebuilt for size, the
# std the app ships (issue 9's download; docs/performance.md, *Download*):
#
#   -Zbuild-std=std,panic_abort   std compiled with the app under its profile
#                                 (wasm-release: opt-level z, fat LTO), so
#                                 that LTO sees into it;
#   optimize_for_size             std's own size switch (smaller sorts and
#                                 formatting code; the same results);
#   -Zlocation-detail=none        no file:line:column strings in panics (the
#                                 banner still shows the panic's message).
#
# These are unstable options of the stable toolchain, unlocked with
# RUSTC_BOOTSTRAP=1 for this one command: the native builds and the tests
# use the toolchain as shipped. Rebuilding std needs its sources (the
# rust-src component) and their dependencies in Cargo's cache, which
# setup.sh adds and fetches; without them the command runs against the
# prebuilt std (the app about 38 KB larger gzipped) and says so.
#
# Its builds go to a target directory of their own, $KZ_SMALL_STD_TARGET:
# in the shared one, cargo would rebuild the native crates after each of
# them (the unlocked toolchain fingerprints differently).
KZ_SMALL_STD_TARGET="${CARGO_TARGET_DIR:-$KZ_ROOT/target}/small-std"
export KZ_SMALL_STD_TARGET
kz_std_library() {
  echo "$(rustc --print sysroot)/lib/rustlib/src/rust/library"
}
# Whether std's sources and their dependencies are all on this machine (the
# rebuild runs offline; setup.sh fetches the dependencies).
kz_std_deps_cached() {
  [[ -d "$(kz_std_library)/std" ]] &&
    RUSTC_BOOTSTRAP=1 cargo fetch --offline -q --manifest-path "$(kz_std_library)/Cargo.toml" >/dev/null 2>&1
}
kz_small_std() {
  if kz_std_deps_cached; then
    CARGO_TARGET_DIR="$KZ_SMALL_STD_TARGET" RUSTC_BOOTSTRAP=1 \
      CARGO_UNSTABLE_BUILD_STD=std,panic_abort \
      CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size \
      CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zlocation-detail=none" \
      "$@"
  else
    echo "no rust-src component, or std's dependencies not fetched (scripts/setup.sh does both): $1 builds against the prebuilt std" >&2
    CARGO_TARGET_DIR="$KZ_SMALL_STD_TARGET" "$@"
  fi
}
