//! What may leave the machine: the check behind the pre-push hook.
//!
//! The ledger (every proposal, decline and verdict) and `pool/local`
//! (private lessons) never leave the machine, whatever ref, tag, object id
//! or revision expression names them, and however a commit carrying their
//! content was made. The guard decides by what a push would send, not by
//! names or ancestry:
//!
//! - **What is sent**: for each pushed tip, the commits reachable from it
//!   and from none of the remote values git hands the hook (`<remote sha>`:
//!   what the remote has is not sent), and of each such commit the trees
//!   and blobs its tree holds beyond its parents' ([`Store::introduced`]).
//!   When the push goes to the URL of a tier's remote, that remote's last
//!   verified tip counts as the remote's too (`refs/lore/remotes/<tier>`,
//!   which only `sync` and `publish` write, once its whole history verified
//!   by the pool's rules, which no ledger or `pool/local` content passes):
//!   a pull request's new `review/<id>` branch is then walked to the pool it
//!   was made on, not through the pool's whole history (minutes, at a
//!   million lessons). Otherwise a new branch name is walked to its root:
//!   this over-counts when the remote has more, never under-counts.
//! - **What is private**: every blob the ledger or `pool/local` ever held
//!   outside `.lore/` — every version of every record — and the tree of
//!   each of their commits that holds records. The index knows them
//!   ([`Index::private`]), so a push costs a look-up per object it sends.
//!
//! A push is refused, one [`Refusal`] per pushed ref, naming the rule
//! ([`Problem::rule`]), the object and where it comes from, when:
//! `commit-only` a pushed name is not a commit (a tree or a blob of the
//! repository could be anything), or names nothing here; `private-tree`
//! a pushed tip's tree (sent or not: no name may reach one), a sent
//! commit's tree or a tree it brings is a private tree; `private-record`
//! a sent blob is a private record; `ledger-records` a sent commit brings
//! `proposals/` or `declined/` at its top, however its records were made.
//! Deleting a remote ref is always allowed.
//!
//! It reads the repository and brings the index up to date, nothing else:
//! no model, no network, no output. Client hooks can be skipped (`git push
//! --no-verify`, `core.hooksPath`, a clone without the hook); the pool
//! host's pre-receive check is the other half.

use std::collections::HashMap;
use std::ops::ControlFlow;

use gix::ObjectId;

use super::{short, Lore};
use crate::model::Source;
use crate::store::index::{Held, Private, Record};
use crate::store::{Branch, Index, ObjectKind, Store, StoreError};

/// Why the guard could not decide; the push is refused either way.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// A line of git's pre-push input that does not read.
    #[error("pre-push input: not `<local ref> <sha> <remote ref> <sha>`: {line:?}; git runs `git lore hook pre-push` with one such line per ref on stdin")]
    BadLine { line: String },
    /// The lesson repository or its index could not be read.
    #[error("the pre-push guard could not read the lesson repository, so it refuses the push")]
    Store(#[from] StoreError),
}

/// One line of what git hands a pre-push hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushUpdate {
    pub local_ref: String,
    /// `None`: the remote ref is being deleted.
    pub local: Option<ObjectId>,
    pub remote_ref: String,
    /// What the remote ref is now; `None` when it does not exist yet.
    pub remote: Option<ObjectId>,
}

/// Why a push must not happen: the rule, the object and where it comes
/// from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A pushed object that is not in this repository.
    Missing { id: ObjectId },
    /// A pushed name that peels to something other than a commit.
    NotACommit { id: ObjectId, kind: ObjectKind },
    /// A private tree: `commit`'s tree (`path` empty) or a tree it holds
    /// at `path`.
    PrivateTree {
        commit: ObjectId,
        path: String,
        tree: ObjectId,
        private: Private,
    },
    /// A private blob, at `path` in `commit`.
    PrivateRecord {
        commit: ObjectId,
        path: String,
        blob: ObjectId,
        private: Private,
    },
    /// `commit` brings a top-level `dir` that only the ledger has.
    LedgerRecords { commit: ObjectId, dir: String },
}

impl Problem {
    /// The rule it breaks, as refusals name it.
    pub fn rule(&self) -> &'static str {
        match self {
            Problem::Missing { .. } | Problem::NotACommit { .. } => "commit-only",
            Problem::PrivateTree { .. } => "private-tree",
            Problem::PrivateRecord { .. } => "private-record",
            Problem::LedgerRecords { .. } => "ledger-records",
        }
    }

    /// Whether it is a commit of a private branch itself: its tree is
    /// the tree of that very commit.
    fn own_commit(&self) -> bool {
        matches!(
            self,
            Problem::PrivateTree {
                commit,
                path,
                private: Private {
                    what: Held::Tree { commit: own },
                    ..
                },
                ..
            } if path.is_empty() && own == commit
        )
    }

    /// The private object it is about, when that is not simply a commit
    /// of a private branch: what a person looks for in the history of what
    /// they pushed (`git log --all --find-object=…`).
    pub fn private_object(&self) -> Option<ObjectId> {
        if self.own_commit() {
            return None;
        }
        match self {
            Problem::PrivateTree { tree, .. } => Some(*tree),
            Problem::PrivateRecord { blob, .. } => Some(*blob),
            _ => None,
        }
    }
}

/// A branch as prose names it.
fn branch_name(b: Branch) -> &'static str {
    match b {
        Branch::Ledger => "the ledger",
        b => b.name(),
    }
}

/// Where a private object comes from, in words.
fn origin(p: &Private) -> String {
    let of = branch_name(p.branch);
    match p.what {
        Held::Tree { commit } => format!("the tree of commit {} of {of}", short(&commit)),
        Held::File { commit } => {
            format!(
                "a file of {of} (first held by its commit {})",
                short(&commit)
            )
        }
        Held::Record { record, id } => {
            let what = match record {
                Record::Proposal => format!("proposal {id}"),
                Record::Decline => format!("the decline record of artifact {id}"),
                Record::Lesson => format!("lesson {id}"),
                Record::Relation => format!("a relation record of lesson {id}"),
                Record::CounterObservation => format!("a counter-observation against lesson {id}"),
                Record::Related => format!("the judgment record of lesson {id}"),
                Record::Upheld => format!("an upheld record of lesson {id}"),
            };
            format!("a version of {what} of {of}")
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const NEVER: &str = "which never leaves this machine";
        match self {
            Problem::Missing { id } => write!(f, "object {id} is not in this repository"),
            Problem::NotACommit { id, kind } => write!(
                f,
                "{} names a {kind}, and only commits of pool/org and pool/public may be pushed",
                short(id)
            ),
            Problem::PrivateTree {
                commit,
                path,
                tree,
                private,
            } => match private.what {
                _ if self.own_commit() => write!(
                    f,
                    "commit {} is a commit of {}, {NEVER}",
                    short(commit),
                    branch_name(private.branch)
                ),
                _ if path.is_empty() => write!(
                    f,
                    "the tree {} of commit {} is {}, {NEVER}",
                    short(tree),
                    short(commit),
                    origin(private)
                ),
                _ => write!(
                    f,
                    "the tree {} at {path} in commit {} is {}, {NEVER}",
                    short(tree),
                    short(commit),
                    origin(private)
                ),
            },
            Problem::PrivateRecord {
                commit,
                path,
                blob,
                private,
            } => write!(
                f,
                "blob {} at {path} in commit {} is {}, {NEVER}",
                short(blob),
                short(commit),
                origin(private)
            ),
            Problem::LedgerRecords { commit, dir } => write!(
                f,
                "commit {} holds ledger records ({dir}/), which never leave this machine",
                short(commit)
            ),
        }
    }
}

/// A push of one ref that must not happen, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub local_ref: String,
    pub remote_ref: String,
    pub problem: Problem,
}

/// Top-level directories that only the ledger holds.
const LEDGER_DIRS: [&str; 2] = ["proposals", "declined"];

/// Reads git's pre-push input: `<local ref> <local sha> <remote ref>
/// <remote sha>` per line.
pub fn parse_pre_push(text: &str) -> Result<Vec<PushUpdate>, GuardError> {
    let bad = |line: &str| GuardError::BadLine {
        line: line.chars().take(120).collect(),
    };
    let sha = |s: &str, line: &str| {
        ObjectId::from_hex(s.as_bytes())
            .map(|id| (!id.is_null()).then_some(id))
            .map_err(|_| bad(line))
    };
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(' ').collect();
        let [local_ref, local, remote_ref, remote] = f[..] else {
            return Err(bad(line));
        };
        out.push(PushUpdate {
            local_ref: local_ref.to_owned(),
            local: sha(local, line)?,
            remote_ref: remote_ref.to_owned(),
            remote: sha(remote, line)?,
        });
    }
    Ok(out)
}

/// Every update in `updates`, pushed to `url` (what git hands the hook, if
/// it did), that would send private content, or give a name to a private
/// tree.
pub fn check_push(
    lore: &Lore,
    updates: &[PushUpdate],
    url: Option<&str>,
) -> Result<Vec<Refusal>, GuardError> {
    let store = &lore.store;
    let index = Index::load(store)?;
    // What the remote has: the commits its refs name, and the last verified
    // tip of the tier whose remote it is, where this repository has them
    // (one it lacks hides nothing).
    let mut hidden: Vec<ObjectId> = Vec::new();
    let verified = [Source::Org, Source::Public]
        .into_iter()
        .filter(|tier| url.is_some() && store.remote_url(tier.as_str()).as_deref() == url)
        .map(|tier| store.ref_tip(&super::remote::verified_ref(tier)))
        .collect::<Result<Vec<_>, _>>()?;
    for id in updates
        .iter()
        .filter_map(|u| u.remote)
        .chain(verified.into_iter().flatten())
    {
        if let Some((ObjectKind::Commit, commit)) = store.peel(id)? {
            if !hidden.contains(&commit) {
                hidden.push(commit);
            }
        }
    }
    let mut checked: HashMap<ObjectId, Option<Problem>> = HashMap::new();
    let mut refusals = Vec::new();
    for u in updates {
        let Some(local) = u.local else { continue };
        let problem = match store.peel(local)? {
            None => Some(Problem::Missing { id: local }),
            Some((ObjectKind::Commit, commit)) => {
                sent_problem(store, &index, commit, &hidden, &mut checked)?
            }
            Some((kind, _)) => Some(Problem::NotACommit { id: local, kind }),
        };
        if let Some(problem) = problem {
            refusals.push(Refusal {
                local_ref: u.local_ref.clone(),
                remote_ref: u.remote_ref.clone(),
                problem,
            });
        }
    }
    Ok(refusals)
}

/// The first problem with pushing `tip` to a remote that has `hidden`:
/// its own tree first, then each commit it would send, newest first.
fn sent_problem(
    store: &Store,
    index: &Index,
    tip: ObjectId,
    hidden: &[ObjectId],
    checked: &mut HashMap<ObjectId, Option<Problem>>,
) -> Result<Option<Problem>, GuardError> {
    let tree = store.tree_of(tip)?;
    if let Some(private) = index.private(tree) {
        return Ok(Some(Problem::PrivateTree {
            commit: tip,
            path: String::new(),
            tree,
            private,
        }));
    }
    for commit in store.new_commits(tip, hidden)? {
        let problem = match checked.get(&commit) {
            Some(p) => p.clone(),
            None => {
                let p = commit_problem(store, index, commit)?;
                checked.insert(commit, p.clone());
                p
            }
        };
        if problem.is_some() {
            return Ok(problem);
        }
    }
    Ok(None)
}

/// The first private object `commit` brings beyond its parents, else the
/// first ledger directory it brings.
fn commit_problem(
    store: &Store,
    index: &Index,
    commit: ObjectId,
) -> Result<Option<Problem>, GuardError> {
    let mut found = None;
    let mut ledger_dir = None;
    // Whether it stopped is `found`.
    let _ = store.introduced(commit, &mut |o| {
        if let Some(private) = index.private(o.id) {
            let path = o.path.clone();
            found = Some(if o.tree {
                Problem::PrivateTree {
                    commit,
                    path,
                    tree: o.id,
                    private,
                }
            } else {
                Problem::PrivateRecord {
                    commit,
                    path,
                    blob: o.id,
                    private,
                }
            });
            return ControlFlow::Break(());
        }
        if o.tree && ledger_dir.is_none() && LEDGER_DIRS.contains(&o.path.as_str()) {
            ledger_dir = Some(o.path.clone());
        }
        ControlFlow::Continue(())
    })?;
    Ok(found.or(ledger_dir.map(|dir| Problem::LedgerRecords { commit, dir })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Id, Source};

    #[test]
    fn pre_push_lines_are_read_strictly() {
        let zero = "0".repeat(40);
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let text = format!(
            "refs/heads/pool/org {a} refs/heads/pool/org {zero}\n(delete) {zero} refs/heads/x {b}\n"
        );
        let u = parse_pre_push(&text).unwrap();
        assert_eq!(u.len(), 2);
        let id = |s: &str| Some(ObjectId::from_hex(s.as_bytes()).unwrap());
        assert_eq!((u[0].local, u[0].remote), (id(&a), None));
        assert_eq!((u[1].local, u[1].remote), (None, id(&b)));
        for bad in [
            "refs/heads/x abc refs/heads/x".to_owned(),
            format!("a {a} b {a} extra"),
            format!("a {a} b xyz"),
        ] {
            let e = parse_pre_push(&bad).unwrap_err().to_string();
            assert!(
                e.starts_with("pre-push input: not `<local ref> <sha> <remote ref> <sha>`: "),
                "{e}"
            );
        }
    }

    #[test]
    fn refusals_say_what_the_object_is_and_where_it_comes_from() {
        let oid = |b: u8| ObjectId::from_bytes_or_panic(&[b; 20]);
        let id: Id = "01KZ45MKAM734ZS7JK24D2DK0R".parse().unwrap();
        let local = Branch::Pool(Source::Local);
        let blob = Problem::PrivateRecord {
            commit: oid(0xab),
            path: "notes/copy.json".into(),
            blob: oid(0x1a),
            private: Private {
                branch: local,
                what: Held::Record {
                    record: Record::Lesson,
                    id,
                },
            },
        };
        assert_eq!(
            blob.to_string(),
            format!("blob 1a1a1a1a1a1a at notes/copy.json in commit abababababab is a version of lesson {id} of pool/local, which never leaves this machine")
        );
        assert_eq!(blob.rule(), "private-record");
        let own = Problem::PrivateTree {
            commit: oid(2),
            path: String::new(),
            tree: oid(3),
            private: Private {
                branch: Branch::Ledger,
                what: Held::Tree { commit: oid(2) },
            },
        };
        assert_eq!(
            own.to_string(),
            "commit 020202020202 is a commit of the ledger, which never leaves this machine"
        );
        let copy = Problem::PrivateTree {
            commit: oid(4),
            path: String::new(),
            tree: oid(3),
            private: Private {
                branch: Branch::Ledger,
                what: Held::Tree { commit: oid(2) },
            },
        };
        assert_eq!(
            copy.to_string(),
            "the tree 030303030303 of commit 040404040404 is the tree of commit 020202020202 of the ledger, which never leaves this machine"
        );
        assert_eq!(copy.rule(), "private-tree");
        assert_eq!(copy.private_object(), Some(oid(3)));
    }
}
