//! How commands print what they decided, so that each kind of result reads
//! the same wherever it comes from: the outcomes of an ingest run (`ingest`,
//! `capture`), a line each or the rows of one JSON array, streamed; and the
//! problems a check found in history (`verify`, `sync`, `publish`), one
//! `COMMIT (BRANCH): problem` line each.
//!
//! Everything goes through `ui` (`ui::text` for a terminal, the content
//! policy's JSON escaping for `--json`). It decides nothing about what the
//! outcomes or problems are.

use std::io::IsTerminal;

use super::ui::{self, Exit};
use git_lore::ops::audit::Problem;
use git_lore::ops::ingest::{self, Outcome, Skip};

/// One problem found in history, as a line: `COMMIT (BRANCH): problem`,
/// the problem as terminal text.
pub fn problem_line(p: &Problem) -> String {
    format!("{} ({}): {}\n", p.commit, p.branch, ui::text(&p.problem))
}

/// Every problem, a [`problem_line`] each.
pub fn problem_lines(problems: &[Problem]) -> String {
    problems.iter().map(problem_line).collect()
}

/// Why an artifact was skipped, as `--json` gives it (`reason`): a code a
/// program can match on, kept as it was when the text changes.
fn skip_code(why: Skip) -> &'static str {
    match why {
        Skip::Seen => "seen",
        Skip::Pregate => "pregate",
        Skip::Claimed => "claimed",
        Skip::InPool { .. } => "seen",
    }
}

/// Why an artifact was skipped, as a person reads it on the outcome line.
fn skip_words(why: Skip) -> &'static str {
    match why {
        Skip::Pregate => "no version in it",
        _ => skip_code(why),
    }
}

/// Where a skipped artifact was seen, when a pool holds its lesson.
fn seen_in(why: Skip) -> Option<String> {
    match why {
        Skip::InPool { pool, .. } => Some(format!("in pool/{pool}")),
        _ => None,
    }
}

/// The line printed for an outcome: the outcome, the artifact id, what
/// came of it, and where the artifact was read from.
fn line(o: &Outcome, source: Option<&str>) -> String {
    let from = match (o, source) {
        (Outcome::Invalid { .. }, _) | (_, None) => String::new(),
        (_, Some(s)) => format!(" (from {})", ui::text(s)),
    };
    let what = match o {
        Outcome::Proposed { lesson, artifact } => format!("proposed {artifact} lesson {lesson}"),
        Outcome::Declined {
            artifact,
            reason,
            detail,
        } => {
            let code = reason.to_string();
            let why = git_lore::review::reason_text(&code);
            match detail {
                Some(d) if d.len() <= 120 => {
                    format!("declined {artifact} {why} ({})", ui::text(d))
                }
                _ => format!("declined {artifact} {why}"),
            }
        }
        Outcome::Skipped { artifact, why } => match seen_in(*why) {
            Some(place) => format!("skipped {artifact} {} ({place})", skip_words(*why)),
            None => format!("skipped {artifact} {}", skip_words(*why)),
        },
        Outcome::Untouched { artifact, why } => {
            format!("untouched {artifact} {}", ui::text(why))
        }
        Outcome::Invalid { source: own, why } => {
            // The item's source as shown (relative where it can be).
            format!(
                "invalid {}: {}",
                ui::text(source.unwrap_or(own)),
                ui::text(&why.to_string())
            )
        }
    };
    what + &from
}

#[derive(serde::Serialize)]
struct Row {
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    artifact: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lesson: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
}

fn row(o: &Outcome, source: Option<&str>) -> Row {
    let mut r = Row {
        outcome: "",
        artifact: None,
        lesson: None,
        reason: None,
        detail: None,
        source: source.map(str::to_owned),
    };
    match o {
        Outcome::Proposed { lesson, artifact } => {
            r.outcome = "proposed";
            r.artifact = Some(artifact.to_string());
            r.lesson = Some(lesson.to_string());
        }
        Outcome::Declined {
            artifact,
            reason,
            detail,
        } => {
            r.outcome = "declined";
            r.artifact = Some(artifact.to_string());
            r.reason = Some(reason.to_string());
            r.detail = detail.clone();
        }
        Outcome::Skipped { artifact, why } => {
            r.outcome = "skipped";
            r.artifact = Some(artifact.to_string());
            r.reason = Some(skip_code(*why).into());
            if let Skip::InPool { lesson, .. } = why {
                r.lesson = Some(lesson.to_string());
                r.detail = seen_in(*why);
            }
        }
        Outcome::Untouched { artifact, why } => {
            r.outcome = "untouched";
            r.artifact = Some(artifact.to_string());
            r.reason = Some(why.clone());
        }
        Outcome::Invalid { source: own, why } => {
            r.outcome = "invalid";
            r.reason = Some(why.to_string());
            // The item's source as shown (relative where it can be).
            r.source = Some(source.unwrap_or(own).to_owned());
        }
    }
    r
}

/// Runs `run` (an ingest, a redo, capture's ingest), printing each outcome
/// as it is told: a line each, or the rows of one JSON array. Then the
/// summary on stderr; the exit code follows the outcomes.
pub fn print_outcomes(
    command: &str,
    json: bool,
    run: impl FnOnce(&mut ingest::Told<'_>) -> Result<ingest::Report, git_lore::ops::LoreError>,
) -> ui::Result {
    let mut printer = Printer::new(json);
    let report = run(&mut |o, source| printer.print(o, source));
    // A setup error comes before anything is told or written.
    let ingest::Report { tally, error } = report?;
    printer.finish();
    ui::status(summary(command, &tally));
    // A run stopped by an error still printed every outcome above, so what
    // was written before it is on record; the error decides the exit.
    if let Some(e) = error {
        return Err(e.into());
    }
    Ok(if tally.untouched > 0 {
        Exit::Undetermined
    } else if tally.invalid > 0 {
        Exit::Refused
    } else {
        Exit::Done
    })
}

/// The line that sums up a run, after its outcomes: `ingest: 4 lessons
/// proposed; 2 artifacts declined, 1 skipped`. Only the kinds of outcome
/// that happened are named, besides the lessons proposed.
fn summary(command: &str, t: &ingest::Tally) -> String {
    let others: Vec<String> = [
        (t.declined, "declined"),
        (t.skipped, "skipped"),
        (t.untouched, "untouched (nothing written; run it again)"),
        (t.invalid, "invalid"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .enumerate()
    .map(|(i, (n, what))| match i {
        0 => format!("{} {what}", ui::count(n, "artifact", "artifacts")),
        _ => format!("{n} {what}"),
    })
    .collect();
    let proposed = ui::amount(t.proposed, "lesson proposed", "lessons proposed");
    match others.is_empty() {
        true if t.proposed == 0 => format!("{command}: no artifacts found"),
        true => format!("{command}: {proposed}"),
        false => format!("{command}: {proposed}; {}", others.join(", ")),
    }
}

/// Prints outcomes as ingest tells them, in input order.
///
/// To a terminal each line is written as it comes; to a pipe or a file
/// they are buffered and written in blocks, as git does. With `--json`
/// the rows of one array are written as they come, so that nothing of a
/// long run is held to be printed at its end. A reader that went away
/// (`| head`) stops the printing, not the run.
///
/// When stderr is a terminal and stdout is not (output to a file), a
/// counter on stderr shows the run moving from the 20th artifact on; on a
/// terminal the lines themselves do.
struct Printer {
    json: bool,
    rows: usize,
    /// Paths under the current directory are shown relative to it, as
    /// typed.
    cwd: String,
    out: Option<Box<dyn std::io::Write>>,
    line_by_line: bool,
    bar: Option<indicatif::ProgressBar>,
}

impl Printer {
    fn new(json: bool) -> Printer {
        let stdout = std::io::stdout();
        let line_by_line = stdout.is_terminal();
        let bar = (!line_by_line && std::io::stderr().is_terminal()).then(|| {
            let b = indicatif::ProgressBar::hidden();
            b.set_style(
                indicatif::ProgressStyle::with_template("{pos} artifacts {msg}")
                    .expect("valid template"),
            );
            b
        });
        Printer {
            json,
            rows: 0,
            cwd: std::env::current_dir()
                .map(|d| format!("{}/", d.display()))
                .unwrap_or_default(),
            out: Some(Box::new(std::io::BufWriter::with_capacity(
                1 << 16,
                stdout.lock(),
            ))),
            line_by_line,
            bar,
        }
    }

    fn print(&mut self, o: &Outcome, source: Option<&str>) {
        if let Some(b) = &self.bar {
            b.inc(1);
            if b.position() == 20 {
                b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
        }
        let source = source.map(|s| {
            s.strip_prefix(self.cwd.as_str())
                .filter(|_| !self.cwd.is_empty())
                .unwrap_or(s)
        });
        let text = if self.json {
            json_row(self.rows == 0, &row(o, source))
        } else {
            format!("{}\n", line(o, source))
        };
        self.rows += 1;
        self.write(text.as_bytes(), self.line_by_line);
    }

    /// Closes the JSON array (`[]` when there was no row) and flushes.
    fn finish(&mut self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
        if self.json {
            self.write(json_close(self.rows == 0).as_bytes(), true);
        } else {
            self.write(b"", true);
        }
    }

    fn write(&mut self, bytes: &[u8], flush: bool) {
        let Some(out) = self.out.as_mut() else {
            return;
        };
        let done = out
            .write_all(bytes)
            .and_then(|()| if flush { out.flush() } else { Ok(()) });
        if let Err(e) = done {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                ui::error(format!("writing output: {e}"));
            }
            self.out = None;
        }
    }
}

/// A row of the JSON array as it is streamed: what `ui::out_json` prints
/// for the whole array, one row at a time.
fn json_row(first: bool, row: &Row) -> String {
    let row = git_lore::content::text::json(row).expect("a row serialises");
    let indented: Vec<String> = row.lines().map(|l| format!("  {l}")).collect();
    format!(
        "{}{}",
        if first { "[\n" } else { ",\n" },
        indented.join("\n")
    )
}

/// What ends the streamed array.
fn json_close(empty: bool) -> &'static str {
    if empty {
        "[]\n"
    } else {
        "\n]\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_says_what_happened_in_words() {
        let t = |proposed, declined, skipped, untouched, invalid| ingest::Tally {
            proposed,
            declined,
            skipped,
            untouched,
            invalid,
        };
        for (tally, said) in [
            (t(0, 0, 0, 0, 0), "ingest: no artifacts found"),
            (t(1, 0, 0, 0, 0), "ingest: 1 lesson proposed"),
            (
                t(4, 2, 1, 0, 0),
                "ingest: 4 lessons proposed; 2 artifacts declined, 1 skipped",
            ),
            (t(0, 0, 7, 0, 0), "ingest: no lessons proposed; 7 artifacts skipped"),
            (
                t(0, 0, 0, 1, 3),
                "ingest: no lessons proposed; 1 artifact untouched (nothing written; run it again), 3 invalid",
            ),
        ] {
            assert_eq!(summary("ingest", &tally), said);
        }
    }

    #[test]
    fn streamed_rows_make_the_array_printed_whole() {
        let id = git_lore::model::Id::from_parts(1, 2);
        let outcomes = [
            Outcome::Proposed {
                lesson: id,
                artifact: id,
            },
            Outcome::Skipped {
                artifact: id,
                why: Skip::Pregate,
            },
            Outcome::Untouched {
                artifact: id,
                why: "the model printed \"nothing\"\nat all".into(),
            },
        ];
        for n in 0..=outcomes.len() {
            let rows: Vec<Row> = outcomes[..n]
                .iter()
                .map(|o| row(o, Some("a.jsonl:1")))
                .collect();
            let streamed: String = rows
                .iter()
                .enumerate()
                .map(|(i, r)| json_row(i == 0, r))
                .chain([json_close(n == 0).to_owned()])
                .collect();
            let whole = git_lore::content::text::json(&rows).unwrap() + "\n";
            assert_eq!(streamed, whole, "{n} rows");
        }
    }
}
