//! The tree's rules, one test each, in ZooKeeper's words.

use super::server::SessionEnd;
use super::*;
use crate::sim::Millis;

fn server() -> (ZooKeeper, SessionId, SessionId) {
    let mut zk = ZooKeeper::default();
    let a = zk.create_session(Millis(0), "a", 30_000);
    let b = zk.create_session(Millis(0), "b", 30_000);
    (zk, a, b)
}

fn create(path: &str, data: &str, ephemeral: bool, sequential: bool) -> Request {
    Request::Create { path: path.into(), data: data.as_bytes().to_vec(), mode: CreateMode { ephemeral, sequential } }
}

fn ok(zk: &mut ZooKeeper, s: SessionId, r: Request) -> (Response, Vec<Notification>) {
    let (res, n) = zk.process(Millis(1), s, &r);
    (res.unwrap_or_else(|e| panic!("{r:?} failed: {e:?}")), n)
}

fn err(zk: &mut ZooKeeper, s: SessionId, r: Request) -> KeeperError {
    zk.process(Millis(1), s, &r).0.expect_err("expected an error").code()
}

fn stat(zk: &ZooKeeper, path: &str) -> Stat {
    zk.tree().get(path).expect("node").stat
}

fn note(s: SessionId, event: EventType, path: &str) -> Notification {
    Notification { session: s, event, path: path.into() }
}

#[test]
fn a_fresh_server_has_the_system_nodes() {
    let zk = ZooKeeper::default();
    let root = stat(&zk, "/");
    assert_eq!((root.cversion, root.num_children), (-1, 1));
    assert_eq!(stat(&zk, "/zookeeper").cversion, -2);
    assert_eq!(stat(&zk, "/zookeeper/config").aversion, -1);
    assert_eq!(zk.last_zxid(), 0);
}

#[test]
fn every_write_consumes_one_zxid_even_when_it_fails_and_reads_none() {
    let (mut zk, a, _) = server();
    assert_eq!(zk.last_zxid(), 2, "two createSession transactions");
    ok(&mut zk, a, create("/p", "", false, false));
    assert_eq!(zk.last_zxid(), 3);
    err(&mut zk, a, create("/p", "", false, false));
    assert_eq!(zk.last_zxid(), 4, "a failed create still consumes a zxid");
    ok(&mut zk, a, Request::GetData { path: "/p".into(), watch: false });
    ok(&mut zk, a, Request::GetChildren { path: "/p".into(), watch: false });
    assert_eq!(zk.last_zxid(), 4, "reads consume none");
}

#[test]
fn create_sets_the_full_stat_and_the_parents_counters() {
    let (mut zk, a, _) = server();
    ok(&mut zk, a, create("/p", "", false, false));
    let (res, _) = zk.process(Millis(7), a, &create("/p/c", "hello", true, false));
    assert_eq!(res.unwrap(), Response::Created { path: "/p/c".into() });
    let c = stat(&zk, "/p/c");
    assert_eq!(
        c,
        Stat {
            czxid: 4,
            mzxid: 4,
            pzxid: 4,
            ctime: 7,
            mtime: 7,
            version: 0,
            cversion: 0,
            aversion: 0,
            ephemeral_owner: a,
            data_length: 5,
            num_children: 0
        }
    );
    let p = stat(&zk, "/p");
    assert_eq!((p.cversion, p.pzxid, p.num_children, p.mzxid), (1, 4, 1, 3));
}

#[test]
fn sequential_suffixes_count_creations_but_cversion_counts_deletions_too() {
    // Measured on ZooKeeper 3.8.0: create /p/a, delete it, create /p/s- →
    // /p/s-0000000001 with the parent's cversion at 3.
    let (mut zk, a, _) = server();
    ok(&mut zk, a, create("/p", "", false, false));
    ok(&mut zk, a, create("/p/a", "", false, false));
    ok(&mut zk, a, Request::Delete { path: "/p/a".into(), version: -1 });
    let (r, _) = ok(&mut zk, a, create("/p/s-", "", false, true));
    assert_eq!(r, Response::Created { path: "/p/s-0000000001".into() });
    assert_eq!(stat(&zk, "/p").cversion, 3);
    // A failed create does not advance the counter.
    err(&mut zk, a, create("/p/s-0000000001", "", false, false));
    let (r, _) = ok(&mut zk, a, create("/p/", "", false, true));
    assert_eq!(r, Response::Created { path: "/p/0000000002".into() });
}

#[test]
fn create_errors_in_the_servers_order() {
    let (mut zk, a, _) = server();
    assert_eq!(err(&mut zk, a, create("/x/y", "", false, false)), KeeperError::NoNode);
    ok(&mut zk, a, create("/e", "", true, false));
    assert_eq!(err(&mut zk, a, create("/e/c", "", false, false)), KeeperError::NoChildrenForEphemerals);
    // NodeExists is checked before the ephemeral parent.
    assert_eq!(err(&mut zk, a, create("/e", "", false, false)), KeeperError::NodeExists);
    assert_eq!(err(&mut zk, a, create("bad", "", false, false)), KeeperError::BadArguments);
}

#[test]
fn conditional_set_and_delete_by_version() {
    let (mut zk, a, _) = server();
    ok(&mut zk, a, create("/x", "v0", false, false));
    assert_eq!(err(&mut zk, a, Request::SetData { path: "/x".into(), data: b"v1".to_vec(), version: 3 }), KeeperError::BadVersion);
    let (r, _) = ok(&mut zk, a, Request::SetData { path: "/x".into(), data: b"v1".to_vec(), version: 0 });
    let Response::SetData { stat: s } = r else { panic!() };
    assert_eq!((s.version, s.data_length), (1, 2));
    ok(&mut zk, a, Request::SetData { path: "/x".into(), data: b"v22".to_vec(), version: -1 });
    assert_eq!(stat(&zk, "/x").version, 2);
    assert_eq!(err(&mut zk, a, Request::Delete { path: "/x".into(), version: 1 }), KeeperError::BadVersion);
    ok(&mut zk, a, Request::Delete { path: "/x".into(), version: 2 });
    assert_eq!(err(&mut zk, a, Request::Delete { path: "/x".into(), version: -1 }), KeeperError::NoNode);
}

#[test]
fn delete_checks_version_before_children() {
    let (mut zk, a, _) = server();
    ok(&mut zk, a, create("/p", "", false, false));
    ok(&mut zk, a, create("/p/c", "", false, false));
    assert_eq!(err(&mut zk, a, Request::Delete { path: "/p".into(), version: 9 }), KeeperError::BadVersion);
    assert_eq!(err(&mut zk, a, Request::Delete { path: "/p".into(), version: -1 }), KeeperError::NotEmpty);
}

#[test]
fn watches_fire_once_with_zookeepers_events() {
    let (mut zk, a, b) = server();
    // An exists-watch on a missing node fires NodeCreated.
    assert_eq!(err(&mut zk, b, Request::Exists { path: "/n".into(), watch: true }), KeeperError::NoNode);
    ok(&mut zk, b, Request::GetChildren { path: "/".into(), watch: true });
    let (_, n) = ok(&mut zk, a, create("/n", "", false, false));
    assert_eq!(n, vec![note(b, EventType::NodeCreated, "/n"), note(b, EventType::NodeChildrenChanged, "/")]);
    // One-shot: the next create fires nothing.
    let (_, n) = ok(&mut zk, a, create("/m", "", false, false));
    assert!(n.is_empty());
    // A data watch fires NodeDataChanged; a child watch does not.
    ok(&mut zk, b, Request::GetData { path: "/n".into(), watch: true });
    ok(&mut zk, b, Request::GetChildren { path: "/n".into(), watch: true });
    let (_, n) = ok(&mut zk, a, Request::SetData { path: "/n".into(), data: vec![], version: -1 });
    assert_eq!(n, vec![note(b, EventType::NodeDataChanged, "/n")]);
    // Delete: one NodeDeleted per session, even with a data and a child watch.
    ok(&mut zk, b, Request::GetData { path: "/n".into(), watch: true });
    let (_, n) = ok(&mut zk, a, Request::Delete { path: "/n".into(), version: -1 });
    assert_eq!(n, vec![note(b, EventType::NodeDeleted, "/n")]);
}

#[test]
fn get_and_ls_on_a_missing_node_set_no_watch() {
    let (mut zk, a, b) = server();
    err(&mut zk, b, Request::GetData { path: "/n".into(), watch: true });
    err(&mut zk, b, Request::GetChildren { path: "/n".into(), watch: true });
    let (_, n) = ok(&mut zk, a, create("/n", "", false, false));
    assert!(n.is_empty());
}

#[test]
fn closing_a_session_deletes_its_ephemerals_in_one_transaction() {
    let (mut zk, a, b) = server();
    ok(&mut zk, a, create("/p", "", false, false));
    ok(&mut zk, a, create("/p/e1", "", true, false));
    ok(&mut zk, a, create("/p/e2", "", true, true));
    ok(&mut zk, b, Request::GetChildren { path: "/p".into(), watch: true });
    ok(&mut zk, b, Request::Exists { path: "/p/e1".into(), watch: true });
    ok(&mut zk, a, Request::GetData { path: "/p/e20000000001".into(), watch: true });
    let before = zk.last_zxid();
    let n = zk.end_session(Millis(5), a, SessionEnd::Closed).unwrap();
    assert_eq!(zk.last_zxid(), before + 1);
    // The closing session hears its own watch fire too; the others theirs.
    assert_eq!(
        n,
        vec![
            note(b, EventType::NodeDeleted, "/p/e1"),
            note(b, EventType::NodeChildrenChanged, "/p"),
            note(a, EventType::NodeDeleted, "/p/e20000000001")
        ]
    );
    let p = stat(&zk, "/p");
    assert_eq!((p.num_children, p.cversion, p.pzxid), (0, 4, before + 1));
    assert!(zk.tree().ephemerals_of(a).is_empty());
    // The closed session can do nothing more.
    assert_eq!(err(&mut zk, a, create("/q", "", false, false)), KeeperError::SessionExpired);
    assert_eq!(zk.end_session(Millis(6), a, SessionEnd::Closed), Err(KeeperError::SessionExpired));
}

#[test]
fn sessions_expire_only_after_their_timeout_without_a_word() {
    let mut zk = ZooKeeper::default();
    let s = zk.create_session(Millis(0), "a", 6000);
    assert!(zk.sessions_due_to_expire(Millis(5999)).is_empty());
    zk.touch(s, Millis(4000));
    assert!(zk.sessions_due_to_expire(Millis(9999)).is_empty());
    assert_eq!(zk.sessions_due_to_expire(Millis(10_000)), vec![s]);
    // Timeouts are negotiated into [2, 20] × tickTime.
    let t = zk.create_session(Millis(0), "b", 100);
    assert_eq!(zk.session(t).unwrap().timeout_ms, 4000);
}

#[test]
fn multi_is_atomic_and_consumes_one_zxid() {
    let (mut zk, a, b) = server();
    ok(&mut zk, a, create("/epoch", "1", false, false));
    err(&mut zk, b, Request::Exists { path: "/c".into(), watch: true });
    let before = zk.last_zxid();
    let fenced = |v: i32| {
        Request::Multi(vec![
            Request::Check { path: "/epoch".into(), version: v },
            create("/c", "x", true, false),
            Request::SetData { path: "/epoch".into(), data: b"2".to_vec(), version: -1 },
        ])
    };
    // A stale check fails the whole multi: nothing applied, nothing fired.
    let (res, n) = zk.process(Millis(2), a, &fenced(7));
    let Err(ZkError::Multi(f)) = res else { panic!("{res:?}") };
    assert_eq!((f.index, f.error), (0, KeeperError::BadVersion));
    assert_eq!(f.results, vec![KeeperError::BadVersion, KeeperError::RuntimeInconsistency, KeeperError::RuntimeInconsistency]);
    assert!(n.is_empty());
    assert!(zk.tree().get("/c").is_none());
    assert_eq!(zk.last_zxid(), before + 1);
    // A failure after applied ops rolls them back, stats included.
    let root_before = stat(&zk, "/");
    let (res, _) = zk.process(Millis(3), a, &Request::Multi(vec![create("/c", "x", true, false), create("/c", "y", false, false)]));
    let Err(ZkError::Multi(f)) = res else { panic!() };
    assert_eq!(f.results, vec![KeeperError::RolledBack, KeeperError::NodeExists]);
    assert_eq!(stat(&zk, "/"), root_before);
    assert!(zk.tree().ephemerals_of(a).is_empty());
    // The good one commits under one zxid, and the watch fires once.
    let (res, n) = zk.process(Millis(4), a, &fenced(0));
    assert!(res.is_ok());
    let c = stat(&zk, "/c");
    assert_eq!(c.czxid, zk.last_zxid());
    assert_eq!(stat(&zk, "/epoch").mzxid, zk.last_zxid());
    assert_eq!(n, vec![note(b, EventType::NodeCreated, "/c")]);
}

#[test]
fn system_nodes_are_protected() {
    let (mut zk, a, _) = server();
    assert_eq!(err(&mut zk, a, Request::Delete { path: "/zookeeper/quota".into(), version: -1 }), KeeperError::BadArguments);
    assert_eq!(err(&mut zk, a, Request::SetData { path: "/zookeeper/config".into(), data: vec![], version: -1 }), KeeperError::NoAuth);
}

#[test]
fn reads_of_invalid_paths_are_bad_arguments_and_set_no_watch() {
    let (mut zk, a, _) = server();
    ok(&mut zk, a, create("/a", "", false, false));
    for path in ["a", "/a/", "//a", "/a/.", "/a\u{1}"] {
        assert_eq!(err(&mut zk, a, Request::GetData { path: path.into(), watch: true }), KeeperError::BadArguments, "{path:?}");
        assert_eq!(err(&mut zk, a, Request::Exists { path: path.into(), watch: true }), KeeperError::BadArguments, "{path:?}");
        assert_eq!(err(&mut zk, a, Request::GetChildren { path: path.into(), watch: true }), KeeperError::BadArguments, "{path:?}");
    }
    assert!(zk.watches().is_empty());
    assert_eq!(err(&mut zk, a, Request::GetData { path: "/b".into(), watch: false }), KeeperError::NoNode);
    // Every path in the tree, sequential ones included, reads back.
    ok(&mut zk, a, create("/a/s-", "", false, true));
    ok(&mut zk, a, create("/a/", "", false, true));
    let paths: Vec<String> = zk.tree().iter().map(|(p, _)| p.to_string()).collect();
    for p in paths {
        ok(&mut zk, a, Request::Exists { path: p, watch: false });
    }
}

#[test]
fn checks_of_invalid_paths_are_bad_arguments_before_no_node() {
    let (mut zk, a, _) = server();
    ok(&mut zk, a, create("/a", "", false, false));
    for path in ["a", "/a/", "//a", "/a/.", "/a\u{1}"] {
        assert_eq!(err(&mut zk, a, Request::Check { path: path.into(), version: -1 }), KeeperError::BadArguments, "{path:?}");
    }
    assert_eq!(err(&mut zk, a, Request::Check { path: "/b".into(), version: -1 }), KeeperError::NoNode);
    assert_eq!(err(&mut zk, a, Request::Check { path: "/a".into(), version: 3 }), KeeperError::BadVersion);
    ok(&mut zk, a, Request::Check { path: "/a".into(), version: 0 });
}
