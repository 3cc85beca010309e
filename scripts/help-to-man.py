#!/usr/bin/env python3
"""Writes a man page from `pfprof [COMMAND] --help`.

The --help texts are the one source of the options' documentation; the
man pages are generated from them at build time so the two cannot drift.

    help-to-man.py PFPROF VERSION OUTPUT [COMMAND]
"""
import re
import subprocess
import sys


def roff_escape(line):
    line = line.replace("\\", "\\e").replace("-", "\\-")
    # A line starting with . or ' would be a roff request.
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def main():
    if len(sys.argv) not in (4, 5):
        sys.stderr.write("usage: help-to-man.py PFPROF VERSION OUTPUT [COMMAND]\n")
        return 2
    pfprof, version, output = sys.argv[1:4]
    command = sys.argv[4] if len(sys.argv) == 5 else None
    argv = [pfprof] + ([command] if command else []) + ["--help"]
    text = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    name = "pfprof-" + command if command else "pfprof"

    lines = text.rstrip("\n").split("\n")
    # GOptionContext puts the usage and the one-line summary on the second
    # line: "  report [OPTION…] TRACE... - find why ...".
    summary = "profile why a GPU waits on the input pipeline"
    for line in lines[:3]:
        m = re.search(r" - (.+)$", line)
        if m:
            summary = m.group(1)
            break

    out = [
        '.TH "%s" 1 "" "pfprof %s" "pfprof manual"' % (name.upper(), version),
        ".SH NAME",
        "%s \\- %s" % (name, roff_escape(summary)),
        ".SH DESCRIPTION",
        ".nf",
    ]
    out += [roff_escape(l) for l in lines]
    out += [".fi", ".SH SEE ALSO"]
    if command:
        out.append("\\fBpfprof\\fR(1)")
    else:
        out.append(", ".join("\\fBpfprof\\-%s\\fR(1)" % c for c in
                             ("record", "report", "render", "view", "export", "diff")))
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
