use std::path::Path;
use std::process::Command;

use clap::Args as ClapArgs;

use super::ui::{self, error, out, CliError, Ctx, Exit};

/// Run the whole pipeline on bundled examples in a temporary directory,
/// offline: initialise a lesson repository, ingest session artifacts (each
/// kind of outcome), confirm lessons at all three visibilities, judge them
/// with the offline jury (one public lesson is rejected by the disclosure
/// scanner), promote them into the pools, then print the `git log` of the
/// result and the `verify` summary.
///
/// Every step runs the real `git lore` command and shows its real output.
/// Nothing outside the temporary directory is touched; `--keep` leaves it in
/// place to explore with git.
///
/// Example: `git lore demo` (nothing outside a temporary directory is
/// touched).
#[derive(ClapArgs, Debug)]
#[command(about = "Run the whole pipeline offline on bundled examples, in a temporary directory")]
pub struct Args {
    /// Keep the temporary directory and print its path.
    #[arg(long)]
    keep: bool,
}

/// The bundled example artifacts, `examples/artifacts/`: (file name, JSON).
/// `npm-registry.json` would leak an internal host name and an e-mail
/// address, so the disclosure scanner blocks it at public.
const ARTIFACTS: [(&str, &str); 7] = [
    (
        "next-hydration.json",
        include_str!("../../examples/artifacts/next-hydration.json"),
    ),
    (
        "psycopg2-alpine.json",
        include_str!("../../examples/artifacts/psycopg2-alpine.json"),
    ),
    (
        "vitest-pin.json",
        include_str!("../../examples/artifacts/vitest-pin.json"),
    ),
    (
        "npm-registry.json",
        include_str!("../../examples/artifacts/npm-registry.json"),
    ),
    (
        "vitest-open.json",
        include_str!("../../examples/artifacts/vitest-open.json"),
    ),
    (
        "no-versions.json",
        include_str!("../../examples/artifacts/no-versions.json"),
    ),
    (
        "version-free.json",
        include_str!("../../examples/artifacts/version-free.json"),
    ),
];

struct Demo<'a> {
    exe: std::path::PathBuf,
    env: Vec<(String, String)>,
    dir: &'a Path,
}

impl Demo<'_> {
    /// Runs `git lore args…`, echoing the command and what it printed, in
    /// the order it printed it, as a terminal shows it: a summary on stderr
    /// comes after the lines on stdout it sums up. Its output, and whether
    /// it succeeded.
    fn lore(&self, args: &[&str]) -> Option<(String, bool)> {
        out(&format!("\n$ git lore {}\n", args.join(" ")));
        let run = || -> std::io::Result<(String, bool)> {
            // One pipe for both streams keeps their lines in order.
            let (mut reader, writer) = std::io::pipe()?;
            let mut child = {
                let mut cmd = Command::new(&self.exe);
                cmd.args(args)
                    .env_clear()
                    .envs(self.env.iter().map(|(k, v)| (k, v)))
                    .current_dir(self.dir)
                    .stdin(std::process::Stdio::null())
                    .stdout(writer.try_clone()?)
                    .stderr(writer);
                cmd.spawn()?
                // The command, and the write ends it holds, go here: the
                // read below ends when the child exits.
            };
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut reader, &mut bytes)?;
            let status = child.wait()?;
            Ok((
                String::from_utf8_lossy(&bytes).into_owned(),
                status.success(),
            ))
        };
        match run() {
            Ok((text, ok)) => {
                out(&text);
                Some((text, ok))
            }
            Err(e) => {
                error(format!("could not run {}: {e}", self.exe.display()));
                None
            }
        }
    }

    fn git(&self, git: &str, args: &[&str]) -> Option<String> {
        out(&format!("\n$ git {}\n", args.join(" ")));
        let o = Command::new(git)
            .arg("--git-dir")
            .arg(self.dir.join("lessons.git"))
            .args(args)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        out(&text);
        Some(text)
    }
}

/// The lesson id proposed for `artifact` in `ingest` output.
fn lesson_for(ingest: &str, artifact: &str) -> Option<String> {
    ingest.lines().find_map(|l| {
        let parts: Vec<&str> = l.split_whitespace().collect();
        (parts.first() == Some(&"proposed") && parts.get(1) == Some(&artifact))
            .then(|| parts.get(3).map(|l| l.to_string()))
            .flatten()
    })
}

pub fn run(args: Args, ctx: &Ctx) -> ui::Result {
    let dir = tempfile::Builder::new()
        .prefix("git-lore-demo-")
        .tempdir()
        .map_err(|e| CliError::Usage(format!("cannot create a temporary directory: {e}")))?;
    let exe = std::env::current_exe()
        .map_err(|e| CliError::Usage(format!("cannot find the git-lore executable: {e}")))?;
    // The demo's repository has its own fresh key and identity, never reads
    // the user's git config, and never runs a model: it is offline whatever
    // the user configured. A fixed clock and seed, when given, carry
    // through, so the demo can be made reproducible.
    const KEEP: [&str; 2] = ["GIT_LORE_NOW", "GIT_LORE_RANDOMNESS_SEED"];
    let mut env: Vec<(String, String)> = ctx
        .env
        .child_env
        .iter()
        .filter(|(k, _)| !k.starts_with("GIT_") || KEEP.contains(&k.as_str()))
        .cloned()
        .collect();
    env.push((
        "GIT_LORE_REPO".into(),
        dir.path().join("lessons.git").display().to_string(),
    ));
    env.push(("GIT_CONFIG_NOSYSTEM".into(), "1".into()));
    env.push(("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()));
    let demo = Demo {
        exe,
        env,
        dir: dir.path(),
    };
    let inbox = dir.path().join("artifacts");
    std::fs::create_dir_all(&inbox)
        .map_err(|e| CliError::Usage(format!("cannot create {}: {e}", inbox.display())))?;
    for (name, text) in ARTIFACTS {
        std::fs::write(inbox.join(name), text)
            .map_err(|e| CliError::Usage(format!("cannot write {name}: {e}")))?;
    }
    out(&format!(
        "git-lore demo in {} (offline: no model, no network)\n",
        dir.path().display()
    ));

    // The demo's own identity: not the placeholder `init` warns about.
    demo.lore(&["init", "--name", "Demo", "--email", "demo@example.com"]);
    let Some((ingested, _)) = demo.lore(&["ingest", "artifacts"]) else {
        return Ok(Exit::Refused);
    };
    demo.lore(&["ingest", "artifacts"]);
    demo.lore(&["list"]);

    let ids = [
        lesson_for(&ingested, "01M1E3VM1GAD8DSR0D4BG72GC0"), // next/react → org
        lesson_for(&ingested, "01M1GKTGT0CZM08AJC6X1VR4QP"), // psycopg2 → public
        lesson_for(&ingested, "01KZ45MKAM734ZS7JK24D2DK0R"), // vitest → private
        lesson_for(&ingested, "01M1J2K3M4N5P6Q7R8S9T0V1W2"), // leaky → public
    ];
    let [Some(org), Some(public), Some(private), Some(leaky)] = ids else {
        return Err(CliError::Usage(
            "the bundled examples did not produce the expected proposals".into(),
        ));
    };
    demo.lore(&["show", &org]);
    demo.lore(&["confirm", &org, "org", "--yes"]);
    demo.lore(&["confirm", &public, "public", "--yes"]);
    demo.lore(&["confirm", &private, "private"]);
    demo.lore(&["confirm", &leaky, "public", "--yes"]);
    demo.lore(&["status"]);
    demo.lore(&["judge", "--all", "--yes"]);
    demo.lore(&["show", &leaky]);
    demo.lore(&["log", &org]);

    demo.git(
        &ctx.env.git_program,
        &[
            "log",
            "--all",
            "--format=%h %G? %<(16,trunc)%D %s%n        %(trailers:key=Lore-Action,key=Lore-From,key=Lore-Status,key=Lore-Reason,separator=%x2C )",
        ],
    );
    let verified = demo.lore(&["verify"]);
    if args.keep {
        let path = dir.keep();
        out(&format!(
            "\nkept {}; try: GIT_LORE_REPO={}/lessons.git git lore log -p\n",
            path.display(),
            path.display()
        ));
    }
    Ok(match verified {
        Some((_, true)) => Exit::Done,
        _ => Exit::Refused,
    })
}
