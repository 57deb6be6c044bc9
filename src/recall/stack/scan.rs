//! Walking a project for lockfiles and turning what they pin into a
//! [`Stack`].
//!
//! Rules:
//!
//! - The walk starts at the project directory and descends breadth-first,
//!   in name order, at most [`Limits::max_depth`] levels, looking at most
//!   [`Limits::max_entries`] directory entries and parsing at most
//!   [`Limits::max_files`] files. It skips `node_modules`, `target`,
//!   `vendor`, `venv`, `dist`, `build`, `__pycache__`, `bower_components`
//!   and every hidden directory (`.git`, `.venv`, `.next`, …). It never
//!   follows a symbolic link, to a directory or to a file, so it reads
//!   nothing outside the project and cannot loop.
//! - In each directory, per ecosystem, the best-ranked format present is
//!   used ([`Format::rank`]: a lockfile before a looser manifest, e.g.
//!   `uv.lock` before `requirements*.txt`, `go.mod` before `go.sum`); the
//!   others are reported as shadowed. If the best one cannot be parsed, it
//!   is reported as a problem and the next one is tried. All
//!   `requirements*.txt` of a directory are read together.
//! - Each file is read up to [`Limits::max_bytes`]; a larger file is a
//!   problem, not a partial read. A malformed file is a problem naming the
//!   file and what is wrong; it never stops the scan. A parser that panics
//!   (it should not; they are tested against garbage) is caught and
//!   reported the same way.
//! - Packages are attributed to the workspace `<lockfile dir>/<workspace
//!   inside the lockfile>`, and de-duplicated on (ecosystem, normalised
//!   name, version, workspace): the first source in walk order is kept.
//!
//! This file owns the walk and the merge; parsing is the format modules'.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::{
    Format, Installed, Package, Parsed, SourceFile, SourceUse, Stack, StackError, StackProblem,
    MAX_LOCKFILE_BYTES,
};
use crate::version::Ecosystem;

/// Directory names the walk never enters (besides hidden ones).
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
    /// Directory levels below the project (the project itself is 0).
    pub max_depth: usize,
    /// Directory entries looked at, in total.
    pub max_entries: usize,
    /// Lockfiles and manifests parsed, in total.
    pub max_files: usize,
    /// Bytes read from one file; at most [`MAX_LOCKFILE_BYTES`].
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

/// Scans a project directory for lockfiles and manifests (see the module
/// doc). Never fails: what cannot be read becomes a [`StackProblem`].
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
    let mut queue = std::collections::VecDeque::new();
    queue.push_back((project.to_path_buf(), String::from("."), 0usize));
    while let Some((dir, rel, depth)) = queue.pop_front() {
        if st.stopped {
            break;
        }
        for (path, name) in st.visit(&dir, &rel, depth) {
            let child = if rel == "." {
                name
            } else {
                format!("{rel}/{name}")
            };
            queue.push_back((path, child, depth + 1));
        }
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

    /// Reads one directory: parses its lockfiles, returns the
    /// subdirectories to walk.
    fn visit(&mut self, dir: &Path, rel: &str, depth: usize) -> Vec<(PathBuf, String)> {
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
                self.problem(
                    ".",
                    format!(
                        "the scan stopped after {} directory entries; run it on a smaller directory (--project)",
                        self.limits.max_entries
                    ),
                );
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
        let mut subdirs = Vec::new();
        let mut found: BTreeMap<Ecosystem, Vec<(Format, String)>> = BTreeMap::new();
        let mut binary_bun = false;
        for (name, kind) in names {
            if kind.is_symlink() {
                continue;
            }
            if kind.is_dir() {
                let skip = name.starts_with('.') || SKIPPED_DIRS.contains(&name.as_str());
                if !skip && depth < self.limits.max_depth {
                    subdirs.push((dir.join(&name), name));
                }
            } else if kind.is_file() {
                if let Some(format) = Format::of_file_name(&name) {
                    found
                        .entry(format.ecosystem())
                        .or_default()
                        .push((format, name));
                } else if name == "bun.lockb" {
                    binary_bun = true;
                }
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
        subdirs
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
                                "the scan stopped after parsing {} files; run it on a smaller directory (--project)",
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
        for p in packages {
            let workspace = match (rel, p.workspace.as_str()) {
                (".", w) => w.to_owned(),
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
    if rel == "." {
        name.to_owned()
    } else {
        format!("{rel}/{name}")
    }
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
pub(crate) fn finish(stack: &mut Stack) {
    stack.problems.sort_by(|a, b| a.file.cmp(&b.file));
    stack.sources.sort_by(|a, b| a.file.cmp(&b.file));
    let mut seen = HashSet::new();
    stack.packages.retain(|p| {
        let name = match p.ecosystem {
            Some(e) => e.normalize_name(&p.name),
            None => crate::version::normalize_generic(&p.name),
        };
        seen.insert((p.ecosystem, name, p.version.clone(), p.workspace.clone()))
    });
    stack.packages.sort_by(|a, b| {
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

    /// A monorepo with nested workspaces, a shadowed lockfile, a broken one
    /// with a fallback, a broken one without, skipped directories, a
    /// symlink out of the project and a 20 MB file.
    #[test]
    fn scans_a_monorepo_and_reports_every_problem() {
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "Cargo.lock", &fixture("Cargo.v4.lock"));
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
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
        write(root, "go/go.mod", b"module x\nrequire (\n");
        write(root, "go/go.sum", &fixture("go.sum"));
        write(root, "tools/big/Cargo.lock", &vec![b'#'; 20 * 1024 * 1024]);
        write(root, "legacy/bun.lockb", b"\x00\x01binary");
        write(root, "py/requirements-dev.txt", b"pytest==8.1.1\nblack\n");
        write(root, "py/requirements.txt", b"flask==3.0.3\n");
        std::os::unix::fs::symlink(outside.path(), root.join("linked")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("Cargo.lock"), root.join("Cargo.lock"))
            .unwrap();

        let stack = scan(root, &Limits::default());
        let got = lines(&stack);
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
        assert_eq!(got, want);
        let problems: Vec<String> = stack
            .problems
            .iter()
            .map(|p| format!("{}: {}", p.file, p.why))
            .collect();
        assert_eq!(problems.len(), 5, "{problems:#?}");
        assert!(
            problems[0].starts_with("apps/web/pnpm-lock.yaml: invalid YAML: "),
            "{problems:#?}"
        );
        assert_eq!(
            problems[1],
            "go/go.mod: line 2: the `require` block opened here is never closed"
        );
        assert_eq!(
            problems[2],
            "legacy/bun.lockb: bun's binary lockfile is not read; run `bun install --save-text-lockfile` to write bun.lock"
        );
        assert_eq!(
            problems[3],
            "py/requirements-dev.txt: 1 requirement without an exact == pin was not read: black"
        );
        assert_eq!(
            problems[4],
            "tools/big/Cargo.lock: 20971520 bytes is over the 16777216-byte limit for a lockfile"
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
        assert!(json["sources"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!({
                "file": "yarn.lock", "format": "yarn-lock", "ecosystem": "npm",
                "status": "shadowed", "by": "package-lock.json"
            })));
    }

    #[test]
    fn nested_workspaces_inside_a_nested_lockfile() {
        let tmp = tempfile::tempdir().unwrap();
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
        write(tmp.path(), "a/b/c/Cargo.lock", &fixture("Cargo.v4.lock"));
        let shallow = Limits {
            max_depth: 2,
            ..Limits::default()
        };
        assert!(scan(tmp.path(), &shallow).packages.is_empty());
        assert_eq!(scan(tmp.path(), &Limits::default()).packages.len(), 4);

        for i in 0..30 {
            write(tmp.path(), &format!("many/{i:02}/go.sum"), b"");
        }
        let few_files = Limits {
            max_files: 5,
            ..Limits::default()
        };
        let stack = scan(tmp.path(), &few_files);
        assert_eq!(
            stack.problems.last().unwrap().why,
            "the scan stopped after parsing 5 files; run it on a smaller directory (--project)"
        );
        let few_entries = Limits {
            max_entries: 10,
            ..Limits::default()
        };
        let stack = scan(tmp.path(), &few_entries);
        assert_eq!(
            stack.problems.last().unwrap().why,
            "the scan stopped after 10 directory entries; run it on a smaller directory (--project)"
        );
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
