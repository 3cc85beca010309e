/* SPDX-License-Identifier: MIT */
/* pfprof-trace-chunk.h: the column-chunk encoding of format 2.
 *
 * Format 2 stores up to a few thousand records of one event table as one
 * row of the `chunks` table; its `data` blob is
 *
 *   varint n_columns
 *   per column, in the schema's column order:
 *     varint byte_length
 *     n values, byte_length bytes in all
 *
 * Each value is the zigzag varint (LEB128, 7 bits a byte, low bits first)
 * of the field minus the same column's previous value in the chunk (the
 * first one minus 0), computed modulo 2^64; a DURATION column instead
 * holds zigzag (end_ns - start_ns) of the same record, no delta. Times,
 * correlation ids and addresses grow slowly, ids and kinds repeat: most
 * values take one byte.
 *
 * The writer (pfprof-trace-writer.c) encodes with this file and the
 * reader (analyzer/read/pfprof-trace-reader.c) decodes with it, so there is one
 * implementation of each direction, both driven by the schema's column
 * arrays. Plain C11, no GLib.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "pfprof-trace-schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records per chunk the writer aims at: big enough that the per-chunk
 * costs (an SQLite row, restarting the deltas) vanish, small enough that a
 * commit flushing partial chunks wastes little. */
#define PFPROF_TRACE_CHUNK_RECORDS 8192

/* The largest blob pfprof_trace_chunk_encode() writes for @n records of
 * @table. */
size_t pfprof_trace_chunk_bound (const PfprofTraceTable *table, uint32_t n);

/* Encodes the @n records at @records (an array of the table's record
 * struct) into @out, which holds pfprof_trace_chunk_bound() bytes, using
 * @scratch of n * 10 bytes. Stores the earliest value of the first column
 * in *@min_ns and the latest end (first column plus duration, if any) in
 * *@max_ns. Returns the number of bytes written. */
size_t pfprof_trace_chunk_encode (const PfprofTraceTable *table, const void *records, uint32_t n,
                                  uint8_t *out, uint8_t *scratch, int64_t *min_ns,
                                  int64_t *max_ns);

typedef struct
{
  uint64_t record;  /* index in the chunk of the bad record, or UINT64_MAX */
  char message[200];
} PfprofTraceChunkError;

/* Decodes the blob @data of @len bytes, a chunk of @n records of @table,
 * into the @n records at @records (zeroed by the caller). With
 * @allow_missing (a file of an older minor version) a chunk may have fewer
 * columns than the table; the fields of the missing ones are left as they
 * are. Columns past the table's (a newer minor) are skipped by their
 * length. Checks everything: varints that are truncated, overlong or
 * exceed 64 bits, byte lengths that do not add up, values that do not fit
 * their field, negative durations, ends that overflow. Returns 0, or -1
 * with @err describing the problem in one line. */
int pfprof_trace_chunk_decode (const PfprofTraceTable *table, const uint8_t *data, size_t len,
                               uint64_t n, int allow_missing, void *records,
                               PfprofTraceChunkError *err);

/* Bytes of a chunk's start that pfprof_trace_chunk_check_header() reads. */
#define PFPROF_TRACE_CHUNK_HEADER_BYTES 20

/* Checks, before any memory is reserved for them, that a chunk of @len
 * bytes can hold @n records of @table: @head holds its first @head_len
 * bytes (PFPROF_TRACE_CHUNK_HEADER_BYTES, or all of a shorter chunk). The
 * column count must be the table's (fewer with @allow_missing), every
 * column takes a byte per value at least, and so does the first one.
 * Returns 0, or -1 with @err set. */
int pfprof_trace_chunk_check_header (const PfprofTraceTable *table, const uint8_t *head,
                                     size_t head_len, uint64_t len, uint64_t n, int allow_missing,
                                     PfprofTraceChunkError *err);

#ifdef __cplusplus
}
#endif
