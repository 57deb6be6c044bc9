//! Lines of a reader, bounded per line and in total: what the transcript
//! reader ([`super::transcript`]) reads a file with. A line over the line
//! cap is consumed without being held; the total cap stops at the byte it
//! allows. It never decodes or parses.

use std::io::{self, BufRead, BufReader, Read};

/// The read buffer.
pub(super) const BUFFER_BYTES: usize = 64 << 10;

/// What reading one line found.
pub(super) enum Step {
    /// A whole line (in the buffer).
    Line,
    /// The last line, without a newline (in the buffer).
    Partial,
    /// A line over the cap (not in the buffer).
    Oversized,
    /// The end of the input.
    Eof,
    /// The total cap was reached with input left.
    Cap,
}

/// Lines of a reader, bounded per line and in total.
pub(super) struct Lines<R> {
    inner: BufReader<R>,
    /// Bytes consumed.
    pub(super) consumed: u64,
    /// Where the last newline consumed ends.
    pub(super) whole: u64,
    cap: u64,
    max_line: usize,
}

impl<R: Read> Lines<R> {
    pub(super) fn new(reader: R, cap: u64, max_line: usize) -> Lines<R> {
        Lines {
            inner: BufReader::with_capacity(BUFFER_BYTES, reader),
            consumed: 0,
            whole: 0,
            cap,
            max_line,
        }
    }

    fn fill(&mut self) -> io::Result<&[u8]> {
        loop {
            match self.inner.fill_buf() {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        // Buffered now (or at the end): this call does not read again.
        self.inner.fill_buf()
    }

    /// Reads the next line into `buf` (without its newline). A line over the
    /// line cap is consumed without being stored.
    pub(super) fn next(&mut self, buf: &mut Vec<u8>) -> io::Result<Step> {
        buf.clear();
        let mut started = false;
        let mut oversized = false;
        loop {
            let room = self.cap - self.consumed;
            let max_line = self.max_line;
            let available = self.fill()?;
            if available.is_empty() {
                return Ok(match (started, oversized) {
                    (false, _) => Step::Eof,
                    (true, true) => Step::Oversized,
                    (true, false) => Step::Partial,
                });
            }
            if room == 0 {
                return Ok(Step::Cap);
            }
            let window = &available[..available
                .len()
                .min(usize::try_from(room).unwrap_or(usize::MAX))];
            let (take, newline) = match window.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (window.len(), false),
            };
            if !oversized {
                if buf.len() + take > max_line {
                    oversized = true;
                    buf.clear();
                } else {
                    buf.extend_from_slice(&window[..take]);
                }
            }
            started = true;
            let used = take + usize::from(newline);
            self.inner.consume(used);
            self.consumed += used as u64;
            if newline {
                self.whole = self.consumed;
                return Ok(if oversized {
                    Step::Oversized
                } else {
                    Step::Line
                });
            }
        }
    }

    /// Consumes through the first newline (or to the cap or the end);
    /// returns how many bytes that was.
    pub(super) fn skip_line(&mut self) -> io::Result<u64> {
        let before = self.consumed;
        loop {
            let room = self.cap - self.consumed;
            let available = self.fill()?;
            if available.is_empty() || room == 0 {
                return Ok(self.consumed - before);
            }
            let window = &available[..available
                .len()
                .min(usize::try_from(room).unwrap_or(usize::MAX))];
            let (used, done) = match window.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (window.len(), false),
            };
            self.inner.consume(used);
            self.consumed += used as u64;
            if done {
                self.whole = self.consumed;
                return Ok(self.consumed - before);
            }
        }
    }
}
