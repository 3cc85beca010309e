/* SPDX-License-Identifier: MIT */
/* pfprof-collector-queue.c: a bounded queue from the program's threads to
 * the writer thread (see the header). */
#include "pfprof-collector-queue.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct _PfprofCollectorQueueChunk
{
  PfprofCollectorQueueChunk *next;
  unsigned n;
  /* chunk_elems elements of elem_size: sizeof of any type is a multiple
   * of its alignment, so every element is aligned. */
  alignas (max_align_t) unsigned char data[];
};

/* A chunk with room, at the tail. Under the lock. */
static PfprofCollectorQueueChunk *
tail_with_room (PfprofCollectorQueue *q)
{
  PfprofCollectorQueueChunk *c = q->tail;

  if (c != NULL && c->n < q->chunk_elems)
    return c;
  if (q->spare != NULL)
    {
      c = q->spare;
      q->spare = c->next;
      q->n_spare--;
    }
  else if ((q->max_chunks == 0 || q->n_chunks < q->max_chunks)
           && (c = malloc (sizeof *c + q->elem_size * q->chunk_elems)) != NULL)
    q->n_chunks++;
  else
    return NULL;
  c->next = NULL;
  c->n = 0;
  if (q->tail)
    q->tail->next = c;
  else
    q->head = c;
  q->tail = c;
  return c;
}

int
pfprof_collector_queue_push (PfprofCollectorQueue *q, const void *elem, size_t max_queued)
{
  PfprofCollectorQueueChunk *c;

  pthread_mutex_lock (&q->lock);
  if (q->n_queued >= max_queued || (c = tail_with_room (q)) == NULL)
    {
      pthread_mutex_unlock (&q->lock);
      atomic_fetch_add (&q->dropped, 1);
      return -1;
    }
  memcpy (c->data + (size_t) c->n * q->elem_size, elem, q->elem_size);
  c->n++;
  q->n_queued++;
  pthread_mutex_unlock (&q->lock);
  return 0;
}

int
pfprof_collector_queue_full (PfprofCollectorQueue *q, size_t max_queued)
{
  int full;

  pthread_mutex_lock (&q->lock);
  full = q->n_queued >= max_queued;
  pthread_mutex_unlock (&q->lock);
  return full;
}

int
pfprof_collector_queue_pending (PfprofCollectorQueue *q)
{
  int any;

  pthread_mutex_lock (&q->lock);
  any = q->n_queued > 0;
  pthread_mutex_unlock (&q->lock);
  return any;
}

size_t
pfprof_collector_queue_take (PfprofCollectorQueue *q, PfprofCollectorQueueBatch *batch)
{
  size_t n;

  pthread_mutex_lock (&q->lock);
  batch->chunks = batch->chunk = q->head;
  n = q->n_queued;
  q->head = q->tail = NULL;
  q->n_queued = 0;
  pthread_mutex_unlock (&q->lock);
  batch->i = 0;
  batch->elem_size = q->elem_size;
  return n;
}

void *
pfprof_collector_queue_next (PfprofCollectorQueueBatch *batch)
{
  while (batch->chunk != NULL && batch->i == batch->chunk->n)
    {
      batch->chunk = batch->chunk->next;
      batch->i = 0;
    }
  if (batch->chunk == NULL)
    return NULL;
  return batch->chunk->data + (size_t) batch->i++ * batch->elem_size;
}

void
pfprof_collector_queue_release (PfprofCollectorQueue *q, PfprofCollectorQueueBatch *batch)
{
  PfprofCollectorQueueChunk *c = batch->chunks;

  while (c != NULL)
    {
      PfprofCollectorQueueChunk *next = c->next;

      pthread_mutex_lock (&q->lock);
      if (q->n_spare < q->max_spare)
        {
          c->next = q->spare;
          q->spare = c;
          q->n_spare++;
          c = NULL;
        }
      else
        q->n_chunks--;
      pthread_mutex_unlock (&q->lock);
      free (c);
      c = next;
    }
  batch->chunks = batch->chunk = NULL;
  batch->i = 0;
}

uint64_t
pfprof_collector_queue_dropped (PfprofCollectorQueue *q)
{
  return atomic_load (&q->dropped);
}
