#!/usr/bin/env bash
# Checks that two builds of kzsim behave identically (a performance change
# must not change what the simulator does): every built-in scenario, every
# scenario under tests/, the 2,000-partition version of the scale scenario of
# docs/performance.md and any extra .kzs files given, run with --trace and
# --dump-state, must give byte-identical trace, state, output, errors and
# exit status; run with --quiet and no trace (steps counted, not described),
# the same state, errors and exit status.
#
# Usage: scripts/compare-traces.sh OLD_KZSIM NEW_KZSIM [EXTRA.kzs ...]
# (build the old one from a worktree of the base commit, in its own target
# directory). Exit 1 on the first kind of difference, listing every one.
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$KZ_ROOT"

old="$(realpath "$1")"
new="$(realpath "$2")"
shift 2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat >"$work/big2000.kzs" <<EOK
cluster brokers=50
start all
topic create big partitions=2000 replication-factor=3
run 10s
kill broker 0
run 60s
EOK

mapfile -t files < <(ls static/scenarios/*.kzs; find tests/scenarios -name '*.kzs' | sort; echo "$work/big2000.kzs"; (($#)) && printf '%s\n' "$@")

# play BIN OUT FILE [ARGS]: one run; its outputs under OUT.*
play() {
  local bin="$1" out="$2" file="$3"
  shift 3
  set +e
  "$bin" run "$file" "$@" >"$out.stdout" 2>"$out.stderr"
  echo $? >"$out.rc"
  set -e
}

differ=0
for f in "${files[@]}"; do
  play "$old" "$work/old" "$f" --trace "$work/old.trace" --dump-state "$work/old.dump"
  play "$new" "$work/new" "$f" --trace "$work/new.trace" --dump-state "$work/new.dump"
  for part in trace dump stdout stderr rc; do
    cmp -s "$work/old.$part" "$work/new.$part" || { echo "DIFFERENT: $f ($part)"; differ=1; }
  done
  play "$new" "$work/quiet" "$f" --quiet --dump-state "$work/quiet.dump"
  for part in dump stderr rc; do
    cmp -s "$work/old.$part" "$work/quiet.$part" || { echo "DIFFERENT: $f (--quiet $part)"; differ=1; }
  done
  rm -f "$work"/old.* "$work"/new.* "$work"/quiet.*
done
if ((differ)); then
  echo "the builds differ"
  exit 1
fi
echo "${#files[@]} scenarios: identical"
