#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Regenerates every quoted pfprof output in the documentation.

Usage:
  scripts/update-docs.py [--pfprof PATH] [--check] [--output-dir DIR] [FILE.md...]
  scripts/update-docs.py --screenshots [--view-test PATH]

Without FILE, the documents are README.md, docs/*.md and samples/README.md.
The commands run from the source root on the committed sample traces
(samples/traces/), with the built `pfprof` (default: build/cli/pfprof)
standing for the word `pfprof`.

A document marks what it quotes with an HTML comment, which Markdown does
not show:

  <!-- output: pfprof COMMAND ARGS...
       keep /REGEX/            the first line matching, after the last kept
       keep /REGEX/ +N         ... and N lines after it
       keep /REGEX/ .. /RE2/   ... through the next line matching RE2
       keep /REGEX/ ..         ... through the end of its paragraph
       status                  end with the exit status -->
  ```
  (replaced by "$ pfprof COMMAND ARGS..." and the output, each run of
  lines left out by one "...")
  ```

  <!-- figures: pfprof COMMAND ARGS...
       /DOC_REGEX/ /OUT_REGEX/ -->
  Prose or a table whose figures come from the command.

For `figures`, the text after the comment up to the next blank line (other
markers skipped) is the scope: DOC_REGEX must match there exactly once, a
space in it matching any run of white space (prose wraps), and its groups
are replaced by the groups of OUT_REGEX's first match in the command's
output, its white space runs made one space and "(exit status N)"
added at its end (OUT_REGEX may be left out when it is the same as
DOC_REGEX). Arguments with * are expanded from the
source root, in name order, as a shell would.

--check writes the regenerated documents to a temporary folder and lists,
by file and line, every quoted output that differs from what the commands
print now (exit 1). --output-dir DIR writes them to DIR instead of in
place. --screenshots saves docs/screenshot-*.png from the window
(tests/gui/pfprof-view-test under tests/gui/xvfb-run-test.sh).
"""
import argparse
import difflib
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The window's screenshots: (file, arguments of pfprof-view-test).
SCREENSHOTS = [
    ("docs/screenshot-view.png",
     ["samples/traces/a_pageable.pfprof", "--select-rule", "pageable-transfer",
      "--select-evidence-event"]),
    ("docs/screenshot-view-measure.png",
     ["samples/traces/a_pageable.pfprof", "--search", "memcpyasync", "--measure", "0.45:0.4635"]),
    ("docs/screenshot-occurrences.png",
     ["samples/traces/a_pageable.pfprof", "--select-rule", "pageable-transfer", "--next", "3"]),
]

MARKER = re.compile(r"^<!-- (output|figures): (.*?)(-->)?$")


class DocError(Exception):
    pass


def documents():
    docs = ["README.md"] + sorted(
        os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    docs.append("samples/README.md")
    return docs


def split_regexes(text, where):
    """The /.../ regexes of TEXT in order (a / inside one is written \\/)."""
    out = []
    for m in re.finditer(r"/((?:\\.|[^\\/])*)/|(\S+)", text):
        if m.group(2) is not None:
            out.append(m.group(2))
            continue
        source = m.group(1).replace("\\/", "/")
        try:
            re.compile(source)
        except re.error as e:
            raise DocError(f"{where}: bad regex /{source}/: {e}")
        out.append(re.compile(source) if source is not None else None)
    return out


class Runner:
    def __init__(self, pfprof):
        self.pfprof = pfprof
        self.cache = {}

    def run(self, command, where):
        if command in self.cache:
            return self.cache[command]
        words = shlex.split(command)
        if not words or words[0] != "pfprof":
            raise DocError(f"{where}: the command must start with pfprof: {command}")
        argv = [self.pfprof]
        for w in words[1:]:
            if "*" in w or "?" in w:
                found = sorted(glob.glob(w, root_dir=ROOT))
                if not found:
                    raise DocError(f"{where}: {w} matches no file")
                argv += found
            else:
                argv.append(w)
        env = dict(os.environ, LC_ALL="C.UTF-8", TZ="UTC", NO_COLOR="1")
        for name in ("COLUMNS", "PFPROF_SOURCE_LINES"):
            env.pop(name, None)
        p = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=300)
        self.cache[command] = (p.returncode, p.stdout, p.stderr)
        return self.cache[command]


def keep_lines(lines, specs, where):
    """The lines SPECS keep, each run of the others made one '...'."""
    if not specs:
        return lines
    kept = [False] * len(lines)
    pos = 0
    for spec in specs:
        first = spec[0]
        i = next((k for k in range(pos, len(lines)) if first.search(lines[k])), None)
        if i is None:
            raise DocError(f"{where}: no line matches /{first.pattern}/ in the output "
                           f"(after line {pos})")
        end = i
        if len(spec) >= 2 and isinstance(spec[1], str) and spec[1].startswith("+"):
            end = min(len(lines) - 1, i + int(spec[1][1:]))
        elif len(spec) >= 2 and spec[1] == "..":
            if len(spec) >= 3:
                end = next((k for k in range(i + 1, len(lines)) if spec[2].search(lines[k])), None)
                if end is None:
                    raise DocError(f"{where}: no line matches /{spec[2].pattern}/ after "
                                   f"/{first.pattern}/ in the output")
            else:
                end = i
                while end + 1 < len(lines) and lines[end + 1].strip():
                    end += 1
        for k in range(i, end + 1):
            kept[k] = True
        pos = end + 1
    out = []
    k = 0
    while k < len(lines):
        if kept[k]:
            out.append(lines[k])
            k += 1
            continue
        run = []
        while k < len(lines) and not kept[k]:
            run.append(lines[k])
            k += 1
        if all(not line.strip() for line in run):
            out += run
        else:
            first = next(line for line in run if line.strip())
            out.append(first[:len(first) - len(first.lstrip())] + "...")
    while out and not out[-1].strip():
        out.pop()
    return out


def parse_marker(lines, i, where):
    """(kind, command, spec lines, index after the comment) of the marker at I."""
    m = MARKER.match(lines[i])
    body = [m.group(2)]
    j = i
    closed = m.group(3) is not None
    while not closed:
        j += 1
        if j >= len(lines):
            raise DocError(f"{where}: the comment is not closed")
        text = lines[j].strip()
        if text.endswith("-->"):
            closed = True
            text = text[:-3].strip()
        body.append(text)
    body = [b.strip() for b in body if b.strip()]
    if not body:
        raise DocError(f"{where}: the marker names no command")
    return m.group(1), body[0], body[1:], j + 1


def generate_output(runner, command, specs, where):
    status_wanted = False
    keeps = []
    for s in specs:
        if s == "status":
            status_wanted = True
        elif s.startswith("keep "):
            parts = split_regexes(s[5:], where)
            if not parts or isinstance(parts[0], str):
                raise DocError(f"{where}: keep takes /REGEX/ first: {s}")
            keeps.append(parts)
        else:
            raise DocError(f"{where}: unknown line in the marker: {s}")
    rc, out, err = runner.run(command, where)
    if rc != 0 and not status_wanted:
        raise DocError(f"{where}: `{command}` exited {rc}: {err.strip()[:300]}")
    body = keep_lines(out.rstrip("\n").split("\n"), keeps, where)
    result = [f"$ {command}"] + [line.rstrip() for line in body]
    if status_wanted:
        result.append(f"(exit status {rc})")
    return result


def substitute_figures(runner, command, specs, scope, where):
    rc, out, err = runner.run(command, where)
    if rc not in (0, 1):
        raise DocError(f"{where}: `{command}` exited {rc}: {err.strip()[:300]}")
    flat = " ".join(out.split()) + f" (exit status {rc})"
    text = "\n".join(scope)
    for s in specs:
        parts = split_regexes(s, where)
        if not parts or len(parts) > 2 or any(isinstance(p, str) for p in parts):
            raise DocError(f"{where}: a figure is /DOC_REGEX/ [/OUT_REGEX/]: {s}")
        doc_re = re.compile(parts[0].pattern.replace(" ", r"\s+"))
        out_re = parts[-1]
        found = list(doc_re.finditer(text))
        if len(found) != 1:
            raise DocError(f"{where}: /{parts[0].pattern}/ matches {len(found)} times in the "
                           "text after the marker, not once")
        src = out_re.search(flat)
        if src is None:
            raise DocError(f"{where}: the output of `{command}` has nothing that matches "
                           f"/{out_re.pattern}/")
        m = found[0]
        if src.re.groups != m.re.groups or m.re.groups == 0:
            raise DocError(f"{where}: /{parts[0].pattern}/ and /{out_re.pattern}/ must have "
                           "the same number of groups, at least one")
        pieces = []
        last = 0
        for g in range(1, m.re.groups + 1):
            pieces.append(text[last:m.start(g)])
            # The same words wrapped otherwise keep the document's wrapping.
            same = " ".join(m.group(g).split()) == src.group(g)
            pieces.append(m.group(g) if same else src.group(g))
            last = m.end(g)
        pieces.append(text[last:])
        text = "".join(pieces)
    return text.split("\n")


def regenerate(runner, path, text):
    """TEXT with every marked output regenerated."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if not MARKER.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        where = f"{path}:{i + 1}"
        kind, command, specs, after = parse_marker(lines, i, where)
        out += lines[i:after]
        i = after
        if kind == "output":
            if i >= len(lines) or not lines[i].startswith("```"):
                raise DocError(f"{where}: an output marker must be followed by a ``` block")
            end = next((k for k in range(i + 1, len(lines)) if lines[k].startswith("```")), None)
            if end is None:
                raise DocError(f"{where}: the ``` block is not closed")
            out.append(lines[i])
            out += generate_output(runner, command, specs, where)
            out.append(lines[end])
            i = end + 1
        else:
            # Other markers between this one and its text keep their place;
            # they are handled in turn, on the text already substituted.
            j = i
            while j < len(lines) and MARKER.match(lines[j]):
                j = parse_marker(lines, j, where)[3]
            end = j
            while end < len(lines) and lines[end].strip():
                end += 1
            if end == j:
                raise DocError(f"{where}: no text follows the figures marker")
            scope = substitute_figures(runner, command, specs, lines[j:end], where)
            lines[j:end] = scope
    return "\n".join(out)


def screenshots(view_test):
    wrapper = os.path.join(ROOT, "tests", "gui", "xvfb-run-test.sh")
    for name, args in SCREENSHOTS:
        target = os.path.join(ROOT, name)
        tmp = target + ".tmp.png"
        p = subprocess.run(["sh", wrapper, view_test] + args + ["--screenshot", tmp],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=dict(os.environ, LC_ALL="C.UTF-8", TZ="UTC"), timeout=300)
        if p.returncode != 0 or not os.path.isfile(tmp):
            sys.stderr.write(f"update-docs: {name}: pfprof-view-test failed ({p.returncode}):\n"
                             f"{p.stdout[-2000:]}")
            return 1
        os.replace(tmp, target)
        print(f"update-docs: wrote {name}")
    return 0


def relative(path):
    """PATH as the messages name it: from the source root when inside it."""
    full = os.path.abspath(path)
    inside = os.path.relpath(full, ROOT)
    return full if inside.startswith("..") else inside


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pfprof", default=os.path.join(ROOT, "build", "cli", "pfprof"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--output-dir")
    ap.add_argument("--screenshots", action="store_true")
    ap.add_argument("--view-test", default=os.path.join(ROOT, "build", "tests", "gui", "pfprof-view-test"))
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if a.screenshots:
        return screenshots(os.path.abspath(a.view_test))
    pfprof = os.path.abspath(a.pfprof)
    if not os.access(pfprof, os.X_OK):
        sys.stderr.write(f"update-docs: {a.pfprof}: no pfprof binary there (build first, or --pfprof)\n")
        return 2
    runner = Runner(pfprof)
    files = [relative(f) for f in a.files] or documents()
    tmpdir = tempfile.TemporaryDirectory() if a.check else None
    outdir = tmpdir.name if tmpdir else a.output_dir
    failed = 0
    changed = 0
    for path in files:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
        try:
            new = regenerate(runner, path, text)
        except DocError as e:
            sys.stderr.write(f"{e}\n")
            failed += 1
            continue
        if a.check:
            old_lines, new_lines = text.split("\n"), new.split("\n")
            sm = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
            for tag, i1, i2, j1, j2 in sm.get_opcodes():
                if tag == "equal":
                    continue
                failed += 1
                sys.stderr.write(f"{path}:{i1 + 1}: the quoted output differs from what "
                                 "the command prints now:\n")
                for line in old_lines[i1:i2]:
                    sys.stderr.write(f"  - {line}\n")
                for line in new_lines[j1:j2]:
                    sys.stderr.write(f"  + {line}\n")
            continue
        if outdir:
            dest = os.path.join(outdir, path)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "w", encoding="utf-8") as f:
                f.write(new)
        elif new != text:
            with open(os.path.join(ROOT, path), "w", encoding="utf-8") as f:
                f.write(new)
            changed += 1
            print(f"update-docs: updated {path}")
    if a.check and failed:
        sys.stderr.write("update-docs: run scripts/update-docs.py to regenerate them\n")
    if not a.check and not outdir and not failed:
        print(f"update-docs: {len(files)} documents, {changed} updated")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
