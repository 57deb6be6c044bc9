//! Whose keys count: the [`Policy`] a range of commits is checked by, the
//! pins it reads (`<gitdir>/pins/<tier>`), and the allowed signers in force
//! at each commit (the ledger's, or a pool's `.lore/allowed_signers` at the
//! commit's parent, parsed once per file).

use std::collections::HashMap;

use gix::ObjectId;

use crate::model::Source;
use crate::ops::{Env, LoreError};
use crate::signing::{self, AllowedSigners, SignatureStatus};
use crate::store::layout::POOL_ALLOWED_SIGNERS;
use crate::store::{Branch, CommitInfo, Store};

/// Whose signatures a check trusts beyond each pool's own list, and when
/// it is checked.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Keys that may sign each pool's first commit (the repository's own
    /// keys are added when [`Policy::own_keys`] is set).
    pub roots: HashMap<Source, AllowedSigners>,
    /// Whether this repository's own keys (its ledger signers) are trusted
    /// everywhere: true for local checks, false for what goes to or comes
    /// from a remote.
    pub own_keys: bool,
    /// The ledger's signers, when there is a ledger (not on a host).
    pub ledger: AllowedSigners,
    /// Now, as the caller's clock says: no commit may be dated later than
    /// this by more than the skew `commit.rs` allows.
    pub now: jiff::Timestamp,
}

impl Policy {
    /// The local policy: own keys everywhere, roots pinned per remote.
    pub(crate) fn local(store: &Store, env: &Env) -> Result<Policy, LoreError> {
        Ok(Policy {
            roots: pins(store)?,
            own_keys: true,
            ledger: crate::ops::ledger_allowed_signers(store, env)?,
            now: env.now,
        })
    }

    /// A pool host's policy: `roots` may sign each pool's first commit,
    /// nobody's keys are trusted beyond each pool's own list.
    pub fn host(roots: HashMap<Source, AllowedSigners>, now: jiff::Timestamp) -> Policy {
        Policy {
            roots,
            own_keys: false,
            ledger: AllowedSigners::default(),
            now,
        }
    }

    /// The policy for history shared with a remote: each pool's own list,
    /// roots signed by our own or pinned keys.
    pub(crate) fn remote(store: &Store, env: &Env) -> Result<Policy, LoreError> {
        Ok(Policy {
            own_keys: false,
            ..Policy::local(store, env)?
        })
    }

    fn root_signers(&self, tier: Source) -> AllowedSigners {
        let pinned = self.roots.get(&tier).cloned().unwrap_or_default();
        pinned.union(&self.ledger)
    }
}

/// Where the pins of `tier` are kept, relative to the git dir.
pub fn pins_path(tier: Source) -> String {
    format!("pins/{}", tier.as_str())
}

/// The pinned root signers of every tier.
pub(crate) fn pins(store: &Store) -> Result<HashMap<Source, AllowedSigners>, LoreError> {
    let mut out = HashMap::new();
    for tier in [Source::Org, Source::Public] {
        let path = store.git_dir().join(pins_path(tier));
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => {
                return Err(LoreError::File {
                    what: "cannot read the pinned signers",
                    path,
                    source,
                })
            }
        };
        let list = AllowedSigners::parse(&text).map_err(|e| LoreError::Input {
            what: path.display().to_string(),
            why: e.to_string(),
        })?;
        out.insert(tier, list);
    }
    Ok(out)
}

/// Caches allowed-signers lists by the file they are read from: a pool's
/// `.lore/allowed_signers` changes rarely, so the commits of a long history
/// share a handful of files. Each commit's parent is still looked up (its
/// tree's entry for the file), only the parsing is shared.
pub(super) struct Trust<'a> {
    store: &'a Store,
    policy: &'a Policy,
    /// The root signers of each pool, and the list each blob id (or no
    /// file: `None`) of each pool gives.
    pool_files: HashMap<(Source, SignersAt), AllowedSigners>,
}

/// Where a pool commit's allowed signers come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum SignersAt {
    /// A root commit: the policy's root signers.
    Root,
    /// The file at the first parent: its blob id, `None` when there is none.
    File(Option<ObjectId>),
}

impl<'a> Trust<'a> {
    pub(super) fn new(store: &'a Store, policy: &'a Policy) -> Trust<'a> {
        Trust {
            store,
            policy,
            pool_files: HashMap::new(),
        }
    }

    fn allowed_for(
        &mut self,
        branch: Branch,
        info: &CommitInfo,
    ) -> Result<&AllowedSigners, LoreError> {
        let tier = match branch {
            Branch::Pool(tier) => tier,
            Branch::Ledger => return Ok(&self.policy.ledger),
        };
        let at = match info.parents.first() {
            None => SignersAt::Root,
            Some(p) => SignersAt::File(
                self.store
                    .blob_id_in_tree(self.store.tree_of(*p)?, POOL_ALLOWED_SIGNERS)?,
            ),
        };
        let key = (tier, at);
        if !self.pool_files.contains_key(&key) {
            let list = match at {
                SignersAt::Root => self.policy.root_signers(tier),
                SignersAt::File(blob) => {
                    let text = match blob {
                        Some(id) => String::from_utf8_lossy(&self.store.blob(id)?).into_owned(),
                        None => String::new(),
                    };
                    let list = AllowedSigners::parse(&text).unwrap_or_default();
                    if self.policy.own_keys {
                        list.union(&self.policy.ledger)
                    } else {
                        list
                    }
                }
            };
            self.pool_files.insert(key, list);
        }
        Ok(&self.pool_files[&key])
    }

    pub(super) fn status(
        &mut self,
        branch: Branch,
        info: &CommitInfo,
    ) -> Result<SignatureStatus, LoreError> {
        let Some(sig) = &info.signature else {
            return Ok(SignatureStatus::Unsigned);
        };
        let at = jiff::Timestamp::from_second(info.time).ok();
        let allowed = self.allowed_for(branch, info)?;
        Ok(signing::verify_ssh(&info.payload, sig, allowed, at))
    }
}
