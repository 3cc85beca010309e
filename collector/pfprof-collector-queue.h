/* SPDX-License-Identifier: MIT */
/* pfprof-collector-queue.h: a bounded queue from the program's threads to
 * the writer thread.
 *
 * Program threads copy fixed-size elements in under a short mutex and
 * never wait: an element that does not fit is dropped and counted, and
 * the caller frees whatever it points to. The writer thread takes
 * everything queued at once, reads it outside the lock, and gives the
 * memory back. Elements live in chunks of @chunk_elems, allocated as they
 * fill, so a push allocates once per chunk; drained chunks are kept for
 * reuse, @max_spare at most.
 *
 * Two bounds, either of which drops an element:
 *   - @max_chunks: chunks allocated at a time, those the writer holds
 *     between take and release included (0: none), a bound on memory;
 *   - the @max_queued of each push: elements pushed and not yet taken,
 *     which the caller may choose per push (a tighter one before the
 *     writer exists).
 *
 * Queues are static and need no set-up (PFPROF_COLLECTOR_QUEUE_INIT):
 * NVTX pushes may come before CUDA, and so before anything else of the
 * collector runs. No CUPTI, no SQLite: the queue's test links it alone.
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct _PfprofCollectorQueueChunk PfprofCollectorQueueChunk;

typedef struct
{
  pthread_mutex_t lock;
  size_t elem_size;
  unsigned chunk_elems;
  unsigned max_chunks; /* 0: no bound on chunks */
  unsigned max_spare;
  /* Under lock. */
  PfprofCollectorQueueChunk *head, *tail; /* waiting for the writer */
  PfprofCollectorQueueChunk *spare;       /* drained, for reuse */
  unsigned n_chunks;                      /* allocated and not freed */
  unsigned n_spare;
  size_t n_queued;                        /* pushed and not taken */
  _Atomic uint64_t dropped;
} PfprofCollectorQueue;

/* A queue of elements of @type. */
#define PFPROF_COLLECTOR_QUEUE_INIT(type, chunk_elems_, max_chunks_, max_spare_)                                       \
  {                                                                                                                    \
    .lock = PTHREAD_MUTEX_INITIALIZER, .elem_size = sizeof (type), .chunk_elems = (chunk_elems_),                      \
    .max_chunks = (max_chunks_), .max_spare = (max_spare_),                                                            \
  }

/* What one take got: walked with pfprof_collector_queue_next(), then
 * given back with pfprof_collector_queue_release(). */
typedef struct
{
  PfprofCollectorQueueChunk *chunks; /* oldest first */
  PfprofCollectorQueueChunk *chunk;  /* the cursor */
  unsigned i;
  size_t elem_size;
} PfprofCollectorQueueBatch;

/* Copies @elem (the queue's element size) in. Returns 0, or -1 when it
 * was dropped (@max_queued elements already queued, @max_chunks reached,
 * no memory): then the drop is counted. Any thread but a signal handler. */
int pfprof_collector_queue_push (PfprofCollectorQueue *q, const void *elem, size_t max_queued);

/* Whether a push with @max_queued would be refused for the count alone,
 * for a caller that would rather wait than drop. */
int pfprof_collector_queue_full (PfprofCollectorQueue *q, size_t max_queued);

/* Whether anything is queued. */
int pfprof_collector_queue_pending (PfprofCollectorQueue *q);

/* Moves everything queued into @batch. Returns how many elements. */
size_t pfprof_collector_queue_take (PfprofCollectorQueue *q, PfprofCollectorQueueBatch *batch);

/* The next element of @batch, in push order (per pushing thread, the
 * order of its pushes), or NULL after the last. */
void *pfprof_collector_queue_next (PfprofCollectorQueueBatch *batch);

/* Gives @batch's chunks back (kept for reuse or freed); @batch is empty
 * afterwards. */
void pfprof_collector_queue_release (PfprofCollectorQueue *q, PfprofCollectorQueueBatch *batch);

/* Elements dropped so far. */
uint64_t pfprof_collector_queue_dropped (PfprofCollectorQueue *q);
