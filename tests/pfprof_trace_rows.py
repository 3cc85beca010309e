# SPDX-License-Identifier: MIT
"""pfprof_trace_rows: a pfprof trace of format 1 or 2 as plain SQL row tables.

    import pfprof_trace_rows
    db = pfprof_trace_rows.connect("run.pfprof")
    db.execute("SELECT count(*), sum(dur_ns) FROM kernels")

Format 1 stores every table as rows. Format 2 keeps meta, strings and the
object tables (devices, contexts, streams, threads) as rows and the event
tables (kernels, memcpys, ...) as compressed column chunks in the table
`chunks` (docs/trace-format.md, "Format 2: event chunks"). connect() returns
an sqlite3 connection on which both look like format 1: for format 2 an
in-memory database with every table as rows, the same column names
(`dur_ns` included) in the same order.

An independent decoder, on purpose: Python's sqlite3 and nothing of
pfprof, so tests that read traces with it cross-check the C writer. It
reads the column names from the file's `chunk_columns` table. Slow (pure
Python, about a million values a second): for test and sample traces,
not for 10M-event benchmarks (count_events() only sums chunk headers).
"""
import atexit
import os
import shutil
import sqlite3
import tempfile

__all__ = ["connect", "count_events", "decode_chunk", "format_major", "TraceFormatError"]

_MASK64 = (1 << 64) - 1


class TraceFormatError(ValueError):
    """The file is not a trace this module can decode."""


def _open_source(path):
    """A read-only connection to PATH. A trace whose writer was killed is
    in WAL mode with PATH-wal beside it; that needs a writable -shm, so a
    private copy is read instead and the evidence never changes."""
    if os.path.exists(path + "-wal") or os.path.exists(path + "-journal"):
        tmp = tempfile.mkdtemp(prefix="pfprof-rows-")
        # The copy may back the connection returned: removed at exit.
        atexit.register(shutil.rmtree, tmp, True)
        dst = os.path.join(tmp, "t.pfprof")
        shutil.copy(path, dst)
        for suffix in ("-wal", "-journal"):
            if os.path.exists(path + suffix):
                shutil.copy(path + suffix, dst + suffix)
        return sqlite3.connect(dst)
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def format_major(db):
    """The MAJOR of meta.format_version of an open trace."""
    row = db.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchone()
    if row is None:
        raise TraceFormatError("no format_version in table meta")
    return int(str(row[0]).split(".")[0])


def _varint(data, pos, end):
    u = 0
    shift = 0
    while True:
        if pos >= end:
            raise TraceFormatError("truncated varint")
        b = data[pos]
        pos += 1
        u |= (b & 0x7F) << shift
        if b < 0x80:
            if u > _MASK64:
                raise TraceFormatError("varint exceeds 64 bits")
            return u, pos
        shift += 7


def _signed(u):
    return u - (1 << 64) if u >= (1 << 63) else u


def decode_chunk(data, n, durations):
    """Decodes one chunk blob of N records. DURATIONS[i] says whether
    column i is a duration (stored as end - start, no delta). Returns one
    list of N integers per column, as format 1 stores them: the values,
    and dur_ns for durations (u64 values as the signed 64-bit integer with
    the same bits)."""
    n_columns, pos = _varint(data, 0, len(data))
    columns = []
    for c in range(n_columns):
        length, pos = _varint(data, pos, len(data))
        end = pos + length
        if end > len(data):
            raise TraceFormatError(f"column {c}: byte length {length} runs past the chunk")
        values = []
        prev = 0
        is_duration = c < len(durations) and durations[c]
        while pos < end:
            b = data[pos]
            if b < 0x80:
                u = b
                pos += 1
            else:
                u, pos = _varint(data, pos, end)
            d = (u >> 1) ^ -(u & 1)
            if is_duration:
                values.append(d)
            else:
                prev = (prev + d) & _MASK64
                values.append(_signed(prev))
        if len(values) != n:
            raise TraceFormatError(f"column {c}: {len(values)} values, chunk says {n}")
        columns.append(values)
    if pos != len(data):
        raise TraceFormatError(f"{len(data) - pos} bytes after the last column")
    return columns


def _chunk_columns(src):
    """{table: [(name, is_duration), ...]} from the file's chunk_columns."""
    tables = {}
    for table, position, name, duration in src.execute(
            "SELECT table_name, position, name, duration FROM chunk_columns"
            " ORDER BY table_name, position"):
        cols = tables.setdefault(table, [])
        if position != len(cols):
            raise TraceFormatError(f"chunk_columns of {table}: position {position} out of order")
        cols.append((name, bool(duration)))
    return tables


def count_events(path):
    """{event table: record count} without decoding anything (format 2:
    the chunks' n; format 1: count(*))."""
    src = _open_source(path)
    try:
        if format_major(src) >= 2:
            counts = {t: 0 for t in _chunk_columns(src)}
            for table, n in src.execute("SELECT table_name, sum(n) FROM chunks GROUP BY table_name"):
                counts[table] = n
            return counts
        names = ["kernels", "memcpys", "memsets", "syncs", "cuda_events", "api_calls", "nvtx",
                 "memory", "overhead"]
        return {t: src.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in names}
    finally:
        src.close()


def _quote(name):
    return '"' + name.replace('"', '""') + '"'


def connect(path):
    """An sqlite3 connection on which the trace at PATH (format 1 or 2)
    has format 1's row tables. Format 1: the file itself, read-only.
    Format 2: a new in-memory database (changes to it do not reach the
    file)."""
    if not os.path.isfile(path):
        raise FileNotFoundError(path)
    src = _open_source(path)
    if format_major(src) < 2:
        return src
    mem = sqlite3.connect(":memory:")
    # The row tables of the file, as they are (meta, strings, objects).
    for name, sql in src.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
            " AND name NOT IN ('chunks', 'chunk_columns') AND name NOT LIKE 'sqlite_%'").fetchall():
        mem.execute(sql)
        rows = src.execute(f"SELECT * FROM {_quote(name)}").fetchall()
        if rows:
            marks = ",".join("?" * len(rows[0]))
            mem.executemany(f"INSERT INTO {_quote(name)} VALUES ({marks})", rows)
    # The event tables, decoded.
    schema = _chunk_columns(src)
    for table, cols in schema.items():
        mem.execute(f"CREATE TABLE {_quote(table)} ("
                    + ", ".join(f"{_quote(c)} INTEGER NOT NULL" for c, _ in cols) + ")")
    for table, n, data in src.execute("SELECT table_name, n, data FROM chunks ORDER BY id"):
        cols = schema.get(table)
        if cols is None:
            raise TraceFormatError(f"chunk of unknown table {table!r}")
        values = decode_chunk(bytes(data), n, [d for _, d in cols])
        if len(values) < len(cols):
            raise TraceFormatError(f"chunk of {table}: {len(values)} columns, expected {len(cols)}")
        marks = ",".join("?" * len(cols))
        mem.executemany(f"INSERT INTO {_quote(table)} VALUES ({marks})",
                        zip(*values[:len(cols)]))
    mem.commit()
    src.close()
    return mem
