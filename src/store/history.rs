//! Reading history: commits with their parsed trailers, the paths each commit
//! changed, and the exact bytes a commit's signature covers.
//!
//! This is what `git lore log` and `git lore verify` are built on. It reports
//! facts about commits; judging them (is the signer allowed, do the trailers
//! agree with the change) belongs to the audit, not here.

use std::collections::HashSet;
use std::ops::ControlFlow;

use gix::bstr::ByteSlice;
use gix::objs::tree::EntryRef;
use gix::objs::TreeRefIter;
use gix::ObjectId;

use super::layout::Branch;
use super::{GixContext, Store, StoreError};
use crate::event::Event;
use crate::trailers::{self, TrailerError};

/// One path a commit changed relative to its first parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedPath {
    pub path: String,
    /// The blob before (absent when added).
    pub old: Option<ObjectId>,
    /// The blob after (absent when deleted).
    pub new: Option<ObjectId>,
    /// The entry's mode after, as git writes it (`0o100644` a regular file,
    /// `0o100755` an executable, `0o120000` a symbolic link, `0o160000` a
    /// submodule); 0 when deleted. A change of mode alone is a change.
    pub mode: u32,
}

/// What a commit says about itself.
#[derive(Clone, Debug)]
pub struct CommitInfo {
    pub id: ObjectId,
    pub parents: Vec<ObjectId>,
    pub tree: ObjectId,
    pub author_name: String,
    pub author_email: String,
    /// Author time, seconds since the epoch.
    pub author_time: i64,
    pub committer_name: String,
    pub committer_email: String,
    /// Committer time, seconds since the epoch.
    pub time: i64,
    pub subject: String,
    pub message: String,
    /// What the commit did, from its `Lore-*` trailers, or why they could
    /// not be read.
    pub event: Result<Event, TrailerError>,
    /// The bytes the signature covers (the commit without `gpgsig`).
    pub payload: Vec<u8>,
    /// The armored signature, if the commit is signed.
    pub signature: Option<String>,
}

/// One object a commit's tree holds at a path where none of its parents'
/// trees holds that same object: part of what the commit brings beyond its
/// parents ([`Store::introduced`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Introduced {
    pub id: ObjectId,
    /// Where the commit's tree holds it; empty for the root tree.
    pub path: String,
    /// A tree (else a blob: a file or a symbolic link).
    pub tree: bool,
}

/// What an object id names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    Commit,
    Tree,
    Blob,
    Tag,
}

impl std::fmt::Display for ObjectKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ObjectKind::Commit => "commit",
            ObjectKind::Tree => "tree",
            ObjectKind::Blob => "blob",
            ObjectKind::Tag => "tag",
        })
    }
}

impl Store {
    /// What `id` names after peeling tags, with the id it peels to; `None`
    /// when the object is not in the repository.
    pub fn peel(&self, id: ObjectId) -> Result<Option<(ObjectKind, ObjectId)>, StoreError> {
        let Some(obj) = self
            .repo()
            .try_find_object(id)
            .ctx(|| format!("reading object {id}"))?
        else {
            return Ok(None);
        };
        let obj = obj.peel_tags_to_end().ctx(|| format!("peeling tag {id}"))?;
        let kind = match obj.kind {
            gix::object::Kind::Commit => ObjectKind::Commit,
            gix::object::Kind::Tree => ObjectKind::Tree,
            gix::object::Kind::Blob => ObjectKind::Blob,
            gix::object::Kind::Tag => ObjectKind::Tag,
        };
        Ok(Some((kind, obj.id)))
    }

    /// The root commits (no parents) reachable from `tip`.
    pub fn roots(&self, tip: ObjectId) -> Result<Vec<ObjectId>, StoreError> {
        let mut out = Vec::new();
        for id in self.ancestors(tip)? {
            if self.is_root(id)? {
                out.push(id);
            }
        }
        Ok(out)
    }

    /// A commit's committer time, seconds since the epoch (without reading
    /// its message or signature).
    pub fn commit_time(&self, id: ObjectId) -> Result<i64, StoreError> {
        let commit = self
            .repo()
            .find_commit(id)
            .ctx(|| format!("reading commit {id}"))?;
        let time = commit.time().ctx(|| format!("reading the time of {id}"))?;
        Ok(time.seconds)
    }

    /// Whether a commit has no parents (without decoding the rest of it).
    pub fn is_root(&self, id: ObjectId) -> Result<bool, StoreError> {
        let commit = self
            .repo()
            .find_commit(id)
            .ctx(|| format!("reading commit {id}"))?;
        let root = commit.parent_ids().next().is_none();
        Ok(root)
    }

    /// The names at the top of a commit's tree.
    pub fn top_level(&self, commit: ObjectId) -> Result<Vec<String>, StoreError> {
        let tree = self.tree_of(commit)?;
        Ok(tree_entries(self.repo(), Some(tree))?
            .into_iter()
            .map(|(name, _, _)| name)
            .collect())
    }

    /// Reads one commit.
    pub fn commit_info(&self, id: ObjectId) -> Result<CommitInfo, StoreError> {
        let commit = self
            .repo()
            .find_commit(id)
            .ctx(|| format!("reading commit {id}"))?;
        let decoded = commit.decode().ctx(|| format!("decoding commit {id}"))?;
        let message = decoded.message.to_str_lossy().into_owned();
        let (subject, lines) = trailers::parse(&message);
        let (payload, signature) = match commit
            .signature()
            .ctx(|| format!("reading the signature of {id}"))?
        {
            Some((sig, signed)) => (
                signed.to_bstring().to_vec(),
                Some(sig.to_str_lossy().into_owned()),
            ),
            None => (commit.data.clone(), None),
        };
        Ok(CommitInfo {
            id,
            parents: decoded.parents().collect(),
            tree: decoded.tree(),
            author_name: decoded
                .author()
                .map(|a| a.name.to_str_lossy().into_owned())
                .unwrap_or_default(),
            author_email: decoded
                .author()
                .map(|a| a.email.to_str_lossy().into_owned())
                .unwrap_or_default(),
            author_time: decoded.author().map(|a| a.seconds()).unwrap_or(0),
            committer_name: decoded
                .committer()
                .map(|c| c.name.to_str_lossy().into_owned())
                .unwrap_or_default(),
            committer_email: decoded
                .committer()
                .map(|c| c.email.to_str_lossy().into_owned())
                .unwrap_or_default(),
            time: decoded.committer().map(|c| c.seconds()).unwrap_or(0),
            subject,
            event: Event::from_trailers(&lines),
            message,
            payload,
            signature,
        })
    }

    /// Every commit reachable from `tip`, newest first (children before
    /// parents, then by commit time).
    pub fn ancestors(&self, tip: ObjectId) -> Result<Vec<ObjectId>, StoreError> {
        let walk = self
            .repo()
            .rev_walk([tip])
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                Default::default(),
            ))
            .all()
            .ctx(|| format!("walking history from {tip}"))?;
        let mut out = Vec::new();
        for info in walk {
            out.push(info.ctx(|| format!("walking history from {tip}"))?.id);
        }
        Ok(out)
    }

    /// The first-parent chain from `tip` back to its root, newest first
    /// (`git rev-list --first-parent`): parent ids only, from the
    /// commit-graph where there is one.
    pub fn first_parents(&self, tip: ObjectId) -> Result<Vec<ObjectId>, StoreError> {
        let walk = self
            .repo()
            .rev_walk([tip])
            .first_parent_only()
            .all()
            .ctx(|| format!("walking first parents from {tip}"))?;
        let mut out = Vec::new();
        for info in walk {
            out.push(info.ctx(|| format!("walking first parents from {tip}"))?.id);
        }
        Ok(out)
    }

    /// The parents of a commit, in order.
    pub fn parents(&self, id: ObjectId) -> Result<Vec<ObjectId>, StoreError> {
        let commit = self
            .repo()
            .find_commit(id)
            .ctx(|| format!("reading commit {id}"))?;
        let parents = commit.parent_ids().map(|p| p.detach()).collect();
        Ok(parents)
    }

    /// Every commit reachable from `tip` but not from `stop`, each turned
    /// into a `T` by `each` (given its id and message), parents before
    /// children. `None` when `stop` is given but is not an ancestor of `tip`:
    /// history was rewritten. The work is proportional to the new commits,
    /// merges included: nothing behind `stop` is walked twice.
    pub fn walk_since<T>(
        &self,
        tip: ObjectId,
        stop: Option<ObjectId>,
        mut each: impl FnMut(ObjectId, &[u8]) -> T,
    ) -> Result<Option<Vec<T>>, StoreError> {
        let mut out = Vec::new();
        if Some(tip) == stop {
            return Ok(Some(out));
        }
        // The commits to visit: reachable from `tip`, not from `stop`. If
        // `stop` is an ancestor of `tip`, some path from `tip` reaches it
        // through these alone, so it shows up as a parent of one of them.
        let new: HashSet<ObjectId> = self
            .new_commits(tip, stop.as_slice())?
            .into_iter()
            .collect();
        let mut found_stop = stop.is_none();
        let mut seen: HashSet<ObjectId> = HashSet::new();
        let mut made: std::collections::HashMap<ObjectId, T> = std::collections::HashMap::new();
        let mut stack: Vec<(ObjectId, bool)> = vec![(tip, false)];
        while let Some((id, expanded)) = stack.pop() {
            if expanded {
                if let Some(t) = made.remove(&id) {
                    out.push(t);
                }
                continue;
            }
            if !seen.insert(id) {
                continue;
            }
            let commit = self
                .repo()
                .find_commit(id)
                .ctx(|| format!("reading commit {id}"))?;
            let parents: Vec<ObjectId> = commit.parent_ids().map(|p| p.detach()).collect();
            made.insert(id, each(id, commit.message_raw_sloppy()));
            stack.push((id, true));
            for p in parents.into_iter().rev() {
                if Some(p) == stop {
                    found_stop = true;
                } else if new.contains(&p) && !seen.contains(&p) {
                    stack.push((p, false));
                }
            }
        }
        Ok(found_stop.then_some(out))
    }

    /// Commits reachable from `tip` and from none of `hidden`, newest
    /// first (`git rev-list tip ^hidden…`). Walks the new commits and as
    /// much of the shared history as it takes to tell them apart.
    pub fn new_commits(
        &self,
        tip: ObjectId,
        hidden: &[ObjectId],
    ) -> Result<Vec<ObjectId>, StoreError> {
        let walk = self
            .repo()
            .rev_walk([tip])
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                Default::default(),
            ))
            .with_hidden(hidden.iter().copied())
            .all()
            .ctx(|| format!("walking history from {tip}"))?;
        let mut out = Vec::new();
        for info in walk {
            out.push(info.ctx(|| format!("walking history from {tip}"))?.id);
        }
        Ok(out)
    }

    /// Every commit reachable from `tip` but not from any of `hide`,
    /// newest first.
    pub fn range(&self, tip: ObjectId, hide: &[ObjectId]) -> Result<Vec<ObjectId>, StoreError> {
        self.new_commits(tip, hide)
    }

    /// The best common ancestor of two commits, if they share history.
    pub fn merge_base(&self, a: ObjectId, b: ObjectId) -> Result<Option<ObjectId>, StoreError> {
        Ok(self
            .repo()
            .merge_base(a, b)
            .ctx(|| format!("finding the merge base of {a} and {b}"))?
            .map(|id| id.detach()))
    }

    /// The tree of a commit.
    pub fn tree_of(&self, commit: ObjectId) -> Result<ObjectId, StoreError> {
        Ok(self
            .repo()
            .find_commit(commit)
            .ctx(|| format!("reading commit {commit}"))?
            .tree_id()
            .ctx(|| format!("reading the tree of {commit}"))?
            .detach())
    }

    /// The files that differ between two trees (either may be absent: the
    /// empty tree), with their old and new blobs.
    pub fn diff(
        &self,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
    ) -> Result<Vec<ChangedPath>, StoreError> {
        changed_paths(self.repo(), old, new)
    }

    /// Every commit on every lore branch, newest first, each once, with the
    /// branch it was found on.
    pub fn all_commits(&self) -> Result<Vec<(Branch, ObjectId)>, StoreError> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for (b, tip) in self.lore_refs()? {
            for c in self.ancestors(tip)? {
                if seen.insert(c) {
                    out.push((b, c));
                }
            }
        }
        Ok(out)
    }

    /// Resolves a revision (`ledger`, `pool/org`, a hex id, `ledger~3`).
    pub fn resolve(&self, rev: &str) -> Result<ObjectId, StoreError> {
        let spec = Branch::parse(rev)
            .map(|b| b.ref_name())
            .unwrap_or_else(|| rev.to_owned());
        self.repo()
            .rev_parse_single(spec.as_str())
            .ctx(|| format!("resolving {rev:?}"))
            .map(|id| id.detach())
    }

    /// The blobs `commit` changed relative to its first parent.
    pub fn changed_paths(&self, info: &CommitInfo) -> Result<Vec<ChangedPath>, StoreError> {
        let old_tree = match info.parents.first() {
            Some(p) => Some(
                self.repo()
                    .find_commit(*p)
                    .ctx(|| format!("reading commit {p}"))?
                    .tree_id()
                    .ctx(|| format!("reading the tree of {p}"))?
                    .detach(),
            ),
            None => None,
        };
        changed_paths(self.repo(), old_tree, Some(info.tree))
    }

    /// The size of an object in bytes, read from its header (the object
    /// itself is not inflated).
    pub fn object_size(&self, id: ObjectId) -> Result<u64, StoreError> {
        Ok(self
            .repo()
            .find_header(id)
            .ctx(|| format!("reading the header of {id}"))?
            .size())
    }

    /// Visits every object `commit`'s tree holds at a path where none of
    /// its parents' trees holds that same object: the root tree (path "")
    /// when it is none of theirs, a tree before what is under it. When the
    /// remote has the parents, these are the trees and blobs a push of
    /// `commit` sends; by induction over a history, every object any of
    /// its trees ever held is visited at some commit. The work is the
    /// trees on changed paths (a few per commit at any size of pool), and
    /// the whole tree for a root commit. Submodule entries name no object
    /// here and are passed over. Stops when `visit` breaks; returns
    /// whether it did.
    pub fn introduced(
        &self,
        commit: ObjectId,
        visit: &mut dyn FnMut(&Introduced) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, StoreError> {
        let repo = self.repo();
        let c = repo
            .find_commit(commit)
            .ctx(|| format!("reading commit {commit}"))?;
        let tree = c
            .tree_id()
            .ctx(|| format!("reading the tree of {commit}"))?
            .detach();
        let parents: Vec<ObjectId> = c.parent_ids().map(|p| p.detach()).collect();
        let mut theirs = Vec::with_capacity(parents.len());
        for p in parents {
            theirs.push(self.tree_of(p)?);
        }
        if theirs.contains(&tree) {
            return Ok(ControlFlow::Continue(()));
        }
        let root = Introduced {
            id: tree,
            path: String::new(),
            tree: true,
        };
        if visit(&root).is_break() {
            return Ok(ControlFlow::Break(()));
        }
        introduced_below(repo, tree, &theirs, "", visit)
    }

    /// A blob's bytes.
    pub fn blob(&self, id: ObjectId) -> Result<Vec<u8>, StoreError> {
        Ok(self
            .repo()
            .find_blob(id)
            .ctx(|| format!("reading blob {id}"))?
            .data
            .clone())
    }
}

/// The entries of a tree: (name, object id, is a tree).
pub(crate) fn tree_entries(
    repo: &gix::Repository,
    tree: Option<ObjectId>,
) -> Result<Vec<(String, ObjectId, bool)>, StoreError> {
    let Some(tree) = tree else {
        return Ok(Vec::new());
    };
    let t = repo
        .find_tree(tree)
        .ctx(|| format!("reading tree {tree}"))?;
    let decoded = t.decode().ctx(|| format!("decoding tree {tree}"))?;
    Ok(decoded
        .entries
        .iter()
        .map(|e| {
            (
                e.filename.to_str_lossy().into_owned(),
                e.oid.to_owned(),
                e.mode.is_tree(),
            )
        })
        .collect())
}

/// What a tree entry names, for [`Store::introduced`]: a tree, a blob, or
/// nothing stored here (a submodule's commit).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Names {
    Tree,
    Blob,
    Nothing,
}

/// A tree's entries, owned: name, object, what it names.
fn owned_entries(
    repo: &gix::Repository,
    tree: ObjectId,
) -> Result<Vec<(Vec<u8>, ObjectId, Names)>, StoreError> {
    let t = repo
        .find_tree(tree)
        .ctx(|| format!("reading tree {tree}"))?;
    let decoded = t.decode().ctx(|| format!("decoding tree {tree}"))?;
    Ok(decoded
        .entries
        .iter()
        .map(|e| {
            let names = if e.mode.is_tree() {
                Names::Tree
            } else if e.mode.is_commit() {
                Names::Nothing
            } else {
                Names::Blob
            };
            (e.filename.to_vec(), e.oid.to_owned(), names)
        })
        .collect())
}

/// [`Store::introduced`] below `tree` (at `prefix`), against the trees
/// the parents hold at the same path.
fn introduced_below(
    repo: &gix::Repository,
    tree: ObjectId,
    theirs: &[ObjectId],
    prefix: &str,
    visit: &mut dyn FnMut(&Introduced) -> ControlFlow<()>,
) -> Result<ControlFlow<()>, StoreError> {
    let mine = owned_entries(repo, tree)?;
    let mut other: Vec<std::collections::HashMap<Vec<u8>, (ObjectId, Names)>> =
        Vec::with_capacity(theirs.len());
    for t in theirs {
        other.push(
            owned_entries(repo, *t)?
                .into_iter()
                .map(|(name, id, names)| (name, (id, names)))
                .collect(),
        );
    }
    for (raw, id, names) in mine {
        if names == Names::Nothing
            || other
                .iter()
                .any(|o| o.get(&raw).is_some_and(|(i, _)| *i == id))
        {
            continue;
        }
        let name = String::from_utf8_lossy(&raw);
        let path = if prefix.is_empty() {
            name.into_owned()
        } else {
            format!("{prefix}/{name}")
        };
        let item = Introduced {
            id,
            path,
            tree: names == Names::Tree,
        };
        if visit(&item).is_break() {
            return Ok(ControlFlow::Break(()));
        }
        if item.tree {
            let below: Vec<ObjectId> = other
                .iter()
                .filter_map(|o| match o.get(&raw) {
                    Some((i, Names::Tree)) => Some(*i),
                    _ => None,
                })
                .collect();
            if introduced_below(repo, id, &below, &item.path, visit)?.is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
    }
    Ok(ControlFlow::Continue(()))
}

/// A tree entry: its name, object id, whether it is a tree, and its mode.
type Entry<'t> = (&'t [u8], ObjectId, bool, u32);

/// A tree's entries decoded in place (each borrows its name from the
/// tree's bytes), sorted by name bytes: git's own order puts a directory as
/// if its name ended in `/`, and a hostile tree may not be sorted at all.
fn sorted_entries<'t>(t: Option<&'t gix::Tree<'_>>) -> Result<Vec<Entry<'t>>, StoreError> {
    let Some(t) = t else { return Ok(Vec::new()) };
    let decoded = t.decode().ctx(|| format!("decoding tree {}", t.id))?;
    let mut v: Vec<Entry<'t>> = decoded
        .entries
        .iter()
        .map(|e| {
            (
                e.filename.as_ref(),
                e.oid.to_owned(),
                e.mode.is_tree(),
                u32::from(e.mode.value()),
            )
        })
        .collect();
    v.sort_unstable_by(|x, y| x.0.cmp(y.0));
    Ok(v)
}

/// The files that differ between two trees, sorted by path: the same
/// order whether the trees were walked in git's order or, one of them being
/// out of order, sorted first.
pub(crate) fn changed_paths(
    repo: &gix::Repository,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
) -> Result<Vec<ChangedPath>, StoreError> {
    let mut out = Vec::new();
    diff_trees(repo, old, new, String::new(), &mut out)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn diff_trees(
    repo: &gix::Repository,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    prefix: String,
    out: &mut Vec<ChangedPath>,
) -> Result<(), StoreError> {
    if old == new {
        return Ok(());
    }
    // Both trees decoded in place (no entry is copied out), their entries
    // paired by name: a pool tree has a few dozen entries, and this runs
    // once per level per commit when history is verified.
    let read = |id: Option<ObjectId>| -> Result<Option<gix::Tree<'_>>, StoreError> {
        id.map(|t| repo.find_tree(t).ctx(|| format!("reading tree {t}")))
            .transpose()
    };
    let (ta, tb) = (read(old)?, read(new)?);
    // Trees as git writes them are sorted: both are walked in that order,
    // decoded as they go. A tree out of order (hostile, or from a broken
    // tool) is diffed again the slow way, each side sorted by name.
    let empty: &[u8] = &[];
    let written = out.len();
    let (a, b) = (
        ta.as_ref().map_or(empty, |t| t.data.as_slice()),
        tb.as_ref().map_or(empty, |t| t.data.as_slice()),
    );
    if diff_in_order(repo, a, b, &prefix, out)? {
        return Ok(());
    }
    out.truncate(written);
    let (a, b) = (sorted_entries(ta.as_ref())?, sorted_entries(tb.as_ref())?);
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let order = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.0.cmp(y.0),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        let (ea, eb) = match order {
            std::cmp::Ordering::Less => {
                i += 1;
                (a.get(i - 1), None)
            }
            std::cmp::Ordering::Greater => {
                j += 1;
                (None, b.get(j - 1))
            }
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
                (a.get(i - 1), b.get(j - 1))
            }
        };
        if let (Some(x), Some(y)) = (ea, eb) {
            if x.1 == y.1 && x.2 == y.2 && x.3 == y.3 {
                continue; // the same object: nothing below differs
            }
        }
        let name = ea.or(eb).expect("one side has it").0;
        let split = |e: Option<&Entry<'_>>| match e {
            Some((_, id, true, _)) => (Some(*id), None, 0),
            Some((_, id, false, mode)) => (None, Some(*id), *mode),
            None => (None, None, 0),
        };
        changed(repo, &prefix, name, split(ea), split(eb), out)?;
    }
    Ok(())
}

/// How two entries of one tree compare in git's order: by name, a tree's
/// name as if it ended in `/`.
fn git_order(a: &EntryRef<'_>, b: &EntryRef<'_>) -> std::cmp::Ordering {
    let (x, y): (&[u8], &[u8]) = (a.filename, b.filename);
    let common = x.len().min(y.len());
    x[..common].cmp(&y[..common]).then_with(|| {
        let end = |name: &[u8], e: &EntryRef<'_>| match name.get(common) {
            Some(c) => *c,
            None if e.mode.is_tree() => b'/',
            None => 0,
        };
        end(x, a).cmp(&end(y, b))
    })
}

/// [`diff_trees`] for two trees' bytes walked side by side in git's order,
/// without collecting their entries. `Ok(false)` when an entry is not
/// after the one before it (nothing it wrote then counts).
fn diff_in_order(
    repo: &gix::Repository,
    a: &[u8],
    b: &[u8],
    prefix: &str,
    out: &mut Vec<ChangedPath>,
) -> Result<bool, StoreError> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let kind = repo.object_hash();
    let (mut ia, mut ib) = (
        TreeRefIter::from_bytes(a, kind),
        TreeRefIter::from_bytes(b, kind),
    );
    let (mut ea, mut eb) = (pull(&mut ia, prefix)?, pull(&mut ib, prefix)?);
    loop {
        let order = match (&ea, &eb) {
            (None, None) => return Ok(true),
            (Some(_), None) => Less,
            (None, Some(_)) => Greater,
            (Some(x), Some(y)) => git_order(x, y),
        };
        let (x, y) = match order {
            Less => (ea.take(), None),
            Greater => (None, eb.take()),
            Equal => (ea.take(), eb.take()),
        };
        // Each side's next entry must come after the one just taken.
        if let Some(x) = &x {
            ea = pull(&mut ia, prefix)?;
            if ea.as_ref().is_some_and(|n| git_order(x, n) != Less) {
                return Ok(false);
            }
        }
        if let Some(y) = &y {
            eb = pull(&mut ib, prefix)?;
            if eb.as_ref().is_some_and(|n| git_order(y, n) != Less) {
                return Ok(false);
            }
        }
        if let (Some(x), Some(y)) = (&x, &y) {
            if x.oid == y.oid && x.mode == y.mode {
                continue; // the same object: nothing below differs
            }
        }
        let name = x.as_ref().or(y.as_ref()).expect("one side has it").filename;
        let split = |e: &Option<EntryRef<'_>>| match e {
            Some(e) if e.mode.is_tree() => (Some(e.oid.to_owned()), None, 0),
            Some(e) => (None, Some(e.oid.to_owned()), u32::from(e.mode.value())),
            None => (None, None, 0),
        };
        changed(repo, prefix, name, split(&x), split(&y), out)?;
    }
}

/// One side of an entry that differs: its tree, or its blob and mode.
type Side = (Option<ObjectId>, Option<ObjectId>, u32);

/// What differs at entry `name` of `prefix` between sides `a` and `b`:
/// the trees below it, diffed, and its blob or mode, as a change.
fn changed(
    repo: &gix::Repository,
    prefix: &str,
    name: &[u8],
    (a_tree, a_blob, a_mode): Side,
    (b_tree, b_blob, b_mode): Side,
    out: &mut Vec<ChangedPath>,
) -> Result<(), StoreError> {
    let name = String::from_utf8_lossy(name);
    let path = if prefix.is_empty() {
        name.into_owned()
    } else {
        format!("{prefix}/{name}")
    };
    if a_tree.is_some() || b_tree.is_some() {
        diff_trees(repo, a_tree, b_tree, path.clone(), out)?;
    }
    if a_blob != b_blob || a_mode != b_mode {
        out.push(ChangedPath {
            path,
            old: a_blob,
            new: b_blob,
            mode: b_mode,
        });
    }
    Ok(())
}

/// The next entry of a tree being walked.
fn pull<'a>(it: &mut TreeRefIter<'a>, prefix: &str) -> Result<Option<EntryRef<'a>>, StoreError> {
    it.next()
        .transpose()
        .ctx(|| format!("decoding a tree under {prefix:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;
    use std::process::{Command, Stdio};

    /// Writes `bytes` as an object of `kind` with `git hash-object
    /// --literally` (which takes trees out of order).
    fn put(dir: &std::path::Path, kind: &str, bytes: &[u8]) -> ObjectId {
        let mut child = Command::new("git")
            .args(["hash-object", "-w", "--literally", "--stdin", "-t", kind])
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", dir.join("no-config"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(bytes).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        ObjectId::from_hex(String::from_utf8(out.stdout).unwrap().trim().as_bytes()).unwrap()
    }

    /// A tree's bytes from (mode, name, id) entries, in the order given.
    fn tree(entries: &[(&str, &str, ObjectId)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (mode, name, id) in entries {
            out.extend_from_slice(format!("{mode} {name}\0").as_bytes());
            out.extend_from_slice(id.as_bytes());
        }
        out
    }

    fn changes(repo: &gix::Repository, a: ObjectId, b: ObjectId) -> Vec<String> {
        let mut out = Vec::new();
        diff_trees(repo, Some(a), Some(b), String::new(), &mut out).unwrap();
        let mut v: Vec<String> = out
            .iter()
            .map(|c| {
                let id = |o: Option<ObjectId>| o.map_or("None".into(), |o| format!("Some({o})"));
                format!("{} {} {} {:o}", c.path, id(c.old), id(c.new), c.mode)
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn trees_are_diffed_in_git_order_and_one_out_of_order_is_still_diffed_right() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let st = Command::new("git")
            .args(["init", "-q", "--bare"])
            .current_dir(dir)
            .status()
            .unwrap();
        assert!(st.success());
        let repo = gix::open(dir).unwrap();
        let (x, y) = (put(dir, "blob", b"x\n"), put(dir, "blob", b"y\n"));
        let (dx, dy) = (
            put(dir, "tree", &tree(&[("100644", "x", x)])),
            put(dir, "tree", &tree(&[("100644", "x", y)])),
        );
        // `a` turns from a file into a directory; `a.txt` sorts between
        // the file `a` and the directory `a/` in git's order; `d/x`
        // changes; `e` only changes mode.
        let old = put(
            dir,
            "tree",
            &tree(&[
                ("100644", "a", x),
                ("100644", "a.txt", y),
                ("40000", "d", dx),
                ("100644", "e", x),
            ]),
        );
        let new = put(
            dir,
            "tree",
            &tree(&[
                ("100644", "a.txt", y),
                ("40000", "a", dy),
                ("40000", "d", dy),
                ("100755", "e", x),
            ]),
        );
        let want = vec![
            format!("a Some({x}) None 0"),
            format!("a/x None Some({y}) 100644"),
            format!("d/x Some({x}) Some({y}) 100644"),
            format!("e Some({x}) Some({x}) 100755"),
        ];
        assert_eq!(changes(&repo, old, new), want);
        // Walked in order, without the sorting fallback.
        let bytes = |id: ObjectId| repo.find_object(id).unwrap().data.clone();
        let in_order = |a: ObjectId, b: ObjectId| {
            diff_in_order(&repo, &bytes(a), &bytes(b), "", &mut Vec::new()).unwrap()
        };
        assert!(in_order(old, new));
        // The same tree written out of order (a hostile or broken tool):
        // the change to `a.txt` is still seen as a change of one file, not
        // hidden and not split into a deletion and an addition.
        let sorted = put(
            dir,
            "tree",
            &tree(&[("100644", "a.txt", x), ("100644", "z", x)]),
        );
        let unsorted = put(
            dir,
            "tree",
            &tree(&[("100644", "z", x), ("100644", "a.txt", y)]),
        );
        assert!(!in_order(sorted, unsorted), "the fallback is taken");
        // Either way the changes come sorted by path.
        let listed = |a, b| {
            changed_paths(&repo, Some(a), Some(b))
                .unwrap()
                .into_iter()
                .map(|c| c.path)
                .collect::<Vec<_>>()
        };
        assert_eq!(listed(old, new), ["a", "a/x", "d/x", "e"]);
        assert_eq!(listed(sorted, unsorted), ["a.txt"]);
        assert_eq!(
            changes(&repo, sorted, unsorted),
            vec![format!("a.txt Some({x}) Some({y}) 100644")]
        );
    }
}
