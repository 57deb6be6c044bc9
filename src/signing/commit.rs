//! The signature header of a raw commit object (SHA-1 repositories: `gpgsig`).

/// The header git uses for commit signatures in SHA-1 repositories.
const GPGSIG: &[u8] = b"gpgsig";

/// Splits a raw commit object (as `git cat-file commit` prints it) into the
/// payload git verifies and the armored signature.
///
/// This follows git's `parse_buffer_signed_by_header`: the `gpgsig` header and
/// its continuation lines (each starting with one space, which is stripped)
/// form the signature; they, and any other `gpgsig*` header such as
/// `gpgsig-sha256` with its continuation lines, are left out of the payload.
/// Everything from the blank line that ends the headers on belongs to the
/// payload. The signature keeps its line ends, so it ends with `\n`.
pub fn split_signed_commit(raw: &[u8]) -> (Vec<u8>, Option<String>) {
    let mut payload = Vec::with_capacity(raw.len());
    let mut signature = Vec::new();
    let mut saw_signature = false;
    let mut in_signature = false;
    let mut other_signature = false;
    let mut pos = 0;
    while pos < raw.len() {
        let line_end = raw[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(raw.len(), |i| pos + i + 1);
        let line = &raw[pos..line_end];
        let mut sig_part = None;
        if in_signature && line.first() == Some(&b' ') {
            sig_part = Some(&line[1..]);
        } else if line.starts_with(GPGSIG) && line.get(GPGSIG.len()) == Some(&b' ') {
            sig_part = Some(&line[GPGSIG.len() + 1..]);
            other_signature = false;
        } else if line.starts_with(GPGSIG) {
            other_signature = true;
        } else if other_signature && line.first() != Some(&b' ') {
            other_signature = false;
        }
        if let Some(part) = sig_part {
            signature.extend_from_slice(part);
            saw_signature = true;
            in_signature = true;
            pos = line_end;
        } else {
            let next = if line.first() == Some(&b'\n') {
                // The end of the headers: the rest is the message.
                raw.len()
            } else {
                line_end
            };
            if !other_signature {
                payload.extend_from_slice(&raw[pos..next]);
            }
            in_signature = false;
            pos = next;
        }
    }
    let signature = saw_signature.then(|| String::from_utf8_lossy(&signature).into_owned());
    (payload, signature)
}

/// Adds a `gpgsig` header carrying `armored` to a commit object that has none,
/// where git puts it: at the end of the headers, after `committer` and after
/// any `encoding`, `mergetag` or other extra header, before the blank line.
/// Every line of the signature after the first is prefixed with one space. A
/// missing final `\n` on `armored` is supplied.
pub fn insert_gpgsig(commit: &[u8], armored: &str) -> Vec<u8> {
    let insert_at = commit
        .windows(2)
        .position(|w| w == b"\n\n")
        .map_or(commit.len(), |i| i + 1);
    let mut header = Vec::with_capacity(armored.len() + 64);
    header.extend_from_slice(GPGSIG);
    for line in armored.split_inclusive('\n') {
        header.push(b' ');
        header.extend_from_slice(line.as_bytes());
    }
    if !header.ends_with(b"\n") {
        header.push(b'\n');
    }
    let mut out = Vec::with_capacity(commit.len() + header.len());
    out.extend_from_slice(&commit[..insert_at]);
    out.extend_from_slice(&header);
    out.extend_from_slice(&commit[insert_at..]);
    out
}

/// The committer timestamp of a commit object or payload, which git uses as
/// the verification time of an ssh signature (`-Overify-time`).
pub fn committer_timestamp(commit: &[u8]) -> Option<jiff::Timestamp> {
    for line in commit.split(|&b| b == b'\n') {
        if line.is_empty() {
            break;
        }
        let Some(ident) = line.strip_prefix(b"committer ") else {
            continue;
        };
        let close = ident.iter().rposition(|&b| b == b'>')?;
        let rest = std::str::from_utf8(&ident[close + 1..]).ok()?;
        let seconds: i64 = rest.split_whitespace().next()?.parse().ok()?;
        return jiff::Timestamp::from_second(seconds).ok();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIG: &str = "-----BEGIN SSH SIGNATURE-----\nAAAA\nBBBB\n-----END SSH SIGNATURE-----\n";

    fn unsigned() -> Vec<u8> {
        b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\
author A <a@e> 1700000000 +0000\n\
committer C <c@e> 1700000001 +0100\n\
encoding ISO-8859-1\n\
\n\
subject\n\
\n\
gpgsig not a header here\n"
            .to_vec()
    }

    #[test]
    fn insert_then_split_round_trips() {
        let raw = unsigned();
        let signed = insert_gpgsig(&raw, SIG);
        let text = String::from_utf8(signed.clone()).unwrap();
        assert!(text.contains(
            "encoding ISO-8859-1\ngpgsig -----BEGIN SSH SIGNATURE-----\n AAAA\n BBBB\n -----END SSH SIGNATURE-----\n\nsubject"
        ), "{text}");
        let (payload, sig) = split_signed_commit(&signed);
        assert_eq!(payload, raw);
        assert_eq!(sig.as_deref(), Some(SIG));
    }

    #[test]
    fn missing_final_newline_is_supplied() {
        let signed = insert_gpgsig(&unsigned(), SIG.trim_end());
        let (payload, sig) = split_signed_commit(&signed);
        assert_eq!(payload, unsigned());
        assert_eq!(sig.as_deref(), Some(SIG));
    }

    #[test]
    fn unsigned_commit_has_no_signature_and_is_its_own_payload() {
        let (payload, sig) = split_signed_commit(&unsigned());
        assert_eq!(payload, unsigned());
        assert_eq!(sig, None);
    }

    #[test]
    fn other_signature_headers_are_left_out_of_the_payload() {
        let raw = b"tree t\ncommitter C <c@e> 1 +0000\ngpgsig-sha256 -----BEGIN X-----\n x\n -----END X-----\nmergetag object o\n tag v\n\nmsg\n";
        let (payload, sig) = split_signed_commit(raw);
        assert_eq!(sig, None);
        assert_eq!(
            payload,
            b"tree t\ncommitter C <c@e> 1 +0000\nmergetag object o\n tag v\n\nmsg\n"
        );
    }

    #[test]
    fn pgp_signature_with_blank_line_round_trips() {
        let pgp =
            "-----BEGIN PGP SIGNATURE-----\n\niHUEABYKAB0=\n=abcd\n-----END PGP SIGNATURE-----\n";
        let signed = insert_gpgsig(&unsigned(), pgp);
        assert!(String::from_utf8_lossy(&signed).contains("SIGNATURE-----\n \n iHUE"));
        let (payload, sig) = split_signed_commit(&signed);
        assert_eq!(payload, unsigned());
        assert_eq!(sig.as_deref(), Some(pgp));
    }

    #[test]
    fn commit_without_message_gets_header_at_the_end() {
        let raw = b"tree t\ncommitter C <c@e> 1 +0000\n";
        let signed = insert_gpgsig(raw, SIG);
        assert!(signed.starts_with(raw));
        assert_eq!(
            split_signed_commit(&signed),
            (raw.to_vec(), Some(SIG.to_string()))
        );
    }

    #[test]
    fn committer_timestamp_is_read_from_the_committer_line() {
        assert_eq!(
            committer_timestamp(&unsigned()).map(|t| t.as_second()),
            Some(1_700_000_001)
        );
        assert_eq!(
            committer_timestamp(b"tree t\n\ncommitter X <x> 5 +0000\n"),
            None
        );
    }
}
