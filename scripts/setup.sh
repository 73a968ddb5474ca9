#!/usr/bin/env bash
# Installs everything the build, the app and the tests need, and nothing when
# it is all there already (then it prints nothing). Safe to run again and
# again; fails loudly, naming the step, when an install does not work.
#
#   Rust:   the wasm32-unknown-unknown target, rustfmt, clippy and rust-src;
#           trunk (pinned) and wasm-bindgen-cli (= Cargo.lock's wasm-bindgen);
#           cargo-fuzz (pinned), for the fuzz targets in fuzz/
#   npm:    binaryen's wasm-opt (scripts/tools), playwright-core (tests/browser)
#   Debian: chromium, chromium-driver, zookeeper (brings a Java runtime)
#   PyPI:   kazoo, for the ZooKeeper differential test
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$KZ_ROOT"

trap 'echo "setup: FAILED (line $LINENO: $BASH_COMMAND)" >&2' ERR

say() { echo "setup: $*" >&2; }
need() { command -v "$1" >/dev/null 2>&1 || { say "FAILED: '$1' is not installed; $2" ; exit 1; }; }

need cargo "install Rust with rustup first"
need rustup "install Rust with rustup first"
need node "install Node.js 20 and npm first"
need npm "install Node.js 20 and npm first"
need python3 "install Python 3 and pip first"

# --- Rust toolchain pieces -------------------------------------------------
# (Lists are read whole first: `grep -q` on a pipe would trip pipefail.)
targets="$(rustup target list --installed)"
if ! grep -qx wasm32-unknown-unknown <<<"$targets"; then
  say "adding the Rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
components="$(rustup component list --installed)"
for component in rustfmt clippy; do
  if ! grep -q "^$component" <<<"$components"; then
    say "adding the Rust component $component"
    rustup component add "$component"
  fi
done
# The standard library's sources, for the app's release build (scripts/trunk.sh
# rebuilds std for size). Best effort: without them that build still works,
# against the prebuilt std, and says so.
if ! grep -q "^rust-src" <<<"$components"; then
  say "adding the Rust component rust-src (the app's release build rebuilds std for size)"
  rustup component add rust-src || say "could not add rust-src: the app will build against the prebuilt std (a larger download)"
fi
# Rebuilding std needs std's own dependencies in Cargo's cache, and Trunk
# builds offline (Trunk.toml): a fresh machine has none of them (the build
# failed with "no matching package named `moto-rt`"). Best effort too:
# without them scripts/trunk.sh builds against the prebuilt std.
if ! kz_std_deps_cached && [[ -f "$(kz_std_library)/Cargo.lock" ]]; then
  say "fetching the standard library's dependencies (the app's release build rebuilds std, offline)"
  RUSTC_BOOTSTRAP=1 cargo fetch -q --manifest-path "$(kz_std_library)/Cargo.toml" ||
    say "could not fetch them: the app will build against the prebuilt std (a larger download)"
fi

# --- Debian packages ---------------------------------------------------------
missing=()
for pkg in chromium chromium-driver zookeeper; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  need apt-get "cannot install ${missing[*]} without it"
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
need java "the zookeeper package should have brought a Java runtime"
[[ -x /usr/bin/chromium ]] || { say "FAILED: /usr/bin/chromium is missing"; exit 1; }

# --- PyPI --------------------------------------------------------------------
if ! python3 -c 'import kazoo' 2>/dev/null; then
  say "installing kazoo $KZ_KAZOO_VERSION (PyPI)"
  python3 -m pip install --quiet "kazoo==$KZ_KAZOO_VERSION" ||
    python3 -m pip install --quiet --break-system-packages "kazoo==$KZ_KAZOO_VERSION"
  python3 -c 'import kazoo'
fi

# --- cargo-installed tools ---------------------------------------------------
if [[ "$(trunk --version 2>/dev/null)" != "trunk $KZ_TRUNK_VERSION" ]]; then
  say "installing trunk $KZ_TRUNK_VERSION (a few minutes)"
  cargo install --quiet --locked --force "trunk@$KZ_TRUNK_VERSION"
fi

if [[ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz 0.12.0" ]]; then
  say "installing cargo-fuzz 0.12.0 (a few minutes)"
  cargo install --quiet --force cargo-fuzz --version 0.12.0
fi

wasm_bindgen_version="$(kz_lock_version wasm-bindgen)"
if [[ -z "$wasm_bindgen_version" ]]; then
  say "FAILED: Cargo.lock has no wasm-bindgen entry (run cargo build -p kzsim-web first)"
  exit 1
fi
if [[ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $wasm_bindgen_version" ]]; then
  say "installing wasm-bindgen-cli $wasm_bindgen_version (a few minutes)"
  # Not --locked: its lockfile pins a yanked crate. The version is pinned.
  cargo install --quiet --force wasm-bindgen-cli --version "$wasm_bindgen_version"
fi

# --- npm packages ------------------------------------------------------------
# `npm ci` when the installed version differs from the one package-lock.json pins.
npm_ci_unless_installed() { # DIR PACKAGE
  local dir="$1" package="$2" want have
  want="$(node -p "require('./$dir/package-lock.json').packages['node_modules/$package'].version")"
  have="$(node -p "try { require('./$dir/node_modules/$package/package.json').version } catch { '' }")"
  if [[ "$have" != "$want" ]]; then
    say "installing $package $want (npm, in $dir)"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
}
npm_ci_unless_installed scripts/tools binaryen
npm_ci_unless_installed tests/browser playwright-core

# --- check what the build finds on PATH ---------------------------------------
[[ "$(trunk --version)" == "trunk $KZ_TRUNK_VERSION" ]]
[[ "$(wasm-bindgen --version)" == "wasm-bindgen $wasm_bindgen_version" ]]
[[ "$(wasm-opt --version)" == *"(version_132)"* ]] || { say "FAILED: wasm-opt on PATH is not binaryen 132: $(command -v wasm-opt)"; exit 1; }
