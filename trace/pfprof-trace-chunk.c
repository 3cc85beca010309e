/* SPDX-License-Identifier: MIT */
/* pfprof-trace-chunk.c: encodes and decodes format 2's column chunks.
 *
 * Both directions are tight loops over one column at a time, specialized
 * by field type, because they run for every value of every event: 100
 * million values for a 10M-event trace.
 */
#include "pfprof-trace-chunk.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_VARINT 10

static inline uint64_t
zigzag (uint64_t d)
{
  return (d << 1) ^ (0 - (d >> 63));
}

static inline uint64_t
unzigzag (uint64_t u)
{
  return (u >> 1) ^ (0 - (u & 1));
}

static inline uint8_t *
put_varint (uint8_t *p, uint64_t v)
{
  while (v >= 0x80)
    {
      *p++ = (uint8_t) (v | 0x80);
      v >>= 7;
    }
  *p++ = (uint8_t) v;
  return p;
}

/* Reads a varint in [*pp, end). Returns 0, 1 when truncated, 2 when it
 * exceeds 64 bits, 3 when overlong (a needless zero last byte). */
static inline int
get_varint (const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
  const uint8_t *p = *pp;
  uint64_t v = 0;
  unsigned shift = 0;

  if (p < end && *p < 0x80)
    {
      *out = *p;
      *pp = p + 1;
      return 0;
    }
  for (;;)
    {
      uint8_t b;

      if (p >= end)
        return 1;
      b = *p++;
      if (shift == 63 && b > 1)
        return 2;
      v |= (uint64_t) (b & 0x7f) << shift;
      if (!(b & 0x80))
        {
          if (b == 0 && shift > 0)
            return 3;
          break;
        }
      shift += 7;
    }
  *out = v;
  *pp = p;
  return 0;
}

size_t
pfprof_trace_chunk_bound (const PfprofTraceTable *table, uint32_t n)
{
  return MAX_VARINT + (size_t) table->n_columns * (MAX_VARINT + (size_t) n * MAX_VARINT);
}

#define ENCODE_COLUMN(T)                                                       \
  for (uint32_t i = 0; i < n; i++)                                             \
    {                                                                          \
      uint64_t v = (uint64_t) (int64_t) * (const T *) (rec + (size_t) i * size + off); \
      q = put_varint (q, zigzag (v - prev));                                   \
      prev = v;                                                                \
    }

size_t
pfprof_trace_chunk_encode (const PfprofTraceTable *table, const void *records, uint32_t n,
                           uint8_t *out, uint8_t *scratch, int64_t *min_ns, int64_t *max_ns)
{
  const unsigned char *rec = records;
  const size_t size = table->record_size;
  const size_t start_off = table->columns[0].offset;
  uint8_t *p = put_varint (out, table->n_columns);
  int64_t lo = INT64_MAX, hi = INT64_MIN;

  for (unsigned c = 0; c < table->n_columns; c++)
    {
      const PfprofTraceColumn *col = &table->columns[c];
      const size_t off = col->offset;
      uint64_t prev = 0;
      uint8_t *q = scratch;

      if (col->kind == PFPROF_COLUMN_DURATION)
        for (uint32_t i = 0; i < n; i++)
          {
            const unsigned char *r = rec + (size_t) i * size;
            int64_t start = *(const int64_t *) (r + start_off);
            int64_t end = *(const int64_t *) (r + off);

            q = put_varint (q, zigzag ((uint64_t) end - (uint64_t) start));
            if (end > hi)
              hi = end;
          }
      else if (col->width == 8)
        {
          ENCODE_COLUMN (int64_t);
        }
      else if (col->width == 4)
        {
          if (col->is_signed)
            {
              ENCODE_COLUMN (int32_t);
            }
          else
            {
              ENCODE_COLUMN (uint32_t);
            }
        }
      else if (col->width == 2)
        {
          if (col->is_signed)
            {
              ENCODE_COLUMN (int16_t);
            }
          else
            {
              ENCODE_COLUMN (uint16_t);
            }
        }
      else if (col->is_signed)
        {
          ENCODE_COLUMN (int8_t);
        }
      else
        {
          ENCODE_COLUMN (uint8_t);
        }
      if (c == 0)
        for (uint32_t i = 0; i < n; i++)
          {
            int64_t start = *(const int64_t *) (rec + (size_t) i * size + start_off);

            if (start < lo)
              lo = start;
            if (start > hi)
              hi = start;
          }
      p = put_varint (p, (uint64_t) (q - scratch));
      memcpy (p, scratch, (size_t) (q - scratch));
      p += q - scratch;
    }
  *min_ns = n ? lo : 0;
  *max_ns = n ? hi : 0;
  return (size_t) (p - out);
}

static int
fail (PfprofTraceChunkError *err, uint64_t record, const char *fmt, ...)
{
  va_list ap;

  err->record = record;
  va_start (ap, fmt);
  vsnprintf (err->message, sizeof err->message, fmt, ap);
  va_end (ap);
  return -1;
}

static const char *const varint_problem[] = { "", "is truncated", "exceeds 64 bits",
                                              "is overlong (a needless zero byte)" };

/* Decodes @n deltas of a column of type T; FITS (v) says whether the
 * value v fits T. */
#define DECODE_COLUMN(T, FITS)                                                 \
  for (uint64_t i = 0; i < n; i++)                                             \
    {                                                                          \
      uint64_t u;                                                              \
      int64_t v;                                                               \
      if (p < end && *p < 0x80)                                                \
        u = *p++;                                                              \
      else if ((rc = get_varint (&p, end, &u)) != 0)                           \
        return fail (err, i, "column %s: value of record %" PRIu64 " %s", col->name, i + 1, \
                     varint_problem[rc]);                                      \
      prev += unzigzag (u);                                                    \
      v = (int64_t) prev;                                                      \
      if (!(FITS))                                                             \
        return fail (err, i, "column %s: value %" PRId64 " of record %" PRIu64 \
                     " does not fit its %u-byte %s field", col->name, v, i + 1, \
                     (unsigned) col->width, col->is_signed ? "signed" : "unsigned"); \
      *(T *) (rec + (size_t) i * size + off) = (T) v;                          \
    }

int
pfprof_trace_chunk_decode (const PfprofTraceTable *table, const uint8_t *data, size_t len,
                           uint64_t n, int allow_missing, void *records,
                           PfprofTraceChunkError *err)
{
  unsigned char *rec = records;
  const size_t size = table->record_size;
  const size_t start_off = table->columns[0].offset;
  const uint8_t *p = data;
  const uint8_t *const data_end = data + len;
  uint64_t n_columns;
  int rc;

  err->record = UINT64_MAX;
  err->message[0] = '\0';
  if ((rc = get_varint (&p, data_end, &n_columns)) != 0)
    return fail (err, UINT64_MAX, "column count %s", varint_problem[rc]);
  if (n_columns < table->n_columns && !allow_missing)
    return fail (err, UINT64_MAX, "%" PRIu64 " columns, table %s has %u", n_columns, table->name,
                 table->n_columns);
  for (uint64_t c = 0; c < n_columns; c++)
    {
      const PfprofTraceColumn *col;
      const uint8_t *end;
      uint64_t length;
      size_t off;
      uint64_t prev = 0;

      if ((rc = get_varint (&p, data_end, &length)) != 0)
        return fail (err, UINT64_MAX, "byte length of column %" PRIu64 " %s", c,
                     varint_problem[rc]);
      if (length > (uint64_t) (data_end - p))
        return fail (err, UINT64_MAX,
                     "column %" PRIu64 ": byte length %" PRIu64 " runs past the end of the chunk"
                     " (%zu bytes left)", c, length, (size_t) (data_end - p));
      end = p + length;
      if (c >= table->n_columns)
        {
          /* A column of a newer minor version: skip it. */
          p = end;
          continue;
        }
      col = &table->columns[c];
      off = col->offset;
      /* Every value takes a byte at least: a shorter column cannot hold n,
       * and checking it first keeps the loops below from reading on. */
      if (length < n)
        return fail (err, UINT64_MAX, "column %s: %" PRIu64 " bytes cannot hold %" PRIu64 " values",
                     col->name, length, n);
      if (col->kind == PFPROF_COLUMN_DURATION)
        {
          for (uint64_t i = 0; i < n; i++)
            {
              unsigned char *r = rec + (size_t) i * size;
              int64_t start = *(const int64_t *) (r + start_off);
              uint64_t u;
              int64_t d;

              if (p < end && *p < 0x80)
                u = *p++;
              else if ((rc = get_varint (&p, end, &u)) != 0)
                return fail (err, i, "column %s: value of record %" PRIu64 " %s", col->name, i + 1,
                             varint_problem[rc]);
              d = (int64_t) unzigzag (u);
              if (d < 0)
                return fail (err, i, "column %s: record %" PRIu64 " is negative (%" PRId64 ")",
                             col->name, i + 1, d);
              if (start > INT64_MAX - d)
                return fail (err, i, "column %s: record %" PRIu64 " overflows the end time",
                             col->name, i + 1);
              *(int64_t *) (r + off) = start + d;
            }
        }
      else if (col->width == 8)
        {
          DECODE_COLUMN (int64_t, 1);
        }
      else if (col->width == 4)
        {
          if (col->is_signed)
            {
              DECODE_COLUMN (int32_t, v >= INT32_MIN && v <= INT32_MAX);
            }
          else
            {
              DECODE_COLUMN (uint32_t, v >= 0 && v <= (int64_t) UINT32_MAX);
            }
        }
      else if (col->width == 2)
        {
          if (col->is_signed)
            {
              DECODE_COLUMN (int16_t, v >= INT16_MIN && v <= INT16_MAX);
            }
          else
            {
              DECODE_COLUMN (uint16_t, v >= 0 && v <= UINT16_MAX);
            }
        }
      else if (col->is_signed)
        {
          DECODE_COLUMN (int8_t, v >= INT8_MIN && v <= INT8_MAX);
        }
      else
        {
          DECODE_COLUMN (uint8_t, v >= 0 && v <= UINT8_MAX);
        }
      if (p != end)
        return fail (err, UINT64_MAX,
                     "column %s: byte length %" PRIu64 " holds more than its %" PRIu64 " values",
                     col->name, length, n);
    }
  if (p != data_end)
    return fail (err, UINT64_MAX, "%zu bytes after the last column", (size_t) (data_end - p));
  return 0;
}

int
pfprof_trace_chunk_check_header (const PfprofTraceTable *table, const uint8_t *head,
                                 size_t head_len, uint64_t len, uint64_t n, int allow_missing,
                                 PfprofTraceChunkError *err)
{
  const uint8_t *p = head;
  const uint8_t *end = head + head_len;
  uint64_t n_columns, first, used;
  int rc;

  err->record = UINT64_MAX;
  err->message[0] = '\0';
  if ((rc = get_varint (&p, end, &n_columns)) != 0)
    return fail (err, UINT64_MAX, "column count %s", varint_problem[rc]);
  if (n_columns == 0 || (n_columns < table->n_columns && !allow_missing))
    return fail (err, UINT64_MAX, "%" PRIu64 " columns, table %s has %u", n_columns, table->name,
                 table->n_columns);
  if ((rc = get_varint (&p, end, &first)) != 0)
    return fail (err, UINT64_MAX, "byte length of column 0 %s", varint_problem[rc]);
  if (first < n || first > len)
    return fail (err, UINT64_MAX, "column %s: %" PRIu64 " bytes cannot hold %" PRIu64 " values",
                 table->columns[0].name, first, n);
  used = n_columns < table->n_columns ? n_columns : table->n_columns;
  /* Every value takes a byte at least. */
  if (n > 0 && (n > len / used || n * used > len))
    return fail (err, UINT64_MAX, "%" PRIu64 " records of %" PRIu64 " columns cannot fit in %" PRIu64
                 " bytes", n, used, len);
  return 0;
}
