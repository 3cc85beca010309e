#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a man page from `pfprof [COMMAND] --help`.

The --help text is the one source of a command's documentation (each
command's PfprofCliHelp, cli/pfprof-cli-help.h, printed around the option
list); this script only maps its parts to man sections, so the two cannot
drift:

    Usage: lines           SYNOPSIS
    first paragraph        NAME (the summary) and DESCRIPTION's first line
    other paragraphs       DESCRIPTION
    "... Options:" blocks  OPTIONS (and "Commands:" for pfprof itself)
    "Exit status:"         EXIT STATUS
    "Environment:"         ENVIRONMENT
    "Files:"               FILES
    "Examples:"            EXAMPLES
    "See also:"            SEE ALSO

A page without EXIT STATUS, EXAMPLES or SEE ALSO fails the build.

    help-to-man.py PFPROF VERSION OUTPUT [COMMAND]
"""
import re
import subprocess
import sys

SECTIONS = {
    "Commands": "COMMANDS",
    "Exit status": "EXIT STATUS",
    "Environment": "ENVIRONMENT",
    "Files": "FILES",
    "Examples": "EXAMPLES",
    "See also": "SEE ALSO",
}
REQUIRED = ("EXIT STATUS", "EXAMPLES", "SEE ALSO")
ORDER = ("DESCRIPTION", "COMMANDS", "OPTIONS", "EXIT STATUS", "ENVIRONMENT",
         "FILES", "EXAMPLES", "SEE ALSO")


def esc(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    # A line starting with . or ' would be a roff request.
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def items(lines):
    """'  KEY  meaning' lines (continuations indented deeper) as (key, text)."""
    out = []
    for line in lines:
        m = re.match(r"^  (\S.*?)(?:\s{2,}|$)(.*)$", line)
        if m and not line.startswith("   "):
            out.append([m.group(1).strip(), m.group(2).strip()])
        elif out and line.strip():
            out[-1][1] = (out[-1][1] + " " + line.strip()).strip()
    return out


def option_key(key):
    # -F, --format=FORMAT -> \fB\-F\fR, \fB\-\-format\fR=\fIFORMAT\fR
    parts = []
    for opt in key.split(", "):
        name, eq, arg = opt.partition("=")
        parts.append("\\fB%s\\fR" % esc(name) + ("=\\fI%s\\fR" % esc(arg) if eq else ""))
    return ", ".join(parts)


def parse(text):
    lines = text.rstrip("\n").split("\n")
    if not lines or lines[0] != "Usage:":
        raise SystemExit("help-to-man: --help does not start with 'Usage:'")
    i = 1
    synopsis = []
    while i < len(lines) and lines[i].startswith("  "):
        synopsis.append(lines[i].strip())
        i += 1
    paragraphs, blocks, current = [], {}, None
    para = []
    for line in lines[i:] + [""]:
        heading = re.match(r"^(\S[^:]*):$", line)
        if heading and (heading.group(1) in SECTIONS or heading.group(1).endswith("Options")):
            if para:
                paragraphs.append(para)
                para = []
            name = heading.group(1)
            current = SECTIONS.get(name, "OPTIONS")
            blocks.setdefault(current, [])
            continue
        if current is not None:
            if line == "":
                current = None
            else:
                blocks[current].append(line)
            continue
        if line == "":
            if para:
                paragraphs.append(para)
                para = []
        else:
            para.append(line)
    return synopsis, paragraphs, blocks


def main():
    if len(sys.argv) not in (4, 5):
        sys.stderr.write("usage: help-to-man.py PFPROF VERSION OUTPUT [COMMAND]\n")
        return 2
    pfprof, version, output = sys.argv[1:4]
    command = sys.argv[4] if len(sys.argv) == 5 else None
    argv = [pfprof] + ([command] if command else []) + ["--help"]
    text = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    name = "pfprof-" + command if command else "pfprof"
    synopsis, paragraphs, blocks = parse(text)
    if not paragraphs:
        raise SystemExit("help-to-man: %s --help has no summary" % name)
    summary = " ".join(paragraphs[0]).rstrip(".")
    summary = summary[0].lower() + summary[1:]

    out = ['.TH "%s" 1 "" "pfprof %s" "pfprof manual"' % (name.upper(), version),
           ".SH NAME", "%s \\- %s" % (name, esc(summary)), ".SH SYNOPSIS"]
    for k, line in enumerate(synopsis):
        if k:
            out.append(".br")
        words = line.split(" ", 2 if command else 1)
        prog = " ".join(words[:2] if command else words[:1])
        rest = line[len(prog):].strip()
        out.append("\\fB%s\\fR %s" % (esc(prog), esc(rest)))
    sections = {"DESCRIPTION": []}
    for para in paragraphs[1:]:
        sections["DESCRIPTION"] += [".PP"] + [esc(l) for l in para]
    if not paragraphs[1:]:
        sections["DESCRIPTION"] = [".PP", esc(" ".join(paragraphs[0]))]
    for section, lines in blocks.items():
        body = []
        if section == "EXAMPLES":
            for line in lines:
                line = line.strip()
                if line.startswith("# "):
                    body += [".PP", esc(line[2:])]
                else:
                    body += [".RS 4", ".nf", "\\fB%s\\fR" % esc(line), ".fi", ".RE"]
        elif section == "SEE ALSO":
            refs = " ".join(l.strip() for l in lines)
            body.append(", ".join(re.sub(r"^(.*)\((\d)\)$", lambda m: "\\fB%s\\fR(%s)"
                                         % (esc(m.group(1)), m.group(2)), r.strip())
                                  for r in refs.split(",")))
        else:
            for key, desc in items(lines):
                if section == "OPTIONS":
                    key = option_key(key)
                else:
                    key = "\\fB%s\\fR" % esc(key)
                body += [".TP", key, esc(desc)]
        sections.setdefault(section, []).extend(body)
    if "ENVIRONMENT" not in sections:
        sections["ENVIRONMENT"] = ["%s reads no environment variables of its own." % esc(name)]
    if "FILES" not in sections:
        sections["FILES"] = ["%s reads and writes only the files named on its command line." % esc(name)]
    missing = [s for s in REQUIRED + ("OPTIONS",) if not sections.get(s)]
    if missing:
        raise SystemExit("help-to-man: %s --help has no %s" % (name, ", ".join(missing)))
    for section in ORDER:
        if section in sections:
            out.append(".SH " + section)
            out += sections[section]
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
