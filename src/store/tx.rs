//! Writing: transactions that chain signed commits off to the side and then
//! move the branch once, by compare-and-swap.
//!
//! A transaction is a closure over a [`Tx`]. It reads the branch as of the
//! transaction's own in-progress tip, asks the [`Index`] what history already
//! says (plus what this transaction has written), and commits [`CommitSpec`]s.
//! When the closure returns, the branch is moved from the tip it started on to
//! the last commit — or, if another writer moved it first, the whole closure is
//! run again on the new tip after a jittered backoff, so the change is
//! re-derived (and idempotency re-checked) rather than replayed blindly.
//!
//! An attempt keeps the objects it writes in memory, where it reads them
//! back (its trees in [`Trees`], the older versions of each as deltas);
//! past [`SPOOL_AT`] blobs and commits it moves them into the temporary
//! file of the pack it will write, and reads them back from there. When it
//! ends they are written at once, as one pack when there are more than a
//! few (see [`super::pack`]), and only then does the ref move. A crash at
//! any instant leaves the branch on a fully written commit (and at worst an
//! unindexed temporary file that `git gc` removes), an attempt that lost
//! the race writes nothing when it sees so before writing (its temporary
//! file is deleted), and the unreferenced objects of one that lost during
//! the swap are collected by `git gc` in time. No lock is held while the closure
//! runs: the only lock is the ref's own `.lock` file during the swap.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use gix::refs::transaction::{Change as RefChange, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::Target;
use gix::ObjectId;
use rand::RngCore;

use super::index::{Index, Overlay, RefKind};
use super::layout::{is_safe_path, Branch};
use super::pack::{PackWriter, Placed};
use super::trees::{Located, Trees, Written};
use super::{CommitSigner, GixContext, Store, StoreError};
use crate::event::Event;
use crate::model::Id;
use crate::trailers::Message;

/// One file change inside a commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Create or replace the file at `path`.
    Put { path: String, bytes: Vec<u8> },
    /// Remove the file at `path` (no error if absent).
    Delete { path: String },
    /// Place an existing blob at `path` (a merge takes entries from the
    /// other side as they are).
    Link { path: String, blob: ObjectId },
}

impl Change {
    /// The path this change writes or removes.
    pub fn path(&self) -> &str {
        match self {
            Change::Put { path, .. } | Change::Delete { path } | Change::Link { path, .. } => path,
        }
    }
}

/// One commit: its message, the event its trailers carry, and its file
/// changes.
#[derive(Clone, Debug)]
pub struct CommitSpec {
    pub message: Message,
    /// What the commit does; its trailers are rendered from it and the
    /// index learns from it.
    pub event: Event,
    pub changes: Vec<Change>,
    /// A second parent: the commit is a merge of the in-progress head and
    /// this.
    pub merge_with: Option<ObjectId>,
}

impl CommitSpec {
    /// A commit whose subject is `subject`, carrying `event`.
    pub fn new(
        subject: &str,
        body: Option<&str>,
        event: Event,
        changes: Vec<Change>,
    ) -> Result<CommitSpec, StoreError> {
        Ok(CommitSpec {
            message: Message::new(subject, body, event.to_trailers()?)?,
            event,
            changes,
            merge_with: None,
        })
    }

    /// The same commit as a merge with `other`.
    pub fn merging(mut self, other: ObjectId) -> CommitSpec {
        self.merge_with = Some(other);
        self
    }
}

/// How hard to try when other writers keep winning the race.
#[derive(Clone, Copy, Debug)]
pub struct RetryPolicy {
    pub max_attempts: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 200,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(50),
        }
    }
}

/// What a transaction ([`Store::transact`], [`Store::transact_onto`]) is
/// written with besides its branch and its closure: who signs, when, how
/// hard it tries, and what each attempt's base must pass.
pub struct WriteContext<'a, E> {
    /// Signs every commit.
    pub signer: &'a dyn CommitSigner,
    /// The time every commit carries.
    pub now: jiff::Timestamp,
    /// The jitter of the backoff after a lost race.
    pub rng: &'a mut dyn RngCore,
    /// How many races to lose before giving up, and how long to back off.
    pub policy: RetryPolicy,
    /// Asked about the tip each attempt builds on before anything is built
    /// on it; an error stops the transaction with nothing written.
    pub check: &'a mut dyn FnMut(Option<ObjectId>) -> Result<(), E>,
}

/// The trees of the last commit a transaction of this process published,
/// kept in memory for the next transaction on the same branch.
///
/// A batch writes one transaction per chunk, and each edits a few hundred
/// of the fan-out trees its predecessor has just written. Read back from
/// disk, each of those trees is a look-up through every pack the batch has
/// written so far (one index each, until the background repack merges
/// them) and pages of those packs mapped into memory: time and resident
/// memory that grew with the batch. Kept here, they are found in memory.
/// They are used only while the branch is still at `head`, and then every
/// one of them is on disk, reachable from the tip.
pub(crate) struct Warm {
    branch: Branch,
    head: ObjectId,
    /// The current tree of each directory written so far, by path.
    paths: HashMap<String, ObjectId>,
    /// Those trees nearest the root, within the cap ([`warm_share`]).
    trees: HashMap<ObjectId, Vec<u8>>,
    /// Where the packs of this process hold those trees, and the others.
    located: Located,
    /// The `head` commit, when it was written here.
    commit: Option<Vec<u8>>,
}

/// At most this many bytes of trees are kept ([`warm_share`]): those
/// nearest the root first; the others are read from the pack that holds
/// them, where that is known ([`Located`]), else from disk as any object.
///
/// At 1,000,000 lessons the ledger's trees are about 60 MB (32,768 leaves
/// of some 30 entries): memory that grows with the ledger. Read back
/// through gix, each chunk's 13,000 leaves went through every pack the
/// batch had written and left the pages it read mapped: 463 MB of those
/// packs and 180 MB of their indexes were resident at the million's peak
/// (docs/PERFORMANCE.md, "Issue 24, fifth round"), so the cap was 96 MB.
/// Read with one positioned read each from the pack this process wrote
/// them into, they leave nothing resident and cost no more time than
/// those held ("Issue 24, sixth round"), so the cap holds little more
/// than the directories above the leaves (about 2 MB at a million, for
/// both `proposals` and `declined`), which every commit rewrites.
pub(crate) const WARM_MAX: usize = 4 << 20;

/// Which of `whole` (trees by id) to keep warm, given the directories
/// whose newest tree each is (`newest`, by path): all of them when their
/// bytes add up to at most `cap`; else directories by depth, the root
/// first, while they fit. A directory whose tree is not kept is read from
/// disk by the next transaction, and one nearer the root is rewritten by
/// every commit below it.
pub(crate) fn warm_share(
    newest: &HashMap<String, ObjectId>,
    whole: &HashMap<ObjectId, Vec<u8>>,
    cap: usize,
) -> HashSet<ObjectId> {
    let mut order: Vec<(usize, &str, ObjectId, usize)> = newest
        .iter()
        .filter_map(|(path, id)| {
            let len = whole.get(id)?.len();
            Some((path.matches('/').count(), path.as_str(), *id, len))
        })
        .collect();
    order.sort_unstable();
    let mut kept = HashSet::new();
    let mut bytes = 0;
    for (_, _, id, len) in order {
        if kept.contains(&id) {
            continue;
        }
        if bytes + len > cap {
            break;
        }
        bytes += len;
        kept.insert(id);
    }
    kept
}

/// The in-progress state of one transaction attempt.
pub struct Tx<'s> {
    store: &'s Store,
    /// The repository with its writes kept in memory until the attempt
    /// ends ([`super::pack::persist`]).
    repo: &'s gix::Repository,
    /// Its trees: the editor reads and writes through them.
    trees: &'s Trees<'s>,
    branch: Branch,
    base: Option<ObjectId>,
    head: Option<ObjectId>,
    editor: gix::objs::tree::Editor<'s>,
    index: &'s Index,
    overlay: Overlay,
    signer: &'s dyn CommitSigner,
    author: gix::actor::Signature,
    commits: Vec<ObjectId>,
    /// Objects of `repo`'s memory that are on disk already (the warm head
    /// commit): never spooled, never written again.
    on_disk: &'s HashSet<ObjectId>,
    /// The pack the blobs and commits of a large attempt move to as it
    /// goes ([`Tx::spool_out`]).
    spool: Option<PackWriter>,
}

/// Past this many blobs and commits in memory, an attempt moves them into
/// its pack ([`Tx::spool_out`]): a chunk of a batch held every record and
/// commit it made until it ended, 23 MB of a million-lesson batch's peak
/// at 8,192 a chunk (docs/PERFORMANCE.md, "Issue 24, sixth round").
pub(crate) const SPOOL_AT: usize = 1024;

impl<'s> Tx<'s> {
    /// The repository, for reads beside the in-progress tree.
    pub fn store(&self) -> &Store {
        self.store
    }

    /// The branch this transaction writes.
    pub fn branch(&self) -> Branch {
        self.branch
    }

    /// The tip this attempt started from.
    pub fn base(&self) -> Option<ObjectId> {
        self.base
    }

    /// Commits made so far in this attempt, oldest first.
    pub fn commits(&self) -> &[ObjectId] {
        &self.commits
    }

    /// The blob or commit `id`, from the attempt's spool or the repository
    /// (its memory first); an error says it was `what`.
    fn object(&self, id: ObjectId, what: impl FnOnce() -> String) -> Result<Vec<u8>, StoreError> {
        if let Some(found) = self.spool.as_ref().and_then(|s| s.read(&id)) {
            return Ok(found.1);
        }
        Ok(self.repo.find_object(id).ctx(what)?.detach().data)
    }

    /// How many blobs and commits the attempt has made so far, spooled or
    /// in memory.
    fn held(&self) -> usize {
        self.repo.objects.num_objects_in_memory() + self.spool.as_ref().map_or(0, PackWriter::len)
    }

    /// Moves the blobs and commits the attempt holds in memory into its
    /// spool, but for its head (the next commit's parent, read for its
    /// tree) and what is on disk already.
    fn spool_out(&mut self) -> Result<(), StoreError> {
        let repo = self.repo;
        let Some(mut objects) = repo.objects.reset_object_memory() else {
            return Ok(());
        };
        let (head, on_disk) = (self.head, self.on_disk);
        let kept: Vec<_> = objects
            .extract_if(|id, _| Some(*id) == head || on_disk.contains(id))
            .collect();
        let spool = match &mut self.spool {
            Some(spool) => spool,
            None => self.spool.insert(PackWriter::new(
                &repo.objects.store_ref().path().join("pack"),
                repo.object_hash(),
            )?),
        };
        super::pack::spool(spool, &objects)?;
        for (id, (kind, data)) in kept {
            let again = gix::objs::Write::write_buf(&repo.objects, kind, &data)
                .ctx(|| format!("keeping object {id}"))?;
            debug_assert_eq!(again, id);
        }
        Ok(())
    }

    /// Reads `path` as of this transaction's in-progress tree.
    pub fn read(&self, path: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let entry = match self.editor.get(path.split('/')) {
            Some(e) => Some((e.mode, e.oid)),
            // The editor only knows trees it has loaded or written; look in
            // the tree of the in-progress head.
            None => match self.head {
                Some(head) => {
                    let tree = self
                        .repo
                        .find_commit(head)
                        .ctx(|| format!("reading commit {head}"))?
                        .tree_id()
                        .ctx(|| format!("reading the tree of {head}"))?;
                    self.trees.entry(tree.detach(), path)?
                }
                None => None,
            },
        };
        match entry {
            Some((mode, oid)) if mode.is_blob() => {
                Ok(Some(self.object(oid, || format!("reading {path}"))?))
            }
            _ => Ok(None),
        }
    }

    /// What history (and this transaction) says happened to an artifact.
    pub fn artifact(&self, artifact: Id) -> Option<super::ArtifactOutcome> {
        self.overlay
            .artifact(artifact)
            .or_else(|| self.index.artifact(artifact))
    }

    /// Where history (and this transaction) says a lesson stands, if it
    /// exists.
    pub fn lesson(&self, lesson: Id) -> Option<super::LessonEntry> {
        self.overlay
            .lesson(lesson)
            .or_else(|| self.index.lesson(lesson))
    }

    /// Writes one signed commit on top of the in-progress head.
    pub fn commit(&mut self, spec: CommitSpec) -> Result<ObjectId, StoreError> {
        let repo = self.repo;
        // The blobs placed, with their paths: on a private branch, the
        // index learns each one never leaves the machine.
        let mut placed: Vec<(ObjectId, &str)> = Vec::new();
        for change in &spec.changes {
            let path = change.path();
            if !is_safe_path(path) {
                return Err(StoreError::BadPath(path.to_owned()));
            }
            // Into the attempt's memory as it is: gix's `write_blob` first
            // asks whether the object store has it, a binary search of the
            // multi-pack index per record that misses (a new record) and
            // maps its pages (the whole 201 MB index of a million lessons
            // within a chunk). An object written again that the store has
            // is stored once more in the attempt's pack, which git allows.
            let blob = match change {
                Change::Put { bytes, .. } => {
                    gix::objs::Write::write_buf(&repo.objects, gix::objs::Kind::Blob, bytes)
                        .ctx(|| format!("writing {path}"))?
                }
                Change::Link { blob, .. } => *blob,
                Change::Delete { .. } => {
                    self.editor
                        .remove(path.split('/'))
                        .ctx(|| format!("removing {path}"))?;
                    continue;
                }
            };
            self.editor
                .upsert(path.split('/'), gix::objs::tree::EntryKind::Blob, blob)
                .ctx(|| format!("placing {path}"))?;
            placed.push((blob, path));
        }
        let trees = self.trees;
        let parent_tree = match self.head {
            Some(head) if super::index::is_private(self.branch) => Some(
                repo.find_commit(head)
                    .ctx(|| format!("reading commit {head}"))?
                    .tree_id()
                    .ctx(|| format!("reading the tree of {head}"))?
                    .detach(),
            ),
            _ => None,
        };
        let tree = self.editor.write(|t| trees.write(t))?;
        // The directories on the changed paths now hold their new trees;
        // their old ones become deltas.
        let mut dirs: Vec<&str> = spec
            .changes
            .iter()
            .flat_map(|c| {
                let path = c.path();
                path.match_indices('/').map(move |(i, _)| &path[..i])
            })
            .collect();
        dirs.sort_unstable();
        dirs.dedup();
        let mut news = vec![("", tree)];
        for dir in dirs {
            if let Some((mode, id)) = trees.entry(tree, dir)? {
                if mode.is_tree() {
                    news.push((dir, id));
                }
            }
        }
        trees.replaced(&news, self.held());
        let mut commit = gix::objs::Commit {
            tree,
            parents: self.head.into_iter().chain(spec.merge_with).collect(),
            author: self.author.clone(),
            committer: self.author.clone(),
            encoding: None,
            message: spec.message.render().into(),
            extra_headers: Vec::new(),
        };
        let mut payload = Vec::with_capacity(512);
        gix::objs::WriteTo::write_to(&commit, &mut payload).map_err(|e| StoreError::Io {
            context: "serialising a commit".into(),
            source: e,
        })?;
        let armored = self
            .signer
            .sign_commit(&payload)
            .map_err(StoreError::Sign)?;
        commit.extra_headers.push(("gpgsig".into(), armored.into()));
        // As the blobs are, without asking the object store first.
        let id =
            gix::objs::Write::write(&repo.objects, &commit).ctx(|| "writing a commit".into())?;
        self.head = Some(id);
        self.commits.push(id);
        let index = self.index;
        index.release_pages_after(self.commits.len());
        if repo.objects.num_objects_in_memory() >= SPOOL_AT {
            self.spool_out()?;
        }
        let on = match self.branch {
            Branch::Ledger => RefKind::Ledger,
            Branch::Pool(s) => RefKind::Pool(s),
        };
        self.overlay.fold(&|id| index.lesson(id), on, &spec.event);
        if super::index::is_private(self.branch) {
            let private_tree = parent_tree != Some(tree)
                && super::index::holds_records(
                    trees
                        .tree(tree)?
                        .entries
                        .iter()
                        .map(|e| e.filename.as_slice()),
                );
            self.overlay.note_written(
                self.branch,
                id,
                private_tree.then_some(tree),
                placed.into_iter(),
            );
        }
        if let Branch::Pool(_) = self.branch {
            for change in &spec.changes {
                let Some(super::layout::RecordPath::Lesson(id)) =
                    super::layout::classify(change.path())
                else {
                    continue;
                };
                match change {
                    Change::Put { bytes, .. } => self.overlay.note_entry(id, Some(bytes)),
                    Change::Delete { .. } => self.overlay.note_entry(id, None),
                    Change::Link { blob, .. } => {
                        let blob = self.object(*blob, || format!("reading blob {blob}"))?;
                        self.overlay.note_entry(id, Some(&blob));
                    }
                }
            }
        }
        // What search keeps of a proposal follows its record.
        if let Branch::Ledger = self.branch {
            for change in &spec.changes {
                let Some(super::layout::RecordPath::Proposal(id)) =
                    super::layout::classify(change.path())
                else {
                    continue;
                };
                match change {
                    Change::Put { bytes, .. } => self.overlay.note_proposal(id, Some(bytes)),
                    Change::Delete { .. } => self.overlay.note_proposal(id, None),
                    Change::Link { blob, .. } => {
                        let blob = self.object(*blob, || format!("reading blob {blob}"))?;
                        self.overlay.note_proposal(id, Some(&blob));
                    }
                }
            }
        }
        Ok(id)
    }
}

/// The result of a transaction: what the closure returned, and the commits
/// that were published.
#[derive(Debug)]
pub struct Committed<T> {
    pub value: T,
    /// The tip the published commits were built on.
    pub base: Option<ObjectId>,
    pub commits: Vec<ObjectId>,
    /// How many times the race was lost before this attempt won.
    pub retries: u32,
}

impl Store {
    /// Runs `f` as one transaction on `branch`: every commit it makes is
    /// published at once, or — if `f` fails — none is. See the module doc.
    /// `write.check` is asked about the tip each attempt builds on before
    /// anything is built on it; an error stops the transaction with nothing
    /// written.
    pub fn transact<T, E>(
        &self,
        branch: Branch,
        write: WriteContext<'_, E>,
        f: impl FnMut(&mut Tx<'_>) -> Result<T, E>,
    ) -> Result<Committed<T>, E>
    where
        E: From<StoreError>,
    {
        self.transact_inner(branch, None, write, f)
    }

    /// Like [`Store::transact`], but the commits are built on `onto` (a
    /// verified commit that need not descend from the branch: a remote
    /// pool adopted) and the branch is moved from `from` to them. With no
    /// commits made, the branch is moved to `onto` itself.
    ///
    /// `from` is the tip the caller decided on: the history it replaces.
    /// When the branch is anywhere else, at the start of an attempt or
    /// because another writer moved it during one, nothing is written and
    /// the transaction ends with [`StoreError::Moved`], since `f` was
    /// derived from history that is no longer the branch's and re-running
    /// it would drop whatever the other writer added. The caller decides
    /// again.
    pub fn transact_onto<T, E>(
        &self,
        branch: Branch,
        from: Option<ObjectId>,
        onto: ObjectId,
        write: WriteContext<'_, E>,
        f: impl FnMut(&mut Tx<'_>) -> Result<T, E>,
    ) -> Result<Committed<T>, E>
    where
        E: From<StoreError>,
    {
        self.transact_inner(branch, Some((from, onto)), write, f)
    }

    /// Builds commits on `parent` as a transaction on `branch` would, but
    /// moves no ref: the caller names them (a review branch for a pull
    /// request). Returns what `f` returned and the commits, oldest first.
    pub fn build_detached<T, E>(
        &self,
        branch: Branch,
        parent: ObjectId,
        signer: &dyn CommitSigner,
        now: jiff::Timestamp,
        f: impl FnOnce(&mut Tx<'_>) -> Result<T, E>,
    ) -> Result<(T, Vec<ObjectId>), E>
    where
        E: From<StoreError>,
    {
        let index = Index::load(self).map_err(E::from)?;
        let tree = self.tree_of(parent).map_err(E::from)?;
        let repo = self.repo().clone().with_object_memory();
        let trees = Trees::new(&repo, HashMap::new(), HashMap::new(), HashMap::new());
        let root = trees.tree(tree).map_err(E::from)?;
        let editor = gix::objs::tree::Editor::new(root, &trees, repo.object_hash());
        let mut tx = Tx {
            store: self,
            repo: &repo,
            trees: &trees,
            branch,
            base: Some(parent),
            head: Some(parent),
            editor,
            index: &index,
            overlay: Overlay::default(),
            signer,
            author: self.signature_at(now),
            commits: Vec::new(),
            on_disk: &HashSet::new(),
            spool: None,
        };
        let value = f(&mut tx)?;
        let (commits, spool) = (tx.commits, tx.spool);
        self.persist_memory(&repo, &trees.finish(), &HashSet::new(), spool)
            .map_err(E::from)?;
        Ok((value, commits))
    }

    /// The warm trees, if the last transaction of this process published
    /// `head` on `branch`. They are taken: a transaction gives them back
    /// ([`Store::keep_warm`]) only once its own commits are published.
    fn take_warm(&self, branch: Branch, head: ObjectId) -> Option<Warm> {
        let mut slot = self.warm.lock().unwrap_or_else(|e| e.into_inner());
        slot.take().filter(|w| w.branch == branch && w.head == head)
    }

    /// Keeps what a transaction that published `head` leaves (all of it
    /// now on disk): the newest tree of each directory it or its
    /// predecessors wrote, held or where its pack (`placed`, this
    /// transaction's, or an earlier one's) has it; and `head` itself from
    /// `objects`.
    fn keep_warm(
        &self,
        branch: Branch,
        head: ObjectId,
        trees: Written,
        mut objects: gix::odb::memory::Storage,
        placed: Option<Placed>,
    ) {
        let Written {
            mut whole,
            newest: mut paths,
            uses,
            mut located,
            ..
        } = trees;
        let wanted = warm_share(&paths, &whole, self.warm_max);
        whole.retain(|id, _| wanted.contains(id));
        // Sized for what is kept: the table held every tree of the
        // transaction (more than 28,000 early in a large batch, when the
        // cap holds many small leaves), and it would be carried at that
        // size from transaction to transaction (3 MB at a million).
        whole.shrink_to_fit();
        // Each directory's newest tree is where this attempt's pack holds
        // it, else where it was. The maps are updated in place: they have
        // an entry for every directory (34,000 at a million lessons), and
        // new ones beside the old were 10 MB of a batch's peak.
        if let Some(p) = &placed {
            for id in paths.values() {
                if let Some(&at) = p.at.get(id) {
                    located.insert(*id, (p.pack.clone(), at));
                }
            }
        }
        located.retain(|id, _| uses.contains_key(id));
        drop(uses);
        // A directory whose tree is neither held nor located has no place
        // here: the next transaction reads it as any object.
        paths.retain(|_, id| whole.contains_key(id) || located.contains_key(id));
        let commit = objects.remove(&head).map(|(_, data)| data);
        *self.warm.lock().unwrap_or_else(|e| e.into_inner()) = Some(Warm {
            branch,
            head,
            paths,
            trees: whole,
            located,
            commit,
        });
    }

    /// Writes what an attempt kept in memory into the object store, durably
    /// (see [`super::pack`]): its trees, and what `repo` holds but the
    /// objects `on_disk` names (the warm head commit, there already); and
    /// empties `repo`'s memory. Returns what it held, and where its pack
    /// holds the trees it stored whole.
    fn persist_memory(
        &self,
        repo: &gix::Repository,
        trees: &Written,
        on_disk: &HashSet<ObjectId>,
        spool: Option<PackWriter>,
    ) -> Result<(gix::odb::memory::Storage, Option<Placed>), StoreError> {
        let mut objects = repo.objects.reset_object_memory().unwrap_or_default();
        let known: Vec<_> = objects.extract_if(|id, _| on_disk.contains(id)).collect();
        let placed = super::pack::persist(self.repo(), &objects, trees, spool)?;
        objects.extend(known);
        Ok((objects, placed))
    }

    fn transact_inner<T, E>(
        &self,
        branch: Branch,
        replace: Option<(Option<ObjectId>, ObjectId)>,
        write: WriteContext<'_, E>,
        mut f: impl FnMut(&mut Tx<'_>) -> Result<T, E>,
    ) -> Result<Committed<T>, E>
    where
        E: From<StoreError>,
    {
        let WriteContext {
            signer,
            now,
            rng,
            policy,
            check,
        } = write;
        let author = self.signature_at(now);
        let mut retries = 0;
        let mut lock = StaleLock::default();
        loop {
            // The base first, then the index: the index then knows at least
            // every commit the base contains, so an idempotency check made
            // through it can never miss a commit the swap builds on.
            let tip = self.tip(branch).map_err(E::from)?;
            if let Some((from, _)) = replace {
                if tip != from {
                    return Err(E::from(StoreError::Moved {
                        branch: branch.to_string(),
                    }));
                }
            }
            check(tip)?;
            let onto = replace.map(|(_, onto)| onto);
            let base = onto.or(tip);
            let index = Index::load(self).map_err(E::from)?;
            // Every object the attempt writes stays in memory, or in the
            // temporary file of its pack, until it ends: a lost or failed
            // attempt writes nothing, and a won one writes one pack instead
            // of a file per object.
            // gix's default object cache, not the store's tuned 64 MB one
            // ([`Store::tuned_repo`]): setting that up doubled a one-record
            // `confirm` (7.8 → 15.3 ms, `bench/short.sh`), and a batch reads
            // its trees from memory anyway (`Warm`).
            let mut repo = self.repo().clone().with_object_memory();
            // The trees the previous transaction of this process left, when
            // it is what this attempt builds on.
            let warm = match base {
                Some(b) if onto.is_none() => self.take_warm(branch, b),
                _ => None,
            };
            let (warm_paths, warm_trees, warm_located, warm_ids) = match warm {
                Some(w) => {
                    let mut memory = gix::odb::memory::Storage::default();
                    if let Some(commit) = w.commit {
                        memory.insert(w.head, (gix::objs::Kind::Commit, commit));
                    }
                    let ids: HashSet<ObjectId> = memory.keys().copied().collect();
                    repo.objects.set_object_memory(memory);
                    (w.paths, w.trees, w.located, ids)
                }
                None => Default::default(),
            };
            let trees = Trees::new(&repo, warm_paths, warm_trees, warm_located);
            let base_tree = match base {
                Some(b) => repo
                    .find_commit(b)
                    .and_then(|c| c.tree_id().map(|t| t.detach()))
                    .ctx(|| format!("reading the tree of {b}"))
                    .map_err(E::from)?,
                None => ObjectId::empty_tree(self.repo().object_hash()),
            };
            let root = trees.tree(base_tree).map_err(E::from)?;
            let editor = gix::objs::tree::Editor::new(root, &trees, repo.object_hash());
            let mut tx = Tx {
                store: self,
                repo: &repo,
                trees: &trees,
                branch,
                base,
                head: base,
                editor,
                index: &index,
                overlay: Overlay::default(),
                signer,
                author: author.clone(),
                commits: Vec::new(),
                on_disk: &warm_ids,
                spool: None,
            };
            let value = f(&mut tx)?;
            let (head, commits, overlay, spool) = (tx.head, tx.commits, tx.overlay, tx.spool);
            let trees = trees.finish();
            if commits.is_empty() && onto.is_none_or(|o| Some(o) == tip) {
                if let (Some(b), Some(objects)) = (base, repo.objects.reset_object_memory()) {
                    self.keep_warm(branch, b, trees, objects, None);
                }
                return Ok(Committed {
                    value,
                    base,
                    commits,
                    retries,
                });
            }
            let head = head.expect("commits were made, or there is a commit to move to");
            // Objects first, ref last. When the branch has already moved,
            // the attempt is lost: nothing of it needs to reach the disk.
            let moved = self.tip(branch).map_err(E::from)? != tip;
            let mut written = None;
            let swapped = if moved {
                Err(SwapError::Lost)
            } else {
                written = Some(
                    self.persist_memory(&repo, &trees, &warm_ids, spool)
                        .map_err(E::from)?,
                );
                self.swap(branch, tip, head, &author)
            };
            if let (Ok(()), None, Some((objects, placed))) = (&swapped, onto, written) {
                self.keep_warm(branch, head, trees, objects, placed);
            }
            match swapped {
                Ok(()) if onto.is_some() => {
                    // The branch's history was replaced: the index learns it
                    // by walking, not from this overlay.
                    return Ok(Committed {
                        value,
                        base,
                        commits,
                        retries,
                    });
                }
                Ok(()) => {
                    index.remember(branch, base, head, &overlay);
                    return Ok(Committed {
                        value,
                        base,
                        commits,
                        retries,
                    });
                }
                Err(SwapError::Lost) if retries + 1 < policy.max_attempts => {
                    lock.clear_if_stale(
                        &self.git_dir().join(format!("{}.lock", branch.ref_name())),
                    );
                    retries += 1;
                    let exp = policy
                        .base_delay
                        .saturating_mul(1u32 << retries.min(16))
                        .min(policy.max_delay);
                    let jitter = rng.next_u64() % (exp.as_micros() as u64 + 1);
                    std::thread::sleep(Duration::from_micros(jitter));
                }
                Err(SwapError::Lost) => {
                    return Err(E::from(StoreError::Contended {
                        branch: branch.to_string(),
                        attempts: retries + 1,
                    }))
                }
                Err(SwapError::Other(e)) => return Err(E::from(e)),
            }
        }
    }

    /// Moves `branch` from `from` to `to`, a descendant its history was
    /// verified to reach (a fast-forward from a remote pool), by
    /// compare-and-swap: `Ok(false)` when the branch moved meanwhile.
    pub fn fast_forward(
        &self,
        branch: Branch,
        from: Option<ObjectId>,
        to: ObjectId,
        now: jiff::Timestamp,
    ) -> Result<bool, StoreError> {
        match self.swap(branch, from, to, &self.signature_at(now)) {
            Ok(()) => Ok(true),
            Err(SwapError::Lost) => Ok(false),
            Err(SwapError::Other(e)) => Err(e),
        }
    }

    /// Moves `branch` from `expected` to `new`, or reports that it moved.
    fn swap(
        &self,
        branch: Branch,
        expected: Option<ObjectId>,
        new: ObjectId,
        author: &gix::actor::Signature,
    ) -> Result<(), SwapError> {
        self.move_ref(&branch.ref_name(), Expect::Is(expected), new, author)
    }

    /// Moves the ref `name` to `new` when it is what `expected` says, or
    /// reports that it moved meanwhile ([`SwapError::Lost`]). The move is
    /// logged in the reflog with `author` as the committer.
    pub(crate) fn move_ref(
        &self,
        name: &str,
        expected: Expect,
        new: ObjectId,
        author: &gix::actor::Signature,
    ) -> Result<(), SwapError> {
        let edit = RefEdit {
            change: RefChange::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: format!("git-lore: {}", name.trim_start_matches("refs/heads/")).into(),
                },
                expected: match expected {
                    Expect::Is(Some(e)) => PreviousValue::MustExistAndMatch(Target::Object(e)),
                    Expect::Is(None) => PreviousValue::MustNotExist,
                    Expect::Any => PreviousValue::Any,
                },
                new: Target::Object(new),
            },
            name: name
                .try_into()
                .map_err(|e: gix::validate::reference::name::Error| {
                    SwapError::Other(StoreError::Git {
                        context: format!("naming {name}"),
                        source: gix::Error::from_error(e),
                    })
                })?,
            deref: false,
        };
        let mut buf = gix::date::parse::TimeBuf::default();
        match self
            .repo()
            .edit_references_as(Some(edit), Some(author.to_ref(&mut buf)))
        {
            Ok(_) => Ok(()),
            Err(e) => {
                if e.is_conflict() || e.is_retryable() || e.is_not_found() {
                    // Out of date, a concurrent lock holder, or the ref
                    // vanished under us: re-read and re-derive.
                    Err(SwapError::Lost)
                } else {
                    Err(SwapError::Other(StoreError::Git {
                        context: format!("moving {name}"),
                        source: e,
                    }))
                }
            }
        }
    }
}

/// What a ref must hold for [`Store::move_ref`] to move it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Expect {
    /// Exactly this (`None`: the ref must not exist).
    Is(Option<ObjectId>),
    /// Anything: a forced move.
    Any,
}

pub(crate) enum SwapError {
    Lost,
    Other(StoreError),
}

/// How long the same ref lock file may stand before it counts as left by a
/// killed process. A writer holds a ref lock for the microseconds of one
/// update; a process killed inside that window leaves the file for good,
/// and every later write would lose its compare-and-swap to it.
const STALE_LOCK_AFTER: Duration = Duration::from_secs(10);

/// Watches a ref's lock file across lost attempts: the same file (same
/// inode and modification time) seen for [`STALE_LOCK_AFTER`] of
/// monotonic time is removed. No wall clock is read: only that nothing
/// replaced the file meanwhile.
#[derive(Default)]
struct StaleLock {
    seen: Option<(u64, std::time::SystemTime, std::time::Instant)>,
}

impl StaleLock {
    fn clear_if_stale(&mut self, path: &std::path::Path) {
        use std::os::unix::fs::MetadataExt;
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            self.seen = None;
            return;
        };
        let Ok(modified) = meta.modified() else {
            return;
        };
        match self.seen {
            Some((ino, mtime, since)) if ino == meta.ino() && mtime == modified => {
                if since.elapsed() >= STALE_LOCK_AFTER {
                    let _ = std::fs::remove_file(path);
                    self.seen = None;
                }
            }
            _ => self.seen = Some((meta.ino(), modified, std::time::Instant::now())),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::Path;

    use super::*;

    struct Unsigned;
    impl CommitSigner for Unsigned {
        fn sign_commit(&self, _: &[u8]) -> Result<String, crate::signing::SigningError> {
            Ok("-----BEGIN SSH SIGNATURE-----\nU0lH\n-----END SSH SIGNATURE-----\n".into())
        }
    }

    /// One transaction of `f` on the ledger, at a fixed time, with commits
    /// signed by a stand-in.
    fn transact(store: &Store, f: impl FnMut(&mut Tx<'_>) -> Result<(), StoreError>) {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut check = |_: Option<ObjectId>| Ok::<(), StoreError>(());
        let write = WriteContext {
            signer: &Unsigned,
            now: "2026-01-01T00:00:00Z".parse().unwrap(),
            rng: &mut rng,
            policy: RetryPolicy::default(),
            check: &mut check,
        };
        store.transact(Branch::Ledger, write, f).unwrap();
    }

    /// Ten transactions of twenty commits each into a repository, every
    /// commit a file three directories down; returns the last tree.
    pub(crate) fn ten_transactions(store: &Store) -> ObjectId {
        for t in 0..10u32 {
            transact(store, |tx| {
                for c in 0..20u32 {
                    let n = t * 20 + c;
                    let path = format!("d/{}/{}/{}/f{n}.txt", n % 3, n % 5, n % 7);
                    let spec = CommitSpec::new(
                        &format!("file {n}"),
                        None,
                        Event::Init,
                        vec![Change::Put {
                            path,
                            bytes: format!("{n}\n").repeat(40).into_bytes(),
                        }],
                    )?;
                    tx.commit(spec)?;
                }
                Ok(())
            });
        }
        let tip = store.tip(Branch::Ledger).unwrap().unwrap();
        store
            .repo()
            .find_commit(tip)
            .unwrap()
            .tree_id()
            .unwrap()
            .detach()
    }

    /// `git --git-dir DIR ARGS` with only `env`, `input` on its stdin: its
    /// output, once it succeeded.
    pub(crate) fn git(dir: &Path, env: &[(String, String)], args: &[&str], input: &[u8]) -> String {
        use std::io::Write as _;
        let mut child = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(dir)
            .args(args)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// `git fsck --full --strict` finds nothing wrong.
    pub(crate) fn fsck(git_dir: &Path, env: &[(String, String)]) {
        let out = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(git_dir)
            .args(["fsck", "--full", "--strict"])
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !stderr.contains("error"),
            "{stderr}"
        );
    }

    pub(crate) fn host() -> super::super::Host {
        super::super::Host {
            git_program: "git".into(),
            git_env: vec![
                ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
                ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
                ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
            ],
        }
    }

    /// A new bare repository's store, keeping up to `warm_max` bytes of
    /// trees between transactions.
    fn store_at(dir: &Path, warm_max: usize) -> Store {
        gix::init_bare(dir).unwrap();
        let mut store = Store::open_raw(dir, host(), true).unwrap();
        store.warm_max = warm_max;
        store
    }

    /// How many directories the warm state knows, how many of their trees
    /// it holds, and how many it can find in a pack.
    fn warm_counts(s: &Store) -> (usize, usize, usize) {
        let warm = s.warm.lock().unwrap();
        let w = warm.as_ref().unwrap();
        (w.paths.len(), w.trees.len(), w.located.len())
    }

    /// With room for only some of the trees a transaction leaves, or for
    /// none, the next one reads the others from the pack that holds them,
    /// and the trees come out the same as with room for all of them.
    #[test]
    fn a_batch_with_part_of_its_trees_warm_writes_the_same_trees() {
        let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
        let all = store_at(dirs[0].path(), WARM_MAX);
        let some = store_at(dirs[1].path(), 1200);
        let none = store_at(dirs[2].path(), 0);
        let want = ten_transactions(&all);
        // Every directory: the root, d, 3 below it, 15 and 105 leaves
        // (those the 200 files reach). With room for all, every one is
        // held but the leaves a large transaction moved out of memory
        // (`Trees::replaced`): those are located in its pack.
        let (every, held, located) = warm_counts(&all);
        assert!(every > 100 && held >= 20, "{held} of {every} held");
        assert!(held < every, "{held} of {every} held: leaves are located");
        assert!(located >= every - held, "{located} located, {held} held");
        assert_eq!(ten_transactions(&some), want);
        let (known, held, located) = warm_counts(&some);
        assert_eq!(known, every, "every directory is held or located");
        assert!(held >= 5 && held < every / 2, "{held} of {every} held");
        assert!(located >= every - held, "{located} located, {held} held");
        assert_eq!(ten_transactions(&none), want);
        let (known, held, located) = warm_counts(&none);
        assert_eq!((known, held, located), (every, 0, every));
        fsck(some.git_dir(), &host().git_env);
        fsck(none.git_dir(), &host().git_env);
    }

    /// Each tree the warm state locates reads back from its pack as git
    /// has it; an entry that is not that tree reads as nothing, so that
    /// the tree is looked up as any object instead.
    #[test]
    fn located_trees_read_back_from_their_pack_and_nothing_else_does() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_at(dir.path(), 0);
        ten_transactions(&store);
        let warm = store.warm.lock().unwrap();
        let located = &warm.as_ref().unwrap().located;
        assert!(located.len() > 100, "{} located", located.len());
        let repo = store.repo();
        for (id, (pack, offset)) in located {
            let read = super::super::pack::read_tree(pack, *offset, id)
                .unwrap_or_else(|| panic!("tree {id} not read from its pack"));
            assert_eq!(read, repo.find_object(*id).unwrap().data, "tree {id}");
        }
        let (id, (pack, offset)) = located.iter().next().unwrap();
        let other = *located.keys().find(|k| *k != id).unwrap();
        assert_eq!(super::super::pack::read_tree(pack, *offset, &other), None);
        // The pack's header, an entry's middle, past its end.
        let len = pack.metadata().unwrap().len();
        for at in [0, offset + 1, len - 10, len + 100] {
            assert_eq!(super::super::pack::read_tree(pack, at, id), None, "at {at}");
        }
    }

    /// A new process's transaction on a repacked repository finds the
    /// trees it did not write through the multi-pack index (a repack's
    /// deltas resolved), and writes the same trees as one that reads them
    /// through gix, where there is no such index.
    #[test]
    fn a_cold_transaction_reads_trees_through_the_multi_pack_index() {
        let env = host().git_env;
        let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
        let mut trees = Vec::new();
        for (i, d) in dirs.iter().enumerate() {
            ten_transactions(&store_at(d.path(), WARM_MAX));
            let git_dir = d.path();
            git(git_dir, &env, &["repack", "-adq", "--depth=20"], b"");
            if i == 0 {
                git(git_dir, &env, &["multi-pack-index", "write"], b"");
            }
            // Opened again: nothing kept warm, nothing located.
            let cold = Store::open_raw(git_dir, host(), true).unwrap();
            let mut through_midx = 0;
            transact(&cold, |tx| {
                for n in 0..150u32 {
                    let path = format!("d/{}/{}/{}/g{n}.txt", n % 3, n % 5, n % 7);
                    put(tx, &format!("g {n}"), path, format!("again {n}\n"))?;
                }
                through_midx = tx.trees.midx_reads();
                Ok(())
            });
            if i == 0 {
                assert!(
                    through_midx >= 100,
                    "{through_midx} trees read through the index"
                );
            } else {
                assert_eq!(
                    through_midx, 0,
                    "no multi-pack index, nothing read through one"
                );
            }
            fsck(git_dir, &env);
            let tip = cold.tip(Branch::Ledger).unwrap().unwrap();
            trees.push(
                cold.repo()
                    .find_commit(tip)
                    .unwrap()
                    .tree_id()
                    .unwrap()
                    .detach(),
            );
        }
        assert_eq!(trees[0], trees[1], "the same trees either way");
    }

    /// Commits `text` at `path`, the commit's subject `subject`.
    fn put(tx: &mut Tx<'_>, subject: &str, path: String, text: String) -> Result<(), StoreError> {
        let change = Change::Put {
            path,
            bytes: text.into_bytes(),
        };
        tx.commit(CommitSpec::new(subject, None, Event::Init, vec![change])?)?;
        Ok(())
    }

    /// The index of the one pack in `store`.
    fn pack_index(store: &Store) -> std::path::PathBuf {
        std::fs::read_dir(store.git_dir().join("objects/pack"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "idx"))
            .unwrap()
    }

    /// A large transaction moves the newest trees of the fan-out's leaves
    /// out of memory as it writes them, reads a leaf back when a later
    /// commit writes it again (its older version then a delta of the new
    /// one), and writes a pack in which every commit's tree is whole or a
    /// delta, each once.
    #[test]
    fn a_large_transaction_moves_its_leaves_out_of_memory_and_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_at(dir.path(), WARM_MAX);
        let n = 600u32;
        // 250 leaves three levels down: each written two or three times.
        let path = |c: u32| {
            let leaf = c % 250;
            format!("p/{}/{}/{}/f{c}.json", leaf % 5, leaf % 7, leaf)
        };
        let mut most = 0;
        transact(&store, |tx| {
            for c in 0..n {
                put(
                    tx,
                    &format!("file {c}"),
                    path(c),
                    format!("{{\"n\": {c}}}\n"),
                )?;
                most = most.max(tx.trees.spilled_len());
            }
            // Read back through the leaf that was moved out.
            assert_eq!(tx.read(&path(3))?, Some(b"{\"n\": 3}\n".to_vec()));
            Ok(())
        });
        assert!(most >= 200, "{most} leaves moved out at most");
        let env = host().git_env;
        fsck(store.git_dir(), &env);
        for c in [0, 1, 249, 250, 499, 599] {
            assert_eq!(
                store.read(Branch::Ledger, &path(c)).unwrap(),
                Some(format!("{{\"n\": {c}}}\n").into_bytes()),
                "{}",
                path(c)
            );
        }
        // The older versions of leaves written again are deltas, not whole.
        let idx = pack_index(&store);
        let verified = git(
            store.git_dir(),
            &env,
            &["verify-pack", "-v", idx.to_str().unwrap()],
            b"",
        );
        let trees: Vec<&str> = verified
            .lines()
            .filter(|l| l.split_whitespace().nth(1) == Some("tree"))
            .collect();
        let deltas = trees
            .iter()
            .filter(|l| l.split_whitespace().count() > 5)
            .count();
        let ids: HashSet<&str> = trees
            .iter()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(ids.len(), trees.len(), "each tree once");
        // As many whole as when nothing moves out (924 of 3,000: each
        // directory's newest version, the versions written while the
        // attempt was small, and where a chain of deltas reached its
        // bound); leaves not read back to become deltas made 1,265.
        let whole = trees.len() - deltas;
        assert!(whole <= 924, "{whole} of {} trees are whole", trees.len());
    }

    /// A transaction of more blobs and commits than [`SPOOL_AT`] moves
    /// them out of memory into its pack as it goes, reads back what it
    /// moved, and writes a pack git reads whole: a blob made again after
    /// its first copy was moved is stored once.
    #[test]
    fn a_large_transaction_spools_its_objects_and_reads_them_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_at(dir.path(), WARM_MAX);
        let body = |n: u32| format!("record {n}\n").repeat(30).into_bytes();
        let n = SPOOL_AT as u32;
        transact(&store, |tx| {
            for c in 0..n {
                // The last file has the first one's bytes.
                let bytes = body(if c == n - 1 { 0 } else { c });
                let change = Change::Put {
                    path: format!("d/{}/{}/f{c}.txt", c % 3, c % 7),
                    bytes,
                };
                tx.commit(CommitSpec::new(
                    &format!("file {c}"),
                    None,
                    Event::Init,
                    vec![change],
                )?)?;
            }
            let spooled = tx.spool.as_ref().map_or(0, PackWriter::len);
            assert!(spooled >= SPOOL_AT, "{spooled} spooled");
            assert!(tx.repo.objects.num_objects_in_memory() < SPOOL_AT);
            // A record moved out early, read back through its chain of
            // deltas.
            assert_eq!(tx.read("d/1/1/f1.txt")?, Some(body(1)));
            assert_eq!(tx.read("d/1/3/f10.txt")?, Some(body(10)));
            Ok(())
        });
        let env = host().git_env;
        fsck(store.git_dir(), &env);
        let packs = git(store.git_dir(), &env, &["count-objects", "-v"], b"");
        assert!(
            packs.contains("packs: 1\n") && packs.contains("count: 0\n"),
            "{packs}"
        );
        // Every commit, every record: n commits, n - 1 distinct blobs.
        let listed = git(
            store.git_dir(),
            &env,
            &[
                "cat-file",
                "--batch-all-objects",
                "--batch-check=%(objecttype)",
            ],
            b"",
        );
        let count = |kind: &str| listed.lines().filter(|l| *l == kind).count();
        assert_eq!(
            (count("commit"), count("blob")),
            (n as usize, n as usize - 1)
        );
        // Each of them once in the pack.
        let idx = pack_index(&store);
        let entries = git(
            store.git_dir(),
            &env,
            &["show-index"],
            &std::fs::read(idx).unwrap(),
        );
        assert_eq!(entries.lines().count(), listed.lines().count());
        let last = git(
            store.git_dir(),
            &env,
            &[
                "show",
                &format!("ledger:d/{}/{}/f{}.txt", (n - 1) % 3, (n - 1) % 7, n - 1),
            ],
            b"",
        );
        assert_eq!(last.as_bytes(), body(0));
    }

    #[test]
    fn warm_trees_are_kept_nearest_the_root_first_within_the_cap() {
        let id = |n: u8| ObjectId::from_bytes_or_panic(&[n; 20]);
        // The root, two fan-out directories, four leaves (one leaf's tree
        // shared by two directories), and a tree nobody has any more.
        let dirs = [
            ("", 1, 10),
            ("proposals", 2, 10),
            ("proposals/A", 3, 20),
            ("proposals/A/B", 4, 100),
            ("proposals/A/C", 5, 100),
            ("proposals/A/D", 6, 100),
            ("proposals/A/E", 6, 100),
        ];
        let newest: HashMap<String, ObjectId> = dirs
            .iter()
            .map(|(p, n, _)| (p.to_string(), id(*n)))
            .collect();
        let mut whole: HashMap<ObjectId, Vec<u8>> = dirs
            .iter()
            .map(|(_, n, len)| (id(*n), vec![0; *len]))
            .collect();
        whole.insert(id(9), vec![0; 1000]);
        let ids = |v: &[u8]| v.iter().map(|n| id(*n)).collect::<HashSet<_>>();
        // Everything fits (the shared tree counted once, the orphan not at
        // all): every directory's tree.
        assert_eq!(warm_share(&newest, &whole, 340), ids(&[1, 2, 3, 4, 5, 6]));
        // Not all of it: the shallow ones, then leaves while they fit.
        let some = warm_share(&newest, &whole, 339);
        assert!(some.is_superset(&ids(&[1, 2, 3])), "{some:?}");
        assert_eq!(some.len(), 5, "{some:?}");
        assert_eq!(warm_share(&newest, &whole, 45), ids(&[1, 2, 3]));
        assert_eq!(warm_share(&newest, &whole, 25), ids(&[1, 2]));
        assert!(warm_share(&newest, &whole, 5).is_empty());
    }
}
