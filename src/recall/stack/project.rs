//! Where a project is, when no `--project` names it.
//!
//! A **project** is a directory holding a manifest or lockfile of an
//! ecosystem git-lore knows ([`is_marker`]): `package.json`,
//! `pnpm-workspace.yaml`, `Cargo.toml`, `pyproject.toml`, `setup.py`,
//! `setup.cfg`, `Pipfile`, `go.work`, `Gemfile`, `gems.rb`,
//! `composer.json`, or any lockfile recall reads (plus `bun.lockb` and
//! `Pipfile.lock`, which it names but does not read).
//!
//! [`locate`] looks from a start directory upward and takes the nearest
//! directory holding a **lockfile** (where a package manager puts it: the
//! workspace root, so a session in `packages/ui` recalls for the whole
//! workspace); when no directory up there has one, the nearest holding a
//! **manifest**. The search stops at the top of the git work tree the start
//! is in (the directory holding `.git`), and below the home directory and
//! the filesystem root, which are never taken for a project: a stray
//! `package.json` in a home directory must not make every directory under
//! it one. A start directory that is the home directory or the root is
//! outside any project.
//!
//! This file owns the search only: what is read inside a project is the
//! scan's (`super::scan`).

use std::path::{Path, PathBuf};

use super::members::Manifest;
use super::Format;

/// Manifests that make a directory a project but declare no members
/// recall reads.
const OTHER_MANIFESTS: &[&str] = &[
    "setup.py",
    "setup.cfg",
    "Pipfile",
    "Gemfile",
    "gems.rb",
    "composer.json",
];

/// Lockfiles recall does not read but that still make a directory a
/// project.
const OTHER_LOCKFILES: &[&str] = &["bun.lockb", "Pipfile.lock"];

/// What a file name says about its directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Lockfile,
    Manifest,
}

/// Whether a file name makes its directory a project, and how.
pub fn is_marker(name: &str) -> Option<Marker> {
    if Format::of_file_name(name).is_some() || OTHER_LOCKFILES.contains(&name) {
        Some(Marker::Lockfile)
    } else if Manifest::of_file_name(name).is_some() || OTHER_MANIFESTS.contains(&name) {
        Some(Marker::Manifest)
    } else {
        None
    }
}

/// Where the upward search stopped without finding a project.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Boundary {
    /// The top of the git work tree the start is in.
    GitTop(PathBuf),
    /// Below the home directory.
    Home,
    /// Below the filesystem root.
    Root,
}

/// Why no project was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProjectError {
    /// No manifest or lockfile from the start up to the boundary.
    #[error("{} is not inside a project: no manifest or lockfile there or above it, up to {}", .start.display(), describe(.boundary))]
    Outside { start: PathBuf, boundary: Boundary },
    /// The start is the home directory or the filesystem root.
    #[error("{} is {}, which is never taken for a project", .start.display(), if *.home { "your home directory" } else { "the filesystem root" })]
    NotAProjectDir { start: PathBuf, home: bool },
    /// The start directory cannot be read.
    #[error("cannot read the directory {}: {source}", .start.display())]
    Unreadable {
        start: PathBuf,
        #[source]
        source: crate::cause::IoCause,
    },
}

fn describe(b: &Boundary) -> String {
    match b {
        Boundary::GitTop(top) => format!("the top of its git work tree, {}", top.display()),
        Boundary::Home => "your home directory".to_owned(),
        Boundary::Root => "the filesystem root".to_owned(),
    }
}

/// The most directories the upward search looks at.
const MAX_LEVELS: usize = 64;

/// The most entries read from one directory while looking for markers.
const MAX_ENTRIES: usize = 20_000;

/// Finds the project `start` is in (see the module doc). `home` is the
/// user's home directory, when known.
pub fn locate(start: &Path, home: Option<&Path>) -> Result<PathBuf, ProjectError> {
    let start = start.canonicalize().map_err(|e| ProjectError::Unreadable {
        start: start.to_path_buf(),
        source: e.into(),
    })?;
    let home = home.and_then(|h| h.canonicalize().ok());
    let is_home = |d: &Path| home.as_deref() == Some(d);
    if is_home(&start) || start.parent().is_none() {
        return Err(ProjectError::NotAProjectDir {
            home: is_home(&start),
            start,
        });
    }
    let mut manifest: Option<PathBuf> = None;
    let mut boundary = Boundary::Root;
    for dir in start.ancestors().take(MAX_LEVELS) {
        if is_home(dir) {
            boundary = Boundary::Home;
            break;
        }
        if dir.parent().is_none() {
            break;
        }
        match markers(dir) {
            Some(Marker::Lockfile) => return Ok(dir.to_path_buf()),
            Some(Marker::Manifest) => {
                manifest.get_or_insert_with(|| dir.to_path_buf());
            }
            None => {}
        }
        if dir.join(".git").symlink_metadata().is_ok() {
            boundary = Boundary::GitTop(dir.to_path_buf());
            break;
        }
    }
    manifest.ok_or(ProjectError::Outside { start, boundary })
}

/// The strongest marker among a directory's regular files: a lockfile
/// before a manifest. Symbolic links do not count; an unreadable directory
/// has none.
fn markers(dir: &Path) -> Option<Marker> {
    let mut best = None;
    for entry in std::fs::read_dir(dir).ok()?.take(MAX_ENTRIES).flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Some(m) = is_marker(&name) else { continue };
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        if m == Marker::Lockfile {
            return Some(m);
        }
        best = Some(m);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(root: &Path, rel: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"").unwrap();
    }

    #[test]
    fn markers_are_manifests_and_lockfiles() {
        assert_eq!(is_marker("pnpm-lock.yaml"), Some(Marker::Lockfile));
        assert_eq!(is_marker("requirements-dev.txt"), Some(Marker::Lockfile));
        assert_eq!(is_marker("bun.lockb"), Some(Marker::Lockfile));
        assert_eq!(is_marker("Cargo.toml"), Some(Marker::Manifest));
        assert_eq!(is_marker("composer.json"), Some(Marker::Manifest));
        assert_eq!(is_marker("README.md"), None);
        assert_eq!(is_marker("Makefile"), None);
    }

    /// The nearest lockfile wins over a nearer manifest (a workspace
    /// member's `package.json`), a manifest is taken when no lockfile is
    /// found, and the search stops at the git top and at home.
    #[test]
    fn the_nearest_lockfile_then_the_nearest_manifest() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let repo = home.join("src/app");
        touch(&repo, "package.json");
        touch(&repo, "pnpm-lock.yaml");
        touch(&repo, "packages/ui/package.json");
        touch(&repo, "packages/ui/src/x.ts");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let canon = |p: &Path| p.canonicalize().unwrap();
        let at = |rel: &str| locate(&repo.join(rel), Some(&home));
        assert_eq!(at("packages/ui/src"), Ok(canon(&repo)));
        assert_eq!(at("."), Ok(canon(&repo)));

        // No lockfile: the nearest manifest.
        let lib = home.join("src/lib");
        touch(&lib, "Cargo.toml");
        touch(&lib, "crates/a/Cargo.toml");
        std::fs::create_dir_all(lib.join(".git")).unwrap();
        assert_eq!(
            locate(&lib.join("crates/a"), Some(&home)),
            Ok(canon(&lib.join("crates/a")))
        );

        // A git work tree without a marker: its top stops the search, even
        // with a lockfile above it.
        touch(&home, "src/package-lock.json");
        let bare = home.join("src/notes");
        std::fs::create_dir_all(bare.join(".git")).unwrap();
        std::fs::create_dir_all(bare.join("docs")).unwrap();
        assert_eq!(
            locate(&bare.join("docs"), Some(&home)),
            Err(ProjectError::Outside {
                start: canon(&bare.join("docs")),
                boundary: Boundary::GitTop(canon(&bare)),
            })
        );
        // Outside git, the lockfile above counts.
        std::fs::create_dir_all(home.join("src/loose/deeper")).unwrap();
        assert_eq!(
            locate(&home.join("src/loose/deeper"), Some(&home)),
            Ok(canon(&home.join("src")))
        );
    }

    #[test]
    fn home_and_root_are_never_projects() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        touch(&home, "package.json");
        touch(&home, "package-lock.json");
        std::fs::create_dir_all(home.join("notes")).unwrap();
        let canon = |p: &Path| p.canonicalize().unwrap();
        let e = locate(&home, Some(&home)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{} is your home directory, which is never taken for a project",
                canon(&home).display()
            )
        );
        let e = locate(&home.join("notes"), Some(&home)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{} is not inside a project: no manifest or lockfile there or above it, up to your home directory",
                canon(&home.join("notes")).display()
            )
        );
        assert_eq!(
            locate(Path::new("/"), None).unwrap_err().to_string(),
            "/ is the filesystem root, which is never taken for a project"
        );
        let e = locate(Path::new("/nonexistent/git-lore"), None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cannot read the directory /nonexistent/git-lore: "),
            "{e}"
        );
    }
}
