#!/usr/bin/env bash
# Builds the app and serves it at http://127.0.0.1:${PORT:-8080}/ , rebuilding
# on every change (trunk serve). Installs what is missing first (setup.sh).
set -euo pipefail
"$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$KZ_ROOT"
exec scripts/trunk.sh serve --release --address "${ADDRESS:-127.0.0.1}" --port "${PORT:-8080}"
