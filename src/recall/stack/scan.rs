//! Reading a project for lockfiles and turning what they pin into a
//! [`Stack`].
//!
//! Rules:
//!
//! - The scan reads the project directory and the **workspace members its
//!   manifests declare** (`package.json` `workspaces`,
//!   `pnpm-workspace.yaml`, Cargo `[workspace] members`, uv workspaces,
//!   Poetry path dependencies, `go.work`; see `super::members`), and no
//!   other directory: a lockfile in an undeclared subdirectory (a test
//!   fixture, a vendored project, another repository checked out inside) is
//!   not the project's. Members' own manifests are not followed further.
//! - Member patterns are globs relative to the project; the directories
//!   they match are found by a walk that goes no deeper than the pattern
//!   (or [`Limits::max_depth`] levels for `**`), skips `node_modules`,
//!   `target`, `vendor`, `venv`, `dist`, `build`, `__pycache__`,
//!   `bower_components` and hidden directories, and never follows a
//!   symbolic link. A matched directory is a member only if it holds a
//!   manifest or lockfile. A pattern that leaves the project (`..`, an
//!   absolute path) is reported and not read.
//! - Bounds: [`Limits::max_entries`] directory entries looked at and
//!   [`Limits::max_files`] files parsed in all; each file read up to
//!   [`Limits::max_bytes`] (a larger one is a problem, not a partial
//!   read). Hitting a bound is reported.
//! - In each directory, per ecosystem, the best-ranked format present is
//!   used ([`Format::rank`]: a lockfile before a looser manifest, e.g.
//!   `uv.lock` before `requirements*.txt`, `go.mod` before `go.sum`); the
//!   others are reported as shadowed. If the best one cannot be parsed, it
//!   is reported as a problem and the next one is tried. All
//!   `requirements*.txt` of a directory are read together.
//! - A malformed file is a problem naming the file and what is wrong; it
//!   never stops the scan. A parser that panics (it should not; they are
//!   tested against garbage and fuzzed) is caught and reported the same
//!   way.
//! - Packages are attributed to the workspace `<member dir>/<workspace
//!   inside the lockfile>`, and de-duplicated on (ecosystem, normalised
//!   name, version, workspace): the first source in scan order is kept.
//!
//! Which directory is the project is `super::project`'s. This file owns
//! the reading of one project and the merge; parsing is the format
//! modules'.

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};
use std::fs;
use std::io::Read;
use std::path::Path;

use super::members::{Declared, Manifest};
use super::project::is_marker;
use super::{
    Format, Installed, Member, Package, Parsed, SourceFile, SourceUse, Stack, StackError,
    StackProblem, MAX_LOCKFILE_BYTES, MAX_MANIFEST_BYTES,
};
use crate::version::Ecosystem;

/// Directory names the member walk never enters (besides hidden ones).
const SKIPPED_DIRS: &[&str] = &[
    "node_modules",
    "target",
    "vendor",
    "venv",
    "dist",
    "build",
    "__pycache__",
    "bower_components",
];

/// Bounds on a scan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How deep below the project a `**` member pattern is followed (the
    /// project itself is 0).
    pub max_depth: usize,
    /// Directory entries looked at, in total.
    pub max_entries: usize,
    /// Lockfiles and manifests parsed, in total.
    pub max_files: usize,
    /// Bytes read from one lockfile; at most [`MAX_LOCKFILE_BYTES`].
    pub max_bytes: usize,
}

impl Default for Limits {
    /// Depth 8, 20,000 entries, 256 files, 16 MiB a file.
    fn default() -> Limits {
        Limits {
            max_depth: 8,
            max_entries: 20_000,
            max_files: 256,
            max_bytes: MAX_LOCKFILE_BYTES,
        }
    }
}

/// Reads a project directory's lockfiles and those of the workspace
/// members its manifests declare (see the module doc). Never fails: what
/// cannot be read becomes a [`StackProblem`].
pub fn scan(project: &Path, limits: &Limits) -> Stack {
    let mut st = Scan {
        limits: limits.clone(),
        stack: Stack::default(),
        entries: 0,
        files: 0,
        stopped: false,
    };
    match fs::metadata(project) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            st.problem(".", "the project path is not a directory".to_owned());
            return st.stack;
        }
        Err(e) => {
            st.problem(".", format!("cannot read the project directory: {e}"));
            return st.stack;
        }
    }
    let declared = st.visit(project, ".", true);
    let mut members: BTreeMap<String, String> = BTreeMap::new();
    for (file, d) in declared {
        for dir in st.expand(project, &file, &d) {
            members.entry(dir).or_insert(file.clone());
        }
    }
    for (dir, declared_by) in members {
        if st.stopped {
            break;
        }
        let marked = st.visit(&project.join(&dir), &dir, false);
        if marked.is_empty() {
            continue; // no manifest or lockfile: not a member
        }
        st.stack.members.push(Member { dir, declared_by });
    }
    finish(&mut st.stack);
    st.stack
}

struct Scan {
    limits: Limits,
    stack: Stack,
    entries: usize,
    files: usize,
    stopped: bool,
}

impl Scan {
    fn problem(&mut self, file: &str, why: String) {
        self.stack.problems.push(StackProblem {
            file: file.to_owned(),
            why,
        });
    }

    /// A directory's entries (name and type), sorted by name, each counted
    /// against [`Limits::max_entries`].
    fn list(&mut self, dir: &Path, rel: &str) -> Vec<(String, fs::FileType)> {
        let read = match fs::read_dir(dir) {
            Ok(r) => r,
            Err(e) => {
                self.problem(rel, format!("cannot read directory: {e}"));
                return Vec::new();
            }
        };
        let mut names: Vec<(String, fs::FileType)> = Vec::new();
        for entry in read {
            self.entries += 1;
            if self.entries > self.limits.max_entries {
                if !self.stopped {
                    self.problem(
                        ".",
                        format!(
                            "the scan stopped after {} directory entries; declare fewer or narrower workspace members",
                            self.limits.max_entries
                        ),
                    );
                }
                self.stopped = true;
                break;
            }
            let Ok(entry) = entry else { continue };
            let (Ok(name), Ok(kind)) = (entry.file_name().into_string(), entry.file_type()) else {
                continue;
            };
            names.push((name, kind));
        }
        names.sort_by(|a, b| a.0.cmp(&b.0));
        names
    }

    /// Reads one directory's lockfiles. With `manifests`, also reads the
    /// members its manifests declare and returns them by manifest;
    /// without, returns one empty entry per manifest or lockfile present
    /// (so the caller can tell whether the directory is a project at all).
    fn visit(&mut self, dir: &Path, rel: &str, manifests: bool) -> Vec<(String, Declared)> {
        let names = self.list(dir, rel);
        let mut found: BTreeMap<Ecosystem, Vec<(Format, String)>> = BTreeMap::new();
        let mut declared = Vec::new();
        let mut binary_bun = false;
        for (name, kind) in names {
            if !kind.is_file() {
                continue; // directories, and symbolic links to anything
            }
            if let Some(format) = Format::of_file_name(&name) {
                found
                    .entry(format.ecosystem())
                    .or_default()
                    .push((format, name.clone()));
            } else if name == "bun.lockb" {
                binary_bun = true;
            }
            match Manifest::of_file_name(&name) {
                Some(m) if manifests => {
                    let file = join(rel, &name);
                    match self.parse_manifest(&dir.join(&name), m) {
                        Ok(d) => declared.push((file, d)),
                        Err(e) => self.problem(&file, e.to_string()),
                    }
                }
                _ if !manifests && is_marker(&name).is_some() => {
                    declared.push((join(rel, &name), Declared::default()));
                }
                _ => {}
            }
        }
        if binary_bun && !found.contains_key(&Ecosystem::Npm) {
            self.problem(
                &join(rel, "bun.lockb"),
                "bun's binary lockfile is not read; run `bun install --save-text-lockfile` to write bun.lock"
                    .to_owned(),
            );
        }
        for (eco, mut files) in found {
            if self.stopped {
                break;
            }
            files.sort_by(|a, b| (a.0.rank(), &a.1).cmp(&(b.0.rank(), &b.1)));
            self.use_best(dir, rel, eco, &files);
        }
        declared
    }

    /// The directories, relative to the project, that one manifest's
    /// member patterns match (not yet checked for a manifest).
    fn expand(&mut self, project: &Path, file: &str, declared: &Declared) -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        let mut exclude = globset::GlobSetBuilder::new();
        for p in &declared.exclude {
            if let Some(g) = self.pattern(file, p).and_then(|p| self.glob(file, &p)) {
                exclude.add(g);
            }
        }
        let exclude = exclude
            .build()
            .unwrap_or_else(|_| globset::GlobSet::empty());
        // Patterns overlap (`packages/*` and `packages/**`): a directory is
        // listed once, and its entries count once toward the budget.
        let mut listed: std::collections::HashMap<String, Vec<(String, fs::FileType)>> =
            std::collections::HashMap::new();
        for p in &declared.include {
            if self.stopped {
                break;
            }
            let Some(p) = self.pattern(file, p) else {
                continue;
            };
            if p == "." {
                continue; // the project itself, already read
            }
            let Some(glob) = self.glob(file, &p) else {
                continue;
            };
            let glob = glob.compile_matcher();
            let parts: Vec<&str> = p.split('/').collect();
            let fixed = parts.iter().take_while(|c| !has_glob_meta(c)).count();
            let deepest = if parts.contains(&"**") {
                self.limits.max_depth
            } else {
                parts.len()
            };
            let mut queue = VecDeque::from([(parts[..fixed].join("/"), fixed)]);
            while let Some((rel, depth)) = queue.pop_front() {
                let path = if rel.is_empty() {
                    project.to_path_buf()
                } else {
                    project.join(&rel)
                };
                if depth == fixed && !plain_dirs(project, &rel) {
                    continue; // the fixed part is missing, or passes a symbolic link
                }
                if !rel.is_empty() && glob.is_match(&rel) && !exclude.is_match(&rel) {
                    found.insert(rel.clone());
                }
                if depth >= deepest || self.stopped {
                    continue;
                }
                if !listed.contains_key(&rel) {
                    let names = self.list(&path, if rel.is_empty() { "." } else { &rel });
                    listed.insert(rel.clone(), names);
                }
                for (name, kind) in &listed[&rel] {
                    let skip = name.starts_with('.') || SKIPPED_DIRS.contains(&name.as_str());
                    if kind.is_dir() && !skip {
                        queue.push_back((join(&rel, name), depth + 1));
                    }
                }
            }
        }
        found
    }

    /// A member pattern made relative and `/`-separated (`./pkgs/*/` is
    /// `pkgs/*`, `.` the project); `None`, with a problem, when it leaves
    /// the project.
    fn pattern(&mut self, file: &str, p: &str) -> Option<String> {
        let mut s = p.trim();
        while let Some(rest) = s.strip_prefix("./") {
            s = rest;
        }
        let s = s.trim_end_matches('/');
        if s.is_empty() || s == "." {
            return Some(".".to_owned());
        }
        if s.starts_with('/') || s.split('/').any(|c| c == "..") || s.chars().any(char::is_control)
        {
            self.problem(
                file,
                format!(
                    "workspace member {} is outside the project; it is not read",
                    super::detail(format!("{s:?}"))
                ),
            );
            return None;
        }
        Some(s.to_owned())
    }

    fn glob(&mut self, file: &str, p: &str) -> Option<globset::Glob> {
        match globset::GlobBuilder::new(p).literal_separator(true).build() {
            Ok(g) => Some(g),
            Err(e) => {
                self.problem(
                    file,
                    format!(
                        "workspace member pattern {} is not a glob: {}",
                        super::detail(format!("{p:?}")),
                        super::detail(e)
                    ),
                );
                None
            }
        }
    }

    fn parse_manifest(&mut self, path: &Path, m: Manifest) -> Result<Declared, StackError> {
        if self.files >= self.limits.max_files {
            return Err(StackError::ScanFull {
                cap: self.limits.max_files,
            });
        }
        self.files += 1;
        let bytes = read_bounded(path, MAX_MANIFEST_BYTES)?;
        std::panic::catch_unwind(|| m.parse(&bytes)).unwrap_or(Err(StackError::ParserPanic))
    }

    /// Parses the best-ranked files of one ecosystem in one directory,
    /// falling back rank by rank while they fail.
    fn use_best(&mut self, dir: &Path, rel: &str, eco: Ecosystem, files: &[(Format, String)]) {
        let mut used: Option<String> = None;
        let mut i = 0;
        while i < files.len() {
            let rank = files[i].0.rank();
            let group: Vec<&(Format, String)> = files[i..]
                .iter()
                .take_while(|f| f.0.rank() == rank)
                .collect();
            i += group.len();
            if let Some(by) = &used {
                for (format, name) in group {
                    self.stack.sources.push(SourceFile {
                        file: join(rel, name),
                        format: *format,
                        ecosystem: eco,
                        used: SourceUse::Shadowed { by: by.clone() },
                    });
                }
                continue;
            }
            for (format, name) in group {
                let file = join(rel, name);
                if self.files >= self.limits.max_files {
                    if !self.stopped {
                        self.problem(
                            ".",
                            format!(
                                "the scan stopped after parsing {} files; declare fewer workspace members",
                                self.limits.max_files
                            ),
                        );
                    }
                    self.stopped = true;
                    return;
                }
                self.files += 1;
                match self.parse_file(&dir.join(name), *format) {
                    Ok(parsed) => {
                        self.stack.sources.push(SourceFile {
                            file: file.clone(),
                            format: *format,
                            ecosystem: eco,
                            used: SourceUse::Parsed {
                                packages: parsed.packages.len(),
                            },
                        });
                        if let Some(note) = parsed.note {
                            self.problem(&file, note);
                        }
                        self.add(rel, &file, eco, parsed.packages);
                        used.get_or_insert(file);
                    }
                    Err(e) => {
                        self.stack.sources.push(SourceFile {
                            file: file.clone(),
                            format: *format,
                            ecosystem: eco,
                            used: SourceUse::Failed,
                        });
                        self.problem(&file, e.to_string());
                    }
                }
            }
        }
    }

    fn parse_file(&self, path: &Path, format: Format) -> Result<Parsed, StackError> {
        let cap = self.limits.max_bytes.min(MAX_LOCKFILE_BYTES);
        let bytes = read_bounded(path, cap)?;
        std::panic::catch_unwind(|| format.parse(&bytes)).unwrap_or(Err(StackError::ParserPanic))
    }

    fn add(&mut self, rel: &str, file: &str, eco: Ecosystem, packages: Vec<Package>) {
        self.stack.packages.reserve(packages.len());
        for p in packages {
            let workspace = match (rel, p.workspace.as_str()) {
                (".", _) => p.workspace,
                (r, ".") => r.to_owned(),
                (r, w) => format!("{r}/{w}"),
            };
            self.stack.packages.push(Installed {
                name: p.name,
                version: p.version,
                ecosystem: Some(eco),
                source: file.to_owned(),
                workspace,
            });
        }
    }
}

fn join(rel: &str, name: &str) -> String {
    if rel == "." || rel.is_empty() {
        name.to_owned()
    } else {
        format!("{rel}/{name}")
    }
}

/// Whether every component of `rel` (below `project`) is a directory and
/// none is a symbolic link: a member path never leads out of the project.
fn plain_dirs(project: &Path, rel: &str) -> bool {
    let mut path = project.to_path_buf();
    rel.split('/').filter(|c| !c.is_empty()).all(|c| {
        path.push(c);
        fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir())
    })
}

/// Whether a path component has glob syntax.
fn has_glob_meta(component: &str) -> bool {
    component.contains(['*', '?', '[', '{'])
}

/// Reads at most `cap` bytes; a longer file is [`StackError::TooLarge`].
fn read_bounded(path: &Path, cap: usize) -> Result<Vec<u8>, StackError> {
    let unreadable = |e: std::io::Error| StackError::Io(e.into());
    let file = fs::File::open(path).map_err(unreadable)?;
    let mut bytes = Vec::new();
    file.take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() > cap {
        let size = fs::metadata(path).map_or(bytes.len(), |m| m.len() as usize);
        return Err(StackError::TooLarge { size, cap });
    }
    Ok(bytes)
}

/// De-duplicates on (ecosystem, normalised name, version, workspace),
/// keeping the first, and sorts packages, problems and sources.
///
/// Each package's normalised name is computed once and the set of keys
/// seen borrows from the packages, so nothing else is copied: a 10 MB
/// lockfile of 250,000 packages is de-duplicated in tens of milliseconds.
/// The sort that follows is most of this function's time.
pub(crate) fn finish(stack: &mut Stack) {
    stack.problems.sort_by(|a, b| a.file.cmp(&b.file));
    stack.sources.sort_by(|a, b| a.file.cmp(&b.file));
    let names: Vec<String> = stack
        .packages
        .iter()
        .map(|p| match p.ecosystem {
            Some(e) => e.normalize_name(&p.name),
            None => crate::version::normalize_generic(&p.name),
        })
        .collect();
    let mut seen = HashSet::with_capacity(names.len());
    let keep: Vec<bool> = stack
        .packages
        .iter()
        .zip(&names)
        .map(|(p, name)| {
            seen.insert((
                p.ecosystem,
                name.as_str(),
                p.version.as_str(),
                p.workspace.as_str(),
            ))
        })
        .collect();
    drop(seen);
    let mut at = 0;
    stack.packages.retain(|_| {
        at += 1;
        keep[at - 1]
    });
    stack.packages.sort_unstable_by(|a, b| {
        (&a.workspace, a.ecosystem, &a.name, &a.version).cmp(&(
            &b.workspace,
            b.ecosystem,
            &b.name,
            &b.version,
        ))
    });
}

#[cfg(test)]
mod tests {
    use super::super::testutil::fixture;
    use super::*;

    fn write(root: &Path, rel: &str, bytes: &[u8]) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }

    fn lines(stack: &Stack) -> Vec<String> {
        stack
            .packages
            .iter()
            .map(|p| {
                format!(
                    "{} {} {} {} {}",
                    p.workspace,
                    p.ecosystem.map_or("-", Ecosystem::as_str),
                    p.name,
                    p.version,
                    p.source
                )
            })
            .collect()
    }

    fn problems(stack: &Stack) -> Vec<String> {
        stack
            .problems
            .iter()
            .map(|p| format!("{}: {}", p.file, p.why))
            .collect()
    }

    fn members(stack: &Stack) -> Vec<String> {
        stack
            .members
            .iter()
            .map(|m| format!("{} by {}", m.dir, m.declared_by))
            .collect()
    }

    /// A polyglot monorepo whose manifests declare its members: a shadowed
    /// lockfile, a broken one with a fallback, a broken one without, a
    /// member pattern leaving the project, a symlinked member, undeclared
    /// and skipped directories, and a 20 MB file.
    #[test]
    fn scans_a_monorepo_and_its_declared_members() {
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "Cargo.lock", &fixture("Cargo.v4.lock"));
        write(outside.path(), "sub/Cargo.lock", &fixture("Cargo.v4.lock"));
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(
            root,
            "package.json",
            br#"{"workspaces": ["apps/*", "legacy", "tools/*", "linked", "linked/sub", "linked/*", "../outside"]}"#,
        );
        write(
            root,
            "pyproject.toml",
            b"[tool.uv.workspace]\nmembers = [\"services/*\", \"py\"]\n",
        );
        write(root, "go.work", b"go 1.22\nuse ./go\n");
        write(root, "package-lock.json", &fixture("npm-shrinkwrap.json"));
        write(root, "yarn.lock", &fixture("yarn.v1.lock"));
        write(
            root,
            "apps/web/pnpm-lock.yaml",
            b"lockfileVersion: '9.0'\npackages: [\n",
        );
        write(root, "services/api/uv.lock", &fixture("uv.lock"));
        write(
            root,
            "services/api/requirements.txt",
            &fixture("requirements.txt"),
        );
        write(
            root,
            "services/api/.venv/lib/poetry.lock",
            &fixture("poetry.v2.lock"),
        );
        write(
            root,
            "node_modules/x/package-lock.json",
            &fixture("package-lock.v3.json"),
        );
        write(root, "target/Cargo.lock", &fixture("Cargo.v3.lock"));
        write(root, "examples/demo/Cargo.lock", &fixture("Cargo.v3.lock"));
        write(root, "go/go.mod", b"module x\nrequire (\n");
        write(root, "go/go.sum", &fixture("go.sum"));
        write(root, "tools/big/Cargo.lock", &vec![b'#'; 20 * 1024 * 1024]);
        write(root, "tools/empty/README.md", b"no manifest here");
        write(root, "legacy/bun.lockb", b"\x00\x01binary");
        write(root, "py/requirements-dev.txt", b"pytest==8.1.1\nblack\n");
        write(root, "py/requirements.txt", b"flask==3.0.3\n");
        std::os::unix::fs::symlink(outside.path(), root.join("linked")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("Cargo.lock"), root.join("Cargo.lock"))
            .unwrap();

        let stack = scan(root, &Limits::default());
        let want = [
            ". npm commander 12.0.0 package-lock.json",
            ". npm undici 6.11.1 package-lock.json",
            "go go github.com/gin-gonic/gin v1.9.1 go/go.sum",
            "go go github.com/google/uuid v1.6.0 go/go.sum",
            "go go github.com/pkg/errors v0.9.1 go/go.sum",
            "go go golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 go/go.sum",
            "go go gopkg.in/yaml.v3 v3.0.1 go/go.sum",
            "py pypi flask 3.0.3 py/requirements.txt",
            "py pypi pytest 8.1.1 py/requirements-dev.txt",
            "services/api pypi annotated-types 0.7.0 services/api/uv.lock",
            "services/api pypi fastapi 0.111.0 services/api/uv.lock",
            "services/api pypi pydantic 2.7.1 services/api/uv.lock",
            "services/api pypi pydantic-core 2.18.2 services/api/uv.lock",
            "services/api pypi starlette 0.37.2 services/api/uv.lock",
            "services/api pypi torch 2.3.0+cu121 services/api/uv.lock",
            "services/api pypi typing-extensions 4.11.0 services/api/uv.lock",
        ];
        assert_eq!(lines(&stack), want);
        assert_eq!(
            members(&stack),
            [
                "apps/web by package.json",
                "go by go.work",
                "legacy by package.json",
                "py by pyproject.toml",
                "services/api by pyproject.toml",
                "tools/big by package.json",
            ]
        );
        let problems = problems(&stack);
        assert_eq!(problems.len(), 6, "{problems:#?}");
        assert!(
            problems[0].starts_with("apps/web/pnpm-lock.yaml: invalid YAML: "),
            "{problems:#?}"
        );
        assert_eq!(
            problems[1..],
            [
                "go/go.mod: line 2: the `require` block opened here is never closed",
                "legacy/bun.lockb: bun's binary lockfile is not read; run `bun install --save-text-lockfile` to write bun.lock",
                "package.json: workspace member \"../outside\" is outside the project; it is not read",
                "py/requirements-dev.txt: 1 requirement without an exact == pin was not read: black",
                "tools/big/Cargo.lock: 20971520 bytes is over the 16777216-byte size budget for this file",
            ]
        );
        let shadowed: Vec<(&str, &SourceUse)> = stack
            .sources
            .iter()
            .filter(|s| matches!(s.used, SourceUse::Shadowed { .. }))
            .map(|s| (s.file.as_str(), &s.used))
            .collect();
        assert_eq!(
            shadowed,
            [
                (
                    "services/api/requirements.txt",
                    &SourceUse::Shadowed {
                        by: "services/api/uv.lock".into()
                    }
                ),
                (
                    "yarn.lock",
                    &SourceUse::Shadowed {
                        by: "package-lock.json".into()
                    }
                ),
            ]
        );
        // Nothing outside the project and the members was read.
        assert!(
            stack.sources.iter().all(|s| !s.file.starts_with("examples")
                && !s.file.starts_with("target")
                && !s.file.starts_with("node_modules")
                && !s.file.contains(".venv")
                && s.file != "Cargo.lock"),
            "{:#?}",
            stack.sources
        );
        assert_eq!(stack.workspaces(), [".", "go", "py", "services/api"]);
        // The `git lore stack --json` document.
        let json = serde_json::to_value(&stack).unwrap();
        assert_eq!(
            json["sources"][0],
            serde_json::json!({
                "file": "apps/web/pnpm-lock.yaml", "format": "pnpm-lock",
                "ecosystem": "npm", "status": "failed"
            })
        );
        assert_eq!(
            json["packages"][0],
            serde_json::json!({
                "name": "commander", "version": "12.0.0", "ecosystem": "npm",
                "source": "package-lock.json", "workspace": "."
            })
        );
        assert_eq!(
            json["members"][1],
            serde_json::json!({"dir": "go", "declared_by": "go.work"})
        );
        assert!(json["sources"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!({
                "file": "yarn.lock", "format": "yarn-lock", "ecosystem": "npm",
                "status": "shadowed", "by": "package-lock.json"
            })));
    }

    /// Only declared members are read: a project with lockfiles in deep,
    /// undeclared directories (test fixtures, checked-out repositories)
    /// reads none of them, and one with no manifest reads only its own
    /// directory.
    #[test]
    fn undeclared_directories_are_never_walked() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(root, "package-lock.json", &fixture("package-lock.v3.json"));
        write(root, "package.json", br#"{"name": "app"}"#);
        write(
            root,
            "test/fixtures/other/deep/er/pnpm-lock.yaml",
            &fixture("pnpm-lock.v9.yaml"),
        );
        write(root, "checkouts/lib/Cargo.lock", &fixture("Cargo.v4.lock"));
        let stack = scan(root, &Limits::default());
        assert!(stack.members.is_empty());
        assert_eq!(
            stack
                .sources
                .iter()
                .map(|s| s.file.as_str())
                .collect::<Vec<_>>(),
            ["package-lock.json"]
        );
        assert!(stack.problems.is_empty(), "{:?}", stack.problems);
    }

    /// pnpm workspaces (globs, `**`, exclusions; per-member lockfiles as
    /// `shared-workspace-lockfile=false` writes them) and a Cargo workspace
    /// with `exclude`, a member holding another ecosystem's lockfile.
    #[test]
    fn pnpm_and_cargo_workspace_members_are_found() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(
            root,
            "pnpm-workspace.yaml",
            b"packages:\n  - 'packages/*'\n  - 'apps/**'\n  - '!**/fixtures/**'\n",
        );
        write(
            root,
            "package.json",
            br#"{"name": "mono", "private": true}"#,
        );
        write(root, "packages/ui/package.json", b"{}");
        write(
            root,
            "packages/ui/pnpm-lock.yaml",
            &fixture("pnpm-lock.v6.yaml"),
        );
        write(root, "packages/docs/README.md", b"not a package");
        write(root, "apps/web/site/package.json", b"{}");
        write(
            root,
            "apps/web/site/package-lock.json",
            &fixture("package-lock.v3.json"),
        );
        write(
            root,
            "apps/web/fixtures/old/package-lock.json",
            &fixture("package-lock.v1.json"),
        );
        write(root, "apps/web/node_modules/x/package.json", b"{}");
        write(
            root,
            "Cargo.toml",
            b"[workspace]\nmembers = [\"crates/*\"]\nexclude = [\"crates/legacy\"]\n",
        );
        write(root, "Cargo.lock", &fixture("Cargo.v4.lock"));
        write(
            root,
            "crates/core/Cargo.toml",
            b"[package]\nname = \"core\"\n",
        );
        write(
            root,
            "crates/web/Cargo.toml",
            b"[package]\nname = \"web\"\n",
        );
        write(
            root,
            "crates/web/package-lock.json",
            &fixture("npm-shrinkwrap.json"),
        );
        write(
            root,
            "crates/legacy/Cargo.toml",
            b"[package]\nname = \"legacy\"\n",
        );
        write(root, "crates/legacy/Cargo.lock", &fixture("Cargo.v3.lock"));
        let stack = scan(root, &Limits::default());
        assert_eq!(
            members(&stack),
            [
                "apps/web/site by pnpm-workspace.yaml",
                "crates/core by Cargo.toml",
                "crates/web by Cargo.toml",
                "packages/ui by pnpm-workspace.yaml",
            ]
        );
        let files: Vec<&str> = stack.sources.iter().map(|s| s.file.as_str()).collect();
        assert_eq!(
            files,
            [
                "Cargo.lock",
                "apps/web/site/package-lock.json",
                "crates/web/package-lock.json",
                "packages/ui/pnpm-lock.yaml",
            ]
        );
        let got = lines(&stack);
        assert!(
            got.contains(&"crates/web npm commander 12.0.0 crates/web/package-lock.json".into()),
            "{got:#?}"
        );
        assert!(
            got.iter()
                .any(|l| l.starts_with("packages/ui npm vite 5.2.10 ")),
            "{got:#?}"
        );
        assert!(stack.problems.is_empty(), "{:?}", stack.problems);
    }

    #[test]
    fn nested_workspaces_inside_a_member_lockfile() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            tmp.path(),
            "package.json",
            br#"{"workspaces": ["frontend"]}"#,
        );
        write(
            tmp.path(),
            "frontend/pnpm-lock.yaml",
            &fixture("pnpm-lock.v9.yaml"),
        );
        let stack = scan(tmp.path(), &Limits::default());
        let vite: Vec<String> = lines(&stack)
            .into_iter()
            .filter(|l| l.contains(" vite "))
            .collect();
        assert_eq!(
            vite,
            [
                "frontend npm vite 5.4.21 frontend/pnpm-lock.yaml",
                "frontend npm vite 8.0.16 frontend/pnpm-lock.yaml",
                "frontend/apps/web npm vite 8.0.16 frontend/pnpm-lock.yaml",
                "frontend/packages/ui npm vite 5.4.21 frontend/pnpm-lock.yaml",
            ]
        );
        assert!(stack.problems.is_empty(), "{:?}", stack.problems);
    }

    #[test]
    fn limits_bound_the_walk() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            tmp.path(),
            "package.json",
            br#"{"workspaces": ["a/**", "many/*", "bad/[x"]}"#,
        );
        write(tmp.path(), "a/b/c/Cargo.lock", &fixture("Cargo.v4.lock"));
        let shallow = Limits {
            max_depth: 2,
            ..Limits::default()
        };
        assert!(scan(tmp.path(), &shallow).packages.is_empty());
        let stack = scan(tmp.path(), &Limits::default());
        assert_eq!(stack.packages.len(), 4);
        assert_eq!(
            problems(&stack),
            ["package.json: workspace member pattern \"bad/[x\" is not a glob: error parsing glob 'bad/[x': unclosed character class; missing ']'"]
        );

        for i in 0..30 {
            write(tmp.path(), &format!("many/{i:02}/go.sum"), b"");
        }
        let few_files = Limits {
            max_files: 5,
            ..Limits::default()
        };
        let stack = scan(tmp.path(), &few_files);
        assert!(
            problems(&stack).contains(
                &".: the scan stopped after parsing 5 files; declare fewer workspace members"
                    .to_owned()
            ),
            "{:#?}",
            stack.problems
        );
        let few_entries = Limits {
            max_entries: 10,
            ..Limits::default()
        };
        let stack = scan(tmp.path(), &few_entries);
        assert!(
            problems(&stack).contains(
                &".: the scan stopped after 10 directory entries; declare fewer or narrower workspace members"
                    .to_owned()
            ),
            "{:#?}",
            stack.problems
        );
    }

    #[test]
    fn overlapping_member_patterns_list_each_directory_once() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        // Three patterns that all match packages/a..f. Listing each
        // directory once, the scan looks at 20 entries (the project, its
        // `packages/` and the six members); listing `packages/` and its
        // members once per pattern, 32, past a budget of 24.
        write(
            root,
            "package.json",
            br#"{"workspaces": ["packages/*", "packages/**", "./packages/*/"]}"#,
        );
        for m in ["a", "b", "c", "d", "e", "f"] {
            write(root, &format!("packages/{m}/package.json"), b"{}");
        }
        let limits = Limits {
            max_entries: 24,
            ..Limits::default()
        };
        let stack = scan(root, &limits);
        assert_eq!(problems(&stack), Vec::<String>::new());
        assert_eq!(stack.members.len(), 6, "{:#?}", members(&stack));
    }

    #[test]
    fn an_unreadable_lockfile_is_a_problem() {
        let tmp = tempfile::tempdir().unwrap();
        // A directory where a lockfile's name is expected is not a file and
        // is skipped; an unreadable file is reported.
        fs::create_dir(tmp.path().join("Cargo.lock")).unwrap();
        assert!(scan(tmp.path(), &Limits::default()).problems.is_empty());
        let err = read_bounded(&tmp.path().join("missing.lock"), 10).unwrap_err();
        assert!(
            err.to_string().starts_with("cannot read the file: "),
            "{err}"
        );
        assert_eq!(
            StackError::ParserPanic.to_string(),
            "the parser failed on this file; this is a bug in git-lore, please report it"
        );
    }

    #[test]
    fn a_missing_project_is_a_problem_not_a_failure() {
        let stack = scan(
            Path::new("/nonexistent/git-lore/project"),
            &Limits::default(),
        );
        assert!(stack.packages.is_empty());
        assert!(stack.problems[0]
            .why
            .starts_with("cannot read the project directory: "));
    }
}
