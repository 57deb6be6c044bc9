//! The derived index: what happened to each artifact and where each lesson
//! stands, answered without walking history.
//!
//! It is a cache under `<gitdir>/lore/index`, never committed and never the
//! source of truth. It records the tip of every lore branch it was built from.
//! On load it catches up by walking only the commits since those tips; if a
//! recorded tip is no longer an ancestor of the branch (history rewritten, or
//! replaced by a fetch), it is rebuilt from scratch. Deleting the file changes
//! no answer. Everything it knows comes from commit trailers, which
//! `git lore verify` checks against what each commit changed.
//!
//! File layout (all integers big-endian): the magic `LOREIDX1`; for each of
//! the four branches a presence byte and a 20-byte tip; the artifact count and
//! the lesson count (u64 each); then the artifact table sorted by artifact id
//! (34-byte records) and the lesson table sorted by lesson id (36-byte
//! records). Look-ups binary-search the tables in place, so answering one
//! question costs a file read, not a parse.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::io::Write;
use std::path::PathBuf;

use gix::ObjectId;

use super::layout::Branch;
use super::{GixContext, Store, StoreError};
use crate::model::{DeclineReason, Id, ProposalStatus, Source, Visibility};
use crate::trailers::{self, Action, LoreTrailers};

const MAGIC: &[u8; 8] = b"LOREIDX1";
const HEADER: usize = 8 + 4 * 21 + 16;
const ART: usize = 34;
const LES: usize = 36;
/// Catch-ups shorter than this stay in memory instead of rewriting the file.
const PERSIST_AFTER: usize = 64;

/// What history says happened to an artifact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArtifactOutcome {
    /// It became this lesson (whose status the lesson entry holds).
    Proposed { lesson: Id },
    /// It was declined; `None` for a reason this build does not know.
    Declined { reason: Option<DeclineReason> },
}

/// Where a lesson stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LessonEntry {
    pub artifact: Id,
    pub status: ProposalStatus,
    pub visibility: Option<Visibility>,
    /// The pool its entry was written to, once promoted.
    pub pool: Option<Source>,
    /// Whether the ledger record carries `promoted_at`.
    pub promoted: bool,
}

/// Changes on top of the file's tables: learned by catching up, or made by a
/// transaction in progress.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    artifacts: BTreeMap<Id, ArtifactOutcome>,
    lessons: BTreeMap<Id, LessonEntry>,
}

impl Overlay {
    pub(crate) fn artifact(&self, id: Id) -> Option<ArtifactOutcome> {
        self.artifacts.get(&id).copied()
    }

    pub(crate) fn lesson(&self, id: Id) -> Option<LessonEntry> {
        self.lessons.get(&id).copied()
    }

    /// Learns from one commit's trailers. `base` answers for lessons this
    /// overlay has not seen yet.
    pub(crate) fn apply_with(
        &mut self,
        base: &dyn Fn(Id) -> Option<LessonEntry>,
        branch: Branch,
        t: &LoreTrailers,
    ) {
        let status = t.status.as_deref().and_then(|s| s.parse().ok());
        match (branch, t.action) {
            (Branch::Ledger, Action::Propose) => {
                if let (Some(a), Some(l)) = (t.artifact, t.lesson) {
                    self.artifacts
                        .insert(a, ArtifactOutcome::Proposed { lesson: l });
                    self.lessons.insert(
                        l,
                        LessonEntry {
                            artifact: a,
                            status: status.unwrap_or(ProposalStatus::Pending),
                            visibility: None,
                            pool: None,
                            promoted: false,
                        },
                    );
                }
            }
            (Branch::Ledger, Action::Decline) => {
                if let Some(a) = t.artifact {
                    let reason = t.reason.as_deref().and_then(|r| r.parse().ok());
                    self.artifacts
                        .insert(a, ArtifactOutcome::Declined { reason });
                }
            }
            (_, action) => {
                let Some(l) = t.lesson else { return };
                let Some(mut e) = self.lessons.get(&l).copied().or_else(|| base(l)) else {
                    return;
                };
                match (branch, action) {
                    (Branch::Ledger, Action::Promote) => e.promoted = true,
                    (Branch::Pool(src), Action::Promote) => e.pool = Some(src),
                    (Branch::Ledger, _) => {
                        if let Some(s) = status {
                            e.status = s;
                        }
                        match action {
                            Action::Confirm => {
                                e.visibility = t.visibility.as_deref().and_then(|v| v.parse().ok())
                            }
                            Action::Unconfirm => e.visibility = None,
                            _ => {}
                        }
                    }
                    _ => {}
                }
                self.lessons.insert(l, e);
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.artifacts.is_empty() && self.lessons.is_empty()
    }
}

/// The loaded index, caught up to the branch tips it was loaded at.
#[derive(Debug)]
pub struct Index {
    path: PathBuf,
    /// Tips the file's tables reflect.
    file_tips: [Option<ObjectId>; 4],
    /// Tips the index (file + `mem`) reflects.
    tips: [Option<ObjectId>; 4],
    /// The tables of the file: its bytes once read whole, else the open
    /// file, searched with positioned reads.
    tables: Tables,
    art_n: usize,
    les_n: usize,
    mem: Overlay,
    /// Whether the last load rebuilt from scratch.
    pub rebuilt: bool,
    /// How many commits the last load walked.
    pub walked: usize,
}

fn code_of<T: PartialEq + Copy>(all: &[T], v: T) -> u8 {
    all.iter()
        .position(|x| *x == v)
        .map(|p| p as u8)
        .unwrap_or(255)
}

/// Where the file's tables are read from.
#[derive(Debug)]
enum Tables {
    /// Whole in memory (built here, or read for a full scan).
    Bytes(Vec<u8>),
    /// Searched in place: a look-up reads about log2(n) records, so it costs
    /// the same at 100,000 lessons as at 1,000.
    File(fs::File),
}

impl Tables {
    /// `N` bytes at `off`, if the tables hold them.
    fn record<const N: usize>(&self, off: usize) -> Option<[u8; N]> {
        let mut buf = [0u8; N];
        match self {
            Tables::Bytes(b) => buf.copy_from_slice(b.get(off..off + N)?),
            Tables::File(f) => {
                use std::os::unix::fs::FileExt;
                f.read_exact_at(&mut buf, off as u64).ok()?;
            }
        }
        Some(buf)
    }

    /// All of it, for a full scan; `None` if the file could not be read.
    fn whole(&self) -> Option<std::borrow::Cow<'_, [u8]>> {
        match self {
            Tables::Bytes(b) => Some(std::borrow::Cow::Borrowed(b)),
            Tables::File(f) => {
                use std::os::unix::fs::FileExt;
                let len = f.metadata().ok()?.len() as usize;
                let mut out = vec![0u8; len];
                f.read_exact_at(&mut out, 0).ok()?;
                Some(std::borrow::Cow::Owned(out))
            }
        }
    }
}

fn decode_artifact(rec: &[u8]) -> Option<ArtifactOutcome> {
    let lesson = id_at(rec, 16);
    match rec[32] {
        1 => Some(ArtifactOutcome::Proposed { lesson }),
        2 => Some(ArtifactOutcome::Declined {
            reason: DeclineReason::ALL.get(rec[33] as usize).copied(),
        }),
        _ => None,
    }
}

fn decode_lesson(rec: &[u8]) -> Option<LessonEntry> {
    Some(LessonEntry {
        artifact: id_at(rec, 16),
        status: *ProposalStatus::ALL.get(rec[32] as usize)?,
        visibility: match rec[33] {
            0 => None,
            v => Visibility::ALL.get(v as usize - 1).copied(),
        },
        pool: match rec[34] {
            0 => None,
            1 => Some(Source::Local),
            2 => Some(Source::Org),
            _ => Some(Source::Public),
        },
        promoted: rec[35] & 1 == 1,
    })
}

fn id_at(data: &[u8], off: usize) -> Id {
    let mut b = [0u8; 16];
    b.copy_from_slice(&data[off..off + 16]);
    Id::from_bytes(b)
}

impl Index {
    fn empty(path: PathBuf) -> Index {
        Index {
            path,
            file_tips: [None; 4],
            tips: [None; 4],
            tables: Tables::Bytes(Vec::new()),
            art_n: 0,
            les_n: 0,
            mem: Overlay::default(),
            rebuilt: false,
            walked: 0,
        }
    }

    /// Reads the header of the index file and keeps the file open for
    /// look-ups; the tables are not read.
    fn open(path: PathBuf) -> Result<Index, String> {
        use std::io::Read;
        let mut file = fs::File::open(&path).map_err(|e| e.to_string())?;
        let len = file.metadata().map_err(|e| e.to_string())?.len() as usize;
        let mut data = [0u8; HEADER];
        file.read_exact(&mut data)
            .map_err(|_| "bad header".to_owned())?;
        if &data[..8] != MAGIC {
            return Err("bad header".into());
        }
        let mut tips = [None; 4];
        for (i, tip) in tips.iter_mut().enumerate() {
            let off = 8 + i * 21;
            if data[off] == 1 {
                *tip = Some(ObjectId::from_bytes_or_panic(&data[off + 1..off + 21]));
            }
        }
        let n = |off: usize| -> usize {
            let mut b = [0u8; 8];
            b.copy_from_slice(&data[off..off + 8]);
            u64::from_be_bytes(b) as usize
        };
        let art_n = n(8 + 4 * 21);
        let les_n = n(8 + 4 * 21 + 8);
        let want = art_n
            .checked_mul(ART)
            .and_then(|a| les_n.checked_mul(LES).map(|l| HEADER + a + l));
        if want != Some(len) {
            return Err(format!("length {len} does not match its tables"));
        }
        Ok(Index {
            path,
            file_tips: tips,
            tips,
            tables: Tables::File(file),
            art_n,
            les_n,
            mem: Overlay::default(),
            rebuilt: false,
            walked: 0,
        })
    }

    /// Loads the index and catches it up with every lore branch.
    pub fn load(store: &Store) -> Result<Index, StoreError> {
        let path = store.lore_dir().join("index");
        let mut index = Index::open(path.clone()).unwrap_or_else(|_| Index::empty(path));
        index.catch_up(store)?;
        Ok(index)
    }

    /// Throws the file away and rebuilds from history.
    pub fn rebuild(store: &Store) -> Result<Index, StoreError> {
        let mut index = Index::empty(store.lore_dir().join("index"));
        index.catch_up(store)?;
        index.persist()?;
        Ok(index)
    }

    /// The branch tips this index reflects.
    pub fn tips(&self) -> Vec<(Branch, ObjectId)> {
        Branch::ALL
            .into_iter()
            .filter_map(|b| self.tips[b.code() as usize].map(|t| (b, t)))
            .collect()
    }

    fn catch_up(&mut self, store: &Store) -> Result<(), StoreError> {
        let mut current = [None; 4];
        for b in Branch::ALL {
            current[b.code() as usize] = store.tip(b)?;
        }
        if current == self.tips {
            return Ok(());
        }
        let mut pending: Vec<(Branch, Vec<LoreTrailers>)> = Vec::new();
        let mut rebuild = false;
        for b in Branch::ALL {
            let i = b.code() as usize;
            match (current[i], self.tips[i]) {
                (cur, old) if cur == old => {}
                (None, Some(_)) => rebuild = true,
                (Some(cur), old) => match walk(store, cur, old)? {
                    Some(list) => pending.push((b, list)),
                    None => rebuild = true,
                },
                (None, None) => {}
            }
            if rebuild {
                break;
            }
        }
        if rebuild {
            *self = Index::empty(self.path.clone());
            self.rebuilt = true;
            pending.clear();
            for b in Branch::ALL {
                if let Some(cur) = current[b.code() as usize] {
                    let list = walk(store, cur, None)?.unwrap_or_default();
                    pending.push((b, list));
                }
            }
        }
        let mut walked = 0;
        // The ledger first: pool commits refer to lessons it introduced.
        for (b, list) in pending {
            walked += list.len();
            let mut mem = std::mem::take(&mut self.mem);
            {
                let file = &*self;
                let lookup = |id: Id| file.file_lesson(id);
                for t in list {
                    mem.apply_with(&lookup, b, &t);
                }
            }
            self.mem = mem;
        }
        self.walked = walked;
        self.tips = current;
        if self.rebuilt || walked >= PERSIST_AFTER {
            // Best effort: the index is a cache. A repository whose cache
            // cannot be written (read-only, disk full) still answers, by
            // walking history again next time.
            let _ = self.persist();
        }
        Ok(())
    }

    /// After a transaction published `head` on `branch` (starting from
    /// `base`), folds its changes in and, for a large batch, rewrites the file
    /// so the next process does not walk it again. Best effort: the index is a
    /// cache, and a failure here only costs a later catch-up.
    pub(crate) fn remember(
        mut self,
        branch: Branch,
        base: Option<ObjectId>,
        head: ObjectId,
        overlay: &Overlay,
    ) {
        let i = branch.code() as usize;
        if self.tips[i] != base || overlay.is_empty() {
            return;
        }
        let n = overlay.artifacts.len() + overlay.lessons.len();
        if n < PERSIST_AFTER {
            return;
        }
        for (k, v) in &overlay.artifacts {
            self.mem.artifacts.insert(*k, *v);
        }
        for (k, v) in &overlay.lessons {
            self.mem.lessons.insert(*k, *v);
        }
        self.tips[i] = Some(head);
        let _ = self.persist();
    }

    /// Binary search for `key` in the table of `n` records of `W` bytes at
    /// `start`; the record found.
    fn find<const W: usize>(&self, start: usize, n: usize, key: &[u8; 16]) -> Option<[u8; W]> {
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let rec = self.tables.record::<W>(start + mid * W)?;
            match rec[..16].cmp(&key[..]) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(rec),
            }
        }
        None
    }

    fn file_artifact(&self, id: Id) -> Option<ArtifactOutcome> {
        let rec = self.find::<ART>(HEADER, self.art_n, &id.to_bytes())?;
        decode_artifact(&rec)
    }

    fn file_lesson(&self, id: Id) -> Option<LessonEntry> {
        let rec = self.find::<LES>(HEADER + self.art_n * ART, self.les_n, &id.to_bytes())?;
        decode_lesson(&rec)
    }

    /// What happened to an artifact, if anything.
    pub fn artifact(&self, id: Id) -> Option<ArtifactOutcome> {
        self.mem.artifact(id).or_else(|| self.file_artifact(id))
    }

    /// Where a lesson stands, if it exists.
    pub fn lesson(&self, id: Id) -> Option<LessonEntry> {
        self.mem.lesson(id).or_else(|| self.file_lesson(id))
    }

    /// Every lesson with its entry, in id order.
    pub fn lessons(&self) -> Vec<(Id, LessonEntry)> {
        let mut all: BTreeMap<Id, LessonEntry> = self
            .file_lessons()
            .unwrap_or_default()
            .into_iter()
            .collect();
        for (k, v) in &self.mem.lessons {
            all.insert(*k, *v);
        }
        all.into_iter().collect()
    }

    /// How many artifacts and lessons it knows.
    pub fn counts(&self) -> (usize, usize) {
        let mut arts: HashSet<Id> = self.mem.artifacts.keys().copied().collect();
        arts.extend(
            self.file_artifacts()
                .unwrap_or_default()
                .into_iter()
                .map(|(id, _)| id),
        );
        (arts.len(), self.lessons().len())
    }

    /// The file's artifact table, decoded in one pass; `None` if it could
    /// not be read.
    fn file_artifacts(&self) -> Option<Vec<(Id, ArtifactOutcome)>> {
        if self.art_n == 0 {
            return Some(Vec::new());
        }
        let whole = self.tables.whole()?;
        let table = whole.get(HEADER..HEADER + self.art_n * ART)?;
        Some(
            table
                .chunks_exact(ART)
                .filter_map(|rec| Some((id_at(rec, 0), decode_artifact(rec)?)))
                .collect(),
        )
    }

    /// The file's lesson table, decoded in one pass; `None` if it could not
    /// be read.
    fn file_lessons(&self) -> Option<Vec<(Id, LessonEntry)>> {
        if self.les_n == 0 {
            return Some(Vec::new());
        }
        let whole = self.tables.whole()?;
        let start = HEADER + self.art_n * ART;
        let table = whole.get(start..start + self.les_n * LES)?;
        Some(
            table
                .chunks_exact(LES)
                .filter_map(|rec| Some((id_at(rec, 0), decode_lesson(rec)?)))
                .collect(),
        )
    }

    fn persist(&mut self) -> Result<(), StoreError> {
        // A table that cannot be read is never rewritten from what could be:
        // that would record the new tips over missing entries.
        let (Some(file_arts), Some(file_lessons)) = (self.file_artifacts(), self.file_lessons())
        else {
            return Ok(());
        };
        let mut arts: BTreeMap<Id, ArtifactOutcome> = file_arts.into_iter().collect();
        arts.extend(self.mem.artifacts.iter().map(|(k, v)| (*k, *v)));
        let mut lessons: BTreeMap<Id, LessonEntry> = file_lessons.into_iter().collect();
        lessons.extend(self.mem.lessons.iter().map(|(k, v)| (*k, *v)));

        let mut out = Vec::with_capacity(HEADER + arts.len() * ART + lessons.len() * LES);
        out.extend_from_slice(MAGIC);
        for tip in self.tips {
            match tip {
                Some(t) => {
                    out.push(1);
                    out.extend_from_slice(t.as_bytes());
                }
                None => out.extend_from_slice(&[0u8; 21]),
            }
        }
        out.extend_from_slice(&(arts.len() as u64).to_be_bytes());
        out.extend_from_slice(&(lessons.len() as u64).to_be_bytes());
        for (id, o) in &arts {
            out.extend_from_slice(&id.to_bytes());
            match o {
                ArtifactOutcome::Proposed { lesson } => {
                    out.extend_from_slice(&lesson.to_bytes());
                    out.extend_from_slice(&[1, 0]);
                }
                ArtifactOutcome::Declined { reason } => {
                    out.extend_from_slice(&[0u8; 16]);
                    let code = reason
                        .map(|r| code_of(&DeclineReason::ALL, r))
                        .unwrap_or(255);
                    out.extend_from_slice(&[2, code]);
                }
            }
        }
        for (id, e) in &lessons {
            out.extend_from_slice(&id.to_bytes());
            out.extend_from_slice(&e.artifact.to_bytes());
            out.push(code_of(&ProposalStatus::ALL, e.status));
            out.push(
                e.visibility
                    .map(|v| code_of(&Visibility::ALL, v) + 1)
                    .unwrap_or(0),
            );
            out.push(match e.pool {
                None => 0,
                Some(Source::Local) => 1,
                Some(Source::Org) => 2,
                Some(Source::Public) => 3,
            });
            out.push(u8::from(e.promoted));
        }
        let dir = self.path.parent().expect("index lives in a directory");
        super::io_ctx(fs::create_dir_all(dir), || {
            format!("creating {}", dir.display())
        })?;
        let mut tmp = super::io_ctx(tempfile::NamedTempFile::new_in(dir), || {
            format!("writing the index in {}", dir.display())
        })?;
        super::io_ctx(tmp.write_all(&out), || "writing the index".into())?;
        super::io_ctx(tmp.persist(&self.path).map_err(|e| e.error), || {
            format!("replacing {}", self.path.display())
        })?;
        let art_n = arts.len();
        let les_n = lessons.len();
        self.tables = Tables::Bytes(out);
        self.art_n = art_n;
        self.les_n = les_n;
        self.file_tips = self.tips;
        self.mem = Overlay::default();
        Ok(())
    }
}

/// The typed trailers of every commit reachable from `tip` but not from
/// `stop`, parents before children. `None` when `stop` is given but is not an
/// ancestor of `tip` (history was rewritten). Commits whose trailers do not
/// parse (a forge's merge commit, say) contribute nothing.
fn walk(
    store: &Store,
    tip: ObjectId,
    stop: Option<ObjectId>,
) -> Result<Option<Vec<LoreTrailers>>, StoreError> {
    let repo = store.repo();
    let mut out = Vec::new();
    let mut seen: HashSet<ObjectId> = HashSet::new();
    let mut found_stop = stop.is_none();
    let mut parsed: HashMap<ObjectId, Option<LoreTrailers>> = HashMap::new();
    let mut stack: Vec<(ObjectId, bool)> = vec![(tip, false)];
    if Some(tip) == stop {
        return Ok(Some(out));
    }
    while let Some((id, expanded)) = stack.pop() {
        if expanded {
            if let Some(Some(t)) = parsed.remove(&id) {
                out.push(t);
            }
            continue;
        }
        if !seen.insert(id) {
            continue;
        }
        let commit = repo
            .find_commit(id)
            .ctx(|| format!("reading commit {id}"))?;
        let parents: Vec<ObjectId> = commit.parent_ids().map(|p| p.detach()).collect();
        let message = commit.message_raw_sloppy().to_string();
        let (_, lines) = trailers::parse(&message);
        parsed.insert(id, LoreTrailers::from_trailers(&lines).ok());
        stack.push((id, true));
        for p in parents.into_iter().rev() {
            if Some(p) == stop {
                found_stop = true;
            } else if !seen.contains(&p) {
                stack.push((p, false));
            }
        }
    }
    Ok(found_stop.then_some(out))
}
