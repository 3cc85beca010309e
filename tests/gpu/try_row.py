# SPDX-License-Identifier: MIT
"""try_row.py NAME TRY-OUTPUT OWN-OUTPUT: one TSV row of tests/gpu/try.sh
from `pfprof try --format json`'s output (after the program's own first
run) and the program's own fix, run bare (its step timer's "median step
X ms" lines, one per run, of which the row has the median; empty when it
has none):

    name, fixes, A median ms, B median ms, verdict, predicted ms (rule),
    own fix median ms, B against the own fix (%), the hook's notes

try_row.py --table TSV: the rows as an aligned table. Exits 1 when the
try's output has no result."""
import json
import re
import statistics
import sys

COLUMNS = ["program", "fixes", "A ms", "B ms", "verdict", "predicted ms", "own fix ms", "B/own", "notes"]


def ms(ns):
    return "-" if ns is None or ns < 0 else f"{ns / 1e6:.2f}"


def result(text):
    """The try's JSON document, after what the program printed."""
    at = text.rfind('{"format":"pfprof-try/1"')
    return json.JSONDecoder().raw_decode(text[at:])[0] if at >= 0 else None


def row(name, try_path, own_path):
    try:
        doc = result(open(try_path, encoding="utf-8", errors="replace").read())
    except (OSError, ValueError):
        doc = None
    if doc is None:
        print(f"{name}\tno result (see {try_path})")
        return 1
    own = None
    try:
        m = re.findall(r"median step ([0-9.]+) ms", open(own_path, errors="replace").read())
        own = statistics.median(float(v) for v in m) if m else None
    except OSError:
        pass
    a, b, d = doc.get("a", {}), doc.get("b", {}), doc.get("difference", {})
    preds = "; ".join(f"{p['predicted_step_ns'] / 1e6:.2f} ({p['rule']})" for p in doc.get("predictions", [])) or "-"
    versus = "-"
    if own and b.get("median_ns", -1) > 0:
        versus = f"{100 * (b['median_ns'] / 1e6 - own) / own:+.1f}%"
    verdict = d.get("verdict", "-")
    if d.get("why"):
        verdict += f" ({d['why']})"
    elif verdict in ("faster", "slower") and a.get("median_ns", 0) > 0:
        verdict += f" {100 * (b['median_ns'] - a['median_ns']) / a['median_ns']:+.1f}%"
    notes = "; ".join(f"{n['fix']} {n['state']}: {n['text']}" for n in doc.get("notes", []))
    if doc.get("needs_code_change"):
        notes += ("; " if notes else "") + "needs a code change: " + ", ".join(doc["needs_code_change"])
    if doc.get("loss") and doc["loss"].get("verdict") != "none":
        notes += ("; " if notes else "") + "loss: " + doc["loss"].get("verdict", "-")
    cells = [name, doc.get("fixes") or "-", ms(a.get("median_ns")), ms(b.get("median_ns")), verdict, preds,
             f"{own:.2f}" if own else "-", versus, notes or "-"]
    print("\t".join(c.replace("\t", " ").replace("\n", " ") for c in cells))
    return 0


def table(path):
    rows = [COLUMNS] + [line.rstrip("\n").split("\t") for line in open(path) if line.strip()]
    widths = [max(len(r[i]) for r in rows if len(r) > i) for i in range(len(COLUMNS) - 1)]
    for r in rows:
        print("  ".join(c.ljust(widths[i]) if i < len(widths) else c for i, c in enumerate(r)).rstrip())
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "--table":
        sys.exit(table(sys.argv[2]))
    sys.exit(row(*sys.argv[1:4]))
