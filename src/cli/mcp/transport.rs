//! The server's stdio transport: JSON-RPC messages one a line, read by a
//! thread of their own and written by another, so the async runtime never
//! blocks on a pipe and no read or write is ever cut in half by a
//! cancelled future.
//!
//! Unlike the SDK's own stdio transport, which drops what it cannot parse
//! without a word, every line that is not a message gets a JSON-RPC error,
//! as JSON-RPC 2.0 asks: a line that is not JSON a parse error (-32700),
//! JSON that is not a message an invalid request (-32600, with the id when
//! it has one), a line over [`super::MAX_LINE_BYTES`] an invalid request
//! naming the limit, its bytes dropped unread. A notification the server
//! it cannot read is ignored (a notification never gets an answer). It owns
//! the framing only: what a message means is [`super`]'s and the SDK's.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rmcp::model::{ErrorCode, ErrorData, RequestId};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

/// Messages read but not yet taken by the server: reading pauses when this
/// many wait, so a client that floods the pipe fills no memory.
const QUEUE: usize = 32;

/// What one line of input is.
#[derive(Debug)]
pub enum Line {
    /// A message for the server.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Not a message: this error goes back to the client.
    Refused(ErrorData, Option<RequestId>),
    /// Nothing to act on: a blank line, an unknown notification.
    Nothing,
}

/// What `line` (without its newline) is.
pub fn classify(line: &[u8]) -> Line {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Nothing;
    }
    let value: serde_json::Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Line::Refused(
                ErrorData::parse_error(
                    format!("the line is not JSON ({e}); send one JSON-RPC message a line"),
                    None,
                ),
                None,
            )
        }
    };
    let id: Option<RequestId> = value
        .get("id")
        .and_then(|id| serde_json::from_value(id.clone()).ok());
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
        Ok(m) => Line::Message(Box::new(m)),
        // A notification gets no answer, even one the server cannot read.
        Err(_) if id.is_none() && value.get("method").is_some() => Line::Nothing,
        Err(e) => Line::Refused(
            ErrorData::invalid_request(
                format!("the line is JSON but not a JSON-RPC 2.0 message the server knows ({e})"),
                None,
            ),
            id,
        ),
    }
}

/// The error a line over `max` bytes gets.
pub fn too_long(max: usize) -> ErrorData {
    ErrorData::new(
        ErrorCode::INVALID_REQUEST,
        format!("the message is over {max} bytes and was dropped unread; send smaller arguments"),
        None,
    )
}

/// One line of `input`, at most `max` bytes kept: `Some(Ok(line))`,
/// `Some(Err(()))` for a longer line (read to its end and dropped), `None`
/// at the end of input. A last line without a newline counts.
fn read_line(input: &mut impl BufRead, max: usize, buf: &mut Vec<u8>) -> Option<Result<(), ()>> {
    buf.clear();
    let mut over = false;
    loop {
        let available = match input.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if available.is_empty() {
            return match (over, buf.is_empty()) {
                (true, _) => Some(Err(())),
                (false, true) => None,
                (false, false) => Some(Ok(())),
            };
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        let part = &available[..newline.unwrap_or(take)];
        if !over && buf.len() + part.len() > max {
            over = true;
            buf.clear();
        }
        if !over {
            buf.extend_from_slice(part);
        }
        input.consume(take);
        if newline.is_some() {
            return Some(if over { Err(()) } else { Ok(()) });
        }
    }
}

/// Serialises `message` as one line.
fn line_of(message: &TxJsonRpcMessage<RoleServer>) -> std::io::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec(message)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Reads `input` line by line until its end, handing each message or
/// refusal to `lines` (in the order read).
fn read_all(mut input: impl BufRead, max: usize, lines: tokio::sync::mpsc::Sender<Line>) {
    let mut buf = Vec::new();
    while let Some(read) = read_line(&mut input, max, &mut buf) {
        let line = match read {
            Err(()) => Line::Refused(too_long(max), None),
            Ok(()) => classify(&buf),
        };
        if matches!(line, Line::Nothing) {
            continue;
        }
        if lines.blocking_send(line).is_err() {
            return; // the server stopped
        }
    }
}

/// Writes each line it is sent to `output`, flushed, until every sender
/// is gone or the client stops reading.
fn write_all(mut output: impl Write, lines: std::sync::mpsc::Receiver<Vec<u8>>) {
    for line in lines {
        if output
            .write_all(&line)
            .and_then(|()| output.flush())
            .is_err()
        {
            return;
        }
    }
}

/// The transport: lines read by the reading thread, lines for the
/// writing thread. It holds the only sender of the writing thread's
/// lines, so dropping it ends that thread once all are written.
pub struct Stdio {
    incoming: tokio::sync::mpsc::Receiver<Line>,
    /// Whether any line came: a client that closes its end without a
    /// word has not failed to start a session.
    heard: Arc<AtomicBool>,
    outgoing: Option<std::sync::mpsc::Sender<Vec<u8>>>,
}

/// The transport over `input` and `output`, and the writing thread: join
/// it once the server has stopped, and every answer has been written.
pub fn start(
    input: impl std::io::Read + Send + 'static,
    output: impl Write + Send + 'static,
    max: usize,
) -> std::io::Result<(Stdio, std::thread::JoinHandle<()>)> {
    let (messages, incoming) = tokio::sync::mpsc::channel(QUEUE);
    let (outgoing, lines) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("mcp-read".into())
        .spawn(move || read_all(std::io::BufReader::new(input), max, messages))?;
    let writer = std::thread::Builder::new()
        .name("mcp-write".into())
        .spawn(move || write_all(output, lines))?;
    Ok((
        Stdio {
            incoming,
            heard: Arc::new(AtomicBool::new(false)),
            outgoing: Some(outgoing),
        },
        writer,
    ))
}

impl Stdio {
    /// Whether any line has come, for after the transport is gone.
    pub fn heard(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.heard)
    }

    /// Hands `message` to the writing thread.
    fn write(&self, message: &TxJsonRpcMessage<RoleServer>) -> std::io::Result<()> {
        let bytes = line_of(message)?;
        match &self.outgoing {
            Some(out) if out.send(bytes).is_ok() => Ok(()),
            _ => Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the client stopped reading",
            )),
        }
    }
}

impl Transport<RoleServer> for Stdio {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        std::future::ready(self.write(&item))
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        // `recv` is cancel-safe, and a refusal is handed to the writing
        // thread with no await in between: a cancelled receive loses nothing.
        loop {
            let line = self.incoming.recv().await?;
            self.heard.store(true, Ordering::Relaxed);
            match line {
                Line::Message(m) => return Some(*m),
                Line::Refused(e, id) => {
                    self.write(&TxJsonRpcMessage::<RoleServer>::error(e, id))
                        .ok()?;
                }
                Line::Nothing => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.outgoing = None;
        self.incoming.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(line: &[u8]) -> (i32, String, Option<RequestId>) {
        match classify(line) {
            Line::Refused(e, id) => (e.code.0, e.message.into_owned(), id),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn each_line_that_is_not_a_message_is_answered_by_kind() {
        let (code, message, id) = refused(b"garbage{");
        assert_eq!((code, id), (-32700, None));
        assert!(message.starts_with("the line is not JSON ("), "{message}");
        let (code, _, id) =
            refused(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#);
        assert_eq!((code, id), (-32600, Some(RequestId::Number(7))));
        let (code, _, id) = refused(b"[1,2]");
        assert_eq!((code, id), (-32600, None));
        assert!(matches!(classify(b"  \r"), Line::Nothing));
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#),
            Line::Nothing
        ));
        assert!(matches!(
            classify(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r"),
            Line::Message(_)
        ));
    }

    #[test]
    fn lines_are_bounded_and_a_long_one_is_dropped_to_its_end() {
        let input = b"12345\n1234567890abc\nxy\nlast".to_vec();
        let mut r = std::io::BufReader::with_capacity(4, &input[..]);
        let mut buf = Vec::new();
        let mut got = Vec::new();
        while let Some(read) = read_line(&mut r, 8, &mut buf) {
            got.push(read.map(|()| String::from_utf8(buf.clone()).unwrap()));
        }
        assert_eq!(
            got,
            [
                Ok("12345".into()),
                Err(()),
                Ok("xy".into()),
                Ok("last".into())
            ]
        );
    }
}
