//! Recall: the lessons of every pool that a project's installed versions
//! make relevant, found through the index's name table rather than by
//! reading every pool entry.
//!
//! The project is scanned ([`crate::recall::stack::scan`]; none when the
//! caller found no project and recalls for `--stack` alone), `--stack`
//! overrides applied, and the index asked for the pool entries that name an
//! installed package (by the coarse name form every ecosystem's name rule
//! refines), plus the successors of any superseded ones among them. Those
//! *thin* lessons are what selection reads; a caller that prints more than
//! claim, scope and resolution (JSON output, exports) asks for the full
//! entries, read from their pools. Lessons touched by commits that do not
//! verify are never recalled, nor a second lesson of one moment (two
//! active entries made from one artifact: [`crate::recall::moments`]).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::{Lore, LoreError};
use crate::model::{Id, Lesson, Source};
use crate::recall::stack::{self, Limits, Override, Stack};
use crate::recall::summary::Summary;
use crate::recall::Links;
use crate::review::relation::records;
use crate::store::{layout, Branch, Index, StoreError};
use crate::version::coarse_name;

/// What recall works from.
pub struct Gathered {
    /// What the project has installed (with overrides), and what could
    /// not be read.
    pub stack: Stack,
    /// The lessons to decide on.
    pub lessons: Vec<Lesson>,
    /// Lessons left out because a commit that does not verify touched them.
    pub unverified: usize,
    /// The refinement links of the gathered lessons.
    pub links: Links,
}

/// How much of each lesson to gather.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// What selection and text or markdown output read (from the index).
    Thin,
    /// The whole pool entry (read from its pool).
    Full,
}

/// Scans `project` (when there is one: `None` recalls for the overrides
/// alone), applies `overrides`, and gathers the lessons that name an
/// installed package — or, with `all`, every lesson of every pool.
/// `untrusted` are ids that must not be recalled.
pub fn gather(
    lore: &Lore,
    project: Option<&Path>,
    overrides: &[Override],
    all: bool,
    depth: Depth,
    untrusted: &HashSet<Id>,
) -> Result<Gathered, LoreError> {
    let mut stack = project.map_or_else(Stack::default, |p| stack::scan(p, &Limits::default()));
    stack.apply_overrides(overrides);
    let index = Index::load(&lore.store)?;
    let mut chosen: BTreeMap<Id, Summary> = BTreeMap::new();
    if all {
        for s in index.summaries() {
            chosen.insert(s.id, s);
        }
    } else {
        let names: Vec<String> = stack
            .packages
            .iter()
            .map(|p| coarse_name(&p.name))
            .collect();
        let candidates = index.recall_candidates(names.iter().map(String::as_str));
        for s in index.summaries_of(&candidates) {
            chosen.insert(s.id, s);
        }
        // A superseded lesson points at its successor: selection resolves
        // the chain only through lessons it is given.
        let mut next: Vec<Id> = chosen.values().filter_map(|s| s.superseded_by).collect();
        while let Some(id) = next.pop() {
            if chosen.contains_key(&id) {
                continue;
            }
            if let Some(s) = index.summary(id) {
                next.extend(s.superseded_by);
                chosen.insert(id, s);
            }
        }
    }
    let before = chosen.len();
    chosen.retain(|id, _| !untrusted.contains(id));
    let unverified = before - chosen.len();
    // One lesson per moment (crate::recall::moments).
    let twins = crate::recall::moments::left_out(chosen.values());
    chosen.retain(|id, _| !twins.contains(id));
    let lessons = match depth {
        Depth::Thin => chosen.values().map(Summary::lesson).collect(),
        Depth::Full => chosen
            .values()
            .map(|s| full(lore, s))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect(),
    };
    let links = links(lore, &chosen)?;
    Ok(Gathered {
        stack,
        lessons,
        unverified,
        links,
    })
}

/// The refinement records of every pool that touch one of `chosen`: one
/// listing of each pool's `relations/`, which holds a record per link, not
/// per lesson.
fn links(lore: &Lore, chosen: &BTreeMap<Id, Summary>) -> Result<Links, LoreError> {
    let mut out = Links::new();
    for pool in [Source::Local, Source::Org, Source::Public] {
        let Some(tip) = lore.store.tip(Branch::Pool(pool))? else {
            continue;
        };
        for (path, _) in lore.store.paths_at(tip, records::RELATIONS_DIR)? {
            let Some(records::RelationPath::Relation { from, to }) = records::classify(&path)
            else {
                continue;
            };
            if chosen.contains_key(&from) {
                out.entry(from).or_default().refines.push(to);
            }
            if chosen.contains_key(&to) {
                out.entry(to).or_default().refined_by.push(from);
            }
        }
    }
    Ok(out)
}

/// The whole pool entry a summary stands for, if its pool still has it.
fn full(lore: &Lore, s: &Summary) -> Result<Option<Lesson>, LoreError> {
    let branch = Branch::Pool(s.source);
    let path = layout::lesson_path(s.id);
    let Some(bytes) = lore.store.read(branch, &path)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|source| {
        StoreError::Unparsable {
            branch: branch.to_string(),
            path,
            source,
            then: "",
        }
        .into()
    })
}
