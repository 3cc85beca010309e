#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""input-starved inside the DataLoader (worker_events), on generated traces.

Usage: test-input-pipeline.py PFPROF WORKDIR SOURCE-ROOT

`pfprof generate --plant input-starved` plants two DataLoader workers
whose batches spend 61% in the ImageFolder loader (folder.py:262), 22% in
a RandomResizedCrop transform (train.py:44) and 5% in collate_fn, busy all
the time on the 2 cores they may use (saturated); with --worker-cores 16
the same workers leave 14 cores free. The report must name the stages with
those shares at their lines, call the first saturated (more workers cannot
help, a fix that makes batches cheaper) and predict the second's step with
4 workers from the batch time; the figures are cross-checked against the
worker_events rows decoded with tests/pfprof_trace_rows.py. A trace
without the table reports input-starved as before. Prints TAP.
"""
import json
import os
import shutil
import subprocess
import sys

PFPROF, WORK, SOURCE = (os.path.abspath(a) for a in sys.argv[1:4])
sys.path.insert(0, os.path.join(SOURCE, "tests"))
import pfprof_trace_rows  # noqa: E402

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
results = []


def run(*args):
    e = dict(os.environ)
    e.pop("COLUMNS", None)
    p = subprocess.run([PFPROF, *args], capture_output=True, text=True, env=e, cwd=WORK, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def starved(path):
    rc, out, err = run("report", "--format", "json", path)
    doc = json.loads(out) if out else None
    f = next((f for f in doc["findings"] if f["rule"] == "input-starved"), None) if doc else None
    rc, text, err = run("report", path)
    # The text wraps at 80 columns: one line to look for phrases in.
    return f, " ".join(text.split())


def near(a, b, tol):
    return abs(a - b) <= tol


def rows_view(path):
    """(batch time, loader and transform time, collate time) summed over
    the batches the workers made, and the cores allowed, from the rows."""
    db = pfprof_trace_rows.connect(path)
    busy, collate = db.execute("SELECT sum(dur_ns), sum(value_b - value_a) FROM worker_events WHERE kind = 2").fetchone()
    stages = dict(db.execute(
        "SELECT s.value, sum(e.value_a) FROM worker_events e JOIN python_sites p ON p.site_id = e.site_id"
        " JOIN strings s ON s.id = p.api_id WHERE e.kind = 4 GROUP BY s.value").fetchall())
    cores = db.execute("SELECT max(value_a) FROM worker_events WHERE kind = 1").fetchone()[0] / 1000
    return busy, stages, collate, cores


sat = os.path.join(WORK, "saturated.pfprof")
free = os.path.join(WORK, "free.pfprof")
plain = os.path.join(WORK, "plain.pfprof")
for path, extra in ((sat, []), (free, ["--worker-cores", "16"])):
    rc, out, err = run("generate", "--steps", "60", "--plant", "input-starved", *extra, "-o", path)
    check(f"generate {os.path.basename(path)}", rc == 0, err)

for path, saturated in ((sat, True), (free, False)):
    name = os.path.basename(path)
    f, text = starved(path)
    p = f and f["input_pipeline"]
    check(f"{name}: input-starved has input_pipeline", p, f)
    if not p:
        continue
    busy, stages, collate, cores = rows_view(path)
    by_attr = {s["attr"]: s for s in p["stages"]}
    check(f"{name}: two stages, largest first, at their lines",
          [(s["attr"], s["function"].rsplit(".", 1)[-1], os.path.basename(s["file"]), s["line"]) for s in p["stages"]]
          == [("loader", "default_loader", "folder.py", 262), ("transform", "RandomResizedCrop", "train.py", 44)],
          p["stages"])
    # The planted shares, and the rows' own over all batches.
    check(f"{name}: loader 61%, transform 22%, collate 5% of the workers' time",
          near(by_attr["loader"]["share"], 0.61, 0.01) and near(by_attr["transform"]["share"], 0.22, 0.01)
          and near(p["collate_share"], 0.05, 0.01), p)
    check(f"{name}: shares agree with the rows",
          near(by_attr["loader"]["share"], stages["loader"] / busy, 0.02)
          and near(p["collate_share"], collate / busy, 0.02), (stages, busy))
    check(f"{name}: the text names the stages at their lines",
          "61% of their time in torchvision.datasets.folder.default_loader (loader, folder.py:262)" in text
          and "22% in torchvision.transforms.transforms.RandomResizedCrop (transform, train.py:44)" in text, text)
    check(f"{name}: cores allowed as recorded", p["cores"] == cores and p["workers"] == 2, (p, cores))
    # Each worker is busy all the time: CPU = wall, two cores kept busy.
    check(f"{name}: the workers kept 2 cores busy, CPU/wall 1", near(p["worker_cores"], 2.0, 0.1)
          and near(p["cpu_per_wall"], 1.0, 0.01), p)
    check(f"{name}: saturated is {saturated}", p["saturated"] is saturated, p)
    if saturated:
        check("saturated: says more workers cannot help, and how to make batches cheaper",
              "more workers cannot help" in text and "decode_jpeg" in f["fix"] and p["predicted_workers"] is None,
              f["fix"])
    else:
        # Two workers at batch_ns each: with four, a batch every batch_ns / 4,
        # above the step without waits, so that is the predicted step.
        want = p["batch_ns"] / 4
        check("free cores: predicts the step with 4 workers from the batch time",
              p["predicted_workers"] == 4 and near(f["predicted_step_ns"], want, 0.05 * want),
              (f["predicted_step_ns"], want))
        check("free cores: the text says so", "with 4 workers a batch would come every" in text
              and "workers would keep up with the GPU" in text, text)

# The same waits without worker rows: the finding as before, no pipeline.
rc, out, err = run("generate", "--steps", "60", "--plant", "input-starved", "-o", plain)
db_path = os.path.join(WORK, "plain-rows.sqlite")
rc, out, err = run("export", "--format", "sqlite", "-o", db_path, plain)
import sqlite3  # noqa: E402
db = sqlite3.connect(db_path)
db.execute("DELETE FROM worker_events")
db.commit()
db.close()
f, text = starved(db_path)
check("no worker rows: input-starved, input_pipeline null, no word of workers",
      f and f["input_pipeline"] is None and "Inside the DataLoader" not in text, f)
# A baseline trace keeps up: no input-starved finding at all.
base = os.path.join(WORK, "base.pfprof")
run("generate", "--steps", "60", "-o", base)
f, text = starved(base)
check("baseline (workers keep up): no input-starved finding", f is None, f)

# Recorded on the H200 (samples/jpeg_pipeline.py, 2 workers): the workers
# sat idle 17 s before the steady window (the loop warming up). A worker's
# CPU over wall counts from the window's start, as its CPU time does.
f, text = starved(os.path.join(SOURCE, "samples", "traces", "u_jpeg_w2.pfprof"))
p = f and f["input_pipeline"]
check("workers idle before the window: CPU per wall is the busy share in it, not diluted",
      p and p["cpu_per_wall"] > 0.85 and near(p["cpu_per_wall"], p["worker_cores"] / p["workers"], 0.1),
      p and {k: p[k] for k in ("cpu_per_wall", "worker_cores", "workers")})

for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok:
        print("# " + str(detail)[:2000].replace("\n", "\n# "))
print(f"1..{len(results)}")
