#!/usr/bin/env bash
# Trunk, building the app's wasm against the standard library rebuilt for
# size (kz_small_std in env.sh says how and why). A plain `trunk` builds the
# same app against the prebuilt std, about 38 KB larger gzipped.
#
# Usage: scripts/trunk.sh build --release [ARGS…] | scripts/trunk.sh serve …
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$KZ_ROOT"
kz_small_std trunk "$@"
