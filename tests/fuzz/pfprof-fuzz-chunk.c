/* SPDX-License-Identifier: MIT */
/* pfprof-fuzz-chunk.c: libFuzzer harness for the format 2 chunk codec.
 *
 * Fuzzing whole SQLite files reaches the chunk decoder rarely (most
 * mutations break a page first), so this feeds blobs to it directly.
 * Input: byte 0 picks the table, bytes 1-2 the record count (at most
 * 4096), the rest is the blob. The decoder must refuse bad blobs with a
 * message, and what it accepts must survive an encode/decode round trip
 * unchanged (so no value is half-checked).
 */
#include "pfprof-trace-chunk.h"
#include "pfprof-trace-schema.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  PfprofTableId chunked[PFPROF_N_TABLES];
  unsigned n_chunked = 0;
  const PfprofTraceTable *table;
  PfprofTraceChunkError err;
  uint8_t *records, *again, *blob, *scratch;
  uint64_t n;
  size_t len;
  int64_t min_ns, max_ns;

  if (size < 3)
    return 0;
  for (unsigned t = 0; t < PFPROF_N_TABLES; t++)
    if (pfprof_trace_schema_is_chunked ((PfprofTableId) t))
      chunked[n_chunked++] = (PfprofTableId) t;
  table = pfprof_trace_schema_table (chunked[data[0] % n_chunked]);
  n = ((uint64_t) data[1] | (uint64_t) data[2] << 8) % 4097;
  records = calloc (n ? n : 1, table->record_size);
  if (records == NULL)
    abort ();
  memset (&err, 0, sizeof err);
  if (pfprof_trace_chunk_decode (table, data + 3, size - 3, n, data[0] & 0x80, records, &err) != 0)
    {
      if (err.message[0] == '\0')
        abort (); /* every refusal says why */
      free (records);
      return 0;
    }
  if (data[0] & 0x80)
    {
      /* Missing columns leave fields as they were: no round trip. */
      free (records);
      return 0;
    }
  blob = malloc (pfprof_trace_chunk_bound (table, (uint32_t) n));
  scratch = malloc ((n ? n : 1) * 10);
  again = calloc (n ? n : 1, table->record_size);
  if (blob == NULL || scratch == NULL || again == NULL)
    abort ();
  len = pfprof_trace_chunk_encode (table, records, (uint32_t) n, blob, scratch, &min_ns, &max_ns);
  if (pfprof_trace_chunk_decode (table, blob, len, n, 0, again, &err) != 0)
    abort (); /* accepted records must encode to a valid chunk */
  if (memcmp (records, again, n * table->record_size) != 0)
    abort (); /* ... that decodes to the same records */
  free (again);
  free (scratch);
  free (blob);
  free (records);
  return 0;
}
