#!/usr/bin/env bash
# Issue 9's scale target, measured: the 50-broker controller failover of
# benches/scenarios/ at 10,000 and 100,000 partitions, each run RUNS times in
# turn (default 7) with the release `kzsim run --quiet`. Prints the wall-time
# median and range, the peak RSS and how the cost grows from 10,000 to
# 100,000 partitions (linear is 10×). A measurement, not a gate: the target
# (≤ 1 s for 100,000) is wall time on whatever machine runs it, so this
# script exits non-zero only when a run fails. CI checks same-run ratios
# instead (scripts/perf.sh).
#
# Usage: scripts/scale.sh [RUNS]
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$KZ_ROOT"

runs="${1:-7}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/scale.sh [RUNS]   (RUNS a positive whole number, not '$runs')" >&2
  exit 2
fi
target="${CARGO_TARGET_DIR:-$KZ_ROOT/target}"
cargo build -q --release -p kzsim
kzsim="$target/release/kzsim"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# one SIZE: runs the SIZE scenario once and appends "wall_seconds rss_kb" to
# $work/SIZE (the RSS "-" where GNU time is not installed).
one() {
  local scenario="benches/scenarios/failover-$1.kzs"
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -f '%e %M' -a -o "$work/$1" "$kzsim" run "$scenario" --quiet >/dev/null
  else
    local TIMEFORMAT='%R -'
    { time "$kzsim" run "$scenario" --quiet >/dev/null; } 2>>"$work/$1"
  fi
}

for ((i = 0; i < runs; i++)); do
  one 10k
  one 100k
done

# stats SIZE: "median min max peak_rss_kb" of the SIZE runs ("-" for an
# unmeasured RSS).
stats() {
  sort -g "$work/$1" | awk '
    { wall[NR] = $1; if ($2 != "-" && $2 + 0 > rss) rss = $2 }
    END { print wall[int((NR + 1) / 2)], wall[1], wall[NR], (rss ? rss : "-") }'
}
read -r m10 lo10 hi10 rss10 < <(stats 10k)
read -r m100 lo100 hi100 rss100 < <(stats 100k)

# line MEDIAN MIN MAX RSS_KB: "median s (min-max), peak RSS N MB".
line() {
  awk -v m="$1" -v lo="$2" -v hi="$3" -v rss="$4" 'BEGIN {
    printf "%.2f s (%.2f-%.2f), ", m, lo, hi
    if (rss == "-") print "peak RSS not measured"; else printf "peak RSS %d MB\n", rss / 1024
  }'
}

commit="$(git rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout')"
echo "kzsim run --quiet, wall time, median of $runs runs taken in turn ($(date -u '+%Y-%m-%d %H:%M UTC'), $commit):"
echo "   10,000 partitions: $(line "$m10" "$lo10" "$hi10" "$rss10")"
echo "  100,000 partitions: $(line "$m100" "$lo100" "$hi100" "$rss100")"
awk -v s="$m10" -v l="$m100" 'BEGIN {
  printf "  growth 10,000 → 100,000: %.1f× (linear is 10×); target ≤ 1 s for 100,000: %s\n", l / s, (l <= 1 ? "met" : "not met")
}'
