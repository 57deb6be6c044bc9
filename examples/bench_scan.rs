//! Times the disclosure scanner (`git_lore::scanner::scan`) on the texts
//! docs/disclosure.md reports, and prints one line per text: its size, the
//! runs, and the mean and best time per scan.
//!
//! ```text
//! cargo run --release --example bench_scan
//! ```
//!
//! Every text is built here, deterministically; nothing is read.

use std::time::{Duration, Instant};

use git_lore::scanner::scan;

/// About 10 KB of what lessons hold: prose, code, URLs, hashes, versions,
/// paths.
fn lesson() -> String {
    let para = "Vitest 4.0.5 imports vite/module-runner, which Vite 5.4.21 lacks; pin vitest to 3.2.4 \
        until the Vite 6 upgrade lands (see https://vitest.dev/guide/migration#vite-6). \
        `pnpm why vite` listed vite 5.4.21 peer from @vitejs/plugin-react 4.3.4. \
        The lockfile's integrity for vite is sha512-nH3uZV9Yq7Hn2m4N8tQpXl0w1EeKj9bBfYqCkz3T6aMvD4rS5uWx8y2AiGoJ7hLcPdQf0sRtUvWxYz1A2B3C4D5E==. \
        git bisect landed on 3f9a1c2e7b4d5f60718293a4b5c6d7e8f9012345 in node_modules/.bin/vitest; \
        cargo puts binaries in ~/.cargo/bin and libssl is in /usr/lib/x86_64-linux-gnu. \
        fn main() { let max_tokens = 4096; let token = get_token()?; println!(\"{max_tokens}\"); }\n";
    para.repeat(10_000 / para.len() + 1)
}

fn time(label: &str, text: &str, runs: u32) {
    let first = Instant::now();
    let found = scan(text).len();
    let first = first.elapsed();
    let mut best = Duration::MAX;
    let start = Instant::now();
    for _ in 0..runs {
        let t = Instant::now();
        std::hint::black_box(scan(std::hint::black_box(text)));
        best = best.min(t.elapsed());
    }
    let mean = start.elapsed() / runs;
    println!(
        "{label:<58} {:>9} bytes {runs:>5} runs  mean {:>9.3} ms  best {:>9.3} ms  first {:>8.3} ms  {found} findings",
        text.len(),
        mean.as_secs_f64() * 1e3,
        best.as_secs_f64() * 1e3,
        first.as_secs_f64() * 1e3,
    );
}

fn main() {
    let clean = lesson();
    let with_leaks = format!(
        "{clean} ask jane.doe@acme-corp.com; AWS_ACCESS_KEY_ID={}",
        concat!("AKIA", "Q3VZ7KLM2NB4XW6R")
    );
    time("10 KB lesson, clean", &clean, 2000);
    time("10 KB lesson with two leaks", &with_leaks, 2000);
    let cyrillic =
        "Вітест 4 не може імпортувати vite/module-runner на Vite 5; закріпіть 3.2.4. ".repeat(80);
    time(
        "10 KB of Cyrillic prose (every character normalised)",
        &cyrillic,
        2000,
    );
    let cjk = "日本語のコメントは UTF-8 で保存すること。cp932 では文字化けする。".repeat(110);
    time("10 KB of Japanese prose", &cjk, 2000);
    let b64 = "aGFybWxlc3MgZGVjb2RlZCB3b3JkcyBoZXJl ".repeat(10_000 / 37);
    time("10 KB of base64 runs that decode to text", &b64, 500);
    let pct = "a%20b%2Fc%3Dd ".repeat(10_000 / 14);
    time("10 KB of percent-encoded runs", &pct, 500);
    let emails: String = (0..400)
        .map(|i| format!("user{i}@acme-corp.com "))
        .collect();
    time("10 KB of 400 e-mail addresses", &emails, 200);
    let huge = clean.repeat(1000);
    time("10 MB of lesson text", &huge, 3);
    let huge_b64 = b64.repeat(1000);
    time(
        "10 MB of decodable base64 (past the decode budget)",
        &huge_b64,
        3,
    );
}
