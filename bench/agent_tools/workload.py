"""The "agent-tools" workload: a generated tree and the calls made on it.

`build(root, seed)` writes, deterministically from the seed:

  src/pkgNN/*.py      Python-like source files (classes, functions, TODOs)
  data/samples/*      logs, CSV tables and prose notes
  repo/               a small git repository with uncommitted changes
                      (modified, deleted and untracked files)
  tools/              the small Python and Node.js programs of the mix

and returns a `Workload`: the list of distinct tool calls with the output
each one must produce.  Expected outputs are computed here from the
generated content, independently of any tool, so a backend that returns a
wrong, empty or truncated result cannot pass for a fast one.
"""

from __future__ import annotations

import dataclasses
import os
import random
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The 16 tools of the mix, in the reference table's order.
TOOLS = (
    "rg", "grep", "sed", "awk", "cat", "head", "tail", "find", "stat", "ls",
    "git-status", "git-diff", "python-small", "node-small", "sh-c", "bash-c",
)

# Executables the mix needs, with the Debian package that provides each.
EXECUTABLES = {
    "rg": "ripgrep", "grep": "grep", "sed": "sed", "awk": "mawk",
    "cat": "coreutils", "head": "coreutils", "tail": "coreutils",
    "find": "findutils", "stat": "coreutils", "ls": "coreutils",
    "wc": "coreutils", "git": "git", "node": "nodejs", "sh": "dash",
    "bash": "bash",
}

WORDS = (
    "alpha", "buffer", "cache", "delta", "event", "frame", "graph", "handle",
    "index", "job", "kernel", "layer", "merge", "node", "offset", "parse",
    "queue", "route", "shard", "token", "update", "vector", "worker", "yield",
    "zone", "batch", "client", "digest", "entry", "filter", "group", "header",
    "input", "journal", "key", "limit", "metric", "name", "option", "packet",
    "record", "schema", "table", "user", "value", "window", "config", "state",
)
LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR")

N_PACKAGES = 8
MODULES_PER_PACKAGE = 6
VARIANTS_PER_TOOL = 24

# Identity and dates for the generated repository, so it is the same on
# every machine and run (and no user or system git config is consulted).
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


@dataclasses.dataclass(frozen=True)
class Call:
    """One tool call: argv run in cwd, and what it must print."""
    tool: str
    argv: tuple[str, ...]
    cwd: str
    stdout: bytes
    returncode: int = 0
    # find prints in directory order, which the file system chooses: its
    # output is compared as a sorted list of lines.
    unordered: bool = False

    def check(self, returncode: int, stdout: bytes, stderr: bytes) -> str | None:
        """None if the result is the expected one, else what is wrong."""
        if returncode != self.returncode:
            return f"exit status {returncode}, expected {self.returncode}"
        if stderr:
            return f"unexpected stderr {stderr[:200]!r}"
        got = b"".join(sorted(stdout.splitlines(True))) if self.unordered else stdout
        if got != self.stdout:
            return (f"stdout {len(stdout)} bytes {stdout[:120]!r}..., expected "
                    f"{len(self.stdout)} bytes {self.stdout[:120]!r}...")
        return None


@dataclasses.dataclass
class Workload:
    root: Path
    python: str
    variants: dict[str, list[Call]]

    def plan(self, n_calls: int, seed: int) -> list[Call]:
        """n_calls calls, the 16 tools in equal shares (the first tools get
        one more when n_calls is not a multiple of 16), variants cycled, in a
        seeded shuffled order so every worker sees the whole mix."""
        calls: list[Call] = []
        for t, tool in enumerate(TOOLS):
            share = n_calls // len(TOOLS) + (1 if t < n_calls % len(TOOLS) else 0)
            vs = self.variants[tool]
            calls.extend(vs[i % len(vs)] for i in range(share))
        random.Random(seed).shuffle(calls)
        return calls


# ---- content generators ----------------------------------------------------

def _ident(rng: random.Random) -> str:
    return f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"


def _python_module(rng: random.Random, pkg: str, mod: str) -> str:
    out = [f'"""{pkg}.{mod}: {" ".join(rng.sample(WORDS, 6))}."""', ""]
    out += [f"import {rng.choice(('os', 'sys', 're', 'json', 'time'))}",
            f"from {pkg} import {_ident(rng)}", ""]
    out += [f"{rng.choice(WORDS).upper()}_LIMIT = {rng.randrange(1, 4096)}", ""]
    for _ in range(rng.randrange(2, 5)):
        cls = "".join(w.capitalize() for w in rng.sample(WORDS, 2))
        out += ["", f"class {cls}:", f'    """{" ".join(rng.sample(WORDS, 5))}."""', ""]
        for _ in range(rng.randrange(2, 5)):
            a, b = rng.sample(WORDS, 2)
            out += [f"    def {_ident(rng)}(self, {a}, {b}):"]
            if rng.random() < 0.4:
                out += [f"        # TODO: {' '.join(rng.sample(WORDS, 4))}"]
            out += [f"        {_ident(rng)} = {a} + {b} * {rng.randrange(2, 99)}",
                    f"        if {a} > {rng.randrange(100)}:",
                    f"            return self.{_ident(rng)}({b})",
                    f"        return {a}", ""]
    for _ in range(rng.randrange(2, 6)):
        a = rng.choice(WORDS)
        out += ["", f"def {_ident(rng)}({a}):",
                f'    """{" ".join(rng.sample(WORDS, 4))}."""',
                f"    for item in {a}:",
                f"        yield item.{_ident(rng)}()", ""]
    return "\n".join(out) + "\n"


def _log(rng: random.Random) -> str:
    lines = []
    for i in range(rng.randrange(120, 260)):
        lines.append(f"2026-11-21T10:{i // 60 % 60:02d}:{i % 60:02d} {rng.choice(LEVELS)} "
                     f"{rng.choice(WORDS)}: {' '.join(rng.sample(WORDS, 3))} id={rng.randrange(100000)}")
    return "\n".join(lines) + "\n"


def _csv(rng: random.Random) -> str:
    rows = ["id,name,count,size"]
    for i in range(rng.randrange(80, 200)):
        rows.append(f"{i},{_ident(rng)},{rng.randrange(1000)},{rng.randrange(10000)}")
    return "\n".join(rows) + "\n"


def _notes(rng: random.Random) -> str:
    return "\n".join(" ".join(rng.choice(WORDS) for _ in range(rng.randrange(4, 14)))
                     for _ in range(rng.randrange(40, 90))) + "\n"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _git(repo: Path, *args: str) -> None:
    env = dict(os.environ, **GIT_ENV)
    subprocess.run(["git", *args], cwd=repo, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


# ---- the repository and its expected status -------------------------------

def _build_repo(rng: random.Random, repo: Path) -> tuple[list[str], list[tuple[int, int, str]]]:
    """Make repo/, commit it, then change it.  Returns the expected
    `git status --porcelain` lines and `git diff --numstat` rows."""
    files = {f"app/{_ident(rng)}.py": _python_module(rng, "app", f"m{i}") for i in range(6)}
    files["docs/guide.md"] = _notes(rng)
    files["README.md"] = _notes(rng)
    for rel, text in files.items():
        _write(repo / rel, text)
    # Commit with mtimes in the past, so no index entry is "racily clean"
    # (git would otherwise re-read those files on every status).
    past = 1_700_000_000
    for rel in files:
        os.utime(repo / rel, (past, past))
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "initial import")

    app = sorted(f for f in files if f.startswith("app/"))
    replaced, appended, deleted = app[0], app[1], app[2]
    numstat = []
    # Replace one line in the middle of a file: 1 added, 1 deleted.
    lines = files[replaced].splitlines(True)
    mid = len(lines) // 2
    lines[mid] = f"# changed: {' '.join(rng.sample(WORDS, 3))}\n"
    _write(repo / replaced, "".join(lines))
    numstat.append((1, 1, replaced))
    # Append lines to two files.
    for rel, n in ((appended, 3), ("docs/guide.md", 2)):
        extra = "".join(f"# added {' '.join(rng.sample(WORDS, 3))}\n" for _ in range(n))
        _write(repo / rel, files[rel] + extra)
        numstat.append((n, 0, rel))
    # Delete one.
    (repo / deleted).unlink()
    numstat.append((0, files[deleted].count("\n"), deleted))
    # Untracked: a file beside tracked ones, and a new directory.
    _write(repo / "app/new_helper.py", _python_module(rng, "app", "new_helper"))
    _write(repo / "scratch/notes.txt", _notes(rng))
    for rel in (replaced, appended, "docs/guide.md"):
        os.utime(repo / rel, (past + 10, past + 10))

    numstat.sort(key=lambda r: r[2])
    status = [f" {'D' if p == deleted else 'M'} {p}" for _, _, p in numstat]
    status += ["?? app/new_helper.py", "?? scratch/"]
    return status, numstat


# ---- the calls ---------------------------------------------------------------

def _lines(text: str) -> list[str]:
    return text.splitlines(True)


def _enc(lines: list[str]) -> bytes:
    return "".join(lines).encode()


def build(root: Path, seed: int, python: str) -> Workload:
    """Generate the tree under root (which must be empty) and the calls."""
    rng = random.Random(seed)
    text: dict[str, str] = {}          # relative path -> content
    packages: dict[str, list[str]] = {}
    for p in range(N_PACKAGES):
        pkg = f"src/pkg{p:02d}"
        mods = [f"{pkg}/__init__.py"] + [f"{pkg}/mod{m:02d}.py" for m in range(MODULES_PER_PACKAGE)]
        text[mods[0]] = f'"""Package pkg{p:02d}."""\n'
        for rel in mods[1:]:
            text[rel] = _python_module(rng, f"pkg{p:02d}", Path(rel).stem)
        packages[pkg] = mods
    logs, csvs, notes = [], [], []
    for i in range(6):
        logs.append(f"data/samples/events-{i:02d}.log")
        csvs.append(f"data/samples/metrics-{i:02d}.csv")
        notes.append(f"data/samples/notes-{i:02d}.txt")
        text[logs[-1]], text[csvs[-1]], text[notes[-1]] = _log(rng), _csv(rng), _notes(rng)
    for rel, content in text.items():
        _write(root / rel, content)
    (root / "tools").mkdir()
    for prog in ("count_defs.py", "line_stats.js"):
        shutil.copyfile(HERE / "programs" / prog, root / "tools" / prog)
    status, numstat = _build_repo(rng, root / "repo")

    sources = [m for mods in packages.values() for m in mods[1:]]
    samples = logs + csvs + notes
    cwd, repo = str(root), str(root / "repo")

    def word_in(rel: str) -> str:
        """A word (letters and underscores) that occurs in file rel."""
        toks = [t for line in _lines(text[rel]) for t in line.replace("(", " ").replace(")", " ")
                .replace(":", " ").replace(",", " ").replace(".", " ").split()
                if len(t) >= 4 and t.replace("_", "").isalpha() and t.islower()]
        return rng.choice(toks)

    def matching(rel: str, w: str) -> list[tuple[int, str]]:
        return [(i, line) for i, line in enumerate(_lines(text[rel]), 1) if w in line]

    v: dict[str, list[Call]] = {t: [] for t in TOOLS}
    for n in range(VARIANTS_PER_TOOL):
        alt = n % 2 == 0
        pkg = rng.choice(sorted(packages))
        src = rng.choice(sources)
        sample = rng.choice(samples)
        anyf = rng.choice(sources + samples)

        # rg over one package, sorted by path (a parallel rg prints in any order).
        w = word_in(rng.choice(packages[pkg][1:]))
        hits = [(rel, matching(rel, w)) for rel in packages[pkg]]
        if alt:
            out = [f"{rel}:{i}:{line}" for rel, ms in hits for i, line in ms]
            v["rg"].append(Call("rg", ("rg", "--sort", "path", "-n", "--no-heading", "-F", w, pkg), cwd, _enc(out)))
        else:
            out = [f"{rel}:{len(ms)}\n" for rel, ms in hits if ms]
            v["rg"].append(Call("rg", ("rg", "--sort", "path", "-c", "-F", w, pkg), cwd, _enc(out)))

        w = word_in(src)
        ms = matching(src, w)
        if alt:
            v["grep"].append(Call("grep", ("grep", "-n", "-F", w, src), cwd, _enc([f"{i}:{l}" for i, l in ms])))
        else:
            v["grep"].append(Call("grep", ("grep", "-c", "-F", w, src), cwd, f"{len(ms)}\n".encode()))

        lines = _lines(text[anyf])
        if alt:
            a = rng.randrange(1, len(lines))
            b = min(len(lines), a + rng.randrange(5, 40))
            v["sed"].append(Call("sed", ("sed", "-n", f"{a},{b}p", anyf), cwd, _enc(lines[a - 1:b])))
        else:
            w = word_in(anyf)
            repl = "X_" + w.upper()
            v["sed"].append(Call("sed", ("sed", f"s/{w}/{repl}/g", anyf), cwd,
                                 text[anyf].replace(w, repl).encode()))

        if alt:
            csv = rng.choice(csvs)
            t = rng.randrange(200, 800)
            rows = [r.split(",") for r in _lines(text[csv])[1:]]
            total = sum(int(r[3]) for r in rows if int(r[2]) > t)
            v["awk"].append(Call("awk", ("awk", "-F,", f"NR > 1 && $3 > {t} {{ s += $4 }} END {{ print s + 0 }}", csv),
                                 cwd, f"{total}\n".encode()))
        else:
            log = rng.choice(logs)
            level = rng.choice(("ERROR", "WARN", "DEBUG"))
            count = sum(1 for line in _lines(text[log]) if line.split()[1] == level)
            v["awk"].append(Call("awk", ("awk", f'$2 == "{level}" {{ n++ }} END {{ print n + 0 }}', log),
                                 cwd, f"{count}\n".encode()))

        v["cat"].append(Call("cat", ("cat", anyf), cwd, text[anyf].encode()))
        k = rng.randrange(5, 60)
        v["head"].append(Call("head", ("head", "-n", str(k), anyf), cwd, _enc(lines[:k])))
        k = rng.randrange(5, 60)
        v["tail"].append(Call("tail", ("tail", "-n", str(k), anyf), cwd, _enc(lines[-k:])))

        if alt:
            found = [f"{m}\n" for m in packages[pkg][1:]]
            v["find"].append(Call("find", ("find", pkg, "-type", "f", "-name", "mod*.py"), cwd,
                                  _enc(sorted(found)), unordered=True))
        else:
            pat = rng.choice(("*.log", "*.csv", "*.txt"))
            found = [f"{s}\n" for s in samples if s.endswith(pat[1:])]
            v["find"].append(Call("find", ("find", "data/samples", "-type", "f", "-name", pat), cwd,
                                  _enc(sorted(found)), unordered=True))

        some = rng.sample(sources + samples, 3)
        v["stat"].append(Call("stat", ("stat", "-c", "%s %h %n", *some), cwd,
                              _enc([f"{len(text[s].encode())} 1 {s}\n" for s in some])))

        if alt:
            names = sorted(Path(m).name for m in packages[pkg])
            v["ls"].append(Call("ls", ("ls", "-1", pkg), cwd, _enc([f"{x}\n" for x in names])))
        else:
            names = sorted((Path(s).name for s in samples), reverse=True)
            v["ls"].append(Call("ls", ("ls", "-1", "-r", "data/samples"), cwd, _enc([f"{x}\n" for x in names])))

        git = ("git", "--no-optional-locks")
        sub = ("app", "docs")[n % 4 // 2]
        if n % 4 < 2:
            v["git-status"].append(Call("git-status", (*git, "status", "--porcelain"), repo,
                                        _enc([f"{s}\n" for s in status])))
        else:
            v["git-status"].append(Call("git-status", (*git, "status", "--porcelain", "--", sub), repo,
                                        _enc([f"{s}\n" for s in status if s[3:].startswith(sub + "/")])))
        if n % 3 == 0:
            v["git-diff"].append(Call("git-diff", (*git, "diff", "--numstat"), repo,
                                      _enc([f"{a}\t{d}\t{p}\n" for a, d, p in numstat])))
        elif n % 3 == 1:
            v["git-diff"].append(Call("git-diff", (*git, "diff", "--name-only"), repo,
                                      _enc([f"{p}\n" for _, _, p in numstat])))
        else:
            a, d, p = numstat[n % len(numstat)]
            v["git-diff"].append(Call("git-diff", (*git, "diff", "--numstat", "--", p), repo,
                                      f"{a}\t{d}\t{p}\n".encode()))

        src_lines = _lines(text[src])
        defs = sum(1 for line in src_lines if line.lstrip().startswith("def "))
        classes = sum(1 for line in src_lines if line.lstrip().startswith("class "))
        v["python-small"].append(Call("python-small", (python, "tools/count_defs.py", src), cwd,
                                      f"{src}: defs={defs} classes={classes} lines={len(src_lines)}\n".encode()))
        longest = max(len(line.rstrip("\n")) for line in lines)
        words = sum(len(line.split()) for line in lines)
        v["node-small"].append(Call("node-small", ("node", "tools/line_stats.js", anyf), cwd,
                                    f"{anyf}: lines={len(lines)} longest={longest} words={words}\n".encode()))

        if alt:
            w = word_in(anyf)
            v["sh-c"].append(Call("sh-c", ("sh", "-c", f"grep -c -F {w} {anyf}; wc -l < {anyf}"), cwd,
                                  f"{len(matching(anyf, w))}\n{len(lines)}\n".encode()))
        else:
            a = rng.randrange(10, len(lines) + 1)
            b = rng.randrange(1, a + 1)
            v["sh-c"].append(Call("sh-c", ("sh", "-c", f"head -n {a} {anyf} | tail -n {b}"), cwd,
                                  _enc(lines[:a][-b:])))

        w = word_in(rng.choice(packages[pkg][1:]))
        if alt:
            nfiles = len(packages[pkg])
            with_w = sum(1 for m in packages[pkg] if w in text[m])
            script = (f'n=0; for f in {pkg}/*.py; do n=$((n + 1)); done; echo "$n files"; '
                      f"grep -l -F {w} {pkg}/*.py | wc -l")
            v["bash-c"].append(Call("bash-c", ("bash", "-c", script), cwd,
                                    f"{nfiles} files\n{with_w}\n".encode()))
        else:
            count = sum(len(matching(m, w)) for m in packages[pkg])
            script = f"set -o pipefail; cat {pkg}/*.py | grep -F {w} | wc -l"
            v["bash-c"].append(Call("bash-c", ("bash", "-c", script), cwd, f"{count}\n".encode()))

    for tool, calls in v.items():
        for c in calls:
            if not c.stdout:
                raise AssertionError(f"workload bug: {tool} call {c.argv} expects empty output")
    return Workload(root=root, python=python, variants=v)
