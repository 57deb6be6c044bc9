//! The typed records git-lore keeps: artifact ids and lesson ids, archivist
//! artifacts, lesson candidates, the proposal envelope that carries a candidate
//! through its lifecycle on the ledger, declines, verdicts and the Lesson v2 pool
//! entry.
//!
//! This module owns the shapes and their canonical serialisation only. It does
//! not validate against the JSON schemas (see [`crate::schema`]), decide status
//! transitions (see [`crate::review`]) or touch git (see [`crate::store`]).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::names::string_enum;

/// Errors from parsing the small value types of this module.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ModelError {
    /// An id that is not a 26-character upper-case Crockford ULID.
    #[error("not a ULID: {0:?} (expected 26 characters of 0-9 and A-Z without I, L, O, U)")]
    BadId(String),
    /// 26 good characters that spell a number over 128 bits.
    #[error("not a ULID: {0:?} is past the largest ULID (its first character must be 0 to 7)")]
    IdOutOfRange(String),
    /// Something given as an id or a prefix of one that is neither.
    #[error("not an id or a prefix of one: {0:?} (ids are 26 characters of 0-9 and A-Z without I, L, O, U; a prefix needs at least {min} of them)", min = IdPrefix::MIN)]
    BadPrefix(String),
}

/// A ULID as the lesson schema spells it: 26 characters of upper-case
/// Crockford base32, first character at most `7`.
///
/// Parsing is strict on purpose: ids end up in paths and in trailers, so a
/// lower-case, padded or over-long value is refused rather than normalised.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Id(ulid::Ulid);

impl Id {
    /// Builds an id from a millisecond timestamp and 80 random bits.
    pub fn from_parts(unix_ms: u64, random: u128) -> Id {
        Id(ulid::Ulid::from_parts(unix_ms, random))
    }

    /// A new lesson's id, made at `unix_ms` from 16 random bytes: a ULID
    /// whose time is kept only to [`Id::TIME_CHARS`] characters (about 17
    /// minutes, the bucket's start) and whose other 100 bits are random,
    /// so lessons made together differ from the 7th character on rather
    /// than the 11th. It still sorts by time to the bucket and parses as
    /// any ULID; ids made before keep working as they are (see
    /// docs/decisions.md, "Short ids that differ early").
    pub fn new_lesson(unix_ms: u64, random: [u8; 16]) -> Id {
        // 130 bits spelled, the top 2 zero: the first TIME_CHARS characters
        // hold the top 3 + 5 × (TIME_CHARS − 1) bits of the 48-bit time.
        let time_bits = 3 + 5 * (Self::TIME_CHARS as u32 - 1);
        let rest = 128 - time_bits;
        let bucket = u128::from(unix_ms & ((1 << 48) - 1)) >> (48 - time_bits);
        let random = u128::from_be_bytes(random) & ((1u128 << rest) - 1);
        Id(ulid::Ulid((bucket << rest) | random))
    }

    /// How many leading characters of a new lesson's id say when it was
    /// made ([`Id::new_lesson`]).
    pub const TIME_CHARS: usize = 6;

    /// The 16 raw bytes, big-endian, as stored in the index.
    pub fn to_bytes(self) -> [u8; 16] {
        self.0 .0.to_be_bytes()
    }

    /// The inverse of [`Id::to_bytes`].
    pub fn from_bytes(bytes: [u8; 16]) -> Id {
        Id(ulid::Ulid(u128::from_be_bytes(bytes)))
    }

    /// The millisecond timestamp part.
    pub fn timestamp_ms(self) -> u64 {
        self.0.timestamp_ms()
    }

    /// How many fan-out directories a record's path has.
    pub const FANOUT_LEVELS: usize = 3;

    /// The fan-out directories: the last three characters of the ULID
    /// (its random part), one directory level each, 32 × 32 × 32 buckets.
    pub fn fanout(self) -> [char; Self::FANOUT_LEVELS] {
        // Spelled on the stack: `classify` asks this of every path a
        // commit changes, in `index` and `verify`.
        let mut buf = [0u8; ulid::ULID_LEN];
        let b = self.0.array_to_str(&mut buf).as_bytes();
        [b[23] as char, b[24] as char, b[25] as char]
    }

    /// The fan-out directories as a path, `X/Y/Z`.
    pub fn bucket(self) -> String {
        let [x, y, z] = self.fanout();
        format!("{x}/{y}/{z}")
    }

    /// Whether `dirs` are this id's fan-out directories, one character each.
    pub fn in_bucket(self, dirs: &[&str]) -> bool {
        dirs.len() == Self::FANOUT_LEVELS
            && dirs
                .iter()
                .zip(self.fanout())
                .all(|(d, c)| d.len() == 1 && d.starts_with(c))
    }
}

fn is_crockford(c: u8) -> bool {
    matches!(c, b'0'..=b'9' | b'A'..=b'H' | b'J' | b'K' | b'M' | b'N' | b'P'..=b'T' | b'V'..=b'Z')
}

impl FromStr for Id {
    type Err = ModelError;
    fn from_str(s: &str) -> Result<Id, ModelError> {
        let b = s.as_bytes();
        if b.len() != 26 || !b.iter().all(|&c| is_crockford(c)) {
            return Err(ModelError::BadId(s.chars().take(64).collect()));
        }
        if b[0] > b'7' {
            return Err(ModelError::IdOutOfRange(s.to_owned()));
        }
        ulid::Ulid::from_string(s)
            .map(Id)
            .map_err(|_| ModelError::BadId(s.to_owned()))
    }
}

/// What a person types for an id: the whole id or a prefix of at least
/// [`IdPrefix::MIN`] characters, in either case (like git's abbreviated
/// commit ids). Which id a prefix names is the index's answer
/// (`ops::query::resolve`); this type only knows the range it covers.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct IdPrefix(String);

impl IdPrefix {
    /// The shortest prefix accepted.
    pub const MIN: usize = 4;

    /// Reads a full id or a prefix; lower case is folded to upper case.
    pub fn parse(s: &str) -> Result<IdPrefix, ModelError> {
        let up = s.to_ascii_uppercase();
        if up.len() == 26 {
            return up.parse::<Id>().map(|_| IdPrefix(up));
        }
        let b = up.as_bytes();
        if b.len() < Self::MIN || b.len() > 26 || !b.iter().all(|&c| is_crockford(c)) {
            return Err(ModelError::BadPrefix(s.chars().take(64).collect()));
        }
        if b[0] > b'7' {
            return Err(ModelError::IdOutOfRange(s.chars().take(64).collect()));
        }
        Ok(IdPrefix(up))
    }

    /// The whole id, when all 26 characters were given.
    pub fn full(&self) -> Option<Id> {
        self.0.parse().ok()
    }

    /// The prefix as typed, upper case.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first and the last id that start with this prefix.
    pub fn range(&self) -> (Id, Id) {
        // A ULID is 26 characters of 5 bits = 130 bits whose top two are 0.
        let bits = 5 * self.0.len() as u32;
        let mut v: u128 = 0;
        for c in self.0.bytes() {
            v = (v << 5) | crockford_value(c) as u128;
        }
        let rest = 130 - bits;
        if rest >= 128 {
            return (Id(ulid::Ulid(0)), Id(ulid::Ulid(u128::MAX)));
        }
        let lo = v << rest;
        let hi = lo | ((1u128 << rest) - 1);
        (Id(ulid::Ulid(lo)), Id(ulid::Ulid(hi)))
    }
}

fn crockford_value(c: u8) -> u8 {
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    ALPHABET.iter().position(|&a| a == c).unwrap_or(0) as u8
}

/// How many leading characters of `id` no other id of `sorted` shares: the
/// shortest prefix that names it, and at least [`SHOWN_MIN`] (the time
/// part of a new id, so a shown prefix does not go ambiguous with the next
/// lesson of the month). `sorted` holds every id a prefix is resolved
/// against, in order, `id` among them.
pub fn unique_prefix_len(id: Id, sorted: &[Id]) -> usize {
    let common = |a: Id, b: Id| {
        let (a, b) = (a.to_string(), b.to_string());
        a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
    };
    let at = sorted.partition_point(|x| *x < id);
    let before = at.checked_sub(1).map(|i| common(sorted[i], id));
    let after = sorted
        .get(at..)
        .and_then(|s| s.iter().find(|x| **x != id))
        .map(|&x| common(x, id));
    (before.unwrap_or(0).max(after.unwrap_or(0)) + 1).clamp(SHOWN_MIN, 26)
}

/// The fewest characters of an id output shows ([`unique_prefix_len`]);
/// people may type as few as [`IdPrefix::MIN`].
pub const SHOWN_MIN: usize = Id::TIME_CHARS;

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Id, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

string_enum! {
    /// Who may see a lesson: chosen by a human at confirmation, never defaulted.
    pub enum Visibility: "visibility" {
        Private("private", 0),
        Org("org", 1),
        Public("public", 2),
    }
}

impl Visibility {
    /// The pool entry's `source` for a lesson of this visibility
    /// (private maps to `local`; it is not a rename).
    pub fn source(self) -> Source {
        match self {
            Visibility::Private => Source::Local,
            Visibility::Org => Source::Org,
            Visibility::Public => Source::Public,
        }
    }
}

string_enum! {
    /// A pool entry's `source`, and the name of the pool branch it lives on.
    pub enum Source: "pool" {
        Local("local", 0),
        Org("org", 1),
        Public("public", 2),
    }
}

string_enum! {
    /// Where a proposal is in its lifecycle on the ledger.
    pub enum ProposalStatus: "status" {
        Pending("pending", 0),
        Confirmed("confirmed", 1),
        Passed("passed", 2),
        Approved("approved", 3),
        Rejected("rejected", 4),
    }
}

string_enum! {
    /// A pool entry's lifecycle state. There is deliberately no `expired`:
    /// a lesson whose range no longer matches a project is expired for that
    /// project only, which recall works out; its entry does not change.
    pub enum LessonStatus: "lesson status" {
        Active("active", 0),
        Refuted("refuted", 1),
        Superseded("superseded", 2),
        Retracted("retracted", 3),
    }
}
/// An archivist artifact: one decision, dead end or open question from a
/// coding session. Unknown keys are tolerated on input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Artifact {
    pub id: Id,
    pub kind: String,
    pub project_key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    pub summary: String,
    #[serde(default)]
    pub detail: Option<String>,
    #[serde(default)]
    pub files: Vec<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// The evidence read from the session or commit (`crate::facts`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<crate::facts::Fact>,
}

/// `evidence` of a candidate and of a lesson. The transform supplies only
/// `resolution`; the tool stitches the provenance fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    pub artifact_ids: Vec<Id>,
    pub session_ids: Vec<String>,
    pub project_key: String,
    pub observed_at: String,
    pub resolution: String,
}

/// The scope union of `applies_to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Scope {
    Versioned { versions: BTreeMap<String, String> },
    VersionIndependent { justification: String },
}

/// `applies_to` of a candidate and of a lesson.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppliesTo {
    pub stack: Vec<String>,
    pub scope: Scope,
    pub file_patterns: Vec<String>,
    pub task_kinds: Vec<String>,
}

/// The four fields the transform owns, provenance stitched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Candidate {
    pub claim: String,
    pub rationale: String,
    pub evidence: Evidence,
    pub applies_to: AppliesTo,
}

/// The jury's recorded decision on a proposal: what `judge` writes into
/// the proposal's `verdict`.
///
/// `judges` is kept verbatim as the judges gave it; `failed_criterion` is
/// absent (not null) when no floor was violated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub rubric_id: Option<String>,
    pub gate_policy: Option<String>,
    pub score_threshold: Option<f64>,
    pub aggregate_score: Option<f64>,
    pub passed: bool,
    pub reason: String,
    pub judges: Vec<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_criterion: Option<String>,
}

/// The proposal envelope on the ledger: a candidate and everything that
/// happened to it. Optional fields are absent, not null, until set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Proposal {
    pub id: Id,
    pub artifact_id: Id,
    pub created_at: String,
    pub status: ProposalStatus,
    pub candidate: Candidate,
    /// The artifact the candidate was made from, kept so that judges (and a
    /// human reading `git lore show`) can check the lesson against its source.
    /// The ledger never leaves the machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<Artifact>,
    /// The model backend that made the candidate (`offline` or a model name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Visibility>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_before_confirm: Option<Candidate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promoted_at: Option<String>,
}

impl Proposal {
    /// A new pending proposal: `candidate`, made from `artifact` by `model`
    /// (`offline` or a model name) at `created_at`. Nothing has happened
    /// to it yet.
    pub fn pending(
        id: Id,
        artifact: Artifact,
        candidate: Candidate,
        model: &str,
        created_at: String,
    ) -> Proposal {
        Proposal {
            id,
            artifact_id: artifact.id,
            created_at,
            status: ProposalStatus::Pending,
            candidate,
            artifact: Some(artifact),
            model: Some(model.to_owned()),
            visibility: None,
            confirmed_at: None,
            candidate_before_confirm: None,
            passed_at: None,
            pass_reason: None,
            judged_at: None,
            verdict: None,
            promoted_at: None,
        }
    }
}

string_enum! {
    /// Why the transform declined an artifact: a real verdict, recorded.
    pub enum DeclineReason: "decline reason" {
        TransformInvalid("transform_invalid", 0),
        NoResolution("no_resolution", 1),
        NoVersions("no_versions", 2),
        SchemaInvalid("schema_invalid", 3),
    }
}

/// A decline record on the ledger (`declined/<X>/<Y>/<Z>/<artifact>.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decline {
    pub artifact_id: Id,
    pub reason: DeclineReason,
    pub detail: Option<String>,
    pub declined_at: String,
    /// The artifact that was declined, for the audit trail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<Artifact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// `consensus` of a pool entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Consensus {
    pub judges: u64,
    pub agreed: u64,
    pub decided_at: String,
}

/// A Lesson v2 pool entry: exactly the 13 keys of the published schema.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    pub id: Id,
    pub schema_version: u8,
    pub claim: String,
    pub rationale: String,
    pub evidence: Evidence,
    pub applies_to: AppliesTo,
    pub visibility: Visibility,
    pub consensus: Consensus,
    pub status: LessonStatus,
    pub superseded_by: Option<Id>,
    pub source: Source,
    pub author_key: String,
    pub promoted_at: String,
}

/// Canonical JSON as every record is written: keys sorted, two-space indent,
/// one trailing newline. The same value always gives the same bytes.
pub fn canonical_json<T: Serialize>(value: &T) -> Vec<u8> {
    // Going through `Value` sorts the keys: serde_json's map is a BTreeMap
    // unless `preserve_order` is enabled, which this crate never enables.
    let v = serde_json::to_value(value).expect("records serialise to JSON");
    let mut out = serde_json::to_vec_pretty(&v).expect("a Value serialises");
    out.push(b'\n');
    out
}

/// Formats a timestamp the way every record spells one:
/// `YYYY-MM-DDTHH:MM:SSZ`, UTC, whole seconds.
pub fn iso(ts: jiff::Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_covers_exactly_the_ids_that_start_with_it() {
        let id: Id = "01JD4XQMR6ZKX8T2B5V9N3WQYE".parse().unwrap();
        for len in [4, 10, 17, 25, 26] {
            let p = IdPrefix::parse(&id.to_string()[..len].to_lowercase()).unwrap();
            let (lo, hi) = p.range();
            assert!(lo <= id && id <= hi, "{len}");
            assert!(lo.to_string().starts_with(p.as_str()), "{lo} {len}");
            assert!(hi.to_string().starts_with(p.as_str()), "{hi} {len}");
            let below = Id(ulid::Ulid(lo.0 .0.wrapping_sub(1)));
            assert!(!below.to_string().starts_with(p.as_str()) || lo.0 .0 == 0);
            let above = Id(ulid::Ulid(hi.0 .0.wrapping_add(1)));
            assert!(!above.to_string().starts_with(p.as_str()) || hi.0 .0 == u128::MAX);
        }
        assert_eq!(IdPrefix::parse(&id.to_string()).unwrap().full(), Some(id));
        assert_eq!(IdPrefix::parse("01jd").unwrap().full(), None);
    }

    #[test]
    fn a_prefix_is_refused_when_it_could_not_name_an_id() {
        for bad in [
            "",
            "01J",
            "01JU",
            "01J-",
            "01JD4XQMR6ZKX8T2B5V9N3WQYEX",
            "ZZZZ",
        ] {
            assert!(IdPrefix::parse(bad).is_err(), "{bad:?}");
        }
        assert!(matches!(
            IdPrefix::parse("8ZZZ"),
            Err(ModelError::IdOutOfRange(_))
        ));
        assert!(IdPrefix::parse("01jd").is_ok());
    }

    #[test]
    fn lessons_made_together_differ_after_the_time_bucket() {
        let at: u64 = 1_785_000_000_123;
        let a = Id::new_lesson(at, [0x11; 16]);
        let b = Id::new_lesson(at, [0x99; 16]);
        let (sa, sb) = (a.to_string(), b.to_string());
        // The same bucket: the same first six characters, which are the
        // time's.
        assert_eq!(sa[..Id::TIME_CHARS], sb[..Id::TIME_CHARS]);
        let old = Id::from_parts(at, 0).to_string();
        assert_eq!(sa[..Id::TIME_CHARS], old[..Id::TIME_CHARS]);
        // Then random: they differ at once, where ids of the old layout
        // made in the same millisecond shared ten characters.
        assert_ne!(sa.as_bytes()[Id::TIME_CHARS], sb.as_bytes()[Id::TIME_CHARS]);
        assert_eq!(
            Id::from_parts(at, 0x11).to_string()[..10],
            Id::from_parts(at, 0x99).to_string()[..10]
        );
        // The time is the bucket's start: at most ~17.5 minutes earlier,
        // and ids still sort by bucket.
        assert!(a.timestamp_ms() <= at && at - a.timestamp_ms() < 1 << 20);
        let later = Id::new_lesson(at + (1 << 20), [0; 16]);
        assert!(later > a && later > b);
        // It is a ULID like any other: it parses back, and a prefix of it
        // resolves.
        assert_eq!(sa.parse::<Id>().unwrap(), a);
        assert!(sa.as_bytes()[0] <= b'7');
        let (lo, hi) = IdPrefix::parse(&sa[..7]).unwrap().range();
        assert!(lo <= a && a <= hi);
    }

    #[test]
    fn the_unique_prefix_is_one_past_the_longest_shared_one() {
        let ids: Vec<Id> = [
            "01JD4XQMR6ZKX8T2B5V9N3WQYE",
            "01JD4XQMR6ZKX8T2B5V9N3WQYF",
            "01JD4XQP0000000000000000AA",
            "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
        assert_eq!(unique_prefix_len(ids[0], &ids), 26);
        assert_eq!(unique_prefix_len(ids[2], &ids), 8);
        assert_eq!(unique_prefix_len(ids[3], &ids), SHOWN_MIN);
        assert_eq!(unique_prefix_len(ids[3], &ids[3..]), SHOWN_MIN);
    }

    #[test]
    fn ids_parse_strictly() {
        let id: Id = "01KZ45MKAM734ZS7JK24D2DK0R".parse().unwrap();
        assert_eq!(id.to_string(), "01KZ45MKAM734ZS7JK24D2DK0R");
        assert_eq!(id.fanout(), ['K', '0', 'R']);
        assert_eq!(id.bucket(), "K/0/R");
        assert!(id.in_bucket(&["K", "0", "R"]));
        assert!(!id.in_bucket(&["0", "R"]));
        assert!(!id.in_bucket(&["K", "0", "Q"]));
        assert!(!id.in_bucket(&["K0", "", "R"]));
        assert_eq!(Id::from_bytes(id.to_bytes()), id);
        for bad in [
            "",
            "01kz45mkam734zs7jk24d2dk0r",
            "01KZ45MKAM734ZS7JK24D2DK0",
            "01KZ45MKAM734ZS7JK24D2DK0RR",
            "01KZ45MKAM734ZS7JK24D2DK0I",
            "../../../../../../etc/passw",
            "81KZ45MKAM734ZS7JK24D2DK0R",
            "01KZ45MKAM734ZS7JK24D2DK0\n",
        ] {
            assert!(bad.parse::<Id>().is_err(), "{bad:?} must be refused");
        }
    }

    #[test]
    fn canonical_json_sorts_keys_and_ends_with_newline() {
        let v = serde_json::json!({"b": 1, "a": {"d": 2, "c": [1, 2]}});
        let s = String::from_utf8(canonical_json(&v)).unwrap();
        assert_eq!(
            s,
            "{\n  \"a\": {\n    \"c\": [\n      1,\n      2\n    ],\n    \"d\": 2\n  },\n  \"b\": 1\n}\n"
        );
    }

    #[test]
    fn reference_records_round_trip() {
        let proposal = r#"{"id":"01KZ4A1B2C3D4E5F6G7H8J9K0M","artifact_id":"01KZ45MKAM734ZS7JK24D2DK0R","created_at":"2026-08-03T16:05:00Z","status":"pending","candidate":{"claim":"c","rationale":"r","evidence":{"resolution":"x","artifact_ids":["01KZ45MKAM734ZS7JK24D2DK0R"],"session_ids":["sess-1"],"project_key":"6a7678979e31","observed_at":"2026-08-03T15:59:48Z"},"applies_to":{"stack":["vite"],"scope":{"kind":"versioned","versions":{"vite":"<6"}},"file_patterns":[],"task_kinds":[]}}}"#;
        let p: Proposal = serde_json::from_str(proposal).unwrap();
        assert_eq!(p.status, ProposalStatus::Pending);
        let again: Proposal = serde_json::from_slice(&canonical_json(&p)).unwrap();
        assert_eq!(p, again);
    }

    #[test]
    fn iso_is_whole_seconds_utc() {
        let ts = jiff::Timestamp::from_second(1_795_978_608).unwrap();
        assert_eq!(iso(ts), "2026-11-29T18:56:48Z");
    }
}

/// The 12-hex project key: sha256 of `remote:<origin url>`, or
/// of `root:<real path of the top>` when there is no origin, first 12 hex.
pub fn project_key(origin_url: Option<&str>, root: &std::path::Path) -> String {
    use sha2::{Digest, Sha256};
    let input = match origin_url {
        Some(url) => format!("remote:{url}"),
        None => format!("root:{}", root.display()),
    };
    hex::encode(Sha256::digest(input.as_bytes()))[..12].to_owned()
}

#[cfg(test)]
mod project_key_tests {
    #[test]
    fn project_key_hashes_the_origin_url_else_the_root() {
        // printf 'remote:git@github.com:acme/app.git' | sha256sum | cut -c1-12
        assert_eq!(
            super::project_key(
                Some("git@github.com:acme/app.git"),
                std::path::Path::new("/x")
            ),
            "eeb19897e349"
        );
        assert_ne!(
            super::project_key(None, std::path::Path::new("/x")),
            super::project_key(None, std::path::Path::new("/y"))
        );
    }
}
