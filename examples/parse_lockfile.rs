//! Times the phases of reading one lockfile, for the parsing benchmark
//! (`bench/parse.sh`, docs/PERFORMANCE.md "Parsing lockfiles"): the parse
//! alone, and the whole scan of its directory (parse, attribution,
//! de-duplication, sorting).
//!
//! ```text
//! cargo run --release --example parse_lockfile -- FILE [RUNS]
//! ```
//!
//! Prints one TSV line: file, bytes, parse_ms, scan_ms (medians of CPU
//! time: the thread's own, which a machine shared with other work does not
//! inflate), packages or the error.

use std::path::Path;

use git_lore::recall::stack::{scan, Format, Limits};

/// The calling thread's CPU time, in milliseconds.
fn cpu_ms() -> f64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    ts.tv_sec as f64 * 1000.0 + ts.tv_nsec as f64 / 1e6
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(file) = args.get(1) else {
        eprintln!("usage: parse_lockfile FILE [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(5);
    let path = Path::new(file);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let Some(format) = Format::of_file_name(name) else {
        eprintln!("{name}: not a lockfile name git-lore reads");
        std::process::exit(2);
    };
    let bytes = std::fs::read(path).unwrap_or_else(|e| {
        eprintln!("{file}: {e}");
        std::process::exit(2)
    });
    let mut parse = Vec::new();
    let mut outcome = String::new();
    for _ in 0..runs {
        let t = cpu_ms();
        let r = format.parse(&bytes);
        parse.push(cpu_ms() - t);
        outcome = match r {
            Ok(p) => format!("{} packages", p.packages.len()),
            Err(e) => e.to_string(),
        };
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut whole = Vec::new();
    for _ in 0..runs {
        let t = cpu_ms();
        let s = scan(dir, &Limits::default());
        whole.push(cpu_ms() - t);
        std::hint::black_box(s);
    }
    println!(
        "{file}\t{}\t{:.1}\t{:.1}\t{outcome}",
        bytes.len(),
        median(parse),
        median(whole)
    );
}
