//! The scenario parser: text in, a [`Script`] or the first located error out.
//! It never panics, whatever the bytes (tests/parser_fuzz.rs).

use super::ast::*;
use super::error::ScenarioError;
use super::lexer::{split_key_value, tokenize, Token};
use crate::zookeeper::path::validate_path;
use serde_json::Value;

/// Limits that keep absurd scripts from exhausting the machine.
pub const MAX_SCRIPT_BYTES: usize = 16 * 1024 * 1024;
pub const MAX_LINES: usize = 200_000;
pub const MAX_BROKERS: u32 = 200;
pub const MAX_LOG_DIRS: u32 = 16;
pub const MAX_PARTITIONS: i32 = 1_000_000;
pub const MAX_DATA_BYTES: usize = crate::zookeeper::server::MAX_DATA_BYTES;

/// Parses a whole scenario.
pub fn parse(text: &str) -> Result<Script, ScenarioError> {
    if text.len() > MAX_SCRIPT_BYTES {
        return Err(ScenarioError::at(1, 1, format!("the scenario is {} bytes; the limit is {} bytes", text.len(), MAX_SCRIPT_BYTES)));
    }
    let mut lines = Vec::new();
    let mut seed: Option<(u64, usize)> = None;
    for (i, raw_line) in text.split('\n').enumerate() {
        let line_no = i + 1;
        if line_no > MAX_LINES {
            return Err(ScenarioError::at(line_no, 1, format!("the scenario has more than {MAX_LINES} lines")));
        }
        let tokens = tokenize(raw_line, line_no)?;
        if tokens.is_empty() {
            continue;
        }
        let mut p = LineParser { tokens: &tokens, pos: 0, line: line_no };
        let command = p.command()?;
        p.end()?;
        if let Command::Seed(s) = command {
            if let Some((_, first)) = seed {
                return Err(ScenarioError::at(line_no, 1, format!("seed is already set on line {first}; a scenario has one seed")));
            }
            seed = Some((s, line_no));
        }
        let text = line_text(raw_line, &tokens);
        lines.push(Line { line: line_no, text, command });
    }
    Ok(Script { lines, seed: seed.map(|(s, _)| s).unwrap_or(0) })
}

/// The line without its comment and surrounding spaces.
fn line_text(raw_line: &str, tokens: &[Token]) -> String {
    let last = tokens.last().expect("non-empty");
    let start = tokens[0].col - 1;
    let end = last.col - 1 + last.raw.chars().count();
    raw_line.chars().skip(start).take(end - start).collect()
}

struct LineParser<'a> {
    tokens: &'a [Token],
    pos: usize,
    line: usize,
}

impl<'a> LineParser<'a> {
    fn err(&self, col: usize, message: impl Into<String>) -> ScenarioError {
        ScenarioError::at(self.line, col, message)
    }

    /// The column just past the last token: where a missing word should go.
    fn end_col(&self) -> usize {
        self.tokens.last().map(|t| t.col + t.raw.chars().count() + 1).unwrap_or(1)
    }

    fn peek(&self) -> Option<&'a Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self, what: &str) -> Result<&'a Token, ScenarioError> {
        match self.tokens.get(self.pos) {
            Some(t) => {
                self.pos += 1;
                Ok(t)
            }
            None => Err(self.err(self.end_col(), format!("expected {what}"))),
        }
    }

    fn keyword(&mut self, word: &str) -> Result<(), ScenarioError> {
        let t = self.next(&format!("'{word}'"))?;
        if t.text == word && !t.quoted {
            Ok(())
        } else {
            Err(self.err(t.col, format!("expected '{word}', found '{}'", t.text)))
        }
    }

    fn accept(&mut self, word: &str) -> bool {
        match self.peek() {
            Some(t) if t.text == word && !t.quoted => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    fn end(&self) -> Result<(), ScenarioError> {
        match self.peek() {
            None => Ok(()),
            Some(t) => Err(self.err(t.col, format!("unexpected '{}' at the end of the line", t.text))),
        }
    }

    fn rest(&mut self) -> &'a [Token] {
        let r = &self.tokens[self.pos..];
        self.pos = self.tokens.len();
        r
    }

    fn command(&mut self) -> Result<Command, ScenarioError> {
        let head = self.next("a command")?;
        match head.text.as_str() {
            "seed" => Ok(Command::Seed(self.number::<u64>("a seed (a whole number)")?)),
            "broker-config" => self.broker_config(),
            "cluster" => self.cluster(),
            "start" => self.start(),
            "kill" => Ok(Command::Kill(self.broker_ref()?)),
            "shutdown" => Ok(Command::Shutdown(self.broker_ref()?)),
            "restart" => Ok(Command::Restart(self.broker_ref()?)),
            "expire-session" => Ok(Command::ExpireSession(self.broker_ref()?)),
            "pause" => Ok(Command::Pause(self.broker_ref()?)),
            "resume" => Ok(Command::Resume(self.broker_ref()?)),
            "update-broker" => self.update_broker(),
            "topic" => self.topic(),
            "produce" => self.produce(),
            "pause-fetch" | "resume-fetch" => self.fetch(head.text == "pause-fetch"),
            "fail-log-dir" => self.fail_log_dir(),
            "config" => self.config(),
            "reassign" => self.reassign(),
            "elect-preferred" => self.elect_preferred(),
            "run" => self.run(),
            "step" => self.step(),
            "zk-session" => self.zk_session(),
            "zk" => self.zk(),
            "expect" => self.expect(),
            other => Err(self.err(head.col, format!("unknown command '{other}'; see the scenario format for the commands"))),
        }
    }

    fn number<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, ScenarioError> {
        let t = self.next(what)?;
        t.text.parse::<T>().map_err(|_| self.err(t.col, format!("expected {what}, found '{}'", t.text)))
    }

    fn broker_id_token(&self, t: &Token) -> Result<BrokerId, ScenarioError> {
        match t.text.parse::<BrokerId>() {
            Ok(id) if id >= 0 => Ok(id),
            _ => Err(self.err(t.col, format!("expected a broker id (a whole number ≥ 0), found '{}'", t.text))),
        }
    }

    /// `broker ID`.
    fn broker_ref(&mut self) -> Result<BrokerId, ScenarioError> {
        self.keyword("broker")?;
        let t = self.next("a broker id")?;
        self.broker_id_token(t)
    }

    fn key_value(&self, t: &Token) -> Result<(String, String), ScenarioError> {
        let (k, v) = split_key_value(&t.raw).ok_or_else(|| self.err(t.col, format!("expected KEY=VALUE, found '{}'", t.text)))?;
        let v = v.map_err(|e| self.err(t.col, e))?;
        if k.is_empty() {
            return Err(self.err(t.col, "the key before '=' is empty"));
        }
        Ok((k, v))
    }

    /// `KEY=VALUE` where KEY must be `key`.
    fn named<T: std::str::FromStr>(&mut self, key: &str, what: &str) -> Result<(T, usize), ScenarioError> {
        let t = self.next(&format!("{key}=..."))?;
        let (k, v) = self.key_value(t)?;
        if k != key {
            return Err(self.err(t.col, format!("expected {key}=..., found '{}'", t.text)));
        }
        let parsed = v.parse::<T>().map_err(|_| self.err(t.col, format!("{key} must be {what}, found '{v}'")))?;
        Ok((parsed, t.col))
    }

    fn broker_config(&mut self) -> Result<Command, ScenarioError> {
        let rest = self.rest();
        if rest.is_empty() {
            return Err(self.err(self.end_col(), "expected KEY=VALUE settings, e.g. zookeeper.session.timeout.ms=6000"));
        }
        let pairs = rest.iter().map(|t| self.key_value(t)).collect::<Result<Vec<_>, _>>()?;
        Ok(Command::BrokerConfig(pairs))
    }

    fn cluster(&mut self) -> Result<Command, ScenarioError> {
        let (brokers, col) = self.named::<u32>("brokers", "a whole number")?;
        if brokers == 0 || brokers > MAX_BROKERS {
            return Err(self.err(col, format!("brokers must be between 1 and {MAX_BROKERS}, found {brokers}")));
        }
        let mut log_dirs = 1;
        if self.peek().is_some() {
            let (k, col) = self.named::<u32>("log-dirs", "a whole number")?;
            if k == 0 || k > MAX_LOG_DIRS {
                return Err(self.err(col, format!("log-dirs must be between 1 and {MAX_LOG_DIRS}, found {k}")));
            }
            log_dirs = k;
        }
        Ok(Command::Cluster { brokers, log_dirs })
    }

    fn start(&mut self) -> Result<Command, ScenarioError> {
        if self.accept("all") {
            return Ok(Command::Start(StartTarget::All));
        }
        let t = self.peek().ok_or_else(|| self.err(self.end_col(), "expected 'all' or 'broker ID'"))?;
        if t.text != "broker" {
            return Err(self.err(t.col, format!("expected 'all' or 'broker ID', found '{}'", t.text)));
        }
        Ok(Command::Start(StartTarget::Broker(self.broker_ref()?)))
    }

    fn update_broker(&mut self) -> Result<Command, ScenarioError> {
        let t = self.next("a broker id")?;
        let broker = self.broker_id_token(t)?;
        let lt = self.next("listener=HOST:PORT")?;
        let (k, listener) = self.key_value(lt)?;
        if k != "listener" {
            return Err(self.err(lt.col, format!("expected listener=HOST:PORT, found '{}'", lt.text)));
        }
        let ok = listener.rsplit_once(':').map(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok()).unwrap_or(false);
        if !ok {
            return Err(self.err(lt.col, format!("listener must be HOST:PORT with a port from 0 to 65535, found '{listener}'")));
        }
        Ok(Command::UpdateBroker { broker, listener })
    }

    fn topic_name(&self, t: &Token) -> Result<String, ScenarioError> {
        validate_topic_name(&t.text).map_err(|e| self.err(t.col, e))?;
        Ok(t.text.clone())
    }

    /// `leader`, `follower` (and `alter-log-dirs` for rates).
    fn throttle_side(&mut self, rates: bool) -> Result<ThrottleSide, ScenarioError> {
        let expected = if rates { "leader, follower or alter-log-dirs" } else { "leader or follower" };
        let t = self.next(expected)?;
        match t.text.as_str() {
            "leader" => Ok(ThrottleSide::Leader),
            "follower" => Ok(ThrottleSide::Follower),
            "alter-log-dirs" if rates => Ok(ThrottleSide::AlterLogDirs),
            other => Err(self.err(t.col, format!("expected {expected}, found '{other}'"))),
        }
    }

    fn topic(&mut self) -> Result<Command, ScenarioError> {
        let verb = self.next("'create' or 'delete'")?;
        match verb.text.as_str() {
            "delete" => {
                let t = self.next("a topic name")?;
                Ok(Command::TopicDelete { name: self.topic_name(t)? })
            }
            "create" => self.topic_create(),
            other => Err(self.err(verb.col, format!("expected 'create' or 'delete' after 'topic', found '{other}'"))),
        }
    }

    fn topic_create(&mut self) -> Result<Command, ScenarioError> {
        let t = self.next("a topic name")?;
        let name = self.topic_name(t)?;
        let first = self.next("partitions=P replication-factor=R, or assignment=...")?;
        let (k, v) = self.key_value(first)?;
        let layout = match k.as_str() {
            "partitions" => {
                let partitions = v.parse::<i32>().ok().filter(|p| (1..=MAX_PARTITIONS).contains(p));
                let partitions = partitions
                    .ok_or_else(|| self.err(first.col, format!("partitions must be between 1 and {MAX_PARTITIONS}, found '{v}'")))?;
                let (rf, col) = self.named::<i32>("replication-factor", "a whole number")?;
                if rf < 1 || rf as u32 > MAX_BROKERS {
                    return Err(self.err(col, format!("replication-factor must be at least 1, found {rf}")));
                }
                TopicLayout::Count { partitions, replication_factor: rf }
            }
            "assignment" => TopicLayout::Assignment(parse_assignment(&v).map_err(|e| self.err(first.col, e))?),
            _ => return Err(self.err(first.col, format!("expected partitions=P or assignment=..., found '{}'", first.text))),
        };
        let mut config = Vec::new();
        if self.accept("config") {
            let rest = self.rest();
            if rest.is_empty() {
                return Err(self.err(self.end_col(), "expected KEY=VALUE after 'config'"));
            }
            for t in rest {
                config.push(self.key_value(t)?);
            }
        }
        Ok(Command::TopicCreate { name, layout, config })
    }

    fn tp(&mut self) -> Result<TopicPartition, ScenarioError> {
        let t = self.next("a topic-partition (TOPIC-P)")?;
        parse_tp(&t.text).map_err(|e| self.err(t.col, e))
    }

    fn produce(&mut self) -> Result<Command, ScenarioError> {
        let tp = self.tp()?;
        let (messages, col) = self.named::<u64>("messages", "a whole number")?;
        if messages == 0 || messages > 1_000_000_000 {
            return Err(self.err(col, format!("messages must be between 1 and 1000000000, found {messages}")));
        }
        Ok(Command::Produce { tp, messages })
    }

    fn fetch(&mut self, pause: bool) -> Result<Command, ScenarioError> {
        let broker = self.broker_ref()?;
        let tp = if self.peek().is_some() { Some(self.tp()?) } else { None };
        Ok(if pause { Command::PauseFetch { broker, tp } } else { Command::ResumeFetch { broker, tp } })
    }

    fn fail_log_dir(&mut self) -> Result<Command, ScenarioError> {
        let broker = self.broker_ref()?;
        self.keyword("dir")?;
        let t = self.next("a log dir index")?;
        let dir =
            t.text.parse::<u32>().map_err(|_| self.err(t.col, format!("expected a log dir index (0, 1, ...), found '{}'", t.text)))?;
        Ok(Command::FailLogDir { broker, dir })
    }

    fn config(&mut self) -> Result<Command, ScenarioError> {
        self.keyword("alter")?;
        let et = self.next("an entity type (topics, clients, users, brokers)")?;
        let entity_type = et.text.clone();
        if !["topics", "clients", "users", "brokers"].contains(&entity_type.as_str()) {
            return Err(self.err(et.col, format!("entity type must be topics, clients, users or brokers, found '{entity_type}'")));
        }
        let en = self.next("an entity name")?;
        let mut entity_name = en.text.clone();
        if entity_name.is_empty() || entity_name == "set" || entity_name == "delete" {
            return Err(self.err(en.col, "expected an entity name before 'set'/'delete'"));
        }
        if entity_type == "users" && self.accept("clients") {
            let c = self.next("a client id")?;
            entity_name = format!("{entity_name}/clients/{}", c.text);
        }
        let (mut set, mut delete) = (Vec::new(), Vec::new());
        while let Some(t) = self.peek() {
            self.pos += 1;
            match t.text.as_str() {
                "set" => {
                    let v = self.next("KEY=VALUE[,KEY=VALUE...]")?;
                    for item in split_config_list(&v.text) {
                        let (k, val) =
                            item.split_once('=').ok_or_else(|| self.err(v.col, format!("expected KEY=VALUE, found '{item}'")))?;
                        let val = val.strip_prefix('[').and_then(|x| x.strip_suffix(']')).unwrap_or(val);
                        set.push((k.to_string(), val.to_string()));
                    }
                }
                "delete" => {
                    let v = self.next("KEY[,KEY...]")?;
                    delete.extend(v.text.split(',').filter(|k| !k.is_empty()).map(str::to_string));
                }
                other => return Err(self.err(t.col, format!("expected 'set' or 'delete', found '{other}'"))),
            }
        }
        if set.is_empty() && delete.is_empty() {
            return Err(self.err(self.end_col(), "expected 'set KEY=VALUE' or 'delete KEY'"));
        }
        Ok(Command::ConfigAlter { entity_type, entity_name, set, delete })
    }

    fn reassign(&mut self) -> Result<Command, ScenarioError> {
        let tp = self.tp()?;
        let t = self.next("replicas=B,B,B")?;
        let (k, v) = self.key_value(t)?;
        if k != "replicas" {
            return Err(self.err(t.col, format!("expected replicas=B,B,B, found '{}'", t.text)));
        }
        let replicas = parse_broker_list(&v).map_err(|e| self.err(t.col, e))?;
        Ok(Command::Reassign { tp, replicas })
    }

    fn elect_preferred(&mut self) -> Result<Command, ScenarioError> {
        let mut tps = Vec::new();
        while self.peek().is_some() {
            tps.push(self.tp()?);
        }
        Ok(Command::ElectPreferred(tps))
    }

    fn duration(&mut self) -> Result<u64, ScenarioError> {
        let t = self.next("a duration (250ms, 5s, 2m, 1h)")?;
        parse_duration(&t.text).map_err(|e| self.err(t.col, e))
    }

    fn run(&mut self) -> Result<Command, ScenarioError> {
        if self.accept("until-idle") {
            let max_ms = if self.accept("max") { Some(self.duration()?) } else { None };
            return Ok(Command::RunUntilIdle { max_ms });
        }
        Ok(Command::Run(self.duration()?))
    }

    fn step(&mut self) -> Result<Command, ScenarioError> {
        if self.peek().is_none() {
            return Ok(Command::Step(1));
        }
        let t = self.next("a number of steps")?;
        match t.text.parse::<u64>() {
            Ok(n) if n >= 1 => Ok(Command::Step(n)),
            _ => Err(self.err(t.col, format!("step takes a whole number ≥ 1, found '{}'", t.text))),
        }
    }

    fn session_name(&self, t: &Token) -> Result<String, ScenarioError> {
        let ok = !t.text.is_empty()
            && t.text.len() <= 64
            && t.text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.');
        if ok && !t.text.starts_with("broker-") && t.text != "zk" {
            Ok(t.text.clone())
        } else {
            Err(self.err(
                t.col,
                format!("a session name is 1-64 letters, digits, '_', '-' or '.', and not 'zk' or 'broker-N'; found '{}'", t.text),
            ))
        }
    }

    fn zk_session(&mut self) -> Result<Command, ScenarioError> {
        let t = self.next("a session name")?;
        let name = self.session_name(t)?;
        let timeout_ms = if self.peek().is_some() { Some(self.named::<u64>("timeout", "milliseconds")?.0) } else { None };
        Ok(Command::ZkSession { name, timeout_ms })
    }

    fn path(&mut self, sequential: bool) -> Result<String, ScenarioError> {
        let t = self.next("a znode path")?;
        validate_path(&t.text, sequential).map_err(|e| self.err(t.col, format!("invalid znode path: {e}")))?;
        Ok(t.text.clone())
    }

    fn data(&mut self) -> Result<String, ScenarioError> {
        let t = self.next("data")?;
        if t.text.len() > MAX_DATA_BYTES {
            return Err(self.err(t.col, format!("znode data is limited to {MAX_DATA_BYTES} bytes (jute.maxbuffer)")));
        }
        Ok(t.text.clone())
    }

    fn watch_flag(&mut self) -> bool {
        self.accept("-w")
    }

    fn version(&mut self) -> Result<i32, ScenarioError> {
        let t = self.next("a version")?;
        t.text.parse::<i32>().map_err(|_| self.err(t.col, format!("a version is a whole number (-1 for any), found '{}'", t.text)))
    }

    fn zk(&mut self) -> Result<Command, ScenarioError> {
        let t = self.next("a session name")?;
        let session = self.session_name(t)?;
        let verb = self.next("a console command (create, get, set, delete, ls, stat, close, expire)")?;
        let op = match verb.text.as_str() {
            "create" => {
                let (mut ephemeral, mut sequential) = (false, false);
                loop {
                    if self.accept("-e") {
                        ephemeral = true;
                    } else if self.accept("-s") {
                        sequential = true;
                    } else {
                        break;
                    }
                }
                let path = self.path(sequential)?;
                let data = if self.peek().is_some() { self.data()? } else { String::new() };
                ConsoleOp::Create { path, data, ephemeral, sequential }
            }
            "get" => {
                let watch = self.watch_flag();
                ConsoleOp::Get { watch, path: self.path(false)? }
            }
            "ls" => {
                let watch = self.watch_flag();
                ConsoleOp::Ls { watch, path: self.path(false)? }
            }
            "stat" => {
                let watch = self.watch_flag();
                ConsoleOp::Stat { watch, path: self.path(false)? }
            }
            "set" => {
                let path = self.path(false)?;
                let data = self.data()?;
                let version = if self.accept("-v") { self.version()? } else { -1 };
                ConsoleOp::Set { path, data, version }
            }
            "delete" => {
                let version = if self.accept("-v") { self.version()? } else { -1 };
                ConsoleOp::Delete { version, path: self.path(false)? }
            }
            "close" => ConsoleOp::Close,
            "expire" => ConsoleOp::Expire,
            other => {
                return Err(self
                    .err(verb.col, format!("unknown console command '{other}'; use create, get, set, delete, ls, stat, close or expire")))
            }
        };
        Ok(Command::Zk { session, op })
    }

    fn expect(&mut self) -> Result<Command, ScenarioError> {
        let subject = self.subject()?;
        let op_token = self.next("an operator (==, !=, contains, in)")?;
        let op = match op_token.text.as_str() {
            "==" => ExpectOp::Eq,
            "!=" => ExpectOp::Ne,
            "contains" => ExpectOp::Contains,
            "in" => ExpectOp::In,
            other => return Err(self.err(op_token.col, format!("expected an operator (==, !=, contains, in), found '{other}'"))),
        };
        if subject == Subject::Trace && op != ExpectOp::Contains {
            return Err(self.err(op_token.col, "the trace subject takes 'contains': expect trace contains TEXT"));
        }
        let value = self.value()?;
        if op == ExpectOp::In && !value.is_array() {
            return Err(self.err(op_token.col, "'in' needs a JSON list on its right, e.g. [0, 1]"));
        }
        Ok(Command::Expect(Expectation { subject, op, value }))
    }

    /// The expected VALUE: JSON, or a bare word taken as a string.
    fn value(&mut self) -> Result<Value, ScenarioError> {
        let col = self.end_col();
        let rest = self.rest();
        match rest {
            [] => Err(self.err(col, "expected a value (JSON: a number, a string, a list, null, true)")),
            [t] if t.quoted => Ok(Value::String(t.text.clone())),
            _ => {
                let joined = rest.iter().map(|t| t.raw.as_str()).collect::<Vec<_>>().join(" ");
                match serde_json::from_str::<Value>(&joined) {
                    Ok(v) => Ok(v),
                    Err(_) if rest.len() == 1 && !joined.starts_with(['[', '{', '"']) => Ok(Value::String(joined)),
                    Err(e) => Err(self.err(rest[0].col, format!("the value is not valid JSON: {e}"))),
                }
            }
        }
    }

    fn subject(&mut self) -> Result<Subject, ScenarioError> {
        let t = self.next("a subject (controller, znode, partition, broker, ...)")?;
        match t.text.as_str() {
            "controller" => Ok(Subject::Controller),
            "controller-epoch" => Ok(Subject::ControllerEpoch),
            "trace" => Ok(Subject::Trace),
            "znode" => {
                let path = self.path(false)?;
                let a = self.next("exists, data, data.FIELD, version, cversion, ephemeral or children")?;
                let aspect = match a.text.as_str() {
                    "exists" => ZnodeAspect::Exists,
                    "data" => ZnodeAspect::Data,
                    "version" => ZnodeAspect::Version,
                    "cversion" => ZnodeAspect::Cversion,
                    "ephemeral" => ZnodeAspect::Ephemeral,
                    "children" => ZnodeAspect::Children,
                    s if s.starts_with("data.") || s.starts_with("data[") => {
                        ZnodeAspect::DataField(parse_field_path(&s[4..]).map_err(|e| self.err(a.col, e))?)
                    }
                    other => {
                        return Err(self.err(
                            a.col,
                            format!(
                                "unknown znode aspect '{other}'; use exists, data, data.FIELD, version, cversion, ephemeral or children"
                            ),
                        ))
                    }
                };
                Ok(Subject::Znode { path, aspect })
            }
            "partition" => {
                let tp = self.tp()?;
                let a = self.next("leader, isr, replicas, leader-epoch or state")?;
                let aspect = match a.text.as_str() {
                    "leader" => PartitionAspect::Leader,
                    "isr" => PartitionAspect::Isr,
                    "replicas" => PartitionAspect::Replicas,
                    "leader-epoch" => PartitionAspect::LeaderEpoch,
                    "state" => PartitionAspect::State,
                    other => {
                        return Err(self
                            .err(a.col, format!("unknown partition aspect '{other}'; use leader, isr, replicas, leader-epoch or state")))
                    }
                };
                Ok(Subject::Partition { tp, aspect })
            }
            "replica" => {
                let tp = self.tp()?;
                let b = self.next("a broker id")?;
                let broker = self.broker_id_token(b)?;
                self.keyword("state")?;
                Ok(Subject::Replica { tp, broker })
            }
            "broker" => {
                let b = self.next("a broker id")?;
                let broker = self.broker_id_token(b)?;
                let a = self.next(
                    "state, epoch, log-dir K, topic-config TOPIC KEY, last-executed-change, checkpoint K, quota USER CLIENT-ID KEY, throttled-replicas TOPIC SIDE or throttle-rate SIDE",
                )?;
                let aspect = match a.text.as_str() {
                    "state" => BrokerAspect::State,
                    "epoch" => BrokerAspect::Epoch,
                    "last-executed-change" => BrokerAspect::LastExecutedChange,
                    "log-dir" => BrokerAspect::LogDir(self.number::<u32>("a log dir index")?),
                    "checkpoint" => BrokerAspect::Checkpoint(self.number::<u32>("a log dir index")?),
                    "topic-config" => {
                        let topic = self.next("a topic name")?;
                        let topic = self.topic_name(topic)?;
                        let key = self.next("a config key")?.text.clone();
                        BrokerAspect::TopicConfig { topic, key }
                    }
                    "quota" => {
                        let user = self.next("a user principal (or <default>)")?.text.clone();
                        let client = self.next("a client id (or <default>)")?.text.clone();
                        let key = self.next("a quota key such as producer_byte_rate")?.text.clone();
                        BrokerAspect::Quota { user, client, key }
                    }
                    "throttled-replicas" => {
                        let topic = self.next("a topic name")?;
                        let topic = self.topic_name(topic)?;
                        let side = self.throttle_side(false)?;
                        BrokerAspect::ThrottledReplicas { topic, side }
                    }
                    "throttle-rate" => BrokerAspect::ThrottleRate(self.throttle_side(true)?),
                    other => return Err(self.err(a.col, format!("unknown broker aspect '{other}'"))),
                };
                Ok(Subject::Broker { broker, aspect })
            }
            other => Err(self.err(
                t.col,
                format!("unknown subject '{other}'; use controller, controller-epoch, znode, partition, replica, broker or trace"),
            )),
        }
    }
}

/// Kafka's topic name rule: 1-249 of `[a-zA-Z0-9._-]`, not `.` or `..`.
pub fn validate_topic_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 249 {
        return Err(format!("a topic name has 1 to 249 characters, found {}", name.chars().count()));
    }
    if name == "." || name == ".." {
        return Err("a topic name cannot be '.' or '..'".into());
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '.' || *c == '_' || *c == '-')) {
        return Err(format!("a topic name uses only letters, digits, '.', '_' and '-'; found '{}'", c.escape_debug()));
    }
    Ok(())
}

/// `TOPIC-P`: the last `-` separates the partition.
pub fn parse_tp(s: &str) -> Result<TopicPartition, String> {
    let (topic, p) = s.rsplit_once('-').ok_or_else(|| format!("expected TOPIC-P (e.g. orders-0), found '{s}'"))?;
    validate_topic_name(topic)?;
    let partition =
        p.parse::<i32>().ok().filter(|p| *p >= 0).ok_or_else(|| format!("the partition in '{s}' must be a whole number ≥ 0"))?;
    Ok(TopicPartition { topic: topic.into(), partition })
}

/// `1,2,3` → broker ids.
pub fn parse_broker_list(s: &str) -> Result<Vec<BrokerId>, String> {
    let ids = s
        .split(',')
        .map(|b| b.trim().parse::<BrokerId>().ok().filter(|id| *id >= 0).ok_or_else(|| format!("'{b}' is not a broker id")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    if sorted.len() != ids.len() {
        return Err(format!("the replica list '{s}' names a broker twice"));
    }
    Ok(ids)
}

/// `0:1,2,3;1:2,3,1` → [(0, [1,2,3]), (1, [2,3,1])]; partitions must be 0..n-1.
pub fn parse_assignment(s: &str) -> Result<Vec<(i32, Vec<BrokerId>)>, String> {
    let mut out = Vec::new();
    for (i, part) in s.split(';').enumerate() {
        let (p, replicas) = part.split_once(':').ok_or_else(|| format!("expected PARTITION:REPLICAS in '{part}'"))?;
        let p = p.trim().parse::<i32>().map_err(|_| format!("'{p}' is not a partition number"))?;
        if p != i as i32 {
            return Err(format!("partitions must be listed as 0, 1, 2, ... in order; found {p} in position {i}"));
        }
        out.push((p, parse_broker_list(replicas)?));
    }
    if out.len() > MAX_PARTITIONS as usize {
        return Err(format!("at most {MAX_PARTITIONS} partitions"));
    }
    let rf = out[0].1.len();
    if out.iter().any(|(_, r)| r.len() != rf) {
        return Err("every partition needs the same number of replicas".into());
    }
    Ok(out)
}

/// `a=1,b=[0:1,1:2]` → ["a=1", "b=[0:1,1:2]"]: commas inside brackets stay.
pub fn split_config_list(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth <= 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out.into_iter().filter(|x| !x.is_empty()).collect()
}

/// `250ms`, `5s`, `2m`, `1h` → milliseconds.
pub fn parse_duration(s: &str) -> Result<u64, String> {
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num.parse().map_err(|_| format!("expected a duration such as 250ms, 5s, 2m or 1h, found '{s}'"))?;
    let factor = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err(format!("unknown unit in '{s}'; use ms, s, m or h")),
    };
    n.checked_mul(factor).ok_or_else(|| format!("the duration '{s}' is too long"))
}

/// `.config["retention.ms"].x` → ["config", "retention.ms", "x"].
fn parse_field_path(s: &str) -> Result<Vec<String>, String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '.' => {
                let start = i + 1;
                i = start;
                while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                    i += 1;
                }
                if i == start {
                    return Err(format!("empty field name in 'data{s}'"));
                }
                out.push(chars[start..i].iter().collect());
            }
            '[' => {
                let close = chars[i..].iter().position(|&c| c == ']').map(|p| p + i).ok_or_else(|| format!("unclosed '[' in 'data{s}'"))?;
                let inner: String = chars[i + 1..close].iter().collect();
                let key = if inner.starts_with('"') { super::lexer::decode_json_string(&inner)? } else { inner };
                out.push(key);
                i = close + 1;
            }
            c => return Err(format!("unexpected '{c}' in 'data{s}'; write data.FIELD or data[\"FIELD.WITH.DOTS\"]")),
        }
    }
    if out.is_empty() {
        return Err("expected a field after 'data.'".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Command {
        parse(line).unwrap().lines.remove(0).command
    }

    #[test]
    fn console_lines() {
        assert_eq!(
            one("zk a create -e -s /app/n- hello"),
            Command::Zk {
                session: "a".into(),
                op: ConsoleOp::Create { path: "/app/n-".into(), data: "hello".into(), ephemeral: true, sequential: true }
            }
        );
        assert_eq!(
            one("zk a set /x v2 -v 3"),
            Command::Zk { session: "a".into(), op: ConsoleOp::Set { path: "/x".into(), data: "v2".into(), version: 3 } }
        );
        assert_eq!(
            one("zk a delete -v 0 /x"),
            Command::Zk { session: "a".into(), op: ConsoleOp::Delete { path: "/x".into(), version: 0 } }
        );
        assert_eq!(one("zk-session b timeout=6000"), Command::ZkSession { name: "b".into(), timeout_ms: Some(6000) });
    }

    #[test]
    fn expectations() {
        let Command::Expect(e) = one(r#"expect znode /config/topics/t data.config["retention.ms"] == "1000""#) else { panic!() };
        assert_eq!(
            e.subject,
            Subject::Znode {
                path: "/config/topics/t".into(),
                aspect: ZnodeAspect::DataField(vec!["config".into(), "retention.ms".into()])
            }
        );
        assert_eq!(e.value, Value::String("1000".into()));
        let Command::Expect(e) = one("expect partition t-0 isr == [1, 2]") else { panic!() };
        assert_eq!(e.value, serde_json::json!([1, 2]));
        let Command::Expect(e) = one("expect broker 0 state == running") else { panic!() };
        assert_eq!(e.value, Value::String("running".into()));
    }

    #[test]
    fn kafka_commands_parse() {
        assert_eq!(one("cluster brokers=3 log-dirs=2"), Command::Cluster { brokers: 3, log_dirs: 2 });
        assert_eq!(
            one("topic create t assignment=0:1,2;1:2,1 config retention.ms=1000"),
            Command::TopicCreate {
                name: "t".into(),
                layout: TopicLayout::Assignment(vec![(0, vec![1, 2]), (1, vec![2, 1])]),
                config: vec![("retention.ms".into(), "1000".into())]
            }
        );
        assert_eq!(
            one("config alter users alice clients app set producer_byte_rate=1024,x=[0:1,1:2] delete y"),
            Command::ConfigAlter {
                entity_type: "users".into(),
                entity_name: "alice/clients/app".into(),
                set: vec![("producer_byte_rate".into(), "1024".into()), ("x".into(), "0:1,1:2".into())],
                delete: vec!["y".into()]
            }
        );
        assert_eq!(one("run until-idle max 5m"), Command::RunUntilIdle { max_ms: Some(300_000) });
    }

    #[test]
    fn errors_are_located() {
        let e = parse("seed 1\n\nzk a frobnicate /x").unwrap_err();
        assert_eq!((e.line, e.col), (3, 6));
        let e = parse("run 5 s").unwrap_err();
        assert_eq!((e.line, e.col), (1, 5));
        let e = parse("cluster brokers=1000000000").unwrap_err();
        assert!(e.message.contains("between 1 and"), "{}", e.message);
        let e = parse("zk a create /bad/").unwrap_err();
        assert_eq!(e.col, 13);
    }

    #[test]
    fn dynamic_config_subjects() {
        let subject = |line: &str| match one(line) {
            Command::Expect(e) => e.subject,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            subject(r#"expect broker 0 quota "CN=a b" <default> producer_byte_rate == 1"#),
            Subject::Broker {
                broker: 0,
                aspect: BrokerAspect::Quota { user: "CN=a b".into(), client: "<default>".into(), key: "producer_byte_rate".into() }
            }
        );
        assert_eq!(
            subject("expect broker 2 throttled-replicas t follower == \"*\""),
            Subject::Broker { broker: 2, aspect: BrokerAspect::ThrottledReplicas { topic: "t".into(), side: ThrottleSide::Follower } }
        );
        assert_eq!(
            subject("expect broker 1 throttle-rate alter-log-dirs == 5"),
            Subject::Broker { broker: 1, aspect: BrokerAspect::ThrottleRate(ThrottleSide::AlterLogDirs) }
        );
        let e = parse("expect broker 1 throttled-replicas t alter-log-dirs == 5").unwrap_err();
        assert!(e.message.contains("leader or follower"), "{}", e.message);
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("250ms"), Ok(250));
        assert_eq!(parse_duration("15m"), Ok(900_000));
        assert!(parse_duration("5").is_err());
        assert!(parse_duration("99999999999999999999h").is_err());
    }
}
