# SPDX-License-Identifier: MIT
"""Helpers of bench/collector-overhead.sh (no torch needed):

  overhead_stats.py kinds TRACE
      the comma list of activity kinds a pfprof trace says it enabled (meta
      key activity_kinds); all ten names when the key or the trace is
      missing. Prints `KINDS SOURCE` where SOURCE says which.
  overhead_stats.py trace TRACE
      JSON: bytes, events, dropped_records, activity_kinds, how counted.
  overhead_stats.py record --tsv F --round R --workload W --variant V
                           --log LOG --wall S [--trace TRACE] [--kinds K]
      parses one run's log (and pfprof trace) and appends a row to F;
      prints the row in words.
  overhead_stats.py summary --tsv F --md OUT [--header TEXT]
      the overhead table: per workload and variant, median of the run
      medians, spread, % over bare (bare@N for a variant run on N CPUs,
      VARIANT@N), % over pfprof with the hook off (nohooks) when it ran,
      bytes/event, drops; the in-process alternations (of the hook, of the
      whole profiler): per workload and variant the median of the runs'
      paired costs and their range; Markdown to OUT and plain text to
      stdout.

A log of bench/overhead_suite.py (several workloads in one process) gives
one row per workload it ran ("overhead-suite: NAME median step X ms"); an
alternating workload (NAME-alt: the hook; NAME-palt: the whole profiler,
bench/step_alternation.py) keeps in the row's note what it alternated,
the medians of its steps on and off, its paired cost (the median over
on/off pairs of on / off - 1), the number of pairs and their range
(alt=WHAT alt_on_ms=A alt_off_ms=B alt_cost_pct=P alt_pairs=N
alt_pair_range=L..H) for the in-process table.

Events of a pfprof trace: rows of its event tables (kernels, memcpys,
memsets, syncs, cuda_events, api_calls, nvtx, memory, overhead), counted
with tests/pfprof_trace_rows.py when that decoder exists, else with
sqlite3: the chunks' row counts (format 2) or count(*) of the v1 tables.
"""
import argparse
import json
import math
import os
import re
import sqlite3
import statistics
import sys

from step_alternation import RESULT_RE

ALL_KINDS = ["kernel", "memcpy", "memset", "sync", "runtime", "driver", "cuda_event", "stream",
             "memory2", "overhead"]
V1_EVENT_TABLES = ["kernels", "memcpys", "memsets", "syncs", "cuda_events", "api_calls", "nvtx",
                   "memory", "overhead"]
VARIANTS = ["bare", "pfprof", "nohooks", "nice0", "base", "pfprof-launches", "torch", "floor", "floor-all",
            "pfprof-alt", "nohooks-alt", "floor-alt"]
VARIANT_WORDS = {
    "bare": "no profiler",
    "pfprof": "pfprof record (defaults)",
    "pfprof-launches": "pfprof record --trace-launches",
    "torch": "torch.profiler (CPU+CUDA, chrome export)",
    "floor": "CUPTI floor, pfprof's default kinds",
    "floor-all": "CUPTI floor, all ten kinds",
    "nohooks": "pfprof record --no-python-hooks",
    "nice0": "pfprof record, writer at the program's priority (PFPROF_WRITER_NICE=0)",
    "base": "pfprof record, the build compared with (PFPROF_BASE)",
    "pfprof-alt": "pfprof record --capture-range=cuda-profiler-api, recording every other block",
    "nohooks-alt": "pfprof record --capture-range=cuda-profiler-api --no-python-hooks, "
                   "recording every other block",
    "floor-alt": "CUPTI floor, pfprof's default kinds, on every other block",
}


def variant_words(v):
    base, _, cpus = v.partition("@")
    if base.startswith("kind-"):
        words = f"pfprof record, PFPROF_KINDS={base[5:].replace('+', ',')}"
    else:
        words = VARIANT_WORDS.get(base, base)
    return words + (f" on {cpus} CPUs" if cpus else "")


def variant_key(v):
    """Sort order: CPUs (all first), then VARIANTS order, then kinds."""
    base, _, cpus = v.partition("@")
    return (int(cpus) if cpus.isdigit() else 0,
            VARIANTS.index(base) if base in VARIANTS else len(VARIANTS), base)
COLUMNS = ["round", "workload", "variant", "step_ms", "wall_s", "trace_bytes", "events",
           "dropped", "kinds", "note"]

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --- pfprof traces ---------------------------------------------------------

def _is_sqlite(path):
    try:
        with open(path, "rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _meta_sqlite(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return dict(db.execute("select key, value from meta").fetchall())
    finally:
        db.close()


def _count_sqlite(path):
    """(events, per table, how): format 2 keeps rows in `chunks`, each with
    its row count n; format 1 has one SQLite table per record type."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        have = {r[0] for r in db.execute("select name from sqlite_master where type = 'table'")}
        if "chunks" in have:
            per = dict(db.execute("select table_name, sum(n) from chunks group by table_name"))
            per = {t: int(n) for t, n in per.items() if t in V1_EVENT_TABLES}
            how = "sqlite3: sum(n) of chunks"
        else:
            per = {t: db.execute(f"select count(*) from {t}").fetchone()[0]
                   for t in V1_EVENT_TABLES if t in have}
            how = "sqlite3: count(*) of v1 tables"
    finally:
        db.close()
    return sum(per.values()), per, how


def _decoder():
    """tests/pfprof_trace_rows.py as a module, or None."""
    path = os.path.join(REPO, "tests", "pfprof_trace_rows.py")
    if not os.path.exists(path):
        return None
    import importlib.util

    spec = importlib.util.spec_from_file_location("pfprof_trace_rows", path)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except Exception as e:  # a decoder still being written must not stop the benchmark
        print(f"overhead_stats: cannot load {path}: {e}", file=sys.stderr)
        return None
    return mod


def _count_with_decoder(mod, path):
    """(events, per table) from tests/pfprof_trace_rows.py's count_events
    (chunk headers for format 2, count(*) for format 1: nothing decoded);
    None when the decoder has no such function."""
    fn = getattr(mod, "count_events", None)
    if not callable(fn):
        return None
    per = {k: int(v) for k, v in fn(path).items() if k in V1_EVENT_TABLES}
    return sum(per.values()), per


def trace_stats(path):
    out = {"path": path, "bytes": 0, "events": 0, "dropped_records": None, "activity_kinds": None,
           "counted_by": None, "per_table": {}}
    if not os.path.exists(path):
        out["error"] = "no trace"
        return out
    out["bytes"] = os.path.getsize(path)
    meta = {}
    if _is_sqlite(path):
        try:
            meta = _meta_sqlite(path)
        except sqlite3.Error as e:
            out["error"] = f"meta: {e}"
    counted = None
    mod = _decoder()
    if mod is not None:
        try:
            counted = _count_with_decoder(mod, path)
            if counted is not None:
                out["counted_by"] = "tests/pfprof_trace_rows.py count_events"
        except Exception as e:
            out["error"] = f"decoder: {e}"
    if counted is None and _is_sqlite(path):
        try:
            n, per, how = _count_sqlite(path)
            counted = (n, per)
            out["counted_by"] = how
            out.pop("error", None)
        except sqlite3.Error as e:
            out["error"] = f"count: {e}"
    if not meta:
        meta = read_meta(path)
    if counted is not None:
        out["events"], out["per_table"] = counted
    if meta.get("complete") == "0":
        out["error"] = "trace not complete"
    for key in ("dropped_records", "api_callback_dropped", "nvtx_dropped", "records_written",
                "records_invalid", "api_callbacks_enabled"):
        if key in meta:
            try:
                out[key] = int(meta[key])
            except ValueError:
                pass
    if meta.get("activity_kinds"):
        out["activity_kinds"] = meta["activity_kinds"]
    return out


def read_meta(path):
    """The trace's meta keys (SQLite meta table, else the decoder's)."""
    if _is_sqlite(path):
        try:
            return _meta_sqlite(path)
        except sqlite3.Error:
            pass
    mod = _decoder()
    for name in ("meta", "read_meta"):
        fn = getattr(mod, name, None) if mod else None
        if callable(fn):
            try:
                return dict(fn(path))
            except Exception:
                return {}
    return {}


def kinds_of(path):
    """(comma list, source) for the floor from a pfprof trace's meta."""
    base = os.path.basename(path) if path else ""
    if path and os.path.exists(path):
        k = read_meta(path).get("activity_kinds")
        if k:
            names = [n.strip() for n in k.split(",") if n.strip()]
            floor_knows = ALL_KINDS + ["api-callbacks"]
            unknown = [n for n in names if n not in floor_knows]
            src = f"meta activity_kinds of {base}: {k}"
            if unknown:
                src += f"; the floor has no {','.join(unknown)}"
            return ",".join(n for n in names if n in floor_knows) or "none", src
        return ",".join(ALL_KINDS), f"all ten: no activity_kinds in {base}"
    return ",".join(ALL_KINDS), f"all ten: no trace {base}"


# --- one run ---------------------------------------------------------------

STEP_RE = re.compile(r"median step ([0-9.]+) ms")
TORCH_RE = re.compile(r"torch\.profiler trace: .* (\d+) bytes, (\d+) events")
SUITE_RE = re.compile(r"^overhead-suite: (\S+) median step ([0-9.]+) ms", re.M)
SUITE_ALT_RE = re.compile(r"^overhead-suite: (\S+) " + RESULT_RE.pattern, re.M)
FLOOR_RE = re.compile(r"pfprof-cupti-floor: pid \d+: (\d+) records in \d+ buffers discarded, (\d+) dropped, kinds (\S+)")


def parse_log(text):
    r = {"step_ms": math.nan, "trace_bytes": None, "events": None, "dropped": None, "kinds": None,
         "note": []}
    m = STEP_RE.findall(text)
    if m:
        r["step_ms"] = float(m[-1])
    else:
        r["note"].append("no step time")
    m = TORCH_RE.search(text)
    if m:
        r["trace_bytes"], r["events"] = int(m.group(1)), int(m.group(2))
    floors = FLOOR_RE.findall(text)
    if floors:
        r["events"] = sum(int(f[0]) for f in floors)
        r["dropped"] = sum(int(f[1]) for f in floors)
        r["kinds"] = floors[-1][2]
    return r


def cmd_record(a):
    with open(a.log, errors="replace") as f:
        text = f.read()
    r = parse_log(text)
    if a.variant.startswith("floor"):
        if r["events"] is None:
            r["note"].append("floor did not report (not loaded?)")
    if a.variant == "torch" and r["trace_bytes"] is None:
        r["note"].append("no torch trace line")
    if a.trace:
        s = trace_stats(a.trace)
        if "error" not in s or s["bytes"]:
            r["trace_bytes"], r["events"] = s["bytes"], s["events"]
        # Every record lost: CUPTI's, the collector's API callbacks', NVTX.
        drops = [s.get(k) for k in ("dropped_records", "api_callback_dropped", "nvtx_dropped")]
        r["dropped"] = sum(d for d in drops if d is not None) if any(d is not None for d in drops) else None
        r["kinds"] = s["activity_kinds"] or "(not in meta)"
        if s.get("error"):
            r["note"].append(s["error"])
        with open(a.log + ".trace.json", "w") as f:
            json.dump(s, f, indent=1)
    if a.kinds and not r["kinds"]:
        r["kinds"] = a.kinds
    row = {"round": a.round, "workload": a.workload, "variant": a.variant,
           "step_ms": f"{r['step_ms']:.3f}", "wall_s": f"{a.wall:.1f}",
           "trace_bytes": "" if r["trace_bytes"] is None else r["trace_bytes"],
           "events": "" if r["events"] is None else r["events"],
           "dropped": "" if r["dropped"] is None else r["dropped"],
           "kinds": r["kinds"] or "", "note": "; ".join(r["note"]) + (f"; exit {a.rc}" if a.rc else "")}
    rows = [row]
    suite = SUITE_RE.findall(text)
    if suite:
        # One row per workload of the suite; the trace is the whole run's,
        # so its size stays in the log (.trace.json), its drops on each row.
        alt = {m[0]: (f"alt={m[1]} alt_on_ms={m[2]} alt_off_ms={m[3]} alt_cost_pct={m[4]} "
                      f"alt_pairs={m[5]} alt_pair_range={m[6]}..{m[7]}")
               for m in SUITE_ALT_RE.findall(text)}
        note = "; ".join(n for n in r["note"] if n != "no step time") + (f"; exit {a.rc}" if a.rc else "")
        rows = []
        for name, ms in suite:
            extra = alt.get(name, "")
            rows.append(dict(row, workload=name, step_ms=f"{float(ms):.3f}", trace_bytes="", events="",
                             note="; ".join(x for x in (extra, note) if x)))
    new = not os.path.exists(a.tsv)
    with open(a.tsv, "a") as f:
        if new:
            f.write("\t".join(COLUMNS) + "\n")
        for x in rows:
            f.write("\t".join(str(x[c]).replace("\t", " ") for c in COLUMNS) + "\n")
    if suite:
        for x in rows:
            print(f"{x['workload']} round {a.round} {a.variant}: {x['step_ms']} ms/step"
                  + (f", {x['dropped']} dropped" if x["dropped"] != "" else "")
                  + (f" [{x['note']}]" if x["note"] else ""), flush=True)
        return
    words = f"{a.workload} round {a.round} {a.variant}: {row['step_ms']} ms/step, {row['wall_s']} s"
    if row["trace_bytes"] != "":
        words += f", trace {row['trace_bytes']} B"
    if row["events"] != "":
        words += f", {row['events']} events"
        if row["trace_bytes"] != "" and int(row["events"]) > 0:
            words += f" ({int(row['trace_bytes']) / int(row['events']):.1f} B/event)"
    if row["dropped"] != "":
        words += f", {row['dropped']} dropped"
    if row["kinds"]:
        words += f", kinds {row['kinds']}"
    if row["note"].strip("; "):
        words += f" [{row['note'].strip('; ')}]"
    print(words, flush=True)


# --- summary ---------------------------------------------------------------

def read_rows(tsv):
    if not os.path.exists(tsv):
        return []
    with open(tsv) as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    if not lines:
        return []
    head = lines[0]
    return [dict(zip(head, l + [""] * (len(head) - len(l)))) for l in lines[1:]]


def _num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def _pct(a, b):
    return (a / b - 1) * 100 if a is not None and b else None


def summarize(rows):
    """[(workload, [line dict per variant])]: a line's pct is against bare
    with the same CPUs, its hook_pct against nohooks with the same CPUs."""
    out = []
    workloads = []
    for r in rows:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
    for w in workloads:
        lines = []
        variants = sorted({r["variant"] for r in rows if r["workload"] == w}, key=variant_key)
        for v in variants:
            rs = [r for r in rows if r["workload"] == w and r["variant"] == v]
            ms = [x for x in (_num(r["step_ms"]) for r in rs) if x is not None]
            med = statistics.median(ms) if ms else None
            base = v.partition("@")[0]
            bpe = [float(r["trace_bytes"]) / float(r["events"]) for r in rs
                   if _num(r["trace_bytes"]) and _num(r["events"]) and base != "bare" and not base.startswith("floor")]
            ev = [int(float(r["events"])) for r in rs if _num(r["events"])]
            dropped = [int(float(r["dropped"])) for r in rs if _num(r["dropped"]) is not None]
            lines.append({
                "variant": v, "n": len(ms), "runs": len(rs), "median": med,
                "lo": min(ms) if ms else None, "hi": max(ms) if ms else None,
                "bpe": statistics.median(bpe) if bpe else None,
                "events": statistics.median(ev) if ev else None,
                "dropped": sum(dropped) if dropped else None,
                "kinds": sorted({r["kinds"] for r in rs if r["kinds"]}),
            })
        by = {l["variant"]: l for l in lines}
        for l in lines:
            cpus = l["variant"].partition("@")[2]
            suffix = "@" + cpus if cpus else ""
            bare = by.get("bare" + suffix)
            off = by.get("nohooks" + suffix)
            l["pct"] = _pct(l["median"], bare["median"] if bare else None)
            l["hook_pct"] = (_pct(l["median"], off["median"] if off else None)
                             if l["variant"].partition("@")[0] == "pfprof" else None)
        out.append((w, lines))
    return out


def alternations(rows):
    """[(workload, variant, [per-run cost in %], [per-run pairs])] from the
    rows of in-process alternations: each run's paired cost (note
    alt_cost_pct=P alt_pairs=N), or for rows without it the ratio of its
    medians (alt_on_ms=A alt_off_ms=B), pairs unknown (None)."""
    out = {}
    for r in rows:
        note = r.get("note", "")
        cost = re.search(r"alt_cost_pct=([-+]?[0-9.]+)", note)
        pairs = re.search(r"alt_pairs=(\d+)", note)
        med = re.search(r"alt_on_ms=([0-9.]+) alt_off_ms=([0-9.]+)", note)
        if cost:
            pct = float(cost.group(1))
        elif med and float(med.group(2)) > 0:
            pct = (float(med.group(1)) / float(med.group(2)) - 1) * 100
        else:
            continue
        p, n = out.setdefault((r["workload"], r["variant"]), ([], []))
        p.append(pct)
        n.append(int(pairs.group(1)) if pairs else None)
    return [(w, v, p, n) for (w, v), (p, n) in sorted(out.items(), key=lambda x: (x[0][0], variant_key(x[0][1])))]


def _f(v, fmt):
    return "n/a" if v is None else format(v, fmt)


def cmd_summary(a):
    rows = read_rows(a.tsv)
    table = summarize(rows)
    md = []
    if a.header:
        md += [a.header, ""]
    rounds = sorted({r["round"] for r in rows}, key=lambda x: int(x) if x.isdigit() else 0)
    md.append(f"{len(rounds)} round(s), {len(rows)} rows. Step time: median over each run's timed "
              "steps; table: median of those run medians, with the lowest and highest run. "
              "vs bare: against bare on as many CPUs; vs hook off: against nohooks on as many CPUs.")
    md.append("")
    for w, lines in table:
        md += [f"### {w}", "",
               "| variant | runs | median step | run range | vs bare | vs hook off | events/run | bytes/event | dropped |",
               "|---|---|---|---|---|---|---|---|---|"]
        for l in lines:
            name = variant_words(l["variant"])
            if l["variant"].startswith("floor") and l["kinds"]:
                name += f" ({'; '.join(l['kinds'])})"
            is_bare = l["variant"].partition("@")[0] == "bare"
            pct = "" if is_bare else (f"{l['pct']:+.1f}%" if l["pct"] is not None else "n/a")
            hook = f"{l['hook_pct']:+.1f}%" if l["hook_pct"] is not None else ""
            md.append(f"| {name} | {l['n']}/{l['runs']} | {_f(l['median'], '.3f')} ms | "
                      f"{_f(l['lo'], '.3f')}-{_f(l['hi'], '.3f')} ms | {pct} | {hook} | "
                      f"{_f(l['events'], ',.0f')} | {_f(l['bpe'], '.1f')} | "
                      f"{'' if l['dropped'] is None else l['dropped']} |")
        md.append("")
    alts = alternations(rows)
    if alts:
        md += ["### in-process: on/off alternating in one process (NAME-alt: the hook's wrappers; "
               "NAME-palt: the whole profiler, recording or paused)", "",
               "Each run's cost: the median over its on/off pairs of (on / off - 1); here the median "
               "of the runs' costs and the lowest and highest run.", "",
               "| workload | variant | runs | median of the runs' paired cost | range | pairs a run |",
               "|---|---|---|---|---|---|"]
        for w, v, p, n in alts:
            known = [x for x in n if x is not None]
            pairs = "" if not known else (f"{min(known)}" if min(known) == max(known)
                                          else f"{min(known)}-{max(known)}")
            md.append(f"| {w} | {variant_words(v)} ({v}) | {len(p)} | {statistics.median(p):+.2f}% | "
                      f"{min(p):+.2f}..{max(p):+.2f}% | {pairs} |")
        md.append("")
    md += ["### every run", "", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        md.append("| " + " | ".join(str(r.get(c, "")) for c in COLUMNS) + " |")
    text = "\n".join(md) + "\n"
    if a.md:
        tmp = a.md + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, a.md)
    for w, lines in table:
        for l in lines:
            is_bare = l["variant"].partition("@")[0] == "bare"
            pct = "" if is_bare else (f" {l['pct']:+.1f}%" if l["pct"] is not None else " n/a")
            print(f"SUMMARY {w} {l['variant']}: {_f(l['median'], '.3f')} ms "
                  f"({l['n']} runs, {_f(l['lo'], '.3f')}-{_f(l['hi'], '.3f')}){pct}"
                  + (f", vs hook off {l['hook_pct']:+.1f}%" if l["hook_pct"] is not None else "")
                  + (f", {_f(l['bpe'], '.1f')} B/event" if l["bpe"] is not None else "")
                  + (f", dropped {l['dropped']}" if l["dropped"] is not None else ""))
    for w, v, p, _ in alts:
        print(f"SUMMARY in-process {w} {v}: {'pfprof' if w.endswith('-palt') else 'hook'} "
              f"{statistics.median(p):+.2f}% ({len(p)} runs, {min(p):+.2f}..{max(p):+.2f}%)")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("kinds")
    k.add_argument("trace", nargs="?")
    t = sub.add_parser("trace")
    t.add_argument("trace")
    r = sub.add_parser("record")
    r.add_argument("--tsv", required=True)
    r.add_argument("--round", required=True)
    r.add_argument("--workload", required=True)
    r.add_argument("--variant", required=True)
    r.add_argument("--log", required=True)
    r.add_argument("--wall", type=float, default=math.nan)
    r.add_argument("--rc", type=int, default=0)
    r.add_argument("--trace")
    r.add_argument("--kinds")
    s = sub.add_parser("summary")
    s.add_argument("--tsv", required=True)
    s.add_argument("--md")
    s.add_argument("--header")
    a = p.parse_args()
    if a.cmd == "kinds":
        kinds, source = kinds_of(a.trace)
        print(kinds, source)
    elif a.cmd == "trace":
        print(json.dumps(trace_stats(a.trace), indent=1))
    elif a.cmd == "record":
        cmd_record(a)
    else:
        cmd_summary(a)


if __name__ == "__main__":
    main()
