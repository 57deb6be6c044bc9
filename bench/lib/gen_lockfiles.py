#!/usr/bin/env python3
"""Generate lockfiles for the parsing benchmark (bench/parse.sh) and for
hand-testing the parsers' budgets: real-shaped large lockfiles of every
format git-lore reads, and hostile ones.

Usage:
  gen_lockfiles.py --out DIR [--mb 10] [--only NAME[,NAME...]] [--list]

Each case is a directory DIR/<case>/ holding one lockfile under its real
name, so `git lore stack --project DIR/<case>` reads exactly that file.
Output is deterministic (a fixed seed): the same command writes the same
bytes.

Real-shaped cases (`real-*`) grow a lockfile of the format's real layout
(pnpm 9 importers/packages/snapshots, npm v3 `packages`, Yarn classic and
Berry, bun.lock, Cargo.lock v4, uv.lock, poetry.lock, requirements with
hashes, go.mod, go.sum, Gemfile.lock, composer.lock) with thousands of
packages until it is about --mb megabytes.

Hostile cases (`hostile-*`) are what a crafted or broken file can be:
  hostile-pnpm-flow-200k   the 200 KB pnpm-lock.yaml of nested flow
                           sequences from issue 20 (69 s before the fix)
  hostile-pnpm-flow        the same shape at --mb
  hostile-pnpm-flowmap     flow mappings and sequences nested alternately
  hostile-pnpm-block       block sequences nested as deep as the size allows
  hostile-pnpm-aliases     an alias expansion bomb ("billion laughs")
  hostile-pnpm-keys        --mb of one flat mapping with tiny keys
  hostile-npm-deep         package-lock.json: arrays nested as deep as
                           the size allows
  hostile-npm-wide         package-lock.json: --mb of tiny entries
  hostile-bun-deep         bun.lock: nested arrays, with comments
  hostile-composer-deep    composer.lock: nested objects
  hostile-cargo-deep       Cargo.lock: nested inline arrays
  hostile-cargo-dotted     Cargo.lock: one very long dotted key
  hostile-uv-tables        uv.lock: --mb of tiny [[package]] tables
  hostile-poetry-inline    poetry.lock: nested inline tables
  hostile-yarn-long        yarn.lock: one huge entry line
  hostile-yarn-berry-deep  yarn.lock (Berry): indentation nested deep
  hostile-req-continued    requirements.txt: one logical line of --mb
                           made of `\\` continuations
  hostile-gomod-long       go.mod: a require line of --mb
  hostile-gomod-block      go.mod: a require block of --mb tiny lines
  hostile-gosum-lines      go.sum: --mb of lines for one module
  hostile-gemfile-deep     Gemfile.lock: --mb of deeper-indented lines
"""

import argparse
import base64
import hashlib
import json
import os
import random
import sys

WORDS = (
    "alpha beta gamma delta core util utils parse parser fetch http server "
    "client node react vue vite rollup babel eslint plugin loader types "
    "config json yaml stream buffer path glob fs async promise event emitter "
    "color chalk debug logger trace test mock spec runner cli args option "
    "cache store state router query graph schema model data time date "
    "crypto hash base64 url mime form upload image canvas svg css style "
    "postcss tailwind lint format prettier compile transform ast token "
    "lexer ws socket net dns tls zlib gzip tar zip semver resolve"
).split()

LICENSES = ["MIT", "ISC", "Apache-2.0", "BSD-3-Clause", "BSD-2-Clause"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seen = set()

    def name(self, scoped_share=0.25, sep="-"):
        while True:
            n = sep.join(self.r.choice(WORDS) for _ in range(self.r.randint(1, 3)))
            if self.r.random() < scoped_share:
                n = "@" + self.r.choice(WORDS) + "/" + n
            if n not in self.seen:
                self.seen.add(n)
                return n

    def version(self):
        return "%d.%d.%d" % (
            self.r.choice([0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 12, 18]),
            self.r.randint(0, 40),
            self.r.randint(0, 30),
        )

    def integrity(self):
        raw = bytes(self.r.getrandbits(8) for _ in range(64))
        return "sha512-" + base64.b64encode(raw).decode()

    def sha256(self):
        return "%064x" % self.r.getrandbits(256)

    def packages(self, n, **kw):
        return [(self.name(**kw), self.version()) for _ in range(n)]


def grow(target, unit, build):
    """Finds a package count whose output is about `target` bytes: builds
    once at `unit` packages, scales, builds again."""
    probe = build(unit)
    n = max(1, int(unit * target / max(1, len(probe))))
    return build(n)


def q(s):
    """Quotes a YAML key the way pnpm does when it needs to."""
    return "'%s'" % s if s[0] in "@'" or ":" in s or "(" in s else s


# ---------------------------------------------------------------- real shapes


def real_pnpm(target, seed=1):
    def build(n):
        g = Gen(seed)
        pkgs = g.packages(n)
        r = g.r
        out = ["lockfileVersion: '9.0'", "", "settings:",
               "  autoInstallPeers: true", "  excludeLinksFromLockfile: false",
               "", "importers:", ""]
        workspaces = ["."] + ["packages/%s" % g.name(scoped_share=0) for _ in range(max(1, n // 400))]
        for ws in workspaces:
            out.append("  %s:" % ws)
            for group in ("dependencies", "devDependencies"):
                out.append("    %s:" % group)
                for name, ver in r.sample(pkgs, min(len(pkgs), r.randint(5, 25))):
                    out += ["      %s:" % q(name), "        specifier: ^%s" % ver,
                            "        version: %s" % ver]
            out.append("")
        out += ["packages:", ""]
        for name, ver in pkgs:
            out.append("  %s:" % q("%s@%s" % (name, ver)))
            out.append("    resolution: {integrity: %s}" % g.integrity())
            if r.random() < 0.4:
                out.append("    engines: {node: '>=%d'}" % r.choice([12, 14, 16, 18, 20]))
            if r.random() < 0.15:
                peer = r.choice(pkgs)
                out += ["    peerDependencies:", "      %s: ^%s" % (q(peer[0]), peer[1])]
            if r.random() < 0.1:
                out.append("    hasBin: true")
            out.append("")
        out += ["snapshots:", ""]
        for name, ver in pkgs:
            deps = r.sample(pkgs, min(len(pkgs), r.choice([0, 0, 1, 2, 3, 5, 8])))
            key = "%s@%s" % (name, ver)
            if r.random() < 0.1:
                peer = r.choice(pkgs)
                key += "(%s@%s)" % peer
            if not deps:
                out += ["  %s: {}" % q(key), ""]
                continue
            out += ["  %s:" % q(key), "    dependencies:"]
            for d, v in deps:
                out.append("      %s: %s" % (q(d), v))
            out.append("")
        return "\n".join(out)
    return grow(target, 500, build)


def real_npm(target, seed=2):
    def build(n):
        g = Gen(seed)
        pkgs = g.packages(n)
        r = g.r
        packages = {"": {"name": "app", "version": "1.0.0",
                         "dependencies": {p: "^" + v for p, v in pkgs[:30]}}}
        for i, (name, ver) in enumerate(pkgs):
            path = "node_modules/" + name
            if i % 17 == 0 and i > 0:
                path = "node_modules/%s/node_modules/%s" % (pkgs[i - 1][0], name)
            e = {"version": ver,
                 "resolved": "https://registry.npmjs.org/%s/-/%s-%s.tgz" % (name, name.split("/")[-1], ver),
                 "integrity": g.integrity()}
            if r.random() < 0.5:
                e["dependencies"] = {d: "^" + v for d, v in r.sample(pkgs, min(len(pkgs), 3))}
            if r.random() < 0.3:
                e["engines"] = {"node": ">=14"}
            if r.random() < 0.2:
                e["dev"] = True
            e["license"] = r.choice(LICENSES)
            packages[path] = e
        return json.dumps({"name": "app", "version": "1.0.0", "lockfileVersion": 3,
                           "requires": True, "packages": packages}, indent=2)
    return grow(target, 500, build)


def real_yarn_v1(target, seed=3):
    def build(n):
        g = Gen(seed)
        r = g.r
        out = ["# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.",
               "# yarn lockfile v1", "", ""]
        for name, ver in g.packages(n):
            out.append('"%s@^%s":' % (name, ver))
            out.append('  version "%s"' % ver)
            out.append('  resolved "https://registry.yarnpkg.com/%s/-/%s-%s.tgz#%s"'
                       % (name, name.split("/")[-1], ver, g.sha256()[:40]))
            out.append("  integrity %s" % g.integrity())
            if r.random() < 0.5:
                out.append("  dependencies:")
                for _ in range(r.randint(1, 4)):
                    out.append('    %s "^%s"' % (g.r.choice(WORDS), g.version()))
            out.append("")
        return "\n".join(out)
    return grow(target, 500, build)


def real_yarn_berry(target, seed=4):
    def build(n):
        g = Gen(seed)
        r = g.r
        out = ["# This file is generated by running \"yarn install\" inside your project.",
               "# Manual changes might be lost - proceed with caution!", "",
               "__metadata:", "  version: 8", "  cacheKey: 10c0", ""]
        for name, ver in g.packages(n):
            out.append('"%s@npm:^%s":' % (name, ver))
            out.append("  version: %s" % ver)
            out.append('  resolution: "%s@npm:%s"' % (name, ver))
            if r.random() < 0.5:
                out.append("  dependencies:")
                for _ in range(r.randint(1, 4)):
                    out.append("    %s: \"npm:^%s\"" % (g.r.choice(WORDS), g.version()))
            out.append("  checksum: 10c0/%s" % (g.sha256() * 2))
            out.append("  languageName: node")
            out.append("  linkType: hard")
            out.append("")
        return "\n".join(out)
    return grow(target, 500, build)


def real_bun(target, seed=5):
    def build(n):
        g = Gen(seed)
        pkgs = g.packages(n)
        lines = ["{", '  "lockfileVersion": 1,', '  "workspaces": {', '    "": {',
                 '      "name": "app",', '      "dependencies": {']
        lines += ['        "%s": "^%s",' % p for p in pkgs[:20]]
        lines += ["      },", "    },", "  },", '  "packages": {']
        for name, ver in pkgs:
            deps = {d: "^" + v for d, v in g.r.sample(pkgs, min(len(pkgs), g.r.choice([0, 1, 3])))}
            lines.append('    "%s": ["%s@%s", "", %s, "%s"],'
                         % (name, name, ver, json.dumps({"dependencies": deps} if deps else {}),
                            g.integrity()))
        lines += ["  }", "}"]
        return "\n".join(lines)
    return grow(target, 500, build)


def real_cargo(target, seed=6):
    def build(n):
        g = Gen(seed)
        pkgs = g.packages(n, scoped_share=0, sep="_")
        out = ["# This file is automatically @generated by Cargo.",
               "# It is not intended for manual editing.", "version = 4", ""]
        out += ['[[package]]', 'name = "app"', 'version = "0.1.0"', ""]
        for name, ver in pkgs:
            out += ["[[package]]", 'name = "%s"' % name, 'version = "%s"' % ver,
                    'source = "registry+https://github.com/rust-lang/crates.io-index"',
                    'checksum = "%s"' % g.sha256()]
            deps = g.r.sample(pkgs, min(len(pkgs), g.r.choice([0, 1, 2, 4])))
            if deps:
                out.append("dependencies = [")
                out += [' "%s",' % d for d, _ in deps]
                out.append("]")
            out.append("")
        return "\n".join(out)
    return grow(target, 500, build)


def real_uv(target, seed=7):
    def build(n):
        g = Gen(seed)
        pkgs = g.packages(n, scoped_share=0)
        out = ["version = 1", "revision = 2", 'requires-python = ">=3.11"', ""]
        for name, ver in pkgs:
            out += ["[[package]]", 'name = "%s"' % name, 'version = "%s"' % ver,
                    'source = { registry = "https://pypi.org/simple" }']
            deps = g.r.sample(pkgs, min(len(pkgs), g.r.choice([0, 1, 2])))
            if deps:
                out.append("dependencies = [")
                out += ['    { name = "%s" },' % d for d, _ in deps]
                out.append("]")
            out.append('sdist = { url = "https://files.pythonhosted.org/packages/%s/%s-%s.tar.gz", hash = "sha256:%s", size = %d }'
                       % (g.sha256()[:8], name, ver, g.sha256(), g.r.randint(1000, 900000)))
            out.append("wheels = [")
            out.append('    { url = "https://files.pythonhosted.org/packages/%s/%s-%s-py3-none-any.whl", hash = "sha256:%s", size = %d },'
                       % (g.sha256()[:8], name, ver, g.sha256(), g.r.randint(1000, 900000)))
            out.append("]")
            out.append("")
        return "\n".join(out)
    return grow(target, 500, build)


def real_poetry(target, seed=8):
    def build(n):
        g = Gen(seed)
        out = ["# This file is automatically @generated by Poetry 2.1.1 and should not be changed by hand.", ""]
        for name, ver in g.packages(n, scoped_share=0):
            out += ["[[package]]", 'name = "%s"' % name, 'version = "%s"' % ver,
                    'description = "The %s library."' % name, "optional = false",
                    'python-versions = ">=3.8"', 'groups = ["main"]', "files = [",
                    '    {file = "%s-%s-py3-none-any.whl", hash = "sha256:%s"},' % (name, ver, g.sha256()),
                    '    {file = "%s-%s.tar.gz", hash = "sha256:%s"},' % (name, ver, g.sha256()),
                    "]", ""]
        out += ["[metadata]", 'lock-version = "2.1"', 'python-versions = "^3.11"',
                'content-hash = "%s"' % g.sha256()]
        return "\n".join(out)
    return grow(target, 500, build)


def real_requirements(target, seed=9):
    def build(n):
        g = Gen(seed)
        out = ["# This file was autogenerated by uv via the following command:",
               "#    uv pip compile requirements.in --generate-hashes"]
        for name, ver in g.packages(n, scoped_share=0):
            out.append("%s==%s \\" % (name, ver))
            out.append("    --hash=sha256:%s \\" % g.sha256())
            out.append("    --hash=sha256:%s" % g.sha256())
            out.append("    # via app")
        return "\n".join(out) + "\n"
    return grow(target, 500, build)


def real_gomod(target, seed=10):
    def build(n):
        g = Gen(seed)
        out = ["module example.com/app", "", "go 1.22", "", "require ("]
        for name, ver in g.packages(n, scoped_share=0):
            out.append("\tgithub.com/%s/%s v%s" % (g.r.choice(WORDS), name, ver))
        out.append(")")
        out.append("")
        out.append("replace github.com/old/thing v1.0.0 => github.com/new/thing v1.2.0")
        return "\n".join(out) + "\n"
    return grow(target, 500, build)


def real_gosum(target, seed=11):
    def build(n):
        g = Gen(seed)
        out = []
        for name, ver in g.packages(n, scoped_share=0):
            mod = "github.com/%s/%s" % (g.r.choice(WORDS), name)
            h = base64.b64encode(hashlib.sha256(mod.encode()).digest()).decode()
            out.append("%s v%s h1:%s" % (mod, ver, h))
            out.append("%s v%s/go.mod h1:%s" % (mod, ver, h))
        return "\n".join(out) + "\n"
    return grow(target, 500, build)


def real_gemfile(target, seed=12):
    def build(n):
        g = Gen(seed)
        out = ["GEM", "  remote: https://rubygems.org/", "  specs:"]
        for name, ver in g.packages(n, scoped_share=0, sep="_"):
            out.append("    %s (%s)" % (name, ver))
            for _ in range(g.r.choice([0, 1, 2])):
                out.append("      %s (>= %s)" % (g.r.choice(WORDS), g.version()))
        out += ["", "PLATFORMS", "  ruby", "  x86_64-linux", "", "DEPENDENCIES", "  rails",
                "", "BUNDLED WITH", "   2.5.9"]
        return "\n".join(out) + "\n"
    return grow(target, 500, build)


def real_composer(target, seed=13):
    def build(n):
        g = Gen(seed)
        pkgs = []
        for name, ver in g.packages(n, scoped_share=0):
            vendor = g.r.choice(WORDS)
            pkgs.append({"name": "%s/%s" % (vendor, name), "version": "v" + ver,
                         "source": {"type": "git", "url": "https://github.com/%s/%s.git" % (vendor, name),
                                    "reference": g.sha256()[:40]},
                         "dist": {"type": "zip", "url": "https://api.github.com/repos/%s/%s/zipball/%s"
                                  % (vendor, name, g.sha256()[:40]), "shasum": ""},
                         "require": {"php": ">=8.1"}, "type": "library",
                         "license": [g.r.choice(LICENSES)],
                         "description": "The %s package." % name})
        return json.dumps({"_readme": ["This file locks the dependencies of your project"],
                           "content-hash": g.sha256()[:32], "packages": pkgs, "packages-dev": [],
                           "aliases": [], "minimum-stability": "stable"}, indent=4)
    return grow(target, 500, build)


# ------------------------------------------------------------------ hostile


def fill(target, unit):
    return max(1, target // len(unit))


def hostile_pnpm_flow(target, open_="[", close="]"):
    # Issue 20's shape: a key whose value is flow collections nested
    # 100,000 deep (200 KB: 69 s with serde_norway), repeated up to the
    # target size.
    per = min(100_000, max(1, (target - 40) // (len(open_) + len(close))))
    nest = open_ * per + close * per
    n = max(1, target // (len(nest) + 10))
    return "lockfileVersion: '9.0'\n" + "".join("x%d: %s\n" % (i, nest) for i in range(n))


def hostile_pnpm_block(target):
    lines = ["lockfileVersion: '9.0'", "packages:"]
    size, depth = 0, 1
    while size < target:
        line = "  " * depth + "- x:"
        lines.append(line)
        size += len(line) + 1
        depth += 1
    return "\n".join(lines) + "\n"


def hostile_pnpm_aliases():
    out = ["lockfileVersion: '9.0'", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        out.append("a%d: &a%d [%s]" % (i, i, ", ".join(["*a%d" % (i - 1)] * 10)))
    out.append("packages:\n  x@1.0.0: *a9")
    return "\n".join(out) + "\n"


def hostile_pnpm_keys(target):
    unit = "  k%08d: 1\n"
    return "lockfileVersion: '9.0'\npackages:\n" + "".join(unit % i for i in range(fill(target, unit % 0)))


def deep_json(target, open_="[", close="]"):
    n = target // 2
    return open_ * n + close * n


def hostile_npm_deep(target):
    return '{"lockfileVersion": 3, "packages": {"node_modules/x": {"version": "1.0.0", "extra": ' + \
        deep_json(target - 200) + "}}}"


def hostile_npm_wide(target):
    unit = '"node_modules/p%08d":{"version":"1.0.0"},'
    n = fill(target, unit % 0)
    return '{"lockfileVersion":3,"packages":{' + "".join(unit % i for i in range(n)) + '"":{}}}'


def hostile_bun_deep(target):
    n = target // 8
    return '{"lockfileVersion": 1, "packages": {"x": ["x@1.0.0", ' + "[ /*c*/" * n + "]" * n + "]}}"


def hostile_composer_deep(target):
    n = target // 8
    return '{"packages": [{"name": "a/b", "version": "1.0.0", "extra": ' + '{"a":' * n + "1" + "}" * n + "}]}"


def hostile_cargo_deep(target):
    n = target // 2
    return 'version = 4\n[[package]]\nname = "x"\nversion = "1.0.0"\nsource = "registry+x"\nextra = ' + \
        "[" * n + "]" * n + "\n"


def hostile_cargo_dotted(target):
    n = target // 2
    return 'version = 4\n' + ".".join(["a"] * n) + ' = 1\n[[package]]\nname = "x"\nversion = "1.0.0"\n'


def hostile_uv_tables(target):
    unit = '[[package]]\nname = "p"\nversion = "1"\nsource = { registry = "r" }\n'
    return "version = 1\n" + unit * fill(target, unit)


def hostile_poetry_inline(target):
    n = target // 8
    return '[[package]]\nname = "x"\nversion = "1.0.0"\nextra = ' + "{a = " * n + "1" + "}" * n + \
        '\n[metadata]\nlock-version = "2.1"\n'


def hostile_yarn_long(target):
    return "# yarn lockfile v1\n\n\"" + ", ".join("p%d@^1.0.0" % i for i in range(target // 12)) + \
        "\":\n  version \"1.0.0\"\n"


def hostile_yarn_berry_deep(target):
    lines = ["__metadata:", "  version: 8", "", '"x@npm:1.0.0":', "  version: 1.0.0", "  dependencies:"]
    size, depth = 0, 2
    while size < target:
        line = "  " * depth + "k%d:" % depth
        lines.append(line)
        size += len(line) + 1
        depth += 1
    return "\n".join(lines) + "\n"


def hostile_req_continued(target):
    unit = "x \\\n"
    return "pkg==1.0.0 " + unit * fill(target, unit) + "\n"


def hostile_gomod_long(target):
    return "module x\nrequire " + "a" * target + " v1.0.0\n"


def hostile_gomod_block(target):
    unit = "\ta v1\n"
    return "module x\nrequire (\n" + unit * fill(target, unit) + ")\n"


def hostile_gosum_lines(target):
    unit = "github.com/a/b v1.%d.0 h1:AAAA\n"
    return "".join(unit % i for i in range(fill(target, unit % 100000)))


def hostile_gemfile_deep(target):
    unit = "      dep (>= 1)\n"
    return "GEM\n  remote: https://rubygems.org/\n  specs:\n    x (1.0.0)\n" + unit * fill(target, unit)


CASES = {
    "real-pnpm": ("pnpm-lock.yaml", lambda t: real_pnpm(t)),
    "real-npm": ("package-lock.json", lambda t: real_npm(t)),
    "real-yarn-v1": ("yarn.lock", lambda t: real_yarn_v1(t)),
    "real-yarn-berry": ("yarn.lock", lambda t: real_yarn_berry(t)),
    "real-bun": ("bun.lock", lambda t: real_bun(t)),
    "real-cargo": ("Cargo.lock", lambda t: real_cargo(t)),
    "real-uv": ("uv.lock", lambda t: real_uv(t)),
    "real-poetry": ("poetry.lock", lambda t: real_poetry(t)),
    "real-requirements": ("requirements.txt", lambda t: real_requirements(t)),
    "real-gomod": ("go.mod", lambda t: real_gomod(t)),
    "real-gosum": ("go.sum", lambda t: real_gosum(t)),
    "real-gemfile": ("Gemfile.lock", lambda t: real_gemfile(t)),
    "real-composer": ("composer.lock", lambda t: real_composer(t)),
    "hostile-pnpm-flow-200k": ("pnpm-lock.yaml", lambda t: hostile_pnpm_flow(200_010)),
    "hostile-pnpm-flow": ("pnpm-lock.yaml", hostile_pnpm_flow),
    "hostile-pnpm-flowmap": ("pnpm-lock.yaml", lambda t: hostile_pnpm_flow(t, "{a: [", "]}")),
    "hostile-pnpm-block": ("pnpm-lock.yaml", hostile_pnpm_block),
    "hostile-pnpm-aliases": ("pnpm-lock.yaml", lambda t: hostile_pnpm_aliases()),
    "hostile-pnpm-keys": ("pnpm-lock.yaml", hostile_pnpm_keys),
    "hostile-npm-deep": ("package-lock.json", hostile_npm_deep),
    "hostile-npm-wide": ("package-lock.json", hostile_npm_wide),
    "hostile-bun-deep": ("bun.lock", hostile_bun_deep),
    "hostile-composer-deep": ("composer.lock", hostile_composer_deep),
    "hostile-cargo-deep": ("Cargo.lock", hostile_cargo_deep),
    "hostile-cargo-dotted": ("Cargo.lock", hostile_cargo_dotted),
    "hostile-uv-tables": ("uv.lock", hostile_uv_tables),
    "hostile-poetry-inline": ("poetry.lock", hostile_poetry_inline),
    "hostile-yarn-long": ("yarn.lock", hostile_yarn_long),
    "hostile-yarn-berry-deep": ("yarn.lock", hostile_yarn_berry_deep),
    "hostile-req-continued": ("requirements.txt", hostile_req_continued),
    "hostile-gomod-long": ("go.mod", hostile_gomod_long),
    "hostile-gomod-block": ("go.mod", hostile_gomod_block),
    "hostile-gosum-lines": ("go.sum", hostile_gosum_lines),
    "hostile-gemfile-deep": ("Gemfile.lock", hostile_gemfile_deep),
}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out")
    p.add_argument("--mb", type=float, default=10.0)
    p.add_argument("--only", default="")
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    if a.list:
        print("\n".join(CASES))
        return
    if not a.out:
        p.error("--out DIR is required")
    only = [c for c in a.only.split(",") if c]
    for c in only:
        if c not in CASES:
            p.error("unknown case %s (--list names them)" % c)
    target = int(a.mb * 1_000_000)
    for case, (file, make) in CASES.items():
        if only and case not in only:
            continue
        d = os.path.join(a.out, case)
        os.makedirs(d, exist_ok=True)
        text = make(target)
        with open(os.path.join(d, file), "w") as f:
            f.write(text)
        print("%s\t%s\t%d" % (case, file, len(text.encode())))


if __name__ == "__main__":
    sys.exit(main())
