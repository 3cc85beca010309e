#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Nsight Systems SQLite exports read directly by pfprof.

Each synthetic trace (`pfprof generate --plant P`) is rewritten as the
file `nsys export --type sqlite` would write for the same CUDA activity
(nsys_schema.py: schema 3.28 and 3.16 layouts, nsys's own enumeration
numbering). `pfprof report` must reach the same findings, steps and
per-step breakdown on the nsys file as on the native trace; enumeration
tables are honoured (renumbered kinds still read right); the other
process of a multi-process export is left out; render and export accept
the file; malformed exports fail with one line and exit 2.

Usage: test-nsys-import.py PFPROF WORKDIR SOURCE_ROOT  (TAP on stdout)
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interop_util import (Env, Tap, export_chrome, finding_rules, renders_png,  # noqa: E402
                          table_count, trace_rows)
import nsys_schema  # noqa: E402

PLANTS = ["none", "pageable", "serialized", "record-stream", "input-starved", "late-prefetch",
          "sync-in-loop", "small-transfers", "pinned-alloc", "all"]


def summary(rep):
    """What must match between a native trace and its nsys form."""
    steps = rep["summary"]["steps"]
    return {
        "findings": sorted((f["rule"], f["severity"], f["count"]) for f in rep["findings"]),
        "steps": steps["count"],
        "warmup": steps["warmup"],
        "median_ns": steps["median_ns"],
        "breakdown": steps["median_breakdown"],
        "step_source": rep["traces"][0]["step_source"],
    }


def main():
    env = Env(sys.argv)
    tap = Tap()

    # 1. Same findings, steps and breakdown as the native trace, per plant.
    for plant in PLANTS:
        native = env.generate(f"{plant}.pfprof", plant=plant, steps=40)
        nsys = env.path(f"{plant}.sqlite")
        nsys_schema.convert(native, nsys)
        want = summary(env.report_json(native))
        p = env.run("report", "--format", "json", "-q", nsys)
        got = summary(json.loads(p.stdout)) if p.returncode == 0 else {"error": p.stderr}
        expect_rules = plant if plant not in ("none", "all") else None
        tap.ok(got == want and (expect_rules is None
                                or any(r[0].startswith(expect_rules) for r in got["findings"])),
               f"nsys 3.28 export of --plant {plant}: same findings, steps and breakdown "
               f"({', '.join(r[0] for r in want['findings']) or 'no findings'})",
               f"native {want}\nnsys   {got}")

    # 2. The older 3.16 layout (no CUDA_EVENT table, no eventSyncId): the
    # findings that do not need event joins come out the same.
    for plant in ("pageable", "serialized", "input-starved", "sync-in-loop", "none"):
        native = env.path(f"{plant}.pfprof")
        nsys = env.path(f"{plant}-316.sqlite")
        nsys_schema.convert(native, nsys, version=(3, 16))
        want = summary(env.report_json(native))
        p = env.run("report", "--format", "json", "-q", nsys)
        got = summary(json.loads(p.stdout)) if p.returncode == 0 else {"error": p.stderr}
        tap.ok(got == want, f"nsys 3.16 export of --plant {plant}: same result", f"{want}\n{got}")

    # 3. Enumerations come from the file's ENUM_* tables.
    pageable = env.path("pageable.pfprof")
    clean = env.path("none.pfprof")
    want_pg = finding_rules(env.report_json(pageable))
    for variant in ("permuted", "none"):
        for src, want in ((pageable, want_pg), (clean, [])):
            nsys = env.path(f"{os.path.basename(src)}-{variant}.sqlite")
            nsys_schema.convert(src, nsys, enums=variant)
            p = env.run("report", "--format", "json", "-q", nsys)
            got = finding_rules(json.loads(p.stdout)) if p.returncode == 0 else p.stderr
            what = ("renumbered memory/copy/sync kinds listed in ENUM_* tables" if variant == "permuted"
                    else "no ENUM_* tables (nsys numbering assumed: pageable = 0)")
            tap.ok(got == want, f"{what}: {os.path.basename(src)} gives {want or 'no findings'}", got)
    nsys = env.path("pageable.pfprof-permuted.sqlite")
    db = sqlite3.connect(nsys)
    pageable_id = db.execute("SELECT id FROM ENUM_CUDA_MEM_KIND WHERE name LIKE '%PAGEABLE'").fetchone()[0]
    db.close()
    tap.ok(pageable_id != 0 and pageable_id != 1, "(the permuted file really renumbers pageable)",
           pageable_id)

    # 4. A second process in the export is left out.
    multi = env.path("multi.sqlite")
    nsys_schema.convert(pageable, multi, extra_process=True)
    p = env.run("report", "--format", "json", "-q", multi)
    rep = json.loads(p.stdout) if p.returncode == 0 else None
    want = summary(env.report_json(pageable))
    tap.ok(rep is not None and summary(rep) == want and rep["traces"][0]["pid"] == 4242,
           "two processes: the one with most kernels is read, the other left out",
           rep and summary(rep))

    # 5. render and export open the file directly.
    nsys = env.path("all.sqlite")
    ok, err = renders_png(env, nsys, env.path("all.png"))
    tap.ok(ok, "pfprof render draws an nsys export", err)
    p, doc, kernels = export_chrome(env, nsys, env.path("all.json"))
    flows = sum(1 for e in doc["traceEvents"] if e.get("ph") == "s")
    tap.ok(p.returncode == 0 and kernels == table_count(env.path("all.pfprof"), "kernels")
           and flows > kernels,
           "pfprof export converts an nsys export, launch flows included", p.stderr)
    api = {e["name"] for e in doc["traceEvents"] if e.get("cat") == "cuda_api"}
    tap.ok("cudaLaunchKernel" in api and not any(n.endswith("_v7000") for n in api),
           "nsys's versioned runtime names (cudaLaunchKernel_v7000) read as the function names",
           sorted(api)[:10])
    # pfprof-view's application with the scripted session of tests/gui.
    view = os.path.join(os.path.dirname(os.path.dirname(env.pfprof)), "tests", "gui", "pfprof-view-test")
    xvfb = shutil.which("xvfb-run")
    if os.path.exists(view) and xvfb:
        report = env.path("view-report.txt")
        # GTK keeps process-lifetime allocations: no leak checking in the app
        # (as in the gui suite); its drawing code is covered there.
        venv = dict(os.environ, LSAN_OPTIONS="detect_leaks=0", GSETTINGS_BACKEND="memory")
        v = subprocess.run([xvfb, "-a", view, "--report", report, env.path("pageable.sqlite")],
                           capture_output=True, text=True, timeout=240, env=venv)
        shown = dict(line.split("=", 1) for line in open(report).read().splitlines()
                     if "=" in line) if os.path.exists(report) else {}
        tap.ok(v.returncode == 0 and shown.get("n_findings") == "1" and shown.get("error_dialog") == "0"
               and int(shown.get("n_events", 0)) > 4000,
               "pfprof-view opens an nsys export (its finding listed, no error dialog)",
               f"{v.returncode} {v.stderr[-500:]} {shown}")
    else:
        tap.skip("pfprof-view opens an nsys export", "no GUI build or no xvfb-run")
    p = env.run("diff", nsys, env.path("none.sqlite"), "--format", "json")
    d = json.loads(p.stdout) if p.returncode == 0 else {"findings": []}
    tap.ok(p.returncode == 0 and "pageable-transfer" in
           [f["rule"] for f in d["findings"] if f["status"] == "resolved"],
           "pfprof diff compares nsys exports", p.stderr)

    # 6. Malformed exports: one line, exit 2, never a crash.
    def broken(name, sql, version=(3, 28)):
        path = env.path(name)
        nsys_schema.convert(pageable, path, version=version)
        db = sqlite3.connect(path)
        db.executescript(sql)
        db.commit()
        db.close()
        return env.run("report", "-q", path)

    # (CREATE TABLE AS drops the NOT NULL constraints, keeping the rows in order.)
    p = broken("null.sqlite", "CREATE TABLE k AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL;"
                              "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"
                              "ALTER TABLE k RENAME TO CUPTI_ACTIVITY_KIND_KERNEL;"
                              "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = NULL WHERE rowid = 3;")
    tap.ok(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
           and "CUPTI_ACTIVITY_KIND_KERNEL row 3" in p.stderr and "start" in p.stderr,
           "a NULL start: one line naming table, row and column, exit 2", p.stderr)
    p = broken("backwards.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET end = start - 5 WHERE rowid = 2;")
    tap.ok(p.returncode == 2 and "ends before it starts" in p.stderr, "an interval ending before it starts",
           p.stderr)
    p = broken("text.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = 'x' WHERE rowid = 1;")
    tap.ok(p.returncode == 2 and "not an integer" in p.stderr, "text in an integer column", p.stderr)
    p = broken("range.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 1 << 40 WHERE rowid = 1;")
    tap.ok(p.returncode == 2 and "out of range" in p.stderr, "an id that does not fit", p.stderr)
    p = broken("nocol.sqlite", "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN streamId;")
    tap.ok(p.returncode == 2 and "no column streamId" in p.stderr, "a required column missing", p.stderr)
    p = broken("newer.sqlite", "UPDATE META_DATA_EXPORT SET value = '4.0.0' WHERE name = 'EXPORT_SCHEMA_VERSION';")
    tap.ok(p.returncode == 2 and "newer" in p.stderr and "4.0.0" in p.stderr,
           "a newer schema major version is refused, saying so", p.stderr)
    p = broken("older.sqlite", "UPDATE META_DATA_EXPORT SET value = '2.5.0' WHERE name = 'EXPORT_SCHEMA_VERSION';")
    tap.ok(p.returncode == 2 and "older" in p.stderr, "an older schema major version is refused", p.stderr)
    p = broken("weird-enum.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET srcKind = 99999, copyKind = -4;")
    tap.ok(p.returncode == 0, "unknown enumeration values read as unknown, no failure", p.stderr)
    p = broken("empty.sqlite", "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL; DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME;"
                               "DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY; DELETE FROM NVTX_EVENTS;")
    tap.ok(p.returncode == 0, "an export without CUDA activity reads as an empty trace", p.stderr)
    foreign = env.path("foreign.sqlite")
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE StringIds (id INTEGER, value TEXT)")
    db.execute("CREATE TABLE notes (x)")
    db.commit()
    db.close()
    p = env.run("report", "-q", foreign)
    tap.ok(p.returncode == 2 and "not a pfprof trace" in p.stderr,
           "an SQLite file without nsys's activity tables is still 'not a pfprof trace'", p.stderr)

    # 7. pfprof import: the same trace as a pfprof file.
    nsys = env.path("all.sqlite")
    imported = env.path("imported.pfprof")
    p = env.run("import", nsys, "-o", imported)
    ok = p.returncode == 0 and os.path.exists(imported)
    got = summary(env.report_json(imported)) if ok else {"error": p.stderr}
    tap.ok(got == summary(env.report_json(env.path("all.pfprof"))),
           "pfprof import writes a pfprof trace with the same findings, steps and breakdown",
           f"{p.stderr} {got}")
    db = trace_rows(imported) if ok else None
    meta = dict(db.execute("SELECT key, value FROM meta")) if db else {}
    n_kernels = db.execute("SELECT count(*) FROM kernels").fetchone()[0] if db else 0
    if db:
        db.close()
    tap.ok(meta.get("source") == "nsys-sqlite" and meta.get("complete") == "1"
           and meta.get("nsys_schema_version", "").startswith("3.28")
           and n_kernels == table_count(env.path("all.pfprof"), "kernels"),
           "the imported trace is complete and says where it came from", meta)
    before = open(imported, "rb").read()
    p = env.run("import", nsys, "-o", imported)
    tap.ok(p.returncode == 3 and "exists" in p.stderr and open(imported, "rb").read() == before,
           "import refuses to replace a file without --force (exit 3)", p.stderr)
    p = env.run("import", env.path("null.sqlite"), "-o", env.path("never.pfprof"))
    tap.ok(p.returncode == 2 and not os.path.exists(env.path("never.pfprof")),
           "a malformed export: exit 2, no output", p.stderr)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
