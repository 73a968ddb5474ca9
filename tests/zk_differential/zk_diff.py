#!/usr/bin/env python3
"""Differential test: kzsim's raw ZooKeeper console against a real ZooKeeper 3.8.

A seeded generator builds random sequences of console operations (creates of
every mode, versioned and unversioned sets and deletes, get/ls/stat with and
without watches, session open/close, operations on a closed session).  Each
sequence is run twice:

  * against a real ZooKeeper server through kazoo, recording per operation the
    result and every watch notification the server sent (read off the wire by
    wrapping kazoo's ConnectionHandler._read_watch_event), and
  * through `kzsim run FILE.kzs --trace OUT.jsonl --quiet`, reading the
    zk-result / watch-event trace lines.

Both are normalized (zxids relative to the czxid of the sequence's own prefix
node, ephemeralOwner mapped to the session's name, ctime/mtime dropped,
children sorted) and must agree exactly, operation by operation: ok/error,
created name, data, stat, children, and the watch events the operation
triggered -- the same multiset of (session, type, path), and for every op but
`close` the same order within each session.

A fixed list of directed sequences (DIRECTED below) runs before the random
ones.

The generator decides each next operation by looking at the real server's
answers so far (which nodes exist, their versions, the sequential names it
handed out), so the sequences are interesting; the operation list itself is
then fixed and replayed as-is in the simulator.

Conventions (see README.md):
  * Every sequence runs under its own fresh prefix node /dNNNN, created by
    session `a` right after the sessions are opened, then read back with
    `zk a stat /dNNNN` to learn the zxid anchor on both sides.
  * An operation on a closed session is answered `SessionExpired` by the
    simulator; kazoo raises ConnectionClosedError client-side without talking
    to the server (so no zxid is consumed): we map that to SessionExpired.
  * `zk NAME expire` is not exercised (kazoo cannot expire a session).

Usage:
  zk_diff.py [--zk 127.0.0.1:PORT] [--kzsim PATH] [--sequences N] [--seed S]
             [--ops-per-sequence M] [--jobs J] [--keep DIR] [--real-only]
             [--minimize] [--keep-going] [--no-directed]
Without --zk a private ZooKeeper server is started (and stopped at exit).
"""

import argparse
import atexit
import json
import logging
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

try:
    from kazoo.client import KazooClient
    from kazoo import exceptions as kzexc
    from kazoo.protocol import connection as kzconn
    from kazoo.protocol.serialization import Watch
except ImportError:  # pragma: no cover
    sys.stderr.write("zk_diff.py needs kazoo: pip install kazoo\n")
    sys.exit(2)

# kazoo logs connection retries (while the server starts, or stops) through
# logging's last-resort handler; real failures surface as exceptions.
logging.getLogger("kazoo").addHandler(logging.NullHandler())

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# --------------------------------------------------------------------------
# Watch-event capture on the wire
# --------------------------------------------------------------------------

EVENT_TYPES = {1: "NodeCreated", 2: "NodeDeleted", 3: "NodeDataChanged", 4: "NodeChildrenChanged"}
_EVENTS_LOCK = threading.Lock()
_EVENTS = []  # (tag, session name, type, path)
_orig_read_watch_event = kzconn.ConnectionHandler._read_watch_event


def _recording_read_watch_event(self, buffer, offset):
    watch, _ = Watch.deserialize(buffer, offset)
    tag = getattr(self.client, "_kzdiff_tag", None)
    if tag is not None:
        with _EVENTS_LOCK:
            _EVENTS.append((tag[0], tag[1], EVENT_TYPES.get(watch.type, "Unknown(%s)" % watch.type), watch.path))
    return _orig_read_watch_event(self, buffer, offset)


kzconn.ConnectionHandler._read_watch_event = _recording_read_watch_event


def take_events(run_id):
    with _EVENTS_LOCK:
        mine = [e for e in _EVENTS if e[0] == run_id]
        _EVENTS[:] = [e for e in _EVENTS if e[0] != run_id and e[0] > run_id]
    return [(name, typ, path) for (_, name, typ, path) in mine]


def _noop_watch(_event):
    pass


# --------------------------------------------------------------------------
# Real ZooKeeper server management (used when --zk is not given)
# --------------------------------------------------------------------------

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class ZkServer:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="kzdiff-zk-")
        self.port = free_port()
        os.makedirs(os.path.join(self.dir, "data"))
        cfg = os.path.join(self.dir, "zoo.cfg")
        with open(cfg, "w") as f:
            f.write("tickTime=2000\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"
                    "admin.enableServer=false\nforceSync=no\n" % (os.path.join(self.dir, "data"), self.port))
        cp = os.environ.get("ZK_CLASSPATH", "/etc/zookeeper/conf:/usr/share/java/zookeeper.jar")
        self.log = open(os.path.join(self.dir, "server.log"), "w")
        self.proc = subprocess.Popen(
            ["java", "-cp", cp, "org.apache.zookeeper.server.ZooKeeperServerMain", cfg],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        atexit.register(self.stop)
        self.hosts = "127.0.0.1:%d" % self.port

    def wait_ready(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("ZooKeeper exited early; log in %s" % self.log.name)
            c = KazooClient(hosts=self.hosts, timeout=10)
            try:
                c.start(timeout=2)
                c.stop()
                c.close()
                return
            except Exception:
                try:
                    c.stop()
                    c.close()
                except Exception:
                    pass
                time.sleep(0.3)
        raise RuntimeError("ZooKeeper did not come up on %s" % self.hosts)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)


# --------------------------------------------------------------------------
# Operations and their console text
# --------------------------------------------------------------------------
# An op is a dict: {"kind": open|create|get|set|delete|ls|stat|close,
#   "s": session, "rel": path relative to the prefix ("" is the prefix itself,
#   "/a/b", "/s-", "/" for a sequential create of the prefix's child), flags}.

BARE = re.compile(r"^[A-Za-z0-9._:/=+][A-Za-z0-9._:/=+-]*$")


def render_data(d):
    if d and BARE.match(d):
        return d
    return json.dumps(d, ensure_ascii=False)


def op_path(op, prefix):
    """The op's absolute path: "abs" as written, else "rel" under the prefix."""
    if "abs" in op:
        return op["abs"]
    return prefix + op.get("rel", "")


def console_line(op, prefix):
    k, s = op["kind"], op["s"]
    path = op_path(op, prefix)
    if k == "open":
        return "zk-session %s" % s
    if k == "create":
        flags = ("-e " if op["e"] else "") + ("-s " if op["sq"] else "")
        data = "" if op["data"] is None else " " + render_data(op["data"])
        return "zk %s create %s%s%s" % (s, flags, path, data)
    if k in ("get", "ls", "stat"):
        return "zk %s %s %s%s" % (s, k, "-w " if op["w"] else "", path)
    if k == "set":
        v = "" if op["v"] is None else " -v %d" % op["v"]
        return "zk %s set %s %s%s" % (s, path, render_data(op["data"]), v)
    if k == "delete":
        v = "" if op["v"] is None else "-v %d " % op["v"]
        return "zk %s delete %s%s" % (s, v, path)
    if k == "close":
        return "zk %s close" % s
    raise ValueError(k)


def scenario_text(ops, prefix, title):
    lines = ["# %s" % title, "# generated by tests/zk_differential/zk_diff.py"]
    lines += [console_line(op, prefix) for op in ops]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Running a sequence against the real server
# --------------------------------------------------------------------------

ERRORS = [
    (kzexc.NoNodeError, "NoNode"),
    (kzexc.NodeExistsError, "NodeExists"),
    (kzexc.BadVersionError, "BadVersion"),
    (kzexc.NotEmptyError, "NotEmpty"),
    (kzexc.NoChildrenForEphemeralsError, "NoChildrenForEphemerals"),
    (kzexc.SessionExpiredError, "SessionExpired"),
    (kzexc.ConnectionClosedError, "SessionExpired"),
    (kzexc.BadArgumentsError, "BadArguments"),
    (kzexc.NoAuthError, "NoAuth"),
]

STAT_FIELDS = ["czxid", "mzxid", "pzxid", "version", "cversion", "aversion",
               "ephemeralOwner", "dataLength", "numChildren"]


def kazoo_stat(st):
    return {f: getattr(st, f) for f in STAT_FIELDS}


class RealSequence:
    """Runs one sequence on the real server, op by op."""

    _run_counter = [0]

    def __init__(self, hosts, prefix):
        self.hosts = hosts
        self.prefix = prefix
        RealSequence._run_counter[0] += 1
        self.run_id = RealSequence._run_counter[0]
        self.clients = {}    # name -> KazooClient
        self.closed = set()  # names
        self.owner = {}      # real session id -> name

    def open_many(self, names):
        started = []
        for n in names:
            c = KazooClient(hosts=self.hosts, timeout=30)
            c._kzdiff_tag = (self.run_id, n)
            started.append((n, c, c.start_async()))
        for n, c, ev in started:
            ev.wait(30)
            if not c.connected:
                raise RuntimeError("could not open a session on %s" % self.hosts)
            self.clients[n] = c
            self.owner[c.client_id[0]] = n

    def open_names(self):
        return [n for n in self.clients if n not in self.closed]

    def execute(self, op):
        """Runs op; returns (raw result dict, events)."""
        k, s = op["kind"], op["s"]
        path = op_path(op, self.prefix)
        if k == "open":
            self.open_many([s])
            res = {"op": "open"}
        else:
            c = self.clients[s]
            res = {"op": k, "path": path}
            try:
                if k == "create":
                    data = (op["data"] or "").encode("utf-8")
                    res["created"] = c.create(path, data, ephemeral=op["e"], sequence=op["sq"])
                elif k == "get":
                    data, st = c.get(path, watch=_noop_watch if op["w"] else None)
                    res["data"] = data.decode("utf-8") if data is not None else None
                    res["stat"] = kazoo_stat(st)
                elif k == "stat":
                    st = c.exists(path, watch=_noop_watch if op["w"] else None)
                    if st is None:
                        raise kzexc.NoNodeError()
                    res["stat"] = kazoo_stat(st)
                elif k == "ls":
                    res["children"] = sorted(c.get_children(path, watch=_noop_watch if op["w"] else None))
                elif k == "set":
                    c.set(path, op["data"].encode("utf-8"), version=-1 if op["v"] is None else op["v"])
                elif k == "delete":
                    c.delete(path, version=-1 if op["v"] is None else op["v"])
                elif k == "close":
                    del res["path"]
                    if s in self.closed:
                        raise kzexc.ConnectionClosedError()
                    c.stop()
                    c.close()
                    self.closed.add(s)
                res["ok"] = True
            except Exception as e:  # map ZooKeeper errors to the contract's names
                for cls, name in ERRORS:
                    if isinstance(e, cls):
                        res["ok"] = False
                        res["error"] = name
                        break
                else:
                    raise
        # A round trip on every open session: every notification the op
        # triggered is on the wire before the reply to this.
        for n in self.open_names():
            self.clients[n].exists("/")
        return res, take_events(self.run_id)

    def peek_version(self, path):
        c = self.clients[self.open_names()[0]]
        st = c.exists(path)
        return None if st is None else st.version

    def close_all(self):
        for n in self.open_names():
            try:
                self.clients[n].stop()
                self.clients[n].close()
            except Exception:
                pass
            self.closed.add(n)
        take_events(self.run_id)


def run_real(hosts, prefix, ops):
    """Replays a fixed op list on the real server."""
    seq = RealSequence(hosts, prefix)
    results = []
    try:
        for op in ops:
            results.append(seq.execute(op))
    finally:
        seq.close_all()
    return results, seq.owner


# --------------------------------------------------------------------------
# Directed sequences: fixed cases run before the random ones
# --------------------------------------------------------------------------
# Written as console lines; $P is the sequence's prefix node, which the
# harness creates (and stats, for the zxid anchor) right after the leading
# zk-session lines. A path not starting with $P is used as written.

DIRECTED = [
    ("a closing session is notified of its own ephemerals' deletion", r"""
zk-session a
zk-session b
zk a create -e $P/e v1
zk a get -w $P/e
zk a ls -w $P/e
zk a ls -w $P
zk b get -w $P/e
zk b ls -w $P
zk a close
zk b ls $P
"""),
    ("data + child + exists watches on one node: one NodeDeleted; repeated watches fire once", r"""
zk-session a
zk-session b
zk a create $P/n x
zk b get -w $P/n
zk b stat -w $P/n
zk b ls -w $P/n
zk a delete $P/n
zk b stat -w $P/n
zk a create $P/n y
zk b get -w $P/n
zk b get -w $P/n
zk a set $P/n z
zk a set $P/n w
zk b ls -w $P/n
zk a set $P/n q
zk a create $P/n/c
zk a delete $P/n/c
zk b get -w $P/n
zk a create $P/n/d
zk a set $P/n r
"""),
    ("sequential suffix counts creations; cversion counts creations and deletions", r"""
zk-session a
zk-session b
zk a create $P/p
zk a create $P/p/a
zk a delete $P/p/a
zk a create -s $P/p/s-
zk a stat $P/p
zk a create -e -s $P/p/
zk a create $P/p/x
zk a create $P/p/x
zk a create -s $P/p/nope/s-
zk a create -s $P/p/s-
zk b create -e -s $P/p/e-
zk a stat $P/p
zk b close
zk a stat $P/p
zk a create -s $P/p/s-
zk a ls $P/p
zk a create -s $P/p/x
zk a create -s $P/
zk a stat $P
"""),
    ("ephemeral rules and session close", r"""
zk-session a
zk-session b
zk a create -e $P/e
zk b create $P/e/x
zk b create -s $P/e/x
zk a create -e $P/e/x
zk b stat $P/e
zk b stat -w $P/e
zk b get -w $P/e
zk a close
zk b stat $P/e
zk b create $P/e
zk b stat $P/e
zk b get $P
"""),
    ("versions: set and delete, right and wrong, -1, missing and non-empty nodes", r"""
zk-session a
zk a create $P/v a
zk a set $P/v b -v 0
zk a set $P/v c -v 0
zk a set $P/v d -v -1
zk a set $P/v e -v 2
zk a delete -v 0 $P/v
zk a delete -v 5 $P/nope
zk a set $P/nope x -v 0
zk a get $P/v
zk a delete -v 3 $P/v
zk a get $P/v
zk a create $P/w
zk a create $P/w/c
zk a delete $P/w
zk a delete -v 9 $P/w
zk a delete -v 0 $P/w
zk a delete -v -1 $P/w/c
zk a delete -v 0 $P/w
zk a stat $P
"""),
    ("data encodings and lengths", r"""
zk-session a
zk a create $P/u "h\u00e9llo w\u00f6rld"
zk a get $P/u
zk a set $P/u "\u2603 a b # c"
zk a get $P/u
zk a create $P/e2 ""
zk a get $P/e2
zk a create $P/e3
zk a get $P/e3
zk a set $P/e3 "-v" -v 0
zk a get $P/e3
zk a create $P/j "{\"k\":[1,2]}"
zk a get $P/j
zk a set $P/j ""
zk a stat $P/j
"""),
    ("sessions opened later; operations on a closed session", r"""
zk-session a
zk-session b
zk b create -e $P/b1
zk b ls -w $P
zk b close
zk a stat $P
zk b get $P
zk b create $P/late
zk a stat $P
zk-session c
zk c create -e $P/c1
zk c stat $P/c1
zk a stat $P
zk a ls $P
"""),
    ("exists watches on a missing node, child watches, get -w on a missing node sets nothing", r"""
zk-session a
zk-session b
zk-session c
zk a stat -w $P/x
zk b stat -w $P/x
zk c ls -w $P
zk c get -w $P/x
zk c ls -w $P/x
zk b create -e $P/x v
zk a stat -w $P/x
zk c get -w $P/x
zk b set $P/x w
zk b close
zk a stat $P
zk c create $P/x
zk c stat -w $P/x
zk a delete $P/x
"""),
    ("the reserved /zookeeper subtree and the root", r"""
zk-session a
zk a stat /zookeeper
zk a ls /zookeeper
zk a get /zookeeper/quota
zk a get /zookeeper/config
zk a ls /zookeeper/config
zk a delete /
zk a delete /zookeeper
zk a delete /zookeeper/quota
zk a delete -v 7 /zookeeper/config
zk a set /zookeeper/quota x -v 9
zk a create /zookeeper
zk a create /zookeeper/config
zk a create /zookeeper/quota/x/y
zk a create $P/after
zk a stat $P/after
"""),
    ("NoAuth: /zookeeper/config is read-only", r"""
zk-session a
zk a set /zookeeper/config x
zk a create $P/after
zk a stat $P/after
"""),
]

TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\S+')


def parse_console(text):
    """Parses directed console lines into ops (the subset zk_diff generates)."""
    ops = []
    for line in text.strip().splitlines():
        toks = [json.loads(t) if t.startswith('"') else t for t in TOKEN.findall(line)]
        if toks[0] == "zk-session":
            ops.append({"kind": "open", "s": toks[1]})
            continue
        assert toks[0] == "zk", line
        s, verb, rest = toks[1], toks[2], toks[3:]
        op = {"kind": verb, "s": s}
        if verb == "create":
            op["e"] = op["sq"] = False
            while rest and rest[0] in ("-e", "-s"):
                op["e" if rest[0] == "-e" else "sq"] = True
                rest = rest[1:]
            path, op["data"] = rest[0], (rest[1] if len(rest) > 1 else None)
        elif verb in ("get", "ls", "stat"):
            op["w"] = rest[0] == "-w"
            path = rest[-1]
        elif verb == "set":
            path, op["data"] = rest[0], rest[1]
            op["v"] = int(rest[3]) if len(rest) > 3 else None
        elif verb == "delete":
            op["v"] = int(rest[1]) if rest[0] == "-v" else None
            path = rest[-1]
        elif verb == "close":
            path = None
        else:
            raise ValueError(line)
        if path is not None:
            if path.startswith("$P"):
                op["rel"] = path[2:]
            else:
                op["abs"] = path
        ops.append(op)
    n = nsessions_at_start(ops)
    return ops[:n] + [{"kind": "create", "s": "a", "rel": "", "e": False, "sq": False, "data": None},
                      {"kind": "stat", "s": "a", "rel": "", "w": False}] + ops[n:]


# --------------------------------------------------------------------------
# The generator
# --------------------------------------------------------------------------

STATIC_PATHS = ["/a", "/b", "/c", "/a/a", "/a/b", "/b/a", "/c/c", "/a/a/a", "/b/a/x", "/zz/y"]
SEQ_BASES = ["/s-", "/s-", "/a/s-", "/b/q-", "/a/a/s-", "/", "/a/", "/c"]
DATA_POOL = ["v1", "v2", "x7", "abc", "hello-world", "", "a b", "h\u00e9llo w\u00f6rld", "{\"k\":1}",
             "#x", "z" * 64, "-v", "\u2603"]
CHILD_NAMES = ["a", "b", "c", "a", "b", "x"]
SESSION_NAMES = ["a", "b", "c", "d", "e", "f", "g", "h"]


def weighted(rng, table):
    total = sum(w for _, w in table)
    x = rng.uniform(0, total)
    for item, w in table:
        x -= w
        if x <= 0:
            return item
    return table[-1][0]


def generate_and_run(hosts, prefix, rng, nops):
    """Generates a sequence, deciding each op from the real server's answers
    so far, and runs it there. Returns (ops, results, owner map)."""
    seq = RealSequence(hosts, prefix)
    nsess = rng.choice([2, 3])
    ops = [{"kind": "open", "s": n} for n in SESSION_NAMES[:nsess]]
    ops += [{"kind": "create", "s": "a", "rel": "", "e": False, "sq": False, "data": None},
            {"kind": "stat", "s": "a", "rel": "", "w": False}]
    results = []
    known = set()  # relative paths the server ever created for us
    existing = {"": None}  # a model of the live tree (rel path -> ephemeral owner), only to steer choices
    try:
        seq.open_many(SESSION_NAMES[:nsess])
        for op in ops[:nsess]:
            results.append(({"op": "open"}, []))
        for op in ops[nsess:]:
            results.append(seq.execute(op))
        nsessions = nsess

        def pick_path(for_create=False):
            r = rng.random()
            live = sorted(existing) or [""]
            if for_create:
                if r < 0.75:
                    parent = rng.choice(live)
                    if rng.random() < 0.25 and existing.get(parent) is not None:
                        parent = rng.choice(live)  # a second chance to avoid ephemeral parents
                    return parent + "/" + rng.choice(CHILD_NAMES)
                if r < 0.88:
                    return rng.choice(STATIC_PATHS)
                return rng.choice(live)  # mostly NodeExists
            if r < 0.62:
                return rng.choice(live)
            if r < 0.72:
                return rng.choice(STATIC_PATHS)
            if r < 0.82 and known:
                return rng.choice(sorted(known))
            return rng.choice(live) + "/" + rng.choice(CHILD_NAMES)

        def pick_version(rel):
            r = rng.random()
            if r < 0.45:
                return None
            cur = seq.peek_version(prefix + rel)
            if r < 0.75 and cur is not None:
                return cur
            if r < 0.82:
                return -1
            base = cur if cur is not None else 0
            return rng.choice([base + 1, base + 2, max(base - 1, 0), 0, 1, 5])

        while len(ops) < nops + nsess + 2:
            open_now = seq.open_names()
            closed_now = sorted(seq.closed)
            table = [("create", 32), ("set", 12), ("delete", 15), ("get", 10), ("ls", 10), ("stat", 12)]
            if len(open_now) > 1:
                table.append(("close", 2.5))
            if nsessions < len(SESSION_NAMES):
                table.append(("open", 1.5))
            if closed_now:
                table.append(("closed-use", 2))
            kind = weighted(rng, table)
            s = rng.choice(open_now)
            if kind == "open":
                s = SESSION_NAMES[nsessions]
                nsessions += 1
                op = {"kind": "open", "s": s}
            elif kind == "close":
                op = {"kind": "close", "s": s}
            else:
                if kind == "closed-use":
                    s = rng.choice(closed_now)
                    kind = rng.choice(["create", "get", "set", "delete", "ls", "stat"])
                if kind == "create":
                    e = rng.random() < 0.35
                    sq = rng.random() < 0.3
                    if sq and rng.random() < 0.6:
                        rel = rng.choice(SEQ_BASES)
                    elif sq and rng.random() < 0.5:
                        rel = rng.choice(sorted(existing) or [""]) + rng.choice(["/s-", "/"])
                    else:
                        rel = pick_path(for_create=True)
                    if rel == "/" and not sq:
                        rel = "/a"
                    if rel == "" and sq:
                        # a sequential child of "/" would number after the
                        # real server's other prefixes: not comparable
                        rel = "/"
                    data = None if rng.random() < 0.3 else rng.choice(DATA_POOL)
                    op = {"kind": "create", "s": s, "rel": rel, "e": e, "sq": sq, "data": data}
                elif kind in ("get", "ls", "stat"):
                    op = {"kind": kind, "s": s, "rel": pick_path(), "w": rng.random() < 0.65}
                elif kind == "set":
                    rel = pick_path()
                    op = {"kind": "set", "s": s, "rel": rel, "data": rng.choice(DATA_POOL),
                          "v": pick_version(rel) if s in open_now else None}
                else:
                    rel = pick_path()
                    op = {"kind": "delete", "s": s, "rel": rel,
                          "v": pick_version(rel) if s in open_now else None}
            ops.append(op)
            res, evs = seq.execute(op)
            results.append((res, evs))
            if res.get("ok") and op["kind"] == "create":
                rel = res["created"][len(prefix):]
                known.add(rel)
                existing[rel] = op["s"] if op["e"] else None
            elif res.get("ok") and op["kind"] == "delete":
                existing.pop(op["rel"], None)
            elif res.get("ok") and op["kind"] == "close":
                for rel in [r for r, o in existing.items() if o == op["s"]]:
                    del existing[rel]
    finally:
        seq.close_all()
    return ops, results, seq.owner


# --------------------------------------------------------------------------
# The simulator side
# --------------------------------------------------------------------------

def run_sim(kzsim, ops, prefix, title, workdir, name):
    """Runs the scenario in kzsim; returns (groups, sim owner map, error)."""
    text = scenario_text(ops, prefix, title)
    kzs = os.path.join(workdir, name + ".kzs")
    trace = os.path.join(workdir, name + ".jsonl")
    with open(kzs, "w") as f:
        f.write(text)
    try:
        p = subprocess.run([kzsim, "run", kzs, "--trace", trace, "--quiet"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    except subprocess.TimeoutExpired:
        return None, None, "kzsim timed out"
    if p.returncode != 0:
        return None, None, "kzsim exited %d\nstdout: %s\nstderr: %s" % (
            p.returncode, p.stdout.decode(errors="replace")[-2000:], p.stderr.decode(errors="replace")[-2000:])
    groups = []  # (detail of the zk-result or zk-session line, events)
    sessions = []
    try:
        with open(trace) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                e = json.loads(line)
                kind = e.get("kind")
                if kind == "zk-session":
                    groups.append(({"op": "open", "_detail": e.get("detail")}, []))
                    sessions.append((e.get("actor"), e.get("detail") or {}))
                elif kind == "zk-result":
                    d = dict(e.get("detail") or {})
                    d["_actor"] = e.get("actor")
                    groups.append((d, []))
                elif kind == "watch-event":
                    d = e.get("detail") or {}
                    if not groups:
                        return None, None, "watch-event before any console line: %s" % line
                    groups[-1][1].append((e.get("actor"), d.get("type"), d.get("path")))
    except (OSError, ValueError) as ex:
        return None, None, "cannot read the trace: %s" % ex
    owner = {}
    for i, (name_, detail) in enumerate(sessions):
        sid = None
        for key in ("session_id", "sessionId", "session", "id"):
            if isinstance(detail.get(key), int):
                sid = detail[key]
                break
        if sid is None:
            sid = (1 << 56) | (i + 1)
        owner[sid] = name_
    return groups, owner, None


# --------------------------------------------------------------------------
# Normalization and comparison
# --------------------------------------------------------------------------

def norm_stat(st, anchor, owner):
    if not isinstance(st, dict):
        return ("not-a-stat", repr(st))
    out = {}
    for f in STAT_FIELDS:
        v = st.get(f)
        if f in ("czxid", "mzxid", "pzxid") and isinstance(v, int) and v != 0 and anchor is not None:
            v = v - anchor
        elif f == "ephemeralOwner" and isinstance(v, int) and v != 0:
            v = "session " + owner.get(v, "unknown(%d)" % v)
        out[f] = v
    return out


def canonical(res, anchor, owner):
    k = res.get("op")
    if k == "open":
        return {"op": "open"}
    c = {"op": k, "ok": res.get("ok")}
    if k != "close":
        c["path"] = res.get("path")
    if res.get("ok") is not True:
        c["error"] = res.get("error")
        return c
    if k == "create":
        c["created"] = res.get("created")
    elif k == "get":
        c["data"] = res.get("data")
        c["stat"] = norm_stat(res.get("stat"), anchor, owner)
    elif k == "stat":
        c["stat"] = norm_stat(res.get("stat"), anchor, owner)
    elif k == "ls":
        ch = res.get("children")
        c["children"] = sorted(ch) if isinstance(ch, list) else ch
    return c


def anchor_of(results, nsess):
    """czxid of the prefix node, from the `stat` right after its create."""
    res = results[nsess + 1][0]
    st = res.get("stat")
    if res.get("ok") is True and isinstance(st, dict):
        return st.get("czxid")
    return None


def nsessions_at_start(ops):
    n = 0
    while n < len(ops) and ops[n]["kind"] == "open":
        n += 1
    return n


def per_session(events):
    """Each session's notifications in the order it received them.  Real
    ZooKeeper sends one connection's notifications in the order it triggers
    them (a deleted node's watches before its parent's child watches), so this
    order is observable.  Across sessions there is no order.  A close deletes
    the session's ephemerals in Java HashSet order, so close ops are compared
    as multisets only."""
    out = {}
    for s, typ, path in events:
        out.setdefault(s, []).append((typ, path))
    return out


def compare(ops, real, real_owner, sim, sim_owner):
    """Returns None or (op index, real canonical, sim canonical, why)."""
    nsess = nsessions_at_start(ops)
    if len(sim) != len(ops):
        # find the first place they differ in shape
        for i in range(min(len(sim), len(ops))):
            if (sim[i][0].get("op") or "?") != (ops[i]["kind"]):
                return (i, None, sim[i][0], "the simulator's trace has %d console results for %d lines; "
                        "first out-of-step entry here" % (len(sim), len(ops)))
        return (min(len(sim), len(ops)), None, None,
                "the simulator's trace has %d console results for %d lines" % (len(sim), len(ops)))
    ra, sa = anchor_of(real, nsess), anchor_of(sim, nsess)
    if sa is None:
        return (nsess + 1, real[nsess + 1][0], sim[nsess + 1][0], "cannot read the zxid anchor from the simulator")
    for i, op in enumerate(ops):
        rc = canonical(real[i][0], ra, real_owner)
        sc = canonical(sim[i][0], sa, sim_owner)
        if op["kind"] != "open":
            actor = sim[i][0].get("_actor")
            if actor != op["s"]:
                return (i, rc, sc, "zk-result actor is %r, expected %r" % (actor, op["s"]))
        rev = [tuple(x) for x in real[i][1]]
        sev = [tuple(x) for x in sim[i][1]]
        if rc != sc:
            return (i, rc, sc, "results differ")
        if sorted(rev) != sorted(sev):
            return (i, {"result": rc, "watch_events": rev}, {"result": sc, "watch_events": sev},
                    "watch events differ")
        if op["kind"] != "close" and per_session(rev) != per_session(sev):
            return (i, {"result": rc, "watch_events": rev}, {"result": sc, "watch_events": sev},
                    "the same watch events, but one session receives them in a different order")
    return None


# --------------------------------------------------------------------------
# Minimizer: drop operations while some disagreement remains
# --------------------------------------------------------------------------

class Env:
    def __init__(self, args, hosts, workdir, prefix_base):
        self.args = args
        self.hosts = hosts
        self.workdir = workdir
        self.counter = prefix_base

    def next_prefix(self):
        p = "/d%04d" % self.counter
        self.counter += 1
        return p


def check_ops(env, ops, tag):
    prefix = env.next_prefix()
    real, rowner = run_real(env.hosts, prefix, ops)
    sim, sowner, err = run_sim(env.args.kzsim, ops, prefix, tag, env.workdir, "min-%s" % prefix[1:])
    if err:
        return prefix, real, ("kzsim-failed", err)
    return prefix, real, compare(ops, real, rowner, sim, sowner)


def minimize(env, ops):
    nsess = nsessions_at_start(ops)
    fixed = nsess + 2
    cur = list(ops)
    changed = True
    while changed:
        changed = False
        i = len(cur) - 1
        while i >= fixed:
            cand = cur[:i] + cur[i + 1:]
            # a session must be opened before it is used
            names_opened = set()
            valid = True
            for op in cand:
                if op["kind"] == "open":
                    names_opened.add(op["s"])
                elif op["s"] not in names_opened:
                    valid = False
                    break
            if valid:
                _, _, mm = check_ops(env, cand, "minimizing")
                if mm is not None:
                    cur = cand
                    changed = True
            i -= 1
    return cur


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def fmt(x):
    return json.dumps(x, ensure_ascii=False, sort_keys=True)


def report(ops, prefix, real, sim_groups, mm, title, out=sys.stdout):
    i, rc, sc, why = mm
    out.write("=" * 72 + "\n")
    out.write("MISMATCH in %s: %s\n" % (title, why))
    out.write("--- scenario (%s) ---\n" % prefix)
    for j, op in enumerate(ops):
        mark = ">>" if j == i else "  "
        out.write("%s %s\n" % (mark, console_line(op, prefix)))
    if i < len(ops):
        out.write("--- at line: %s\n" % console_line(ops[i], prefix))
    out.write("--- real ZooKeeper:\n    %s\n" % fmt(rc))
    out.write("--- kzsim:\n    %s\n" % fmt(sc))
    out.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zk", help="HOST:PORT of a running ZooKeeper 3.8 (default: start one)")
    ap.add_argument("--kzsim", default=os.path.join(REPO, "target", "debug", "kzsim"))
    ap.add_argument("--sequences", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ops-per-sequence", type=int, default=25)
    ap.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    ap.add_argument("--keep", help="write every scenario and trace into this directory")
    ap.add_argument("--no-directed", action="store_true", help="skip the fixed directed sequences")
    ap.add_argument("--real-only", action="store_true", help="only run against the real server")
    ap.add_argument("--keep-going", action="store_true",
                    help="print every disagreeing sequence, not just the first")
    ap.add_argument("--minimize", action="store_true",
                    help="shrink the first disagreeing sequence (re-runs it on both sides) and print it")
    args = ap.parse_args()

    t0 = time.time()
    # exit (running the atexit clean-ups: temp files, our server) on a signal
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(130))
    server = None
    if args.zk:
        hosts = args.zk
    else:
        server = ZkServer()
        hosts = server.hosts
    try:
        if server:
            server.wait_ready()
        # a separate session to look at the tree for prefix numbering
        look = KazooClient(hosts=hosts, timeout=30)
        look.start(timeout=30)
        existing = [c for c in look.get_children("/") if re.match(r"^d\d{4,9}$", c)]
        base = max([int(c[1:]) for c in existing] + [-1]) + 1
        look.stop()
        look.close()

        if not args.real_only and not os.access(args.kzsim, os.X_OK):
            print("kzsim binary not found at %s (build it: cargo build -p kzsim)" % args.kzsim)
            return 2
        workdir = args.keep or tempfile.mkdtemp(prefix="kzdiff-")
        os.makedirs(workdir, exist_ok=True)
        if not args.keep:
            atexit.register(shutil.rmtree, workdir, True)
        env = Env(args, hosts, workdir, base)

        pool = ThreadPoolExecutor(max_workers=args.jobs)
        pending = []
        nops = 0
        directed = [] if args.no_directed else DIRECTED
        for n in range(len(directed) + args.sequences):
            prefix = env.next_prefix()
            if n < len(directed):
                title = "directed sequence %d: %s" % (n, directed[n][0])
                ops = parse_console(directed[n][1])
                real, rowner = run_real(hosts, prefix, ops)
            else:
                title = "random sequence %d (seed %d)" % (n - len(directed), args.seed)
                rng = random.Random("%d:%d" % (args.seed, n - len(directed)))
                ops, real, rowner = generate_and_run(hosts, prefix, rng, args.ops_per_sequence)
            nops += len(ops)
            if args.real_only:
                continue
            fut = pool.submit(run_sim, args.kzsim, ops, prefix, title, workdir, "seq-%05d" % n)
            pending.append((n, title, prefix, ops, real, rowner, fut))
        real_done = time.time()

        failed = []
        for n, title, prefix, ops, real, rowner, fut in pending:
            sim, sowner, err = fut.result()
            if err:
                mm = (0, None, None, err)
            else:
                mm = compare(ops, real, rowner, sim, sowner)
            if mm is None:
                continue
            failed.append(n)
            if len(failed) == 1 or args.keep_going:
                report(ops, prefix, real, sim, mm, title)
        if failed and args.minimize:
            n, title, prefix, ops = [(p[0], p[1], p[2], p[3]) for p in pending if p[0] == failed[0]][0]
            small = minimize(env, ops)
            p2, real2, mm2 = check_ops(env, small, "minimized")
            if mm2 is not None and mm2[0] != "kzsim-failed":
                report(small, p2, real2, None, mm2, "minimized " + title)
            else:
                print("minimized sequence (%s):\n%s" % (mm2, scenario_text(small, p2, "minimized")))
        pool.shutdown(wait=False, cancel_futures=True)
        elapsed = time.time() - t0
        if args.real_only:
            print("%d sequences, %d operations run against the real ZooKeeper only (%.1fs)"
                  % (len(directed) + args.sequences, nops, elapsed))
            return 0
        if failed:
            print("%d of %d sequences disagree (sequence numbers: %s%s)"
                  % (len(failed), len(pending), failed[:30], " ..." if len(failed) > 30 else ""))
            print("%d passed, %d failed" % (len(pending) - len(failed), len(failed)))
            return 1
        print("%d sequences (%d directed, %d random), %d operations, all agree (real side %.1fs, total %.1fs)"
              % (len(pending), len(directed), args.sequences, nops, real_done - t0, elapsed))
        print("%d passed, 0 failed" % len(pending))
        return 0
    finally:
        if server:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
