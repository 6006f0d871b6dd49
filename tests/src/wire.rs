//! A raw PostgreSQL protocol client, for what drivers do not show or do not let a test
//! control: exact message sequences (several Parse/Bind/Execute up to one Sync, as pgjdbc's
//! `executeBatch` sends them), text-format rows of the extended protocol, the parameters a
//! server reports, and each reply in order — so a test can compare kpg's replies with
//! PostgreSQL's message for message.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;

/// A protocol connection (blocking; run it in `spawn_blocking` from async tests).
pub struct Wire {
    conn: TcpStream,
    /// ParameterStatus values received, the last one of each name.
    pub reported: BTreeMap<String, String>,
}

/// A message to send: its type byte and body.
pub type Message = (u8, Vec<u8>);

impl Wire {
    /// Connects as `user` to the database of the same name, up to ReadyForQuery.
    pub fn connect(port: u16, user: &str) -> Wire {
        let conn = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        let mut startup = 196608i32.to_be_bytes().to_vec();
        for part in ["user", user, "database", user, ""] {
            startup.extend(cstr(part));
        }
        let mut first = ((startup.len() + 4) as i32).to_be_bytes().to_vec();
        first.extend(startup);
        let mut wire = Wire {
            conn,
            reported: BTreeMap::new(),
        };
        wire.conn.write_all(&first).expect("startup");
        wire.read_until_ready();
        wire
    }

    /// Sends the messages in one write.
    pub fn send(&mut self, messages: &[Message]) {
        let mut out = Vec::new();
        for (tag, body) in messages {
            out.push(*tag);
            out.extend_from_slice(&(body.len() as i32 + 4).to_be_bytes());
            out.extend_from_slice(body);
        }
        self.conn.write_all(&out).expect("send");
    }

    /// Reads messages up to ReadyForQuery; returns the DataRows' fields. An ErrorResponse
    /// panics (use [`Wire::replies`] where errors are expected).
    pub fn read_until_ready(&mut self) -> Vec<Vec<Option<String>>> {
        let mut rows = Vec::new();
        loop {
            let (tag, body) = self.read_message();
            match tag {
                b'Z' => return rows,
                b'E' => panic!("error: {}", String::from_utf8_lossy(&body)),
                b'D' => rows.push(data_row(&body)),
                _ => {}
            }
        }
    }

    /// Reads messages up to ReadyForQuery, each as a line: `CommandComplete INSERT 0 1`,
    /// `Error 23505`, `DataRow 1|NULL`, `ReadyForQuery I`, `ParseComplete`, `BindComplete`,
    /// `RowDescription`, `NoData`; notices and parameter reports are left out.
    pub fn replies(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let (tag, body) = self.read_message();
            let Some(line) = line(tag, &body) else {
                continue;
            };
            let done = tag == b'Z';
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// Reads `n` messages (notices and parameter reports left out), as [`Wire::replies`]
    /// writes them.
    pub fn next_replies(&mut self, n: usize) -> Vec<String> {
        let mut lines = Vec::new();
        while lines.len() < n {
            let (tag, body) = self.read_message();
            lines.extend(line(tag, &body));
        }
        lines
    }

    /// Whether any reply bytes arrive within `wait`.
    pub fn replies_within(&mut self, wait: std::time::Duration) -> bool {
        self.conn.set_read_timeout(Some(wait)).expect("timeout");
        let mut byte = [0u8; 1];
        let arrived = matches!(self.conn.peek(&mut byte), Ok(n) if n > 0);
        self.conn.set_read_timeout(None).expect("timeout");
        arrived
    }

    pub fn read_message(&mut self) -> (u8, Vec<u8>) {
        let mut head = [0u8; 5];
        self.conn.read_exact(&mut head).expect("message");
        let len = i32::from_be_bytes(head[1..].try_into().unwrap()) as usize - 4;
        let mut body = vec![0u8; len];
        self.conn.read_exact(&mut body).expect("message body");
        if head[0] == b'S' {
            let text = String::from_utf8(body.clone()).expect("UTF-8 parameter");
            let mut parts = text.split('\0');
            let (name, value) = (parts.next().unwrap(), parts.next().unwrap());
            self.reported.insert(name.to_string(), value.to_string());
        }
        (head[0], body)
    }
}

/// A reply as one line (see [`Wire::replies`]); `None` for notices and parameter reports.
fn line(tag: u8, body: &[u8]) -> Option<String> {
    Some(match tag {
        b'C' => format!("CommandComplete {}", text(body)),
        b'E' => format!("Error {}", field(body, b'C')),
        b'D' => {
            let fields: Vec<String> = data_row(body)
                .into_iter()
                .map(|f| f.unwrap_or_else(|| "NULL".into()))
                .collect();
            format!("DataRow {}", fields.join("|"))
        }
        b'Z' => format!("ReadyForQuery {}", body[0] as char),
        b'1' => "ParseComplete".into(),
        b'2' => "BindComplete".into(),
        b'3' => "CloseComplete".into(),
        b'T' => "RowDescription".into(),
        b't' => "ParameterDescription".into(),
        b'n' => "NoData".into(),
        b'I' => "EmptyQueryResponse".into(),
        b'S' | b'N' => return None,
        other => format!("message {}", other as char),
    })
}

fn data_row(body: &[u8]) -> Vec<Option<String>> {
    let n = i16::from_be_bytes([body[0], body[1]]);
    let mut at = 2;
    let mut row = Vec::new();
    for _ in 0..n {
        let len = i32::from_be_bytes(body[at..at + 4].try_into().unwrap());
        at += 4;
        if len < 0 {
            row.push(None);
        } else {
            let value = &body[at..at + len as usize];
            row.push(Some(String::from_utf8(value.to_vec()).expect("text field")));
            at += len as usize;
        }
    }
    row
}

/// A NUL-terminated message body as text.
fn text(body: &[u8]) -> String {
    String::from_utf8_lossy(body.strip_suffix(&[0]).unwrap_or(body)).into_owned()
}

/// One field of an ErrorResponse (`C`: the SQLSTATE).
fn field(body: &[u8], code: u8) -> String {
    body.split(|b| *b == 0)
        .find(|f| f.first() == Some(&code))
        .map(|f| String::from_utf8_lossy(&f[1..]).into_owned())
        .unwrap_or_default()
}

/// A NUL-terminated string.
pub fn cstr(s: &str) -> Vec<u8> {
    [s.as_bytes(), &[0]].concat()
}

/// Query: a simple-protocol query string.
pub fn query_message(sql: &str) -> Message {
    (b'Q', cstr(sql))
}

/// Parse of the unnamed statement, parameter types left to the server.
pub fn parse_message(sql: &str) -> Message {
    parse_named("", sql)
}

/// Parse of the statement `name` (`""`: the unnamed one).
pub fn parse_named(name: &str, sql: &str) -> Message {
    (
        b'P',
        [cstr(name), cstr(sql), 0i16.to_be_bytes().to_vec()].concat(),
    )
}

/// Bind of the unnamed portal to the unnamed statement: text parameters (`None` is NULL),
/// text results.
pub fn bind_message(params: &[Option<&str>]) -> Message {
    bind_named("", "", params)
}

/// Bind of the portal `portal` to the statement `statement`, as [`bind_message`].
pub fn bind_named(portal: &str, statement: &str, params: &[Option<&str>]) -> Message {
    let mut body = [cstr(portal), cstr(statement)].concat();
    body.extend(0i16.to_be_bytes());
    body.extend((params.len() as i16).to_be_bytes());
    for p in params {
        match p {
            None => body.extend((-1i32).to_be_bytes()),
            Some(v) => {
                body.extend((v.len() as i32).to_be_bytes());
                body.extend(v.as_bytes());
            }
        }
    }
    body.extend(0i16.to_be_bytes());
    (b'B', body)
}

/// Execute of the unnamed portal, all rows.
pub fn execute_message() -> Message {
    execute_named("")
}

/// Execute of the portal `portal`, all rows.
pub fn execute_named(portal: &str) -> Message {
    (b'E', [cstr(portal), 0i32.to_be_bytes().to_vec()].concat())
}

/// Close of the statement (`b'S'`) or portal (`b'P'`) `name`.
pub fn close_message(target: u8, name: &str) -> Message {
    (b'C', [vec![target], cstr(name)].concat())
}

/// Sync.
pub fn sync_message() -> Message {
    (b'S', Vec::new())
}

/// Flush.
pub fn flush_message() -> Message {
    (b'H', Vec::new())
}

/// Describe of the unnamed statement (`b'S'`) or portal (`b'P'`).
pub fn describe_message(target: u8) -> Message {
    (b'D', [vec![target], cstr("")].concat())
}

/// Text-format rows through the extended protocol (tokio_postgres asks for binary): a
/// simple-protocol SET, then Parse/Bind (text results)/Execute/Sync. Returns each row's fields.
pub fn extended_text_rows(port: u16, user: &str, set: &str, sql: &str) -> Vec<Vec<Option<String>>> {
    let mut raw = Wire::connect(port, user);
    raw.send(&[(b'Q', cstr(set))]);
    raw.read_until_ready();
    let parse = [cstr(""), cstr(sql), 0i16.to_be_bytes().to_vec()].concat();
    // Bind: no parameters, one result format code for all columns: 0, text.
    let bind = [
        cstr(""),
        cstr(""),
        0i16.to_be_bytes().to_vec(),
        0i16.to_be_bytes().to_vec(),
        1i16.to_be_bytes().to_vec(),
        0i16.to_be_bytes().to_vec(),
    ]
    .concat();
    let execute = [cstr(""), 0i32.to_be_bytes().to_vec()].concat();
    raw.send(&[
        (b'P', parse),
        (b'B', bind),
        (b'E', execute),
        (b'S', Vec::new()),
    ]);
    raw.read_until_ready()
}

/// Runs `run` (a raw protocol session: a port and a user in, its transcript out) against a new
/// kpg and a new PostgreSQL at once, asserts the transcripts are the same, and returns kpg's.
pub async fn same_transcripts(run: fn(u16, &str) -> Vec<String>) -> Vec<String> {
    let (kpg, pg) = tokio::join!(crate::KpgServer::start(), crate::Postgres::start());
    let (kp, pp) = (kpg.port(), pg.port());
    let k = tokio::task::spawn_blocking(move || run(kp, "kpg"));
    let p = tokio::task::spawn_blocking(move || run(pp, "postgres"));
    let (k, p) = (
        k.await.expect("kpg session"),
        p.await.expect("PostgreSQL session"),
    );
    assert_eq!(k, p, "transcripts (kpg left, PostgreSQL right)");
    k
}
