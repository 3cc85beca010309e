#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Bad input to every command that reads traces (suite `reliability`).

Usage: test-bad-input.py PFPROF WORKDIR [--huge]

Builds each bad input in WORKDIR (from a `pfprof generate`
trace, edited with Python's sqlite3) and runs it through `pfprof report`
(text, json, markdown, junit, and -o), `pfprof render -o` (PNG and SVG) and
`pfprof export -o`, `pfprof import -o` and `pfprof diff` when the binary
has them. For input that is invalid it
asserts exit code 2, exactly one "pfprof: ..." line on stderr naming the
file and the problem, nothing on stdout and nothing in the output folder.
For input that is valid but odd (huge or non-UTF-8 names, dangling ids,
extreme times) it asserts exit code 0 and a complete output. Always: no
death by signal, no sanitizer report, no hang, no temporary file left in
TMPDIR, no file created beside the trace, the trace itself unchanged.

--huge runs only the 2,000,000 zero-length events case (its own meson test,
so its time shows separately). Observed outcomes are printed as TAP
comments; docs/reliability.md quotes them.
"""
import concurrent.futures
import json
import os
import random
import re
import sqlite3
import stat
import sys
import time
import xml.etree.ElementTree as ET

from reltest import (check, clear_dir, commands, connect, file_digest, finish, generate,
                     listdir_all, loosen, note, run)

PFPROF, WORK = sys.argv[1], os.path.abspath(sys.argv[2])
HUGE = "--huge" in sys.argv[3:]
os.makedirs(WORK, exist_ok=True)
IN = os.path.join(WORK, "in")        # the bad inputs
OUT = os.path.join(WORK, "out")      # -o targets; must stay empty on failure
TMP = os.path.join(WORK, "tmp")      # TMPDIR of every run; must stay empty
for d in (IN, OUT, TMP):
    clear_dir(d)

INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)
HUGE_EVENTS = 2_000_000

base = generate(PFPROF, os.path.join(WORK, "base.pfprof"), "--steps", "6", "--plant", "pageable")
with open(base, "rb") as f:
    BASE = f.read()
CMDS = commands(PFPROF, TMP)
with open(PFPROF, "rb") as f:
    SANITIZED = b"__ubsan_handle" in f.read()


def copy_base(name):
    path = os.path.join(IN, name)
    with open(path, "wb") as f:
        f.write(BASE)
    return path


def write(name, data):
    path = os.path.join(IN, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def edit(name, *sql, loose=()):
    """A copy of the base trace with @sql applied (tables in @loose lose
    their constraints first)."""
    path = copy_base(name)
    c = connect(path)
    for t in loose:
        loosen(c, t)
    for s in sql:
        c.execute(s)
    c.close()
    return path


# ---- the inputs: (name, builder, expected, problem regex) ---------------
# expected: "invalid" (exit 2, one line naming file and problem) or
# "valid" (exit 0, complete output).

def b_truncated_unknown_size(name):
    # Header bytes 24 and 92 disagree, so the in-header page count is not
    # trusted and only SQLite's own checks can notice the missing pages.
    data = bytearray(BASE[: (len(BASE) // 2) // 4096 * 4096])
    data[92:96] = (int.from_bytes(data[24:28], "big") + 1).to_bytes(4, "big")
    return write(name, bytes(data))


def b_other_app(name):
    path = os.path.join(IN, name)
    c = sqlite3.connect(path)
    c.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT, title TEXT)")
    c.execute("INSERT INTO moz_places (url, title) VALUES ('https://example.org/', 'Example')")
    c.commit()
    c.close()
    return path


def b_other_app_with_meta(name):
    # Looks like a trace (same tables), but the application id is not ours.
    path = copy_base(name)
    c = connect(path)
    c.execute("PRAGMA application_id = 0")
    c.close()
    return path


def b_wrong_app_no_tables(name):
    path = os.path.join(IN, name)
    c = sqlite3.connect(path)
    c.execute("PRAGMA application_id = 1346785350")
    c.execute("CREATE TABLE x (y)")
    c.commit()
    c.close()
    return path


def b_drop_column(name):
    path = copy_base(name)
    c = connect(path)
    cols = [r[1] for r in c.execute("PRAGMA table_info(kernels)") if r[1] != "registers"]
    c.execute("ALTER TABLE kernels RENAME TO k_old")
    c.execute(f"CREATE TABLE kernels ({', '.join(cols)})")
    c.execute(f"INSERT INTO kernels SELECT {', '.join(cols)} FROM k_old")
    c.execute("DROP TABLE k_old")
    c.close()
    return path


def b_fifo(name):
    path = os.path.join(IN, name)
    os.mkfifo(path)
    return path


def b_directory(name):
    path = os.path.join(IN, name)
    os.mkdir(path)
    return path


def b_garbage_wal(name):
    # A finished trace with a stray, garbage -wal beside it (as a careless
    # copy of a killed run's files would leave).
    path = copy_base(name)
    rnd = random.Random(7)
    write(name + "-wal", bytes(rnd.getrandbits(8) for _ in range(40000)))
    return path


def b_long_names(name):
    # One kernel with a 10 MB name; 10 MB thread names; three NVTX ranges
    # with a 10 MB name.
    path = copy_base(name)
    c = connect(path)
    c.execute("UPDATE strings SET value = ?1 WHERE id IN (SELECT name_id FROM threads)", ("t" * (10 << 20),))
    mx = c.execute("SELECT max(id) FROM strings").fetchone()[0]
    c.execute("INSERT INTO strings (id, value) VALUES (?, ?)", (mx + 1, "n" * (10 << 20)))
    c.execute("INSERT INTO strings (id, value) VALUES (?, ?)", (mx + 2, "k" * (10 << 20)))
    c.execute("UPDATE kernels SET name_id = ?1 WHERE rowid = (SELECT max(rowid) FROM kernels)", (mx + 2,))
    c.execute("INSERT INTO nvtx SELECT start_ns + 10, 5, tid, domain_id, ?1, 0, 0, depth + 1, kind"
              " FROM nvtx WHERE rowid IN (SELECT rowid FROM nvtx LIMIT 3)", (mx + 1,))
    c.close()
    return path


def b_long_names_everywhere(name):
    # Every kernel name 256 KB long (16 names shared by 250 kernels): the
    # file stays small (names are stored once), but an output that repeats
    # the name per event grows with events x length (export: 64 MB).
    path = copy_base(name)
    c = connect(path)
    c.execute("UPDATE strings SET value = ?1 || id WHERE id IN (SELECT name_id FROM kernels)",
              ("k" * (256 << 10),))
    c.close()
    return path


def b_non_utf8(name):
    path = copy_base(name)
    c = connect(path)
    # CAST keeps the bytes as they are: SQLite does not validate UTF-8.
    c.execute("UPDATE strings SET value = CAST(X'C3284142FFFE80' || CAST(value AS BLOB) AS TEXT)"
              " WHERE id IN (SELECT name_id FROM kernels UNION SELECT name_id FROM threads"
              " UNION SELECT name_id FROM devices)")
    c.execute("UPDATE meta SET value = CAST(X'EDA080FF' AS TEXT) WHERE key = 'host'")
    c.close()
    return path


def b_dangling_ids(name):
    # Ids that point at nothing: strings, devices, streams, contexts.
    return edit(name,
                "UPDATE kernels SET name_id = 4294967295 WHERE rowid % 3 = 0",
                "UPDATE kernels SET name_id = (SELECT max(id) FROM strings) + 1000 WHERE rowid % 3 = 1",
                "UPDATE kernels SET stream_id = 777, device_id = 9, context_id = 99 WHERE rowid % 5 = 0",
                "UPDATE api_calls SET name_id = 4294967294 WHERE rowid % 7 = 0",
                "UPDATE memcpys SET stream_id = 4294967295 WHERE rowid % 2 = 0",
                "DELETE FROM threads",
                "DELETE FROM devices")


def b_extreme_times(name):
    # Valid rows whose times span the whole int64 range: differences of
    # times overflow if computed carelessly.
    return edit(name,
                f"INSERT INTO kernels SELECT {INT64_MIN}, 0, device_id, context_id, stream_id, 1,"
                " name_id, 1,1,1,1,1,1,0,0 FROM kernels LIMIT 1",
                f"INSERT INTO kernels SELECT {INT64_MAX}, 0, device_id, context_id, stream_id, 2,"
                " name_id, 1,1,1,1,1,1,0,0 FROM kernels LIMIT 1",
                f"INSERT INTO api_calls SELECT {INT64_MAX - 10}, 10, tid, 3, cbid, name_id, 0, domain"
                " FROM api_calls LIMIT 1",
                f"INSERT INTO nvtx SELECT {INT64_MIN}, {INT64_MAX}, tid, domain_id, name_id, 0, 0, 0, 1"
                " FROM nvtx LIMIT 1")


def b_field_extremes(name):
    # Every non-time field at the edge of its type: u64 byte counts and
    # addresses of 2^64-1, the i32 grid x at INT32_MAX, the u16 grid y and z,
    # block sizes and registers and nvtx depth at 65535, u32 colours and
    # categories all ones.
    return edit(name,
                "UPDATE memcpys SET bytes = -1",
                "UPDATE memsets SET bytes = -1",
                "UPDATE memory SET bytes = -1, address = -1",
                "UPDATE devices SET global_memory_bytes = -1, sm_count = 2147483647",
                "UPDATE kernels SET grid_x = 2147483647, grid_y = 65535, grid_z = 65535,"
                " block_x = 65535, block_y = 65535, block_z = 65535, registers = 65535,"
                " shared_mem_bytes = -1",
                "UPDATE api_calls SET return_value = -2147483648 WHERE rowid % 2 = 0",
                "UPDATE nvtx SET depth = 65535, color = 4294967295, category = 4294967295",
                "UPDATE streams SET priority = -2147483648")


def b_negative_start(name):
    # Every timestamp shifted below zero (a clock that is not since 1970).
    shift = 1767225600001000000 + 10**12
    sql = []
    for t, col in (("kernels", "start_ns"), ("memcpys", "start_ns"), ("memsets", "start_ns"),
                   ("syncs", "start_ns"), ("api_calls", "start_ns"), ("nvtx", "start_ns"),
                   ("memory", "ts_ns"), ("overhead", "start_ns")):
        sql.append(f"UPDATE {t} SET {col} = {col} - {shift}")
    sql.append(f"UPDATE cuda_events SET device_ts_ns = device_ts_ns - {shift} WHERE device_ts_ns > 0")
    return edit(name, *sql)


def b_empty_tables(name):
    return edit(name, *[f"DELETE FROM {t}" for t in (
        "kernels", "memcpys", "memsets", "syncs", "cuda_events", "api_calls", "nvtx", "memory",
        "overhead", "devices", "contexts", "streams", "threads")])


def b_zero_length_events(name, n=HUGE_EVENTS):
    # n zero-length kernels, 2,000 at each of 1,000 timestamps in the
    # steady state. Inserted without a journal and the index rebuilt after,
    # as the collector's finish does, to keep the test short.
    path = copy_base(name)
    c = connect(path)
    c.execute("PRAGMA journal_mode=OFF")
    c.execute("PRAGMA synchronous=OFF")
    c.execute("DROP INDEX IF EXISTS kernels_by_time")
    t0 = c.execute("SELECT min(start_ns) + (max(start_ns) - min(start_ns)) / 2 FROM kernels").fetchone()[0]
    c.execute("BEGIN")
    c.execute(f"""INSERT INTO kernels
        WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < {n})
        SELECT {t0} + (x % 1000), 0, device_id, context_id, stream_id, 1000000 + x, name_id,
               1, 1, 1, 32, 1, 1, 0, 16
        FROM s, (SELECT * FROM kernels LIMIT 1)""")
    c.execute("COMMIT")
    c.execute("CREATE INDEX kernels_by_time ON kernels (start_ns)")
    c.close()
    return path


CASES = [
    # name, builder, expected, problem (regex over the error line)
    ("empty file", lambda n: write(n, b""), "invalid", r"empty"),
    ("random bytes", lambda n: write(n, random.Random(1).randbytes(8192)), "invalid",
     r"not a pfprof trace"),
    ("SQLite magic then random bytes",
     lambda n: write(n, b"SQLite format 3\0" + random.Random(2).randbytes(16384)), "invalid",
     r"corrupt|truncated|not a pfprof trace"),
    ("truncated inside the header (99 bytes)", lambda n: write(n, BASE[:99]), "invalid", r"truncated"),
    ("truncated to half", lambda n: write(n, BASE[: len(BASE) // 2]), "invalid", r"truncated"),
    ("truncated by one byte", lambda n: write(n, BASE[:-1]), "invalid", r"truncated"),
    ("truncated at a page boundary, page count untrusted", b_truncated_unknown_size, "invalid",
     r"corrupt|truncated"),
    ("SQLite file of another application", b_other_app, "invalid", r"another application"),
    ("trace tables under another application id", b_other_app_with_meta, "invalid",
     r"another application"),
    ("our application id, no trace tables", b_wrong_app_no_tables, "invalid",
     r"another application|corrupt"),
    ("newer format major version (3.0)",
     lambda n: edit(n, "UPDATE meta SET value = '3.0' WHERE key = 'format_version'"), "invalid",
     r"newer"),
    ("format_version not MAJOR.MINOR",
     lambda n: edit(n, "UPDATE meta SET value = 'one.zero' WHERE key = 'format_version'"), "invalid",
     r"format_version"),
    ("no format_version",
     lambda n: edit(n, "DELETE FROM meta WHERE key = 'format_version'"), "invalid", r"format_version"),
    ("NULL in an event column",
     lambda n: edit(n, "UPDATE kernels SET dur_ns = NULL WHERE rowid = 3", loose=["kernels"]),
     "invalid", r"NULL"),
    ("NULL string value",
     lambda n: edit(n, "UPDATE strings SET value = NULL WHERE id = 1", loose=["strings"]),
     "invalid", r"NULL"),
    ("NULL meta key",
     lambda n: edit(n, "INSERT INTO meta VALUES (NULL, 'x')", loose=["meta"]), "invalid", r"NULL"),
    ("text in an integer column",
     lambda n: edit(n, "UPDATE memcpys SET bytes = 'lots' WHERE rowid = 2", loose=["memcpys"]),
     "invalid", r"not an integer"),
    ("real number in an integer column",
     lambda n: edit(n, "UPDATE api_calls SET start_ns = 0.5 WHERE rowid = 2"), "invalid",
     r"not an integer"),
    ("kernel ends before it starts",
     lambda n: edit(n, "UPDATE kernels SET dur_ns = -1000 WHERE rowid = 5"), "invalid", r"negative"),
    ("NVTX range ends before it starts",
     lambda n: edit(n, "UPDATE nvtx SET dur_ns = -1 WHERE rowid = 2"), "invalid", r"negative"),
    ("API call ends before it starts",
     lambda n: edit(n, f"UPDATE api_calls SET dur_ns = {INT64_MIN} WHERE rowid = 4"), "invalid",
     r"negative"),
    ("end time overflows int64",
     lambda n: edit(n, f"UPDATE kernels SET start_ns = {INT64_MAX - 5}, dur_ns = 100 WHERE rowid = 1"),
     "invalid", r"overflow"),
    ("u32 id beyond 32 bits",
     lambda n: edit(n, "UPDATE kernels SET device_id = 1099511627776 WHERE rowid = 1"), "invalid",
     r"does not fit"),
    ("u8 enum beyond 8 bits",
     lambda n: edit(n, "UPDATE memcpys SET copy_kind = 300 WHERE rowid = 1"), "invalid",
     r"does not fit"),
    ("negative u32 id",
     lambda n: edit(n, "UPDATE streams SET stream_id = -5 WHERE rowid = 1"), "invalid",
     r"does not fit"),
    ("string id far beyond the strings",
     lambda n: edit(n, "INSERT INTO strings VALUES (1099511627776, 'far')"), "invalid",
     r"out of range"),
    ("negative string id",
     lambda n: edit(n, "INSERT INTO strings VALUES (-3, 'neg')"), "invalid", r"out of range"),
    ("a table missing", lambda n: edit(n, "DROP TABLE kernels"), "invalid", r"no table"),
    ("a column missing", b_drop_column, "invalid", r"no column"),
    ("missing path", lambda n: os.path.join(IN, n), "invalid", r"No such file"),
    ("a directory", b_directory, "invalid", r"not a regular file"),
    ("a FIFO (must not block)", b_fifo, "invalid", r"not a regular file"),
    # Valid but odd: must work.
    ("10 MB kernel, NVTX and thread names", b_long_names, "valid", None),
    ("256 KB name on every kernel", b_long_names_everywhere, "valid", None),
    ("non-UTF-8 names and meta", b_non_utf8, "valid", None),
    ("ids pointing at nothing", b_dangling_ids, "valid", None),
    ("times at both ends of int64", b_extreme_times, "valid", None),
    ("all times negative", b_negative_start, "valid", None),
    ("every other field at its type's extreme", b_field_extremes, "valid", None),
    ("no events at all", b_empty_tables, "valid", None),
    ("garbage -wal file beside a finished trace", b_garbage_wal, "valid", None),
]
# Bugs found by this test and handed to their owners; each stays a TAP
# TODO (expected failure, with a short timeout) until fixed.
# (Keys are (case, command); a value of (reason, True) applies only to the
# sanitizer build, where UBSan reports what the plain build survives.)
KNOWN = {}

HUGE_CASE = (f"{HUGE_EVENTS:,} zero-length kernels", b_zero_length_events, "valid", None)


def report_formats():
    """The formats `pfprof report --help` lists (text, json, ... html)."""
    r = run(PFPROF, ["report", "--help"], TMP)
    m = re.search(rb"--format=FORMAT\s+(.*)", r.out)
    names = re.findall(r"[a-z][a-z-]*", m.group(1).decode().replace("(default)", "")) if m else []
    return [n for n in names if n not in ("or", "and")] or ["text", "json"]


FORMATS = report_formats()


def invocations(path, is_huge):
    """(label, argv, output file or None, stdout format or None); @OUT@ in
    argv is replaced by the invocation's own output folder."""
    inv = []
    if not is_huge:
        for fmt in FORMATS:
            inv.append((f"report {fmt}", ["report", "--format", fmt, path], None, fmt))
    inv.append(("report -o", ["report", "--format", "json", path, "-o", "@OUT@/r.json"],
                "r.json", None))
    inv.append(("render png", ["render", path, "-o", "@OUT@/x.png"], "x.png", None))
    if not is_huge:
        inv.append(("render svg", ["render", path, "-o", "@OUT@/x.svg"], "x.svg", None))
    # The huge case runs report and render only (export and diff of it were
    # measured once, see docs/reliability.md): this keeps it near 30 s.
    if "export" in CMDS and not is_huge:
        inv.append(("export -o", ["export", path, "-o", "@OUT@/e.json"], "e.json", None))
    if "import" in CMDS and not is_huge:
        inv.append(("import -o", ["import", path, "-o", "@OUT@/i.pfprof"], "i.pfprof", None))
    if "view" in CMDS and os.path.basename(path).startswith(("missing-path", "a-directory", "a-fifo")):
        # The GUI launcher refuses what is not a file before opening a
        # window (the gui suite covers files that fail to load).
        inv.append(("view", ["view", path], None, None))
    if "diff" in CMDS and not is_huge:
        inv.append(("diff -o", ["diff", "--format", "json", "-b", base, "-a", path, "-o",
                                "@OUT@/d.json"], "d.json", None))
        inv.append(("diff text", ["diff", "-b", path, "-a", base], None, "text"))
    return inv


def check_stdout(fmt, out):
    """The report on stdout is complete: it parses as its format."""
    if fmt == "json":
        json.loads(out)
    elif fmt == "junit":
        ET.fromstring(out)
    elif fmt == "html" and not out.rstrip().endswith(b"</html>"):
        raise ValueError("HTML report does not end with </html>")
    elif not out.strip():
        raise ValueError("empty report")


def check_file(name, path):
    with open(path, "rb") as f:
        data = f.read()
    if name.endswith(".json"):
        json.loads(data)
    elif name.endswith(".png"):
        if not data.startswith(b"\x89PNG\r\n\x1a\n") or b"IEND" not in data[-16:]:
            raise ValueError("not a complete PNG")
    elif name.endswith(".svg"):
        ET.fromstring(data)
    elif name.endswith(".pfprof"):
        if not data.startswith(b"SQLite format 3\0"):
            raise ValueError("not an SQLite file")


def beside(path):
    """Files in the trace's folder other than the inputs themselves."""
    return set(listdir_all(os.path.dirname(path)))


def run_case(name, builder, expected, problem, is_huge=False):
    fname = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") + ".pfprof"
    t0 = time.monotonic()
    path = builder(fname)
    build_s = time.monotonic() - t0
    if is_huge:
        note(f"{name}: built in {build_s:.1f}s, {os.path.getsize(path) / 1e6:.0f} MB")
    before = file_digest(path)
    entries = beside(path)
    outcomes = []
    jobs = []
    for i, (label, args, outname, fmt) in enumerate(invocations(path, is_huge)):
        out, tmp = os.path.join(OUT, str(i)), os.path.join(TMP, str(i))
        clear_dir(out)
        clear_dir(tmp)
        todo = KNOWN.get((name, args[0]))
        if isinstance(todo, tuple):
            todo = todo[0] if SANITIZED or not todo[1] else None
        args = [a.replace("@OUT@", out) for a in args]
        jobs.append((label, args, outname, fmt, out, tmp, todo))
    # A few at a time: most runs are short and spend their time starting.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1 if is_huge else 3) as pool:
        results = list(pool.map(
            lambda j: run(PFPROF, j[1], j[5], timeout=10 if j[6] else 300 if is_huge else 90), jobs))
    for (label, args, outname, fmt, out, tmp, todo), r in zip(jobs, results):
        what = f"{name}: {label}"
        problems = []
        if r.crashed():
            problems.append("crashed, hung or sanitizer report")
        if listdir_all(tmp):
            problems.append(f"left in TMPDIR: {listdir_all(tmp)}")
        out_entries = listdir_all(out)
        if expected == "invalid":
            lines = r.err_lines
            line = lines[0].decode("utf-8", "replace") if lines else ""
            if r.rc != 2:
                problems.append(f"exit {r.rc}, not 2")
            if len(lines) != 1:
                problems.append(f"{len(lines)} lines on stderr, not 1")
            if not line.startswith("pfprof: ") or path not in line:
                problems.append("the error line does not name the file")
            if problem and not re.search(problem, line, re.I):
                problems.append(f"the error line does not say /{problem}/")
            if r.out:
                problems.append("output on stdout")
            if out_entries:
                problems.append(f"left in the output folder: {out_entries}")
            outcomes.append(f"{label}: exit {r.rc}: {line}")
        else:
            if r.rc != 0:
                problems.append(f"exit {r.rc}, not 0")
            try:
                if fmt:
                    check_stdout(fmt, r.out)
                if outname:
                    if out_entries != [outname]:
                        raise ValueError(f"output folder holds {out_entries}, not [{outname!r}]")
                    check_file(outname, os.path.join(out, outname))
            except (ValueError, ET.ParseError, OSError) as e:
                problems.append(f"incomplete output: {e}")
            outcomes.append(f"{label}: exit {r.rc} in {r.secs:.2f}s"
                            + (f", stderr: {r.err_lines[0][:200]!r}" if r.err_lines else ""))
        check(what, not problems, "; ".join(problems) + "\n" + r.describe(), todo=todo)
        clear_dir(out)
        clear_dir(tmp)
    changed = []
    if beside(path) != entries:
        changed.append(f"files appeared beside the trace: {sorted(beside(path) - entries)}")
    if file_digest(path) != before:
        changed.append("the trace file was modified")
    check(f"{name}: trace unchanged, nothing created beside it", not changed, "; ".join(changed))
    note(f"observed for '{name}':")
    for o in outcomes:
        note("  " + o[:300])


def extreme_times_reported():
    """The four events at the ends of int64 are left out of the analysis,
    and the report says so (JSON events_out_of_range, a text line)."""
    path = b_extreme_times("extreme-times-count.pfprof")
    r = run(PFPROF, ["report", "--format", "json", path], TMP)
    try:
        n = json.loads(r.out)["traces"][0].get("events_out_of_range")
    except (ValueError, KeyError, IndexError):
        n = None
    check("times at both ends of int64: JSON counts the 4 events left out", n == 4,
          f"events_out_of_range = {n!r}\n" + r.describe())
    r = run(PFPROF, ["report", path], TMP)
    check("times at both ends of int64: text report says events were left out",
          r.rc == 0 and re.search(rb"4 events left out", r.out) is not None, r.describe())


def mixed_inputs():
    """A valid trace followed by a bad one: the bad one is named, nothing
    of the good one's report is written."""
    bad = write("second-of-two.pfprof", BASE[:5000])
    out = os.path.join(OUT, "mixed")
    clear_dir(out)
    for label, args in (("report", ["report", "--format", "json", base, bad, "-o", os.path.join(out, "r.json")]),
                        ("render", ["render", base, bad, "-o", os.path.join(out, "x.png")])):
        r = run(PFPROF, args, TMP)
        line = r.err_lines[0].decode("utf-8", "replace") if r.err_lines else ""
        check(f"valid trace then a truncated one: {label} names the bad one, writes nothing",
              r.rc == 2 and len(r.err_lines) == 1 and bad in line and base not in line
              and not r.crashed() and listdir_all(out) == [] and not r.out, r.describe())


if HUGE:
    run_case(*HUGE_CASE, is_huge=True)
else:
    note(f"commands: {' '.join(CMDS)}")
    for case in CASES:
        run_case(*case)
    extreme_times_reported()
    mixed_inputs()
clear_dir(IN)
finish()
