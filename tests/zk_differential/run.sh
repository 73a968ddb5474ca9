#!/usr/bin/env bash
# Differential test of kzsim's ZooKeeper console against a real ZooKeeper 3.8.
#
#   tests/zk_differential/run.sh [zk_diff.py options, e.g. --sequences 5000 --seed 7]
#
# Builds target/debug/kzsim (under $CARGO_TARGET_DIR when that is set),
# starts a private standalone ZooKeeper on a free loopback port, runs
# zk_diff.py against both, stops the server and exits with zk_diff.py's
# status. Needs java, the `zookeeper` package (or ZK_CLASSPATH
# pointing at a ZooKeeper 3.8 jar and its dependencies) and python3 + kazoo.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
ZK_CLASSPATH="${ZK_CLASSPATH:-/etc/zookeeper/conf:/usr/share/java/zookeeper.jar}"
PYTHON="${PYTHON:-python3}"
TARGET_DIR="${CARGO_TARGET_DIR:-$REPO/target}"

(cd "$REPO" && cargo build -q -p kzsim)

WORK="$(mktemp -d "${TMPDIR:-/tmp}/kzdiff-zk.XXXXXX")"
ZK_PID=""
PY_PID=""
cleanup() {
    if [[ -n "$PY_PID" ]] && kill -0 "$PY_PID" 2>/dev/null; then
        kill "$PY_PID" 2>/dev/null || true
        wait "$PY_PID" 2>/dev/null || true
    fi
    if [[ -n "$ZK_PID" ]] && kill -0 "$ZK_PID" 2>/dev/null; then
        kill "$ZK_PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$ZK_PID" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$ZK_PID" 2>/dev/null || true
        wait "$ZK_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mkdir -p "$WORK/data"
cat > "$WORK/zoo.cfg" <<EOF
tickTime=2000
dataDir=$WORK/data
clientPort=$PORT
clientPortAddress=127.0.0.1
admin.enableServer=false
forceSync=no
EOF

java -cp "$ZK_CLASSPATH" org.apache.zookeeper.server.ZooKeeperServerMain "$WORK/zoo.cfg" \
    > "$WORK/server.log" 2>&1 &
ZK_PID=$!

# Wait (up to 60 s) until a kazoo client can open a session.
if ! "$PYTHON" - "$PORT" "$ZK_PID" <<'EOF'
import logging, os, sys, time
from kazoo.client import KazooClient
logging.getLogger("kazoo").addHandler(logging.NullHandler())
port, pid = sys.argv[1], int(sys.argv[2])
deadline = time.time() + 60
while time.time() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("ZooKeeper exited during startup")
    c = KazooClient(hosts="127.0.0.1:" + port, timeout=10)
    try:
        c.start(timeout=2)
        c.stop()
        c.close()
        sys.exit(0)
    except Exception:
        try:
            c.stop()
            c.close()
        except Exception:
            pass
        time.sleep(0.3)
sys.exit("ZooKeeper did not come up on port " + port)
EOF
then
    echo "--- ZooKeeper server log:" >&2
    tail -50 "$WORK/server.log" >&2 || true
    exit 2
fi

# In the background + wait, so that a signal to this script is acted on at once.
status=0
"$PYTHON" "$HERE/zk_diff.py" --zk "127.0.0.1:$PORT" --kzsim "$TARGET_DIR/debug/kzsim" "$@" &
PY_PID=$!
wait "$PY_PID" || status=$?
PY_PID=""
exit "$status"
