#!/usr/bin/env python3
"""Render bench/out/<mode>/results.tsv as Markdown: environment, every figure,
and the goals of issues 2 and 3 as met / missed with the ratio."""
import os
import sys


def main():
    out = sys.argv[1]
    rows = []
    vals = {}
    with open(os.path.join(out, "results.tsv")) as f:
        for line in f:
            key, value, unit, what = line.rstrip("\n").split("\t", 3)
            rows.append((key, value, unit, what))
            try:
                vals[key] = float(value)
            except ValueError:
                pass
    print("## Environment\n")
    print("```")
    with open(os.path.join(out, "environment.txt")) as f:
        print(f.read().rstrip())
    print("```\n")
    print("## Figures\n")
    print("| key | value | unit | what |")
    print("|---|---:|---|---|")
    for key, value, unit, what in rows:
        what = what.replace("|", "\\|")
        print(f"| `{key}` | {value} | {unit} | {what} |")
    print()

    def g(k):
        return vals.get(k)

    goals = []

    def goal(name, ok, detail):
        if ok is None:
            goals.append((name, "not measured", detail))
        else:
            goals.append((name, "met" if ok else "MISSED", detail))

    b, b0, c = g("b.wall"), g("b0.wall"), g("c.wall")
    if b and c:
        goal("batch within 3x of fast-import's time (default config)", b <= 3 * c,
             f"{b:.2f} s vs {c:.2f} s = {b / c:.1f}x")
    if b0 and c:
        goal("batch within 3x of fast-import's time (gc.auto=0)", b0 <= 3 * c,
             f"{b0:.2f} s vs {c:.2f} s = {b0 / c:.1f}x")
    if g("b1.wall") and c:
        goal("batch within 3x of fast-import's time (gc.autoDetach=false)", g("b1.wall") <= 3 * c,
             f"{g('b1.wall'):.2f} s vs {c:.2f} s = {g('b1.wall') / c:.1f}x")
    cs = g("c.size")
    for k, label in (("b.size", "as left by git-lore (background gc --auto)"),
                     ("b0.size_loose", "loose as written (gc.auto=0)"),
                     ("b1.size", "with gc.autoDetach=false"),
                     ("f.b0_repacked", "after git repack -ad")):
        if g(k) and cs:
            goal(f"repository within 3x of fast-import's size: {label}", g(k) <= 3 * cs,
                 f"{g(k):.0f} KiB vs {cs:.0f} KiB = {g(k) / cs:.1f}x")
    if g("f.b0_aggressive") and g("f.c_aggressive"):
        a1, a2 = g("f.b0_aggressive"), g("f.c_aggressive")
        goal("repository within 3x, both after gc --aggressive", a1 <= 3 * a2,
             f"{a1:.0f} KiB vs {a2:.0f} KiB = {a1 / a2:.1f}x")
    for k, label in (("e.seen_n", "small"), ("e.seen_big", "big")):
        if g(k) is not None:
            goal(f"seen under 10 ms incl. process start ({label} repository, `{k}`)", g(k) < 10,
                 f"{g(k):.2f} ms mean")
    if g("e.seen_n") and g("e.seen_big"):
        s1, s2 = g("e.seen_n"), g("e.seen_big")
        goal("seen the same at the big size as at the small", s2 <= s1 * 1.25 + 0.5,
             f"{s2:.2f} ms vs {s1:.2f} ms ({s2 / s1:.2f}x)")
    if g("h.wall") is not None:
        goal("re-run over the same artifacts under 1 s", g("h.wall") < 1.0, f"{g('h.wall'):.3f} s")
    if g("h.model_calls") is not None:
        goal("re-run makes no model call", g("h.model_calls") == 0, f"{g('h.model_calls'):.0f} calls")
    if g("g.wall") and c:
        goals.append(("(no goal) stub-model batch vs fast-import", "info",
                      f"{g('g.wall'):.2f} s vs {c:.2f} s = {g('g.wall') / c:.1f}x"))
    print("## Goals\n")
    print("| goal | result | figures |")
    print("|---|---|---|")
    for name, res, detail in goals:
        print(f"| {name} | {res} | {detail} |")


if __name__ == "__main__":
    main()
