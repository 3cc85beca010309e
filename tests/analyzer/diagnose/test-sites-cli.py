#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Python call sites (python_sites, python_calls) through every command.

Usage: test-sites-cli.py PFPROF WORKDIR SAMPLE-TRACE

`pfprof generate` plants the call site of its batch copy (train.py:57 in
train_one_epoch, docs/trace-format.md); with the pageable plant the
pageable-transfer finding must name it in text, JSON and Markdown, with
the line's text when train.py is there and without it when the file is
missing or the trace was recorded with --redact-args. Bad rows (a line of
0, a 10 MB function name) are left out with one note, never a crash; a
trace without the tables (SAMPLE-TRACE, format 1.0) reports no sites; the
other commands take a trace with sites. Prints TAP.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

PFPROF, WORK, SAMPLE = (os.path.abspath(a) for a in sys.argv[1:4])
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
results = []
SOURCE = "images = images.cuda(non_blocking=True)"


def run(*args, cwd=WORK):
    e = dict(os.environ)
    e.pop("COLUMNS", None)
    p = subprocess.run([PFPROF, *args], capture_output=True, text=True, env=e, cwd=cwd, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def report_json(path, cwd=WORK):
    rc, out, err = run("report", "--format", "json", path, cwd=cwd)
    if rc != 0:
        return rc, None, err
    return rc, json.loads(out), err


def finding(doc, rule):
    return next((f for f in doc["findings"] if f["rule"] == rule), None) if doc else None


gen = os.path.join(WORK, "gen.pfprof")
rc, out, err = run("generate", "--plant", "pageable", "-o", gen)
check("generate a trace with sites", rc == 0, err)

# Without train.py beside it: the site, no source text.
rc, doc, err = report_json(gen)
f = finding(doc, "pageable-transfer")
sites = f["sites"] if f else []
check("JSON: the pageable finding names train.py:57 in train_one_epoch",
      len(sites) == 1 and sites[0]["file"] == "train.py" and sites[0]["line"] == 57
      and sites[0]["function"] == "train_one_epoch" and sites[0]["api"] == "Tensor.cuda"
      and sites[0]["kind"] == "copy", sites)
check("JSON: every pageable copy is the site's, and its time",
      sites and sites[0]["count"] == f["count"] and abs(sites[0]["time_ns"] - f["time_ns"]) <= 1,
      (sites, f and f["count"], f and f["time_ns"]))
check("JSON: calls, caller, per-step time",
      sites and sites[0]["calls"] >= 16 and sites[0]["caller"] == {"file": "train.py", "line": 120,
                                                                   "function": "main"}
      and 0 < sites[0]["per_step_ns"] < sites[0]["time_ns"], sites)
check("JSON: no source text without the file", sites and sites[0]["source"] is None, sites)
check("JSON: findings without sites have an empty list",
      all(isinstance(x["sites"], list) for x in doc["findings"]) if doc else False)

# With train.py: the line's text, read at report time.
with open(os.path.join(WORK, "train.py"), "w") as fh:
    fh.write("\n" * 56 + "        " + SOURCE + "\n")
rc, out, err = run("report", "--width", "200", gen)
check("text: the finding lists the site with its source line",
      rc == 0 and "Where in the Python code:" in out
      and f"train.py:57 in train_one_epoch: {SOURCE}: " in out and " copies, " in out
      and " per step" in out, out[-2000:])
rc, doc, err = report_json(gen)
f = finding(doc, "pageable-transfer")
check("JSON: source read from the file", f and f["sites"][0]["source"] == SOURCE, f and f["sites"])
rc, out, err = run("report", "--format", "markdown", gen)
check("Markdown: the site", rc == 0 and "train.py:57 in train\\_one\\_epoch" in out, out[-1500:])
rc, out, err = run("report", "--format", "html", "-o", "gen.html", gen)
html = open(os.path.join(WORK, "gen.html")).read() if rc == 0 else ""
check("HTML: the site", "Where in the Python code" in html
      and "train.py:57 in train_one_epoch: images = images.cuda(non_blocking=True)" in html, err)

def edited(src, name, sql):
    """A copy of SRC in WORK named NAME, with the SQL statement run on it."""
    path = os.path.join(WORK, name)
    shutil.copy(src, path)
    db = sqlite3.connect(path)
    db.execute(sql)
    db.commit()
    db.close()
    return path


# --redact-args: the source stays unread.
red = edited(gen, "redacted.pfprof",
             "INSERT OR REPLACE INTO meta VALUES ('command_line', 'python3 train.py [arguments redacted]')")
rc, doc, err = report_json(red)
f = finding(doc, "pageable-transfer")
check("--redact-args trace: site named, source not read",
      f and f["sites"] and f["sites"][0]["line"] == 57 and f["sites"][0]["source"] is None,
      f and f["sites"])


def with_rows(name, rows, strings=()):
    """A copy of the generated trace with python_sites ROWS added (ids of
    STRINGS appended to the strings table as 's0', 's1', ...)."""
    path = os.path.join(WORK, name + ".pfprof")
    shutil.copy(gen, path)
    db = sqlite3.connect(path)
    base = db.execute("SELECT max(id) + 1 FROM strings").fetchone()[0]
    ids = {}
    for i, s in enumerate(strings):
        db.execute("INSERT INTO strings VALUES (?, ?)", (base + i, s))
        ids[f"s{i}"] = base + i
    for r in rows:
        r = {k: ids.get(v, v) if isinstance(v, str) else v for k, v in r.items()}
        db.execute("INSERT INTO python_sites (site_id, kind, api_id, file_id, line, function_id,"
                   " caller_file_id, caller_line, caller_function_id, calls)"
                   " VALUES (:site_id, :kind, :api_id, :file_id, :line, :function_id,"
                   " :caller_file_id, :caller_line, :caller_function_id, :calls)", r)
    db.commit()
    db.close()
    return path


# Site 1 is the generator's; these replace it (largest calls wins) or add.
bad_line = dict(site_id=1, kind=1, api_id="s0", file_id="s1", line=0, function_id="s2",
                caller_file_id=4294967295, caller_line=0, caller_function_id=4294967295, calls=10**6)
path = with_rows("line0", [bad_line], ["Tensor.cuda", "train.py", "train_one_epoch"])
rc, out, err = run("report", path)
check("a line of 0: the row is left out with a note, the report is made",
      rc == 0 and "Python call sites left out" in out and "train.py:0" not in out, (rc, err, out[-800:]))
rc, doc, err = report_json(path)
check("a line of 0: counted in sites_left_out", doc and doc["traces"][0]["sites_left_out"] == 1, err)

huge = dict(bad_line, line=57, function_id="s2")
path = with_rows("huge", [huge], ["Tensor.cuda", "train.py", "f" * (10 << 20)])
rc, out, err = run("report", path)
check("a 10 MB function name: left out, a short report",
      rc == 0 and "Python call sites left out" in out and len(out) < 100000, (rc, err[:300], len(out)))
rc, out, err = run("report", "--format", "json", path)
check("a 10 MB function name: JSON stays small", rc == 0 and len(out) < 200000, (rc, len(out)))

missing = dict(bad_line, line=57, calls=10**6)
path = with_rows("missing", [missing], ["Tensor.cuda", "/no/such/dir/train.py", "train_one_epoch"])
rc, doc, err = report_json(path)
f = finding(doc, "pageable-transfer")
check("a file that is not there: the site without source",
      f and f["sites"] and f["sites"][0]["file"] == "/no/such/dir/train.py"
      and f["sites"][0]["source"] is None and f["sites"][0]["calls"] == 10**6, (err, f and f["sites"]))

# A trace from before the tables: no sites, no note.
rc, doc, err = report_json(SAMPLE)
check("old trace (no python tables): reads, findings without sites",
      rc == 0 and doc["findings"] and all(x["sites"] == [] for x in doc["findings"])
      and doc["traces"][0]["sites_left_out"] == 0, err)

# A format 2.0 file: no python_sites table, no python_calls chunks.
old2 = os.path.join(WORK, "format-2.0.pfprof")
shutil.copy(gen, old2)
db = sqlite3.connect(old2)
db.execute("DROP TABLE python_sites")
db.execute("DELETE FROM chunks WHERE table_name = 'python_calls'")
db.execute("DELETE FROM chunk_columns WHERE table_name = 'python_calls'")
db.execute("UPDATE meta SET value = '2.0' WHERE key = 'format_version'")
db.commit()
db.close()
rc, doc, err = report_json(old2)
f = finding(doc, "pageable-transfer")
check("format 2.0 (before the tables): reads, the same finding, no sites",
      rc == 0 and f and f["sites"] == [], err)

# Every other command takes a trace with sites.
for name, args in [
    ("export --format sqlite", ["export", "--format", "sqlite", "-o", "rows.sqlite", gen]),
    ("export (Chrome JSON)", ["export", "-o", "trace.json", gen]),
    ("diff", ["diff", gen, path]),
    ("render", ["render", "-o", "gen.svg", gen]),
]:
    rc, out, err = run(*args)
    check(f"{name} with sites", rc == 0, err)
rows = os.path.join(WORK, "rows.sqlite")
if os.path.exists(rows):
    db = sqlite3.connect(rows)
    n_sites = db.execute("SELECT count(*) FROM python_sites WHERE kind != 6").fetchone()[0]
    n_stages = db.execute("SELECT count(*) FROM python_sites WHERE kind = 6").fetchone()[0]
    n_calls = db.execute("SELECT count(*) FROM python_calls").fetchone()[0]
    db.close()
    # The batch copy's site and model.cuda()'s, each with its first 16
    # calls and every eighth after; and the DataLoader's two stages.
    check("export --format sqlite keeps the two sites and their calls", n_sites == 2 and n_calls > 32,
          (n_sites, n_calls))
    check("export --format sqlite keeps the DataLoader's stages", n_stages == 2, n_stages)
    rc, doc, err = report_json(rows)
    f = finding(doc, "pageable-transfer")
    check("the exported format-1 file reports the same site",
          f and f["sites"] and f["sites"][0]["line"] == 57, err)

# The generated trace also has model.cuda()'s site (train.py:31 in
# build_model): the same entry point, and its first copy is pageable
# host-to-device of the batch's size, but all its calls end before the
# steady window: the batch's finding never names it (checked above: one
# site, line 57). Without the batch line's site, nothing running in the
# steady state makes such copies: the start-up site is named, marked so.
if os.path.exists(rows):
    alone = edited(rows, "startup-only.sqlite", "DELETE FROM python_sites WHERE line = 57")
    rc, doc, err = report_json(alone)
    f = finding(doc, "pageable-transfer")
    sites = f["sites"] if f else []
    check("start-up site only: named as start-up",
          [(s["line"], s["function"], s["startup"]) for s in sites] == [(31, "build_model", True)],
          (sites, err))
    rc, out, err = run("report", "--width", "200", alone)
    check("text: the start-up site says so", "train.py:31 in build_model: " in out
          and " per step (start-up)" in out, out[-1500:])

# Recorded on the H200 (samples/README.md): the sync-in-loop finding of
# item_sync.py names `logged = loss.item()` first, never make_model's
# model.cuda() (start-up copies and syncs of the same kinds); the
# pageable one of pageable_copies.py its x.to("cuda", ...).
TRACES = os.path.dirname(SAMPLE)
SAMPLES = os.path.dirname(TRACES)
for trace, script, rule, pattern in [
        ("f_item_sites.pfprof", "item_sync.py", "sync-in-loop", "logged = loss.item()"),
        ("a_pageable_sites.pfprof", "pageable_copies.py", "pageable-transfer",
         'x.to("cuda", non_blocking=True)')]:
    with open(os.path.join(SAMPLES, script)) as fh:
        want = next(i for i, line in enumerate(fh, 1) if pattern in line)
    rc, doc, err = report_json(os.path.join(TRACES, trace), cwd=SAMPLES)
    f = finding(doc, rule)
    sites = f["sites"] if f else []
    named = [(os.path.basename(s["file"]), s["line"], s["function"]) for s in sites]
    check(f"{trace}: {rule} names {script}:{want} first, no start-up site",
          named and named[0][:2] == (script, want) and not any(s["startup"] for s in sites)
          and all(n[2] != "make_model" for n in named)
          and sites[0]["count"] >= 0.9 * f["count"], (named, err))
    if rule == "pageable-transfer":
        with open(os.path.join(SAMPLES, script)) as fh:
            loop = next(i for i, line in enumerate(fh, 1) if "in loader:" in line)
        check(f"{trace}: the fix names the copy's line and the DataLoader's loop",
              f and f["fix"].startswith(f"The copies at {script}:{want} read batches from pageable "
                                        f"memory: pass `pin_memory=True` to the DataLoader iterated "
                                        f"at {script}:{loop}"), f and f["fix"][:300])

# A second site on the next line copies the 2 KiB labels, pageable too,
# made on the same thread just after the batch: the batch's finding must
# stay the first site's (copies told apart by size), and its own copies,
# under the rule's size threshold, name no site in that finding.
if os.path.exists(rows):
    two = os.path.join(WORK, "two-sites.sqlite")
    shutil.copy(rows, two)
    db = sqlite3.connect(two)
    labels = db.execute(
        "SELECT a.tid, a.start_ns, a.dur_ns FROM memcpys m JOIN api_calls a"
        " ON a.correlation_id = m.correlation_id WHERE m.bytes = 2048 AND m.copy_kind = 1"
        " ORDER BY a.start_ns LIMIT 16").fetchall()
    base = db.execute("SELECT max(id) + 1 FROM strings").fetchone()[0]
    db.execute("INSERT INTO strings VALUES (?, 'Tensor.to')", (base,))
    file_id, fn_id = db.execute("SELECT file_id, function_id FROM python_sites WHERE line = 57").fetchone()
    db.execute("INSERT INTO python_sites (site_id, kind, api_id, file_id, line, function_id,"
               " caller_file_id, caller_line, caller_function_id, calls)"
               " VALUES (3, 1, ?, ?, 58, ?, 4294967295, 0, 4294967295, 201)", (base, file_id, fn_id))
    for tid, start, dur in labels:
        db.execute("INSERT INTO python_calls (start_ns, dur_ns, tid, site_id) VALUES (?, ?, ?, 3)",
                   (start - 1000, dur + 2000, tid))
    db.commit()
    db.close()
    rc, doc, err = report_json(two)
    f = finding(doc, "pageable-transfer")
    lines = [s["line"] for s in f["sites"]] if f else []
    check("two sites on one thread: the batch copies stay the batch line's",
          len(labels) == 16 and lines == [57] and f["sites"][0]["count"] == f["count"],
          (len(labels), f and f["sites"], err))

# What the site's own lines reveal, each with its own advice in front of
# the fix: the generated trace's copy site (train.py:57) as a custom batch
# type's to(), a comprehension over a list, a copy inside a side stream
# that then normalises there; and `x = t.record_stream(s)` at a
# record_stream site of line 60.
def variant(name, lines, sql=()):
    """The generated trace with SQL applied, in a folder of its own with a
    train.py holding LINES ({line: text}); its pageable finding's fix."""
    d = os.path.join(WORK, name)
    os.makedirs(d)
    path = os.path.join(d, "v.pfprof")
    shutil.copy(gen, path)
    db = sqlite3.connect(path)
    for q in sql:
        db.execute(*q) if isinstance(q, tuple) else db.execute(q)
    db.commit()
    db.close()
    text = [""] * 70
    for n, t in lines.items():
        text[n - 1] = t
    with open(os.path.join(d, "train.py"), "w") as fh:
        fh.write("\n".join(text) + "\n")
    rc, doc, err = report_json(path, cwd=d)
    f = finding(doc, "pageable-transfer")
    return f["fix"] if f else "", err


def new_function(name):
    return [("INSERT INTO strings VALUES ((SELECT max(id) + 1 FROM strings), ?)", (name,)),
            "UPDATE python_sites SET function_id = (SELECT max(id) FROM strings) WHERE line = 57"]


COPY = "        images = images.cuda(non_blocking=True)"
for function in ("DetectionBatch.to", "DetectionBatch.to.<locals>.<listcomp>"):
    fix, err = variant("custom-" + function.replace("<", "").replace(">", ""),
                       {57: "        return [img.cuda(non_blocking=True) for img in self.images]"},
                       new_function(function))
    check(f"a copy in {function}: the batch's own type needs pin_memory()",
          fix.startswith("The copies at train.py:57 are made by `DetectionBatch`'s own to(): the batch is a "
                         "`DetectionBatch`") and "Give `DetectionBatch` a `pin_memory(self)` method" in fix,
          fix[:400] or err)
fix, err = variant("trainer-method", {57: COPY}, new_function("Trainer.train_step"))
check("a copy in another method (Trainer.train_step): no batch-type advice",
      "own to()" not in fix and fix.startswith("Copy from page-locked"), fix[:300] or err)
fix, err = variant("list", {57: "        images = [img.cuda(non_blocking=True) for img in images]"})
check("a comprehension over a list: pinned element by element",
      fix.startswith("The copies at train.py:57 move a list or dict one tensor at a time from pageable memory: "
                     "`pin_memory=True` on the DataLoader pins a list, tuple or dict"), fix[:300] or err)
fix, err = variant("dict", {57: "        t = {k: v.cuda(non_blocking=True) for k, v in t.items()}"})
check("a comprehension over a dict: the same", "one tensor at a time" in fix, fix[:300] or err)
fix, err = variant("plain", {57: COPY})
check("a plain copy: none of these", fix.startswith("Copy from page-locked"), fix[:300] or err)

# A site in an installed package (torchvision's own copy or sync, as in
# Faster R-CNN): said to be the package's, with its caller, before the
# rest; a file of the user's own is not.
LIB = "/usr/lib/python3/dist-packages/torchvision/ops/boxes.py"
fix, err = variant("library", {57: COPY}, [
    ("INSERT INTO strings VALUES ((SELECT max(id) + 1 FROM strings), ?)", (LIB,)),
    "UPDATE python_sites SET file_id = (SELECT max(id) FROM strings) WHERE line = 57",
    ("INSERT INTO strings VALUES ((SELECT max(id) + 1 FROM strings), ?)",
     ("/opt/venv/lib/python3.12/site-packages/torchvision/models/detection/rpn.py",)),
    "UPDATE python_sites SET caller_file_id = (SELECT max(id) FROM strings), caller_line = 270 WHERE line = 57",
    ("INSERT INTO strings VALUES ((SELECT max(id) + 1 FROM strings), ?)", ("RegionProposalNetwork.filter_proposals",)),
    "UPDATE python_sites SET caller_function_id = (SELECT max(id) FROM strings) WHERE line = 57",
] + new_function("batched_nms"))
check("a copy inside an installed package: said, with the caller",
      fix.startswith("The copies at boxes.py:57 (in `batched_nms`) are made inside the installed package "
                     "`torchvision`, called from rpn.py:270 (in `RegionProposalNetwork.filter_proposals`), "
                     "not by a line of your own"), fix[:400] or err)
check("... and the rest of the fix still follows", "Copy from page-locked" in fix, fix[-400:] or err)
fix, err = variant("not-library", {57: COPY}, [
    ("INSERT INTO strings VALUES ((SELECT max(id) + 1 FROM strings), ?)", ("/home/me/site-packagesX/train.py",)),
    "UPDATE python_sites SET file_id = (SELECT max(id) FROM strings) WHERE line = 57"])
check("a file of the user's own: no package advice", "installed package" not in fix, fix[:300] or err)

SIDE = {56: "    with torch.cuda.stream(side):", 57: COPY,
        58: "        images = images.float().sub_(mean).div_(std)"}
fix, err = variant("side-stream", SIDE)
check("normalisation inside the side stream: said, with both lines",
      "The copy at train.py:57 runs on the side stream of the `with` at train.py:56, and train.py:58 then "
      "converts or normalises the batch on that stream too" in fix, fix[:500] or err)
fix, err = variant("side-stream-after", {**SIDE, 58: "    images = images.float().sub_(mean).div_(std)"})
check("normalisation after the side stream's block: not said", "side stream of the" not in fix, fix[:500] or err)
fix, err = variant("side-stream-comment", {**SIDE, 58: "        # images.float() later", 59: "    x = 1"})
check("a comment in the block: not said", "side stream of the" not in fix, fix[:500] or err)

RS = ("INSERT INTO python_sites (site_id, kind, api_id, file_id, line, function_id, caller_file_id,"
      " caller_line, caller_function_id, calls) SELECT 9, 3, api_id, file_id, 60, function_id, 4294967295, 0,"
      " 4294967295, 100 FROM python_sites WHERE line = 57")
ASSIGN = "        images = images.record_stream(torch.cuda.current_stream())"
fix, err = variant("record-stream-assigned", {57: COPY, 60: ASSIGN}, [RS])
check("`x = t.record_stream(s)`: assigns None, said first",
      fix.startswith("`images = images.record_stream(torch.cuda.current_stream())` at train.py:60 assigns None: "
                     "record_stream() marks `images` in place and returns nothing, so `images` is None"),
      fix[:400] or err)
fix, err = variant("record-stream-plain", {57: COPY, 60: "        images.record_stream(s)"}, [RS])
check("`t.record_stream(s)` on its own: not said", "assigns None" not in fix, fix[:300] or err)
fix, err = variant("record-stream-redacted", {57: COPY, 60: ASSIGN},
                   [RS, "INSERT OR REPLACE INTO meta VALUES ('command_line', 'python3 train.py [arguments redacted]')"])
check("--redact-args: the line is not read, nothing said", "assigns None" not in fix, fix[:300] or err)

print(f"1..{len(results)}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok and detail:
        for line in str(detail).splitlines()[:20]:
            print(f"# {line}")
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
