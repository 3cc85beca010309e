/* SPDX-License-Identifier: MIT */
/* collector-queue-test.c: the collector's bounded queue on its own (no
 * GPU, no CUPTI): order, both bounds and their drop counts, chunk reuse,
 * and several producer threads with one consumer taking as they push.
 * Usage: collector-queue-test
 */
#include "pfprof-collector-queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                                                    \
  do                                                                                                                   \
    {                                                                                                                  \
      if (!(cond))                                                                                                     \
        {                                                                                                              \
          fprintf (stderr, "%s:%d: %s: FAIL: %s\n", __FILE__, __LINE__, __func__, #cond);                              \
          failures++;                                                                                                  \
        }                                                                                                              \
    }                                                                                                                  \
  while (0)

typedef struct
{
  uint32_t producer;
  uint64_t seq;
  char payload[20]; /* an element size that is not a power of two */
} Elem;

static Elem
elem (uint32_t producer, uint64_t seq)
{
  Elem e;

  memset (&e, 0, sizeof e);
  e.producer = producer;
  e.seq = seq;
  snprintf (e.payload, sizeof e.payload, "%u/%llu", producer, (unsigned long long) seq);
  return e;
}

/* Elements come out in push order, across chunk boundaries, intact. */
static void
test_order (void)
{
  static PfprofCollectorQueue q = PFPROF_COLLECTOR_QUEUE_INIT (Elem, 7, 0, 2);
  PfprofCollectorQueueBatch b;
  Elem *e;
  uint64_t expect = 0;

  CHECK (!pfprof_collector_queue_pending (&q));
  CHECK (pfprof_collector_queue_take (&q, &b) == 0);
  CHECK (pfprof_collector_queue_next (&b) == NULL);
  pfprof_collector_queue_release (&q, &b);
  for (uint64_t i = 0; i < 100; i++)
    {
      Elem x = elem (0, i);

      CHECK (pfprof_collector_queue_push (&q, &x, SIZE_MAX) == 0);
    }
  CHECK (pfprof_collector_queue_pending (&q));
  CHECK (pfprof_collector_queue_take (&q, &b) == 100);
  CHECK (!pfprof_collector_queue_pending (&q));
  while ((e = pfprof_collector_queue_next (&b)) != NULL)
    {
      Elem x = elem (0, expect);

      CHECK (memcmp (e, &x, sizeof x) == 0);
      expect++;
    }
  CHECK (expect == 100);
  pfprof_collector_queue_release (&q, &b);
  CHECK (b.chunks == NULL);
  /* 100 elements took 15 chunks; 2 are kept for the next round. */
  CHECK (q.n_spare == 2);
  CHECK (q.n_chunks == 2);
  CHECK (pfprof_collector_queue_dropped (&q) == 0);
}

/* The per-push count bound: what does not fit is dropped and counted,
 * full() says so without counting, and a take makes room again. */
static void
test_max_queued (void)
{
  static PfprofCollectorQueue q = PFPROF_COLLECTOR_QUEUE_INIT (Elem, 4, 0, 4);
  PfprofCollectorQueueBatch b;
  Elem *e;
  uint64_t seen = 0;

  for (uint64_t i = 0; i < 25; i++)
    {
      Elem x = elem (1, i);

      CHECK (pfprof_collector_queue_push (&q, &x, 10) == (i < 10 ? 0 : -1));
    }
  CHECK (pfprof_collector_queue_dropped (&q) == 15);
  CHECK (pfprof_collector_queue_full (&q, 10));
  CHECK (!pfprof_collector_queue_full (&q, 11));
  CHECK (pfprof_collector_queue_dropped (&q) == 15);
  /* A looser bound on the same queue lets more in (the NVTX queue's
   * bound grows once the writer runs). */
  {
    Elem x = elem (1, 10);

    CHECK (pfprof_collector_queue_push (&q, &x, 11) == 0);
  }
  CHECK (pfprof_collector_queue_take (&q, &b) == 11);
  while ((e = pfprof_collector_queue_next (&b)) != NULL)
    CHECK (e->seq == seen++);
  CHECK (seen == 11);
  CHECK (!pfprof_collector_queue_full (&q, 10));
  {
    Elem x = elem (1, 11);

    CHECK (pfprof_collector_queue_push (&q, &x, 10) == 0);
  }
  pfprof_collector_queue_release (&q, &b);
  CHECK (pfprof_collector_queue_dropped (&q) == 15);
}

/* The chunk bound counts the chunks the writer holds between take and
 * release: memory stays bounded while the writer is behind. */
static void
test_max_chunks (void)
{
  static PfprofCollectorQueue q = PFPROF_COLLECTOR_QUEUE_INIT (Elem, 4, 2, 1);
  PfprofCollectorQueueBatch b;
  Elem x = elem (2, 0);

  for (int i = 0; i < 8; i++)
    CHECK (pfprof_collector_queue_push (&q, &x, SIZE_MAX) == 0);
  CHECK (pfprof_collector_queue_push (&q, &x, SIZE_MAX) == -1);
  CHECK (pfprof_collector_queue_dropped (&q) == 1);
  CHECK (pfprof_collector_queue_take (&q, &b) == 8);
  /* Both chunks are the writer's until released. */
  CHECK (pfprof_collector_queue_push (&q, &x, SIZE_MAX) == -1);
  CHECK (pfprof_collector_queue_dropped (&q) == 2);
  pfprof_collector_queue_release (&q, &b);
  /* One kept as spare, one freed: room for two chunks again. */
  CHECK (q.n_chunks == 1 && q.n_spare == 1);
  for (int i = 0; i < 8; i++)
    CHECK (pfprof_collector_queue_push (&q, &x, SIZE_MAX) == 0);
  CHECK (pfprof_collector_queue_push (&q, &x, SIZE_MAX) == -1);
  CHECK (pfprof_collector_queue_dropped (&q) == 3);
  CHECK (pfprof_collector_queue_take (&q, &b) == 8);
  pfprof_collector_queue_release (&q, &b);
}

/* ---- Several producers, one consumer -------------------------------- */

#define PRODUCERS 4
#define PER_PRODUCER 200000

typedef struct
{
  PfprofCollectorQueue *q;
  uint32_t id;
  size_t max_queued;
  uint64_t refused;
} Producer;

static _Atomic int producers_left;

static void *
produce (void *data)
{
  Producer *p = data;

  for (uint64_t i = 0; i < PER_PRODUCER; i++)
    {
      Elem x = elem (p->id, i);

      if (pfprof_collector_queue_push (p->q, &x, p->max_queued) != 0)
        p->refused++;
    }
  atomic_fetch_sub (&producers_left, 1);
  return NULL;
}

/* Takes until every producer is done and the queue is empty, as the
 * writer does; checks each producer's elements arrive in its order.
 * Returns how many arrived. */
static uint64_t
consume (PfprofCollectorQueue *q, int gaps_allowed)
{
  uint64_t next[PRODUCERS] = { 0 };
  uint64_t received = 0;
  int last = 0;

  while (!last)
    {
      PfprofCollectorQueueBatch b;
      Elem *e;
      size_t n, walked = 0;

      last = atomic_load (&producers_left) == 0;
      n = pfprof_collector_queue_take (q, &b);
      while ((e = pfprof_collector_queue_next (&b)) != NULL)
        {
          Elem x;

          walked++;
          if (e->producer >= PRODUCERS)
            {
              CHECK (e->producer < PRODUCERS);
              continue;
            }
          x = elem (e->producer, e->seq);
          CHECK (memcmp (e, &x, sizeof x) == 0);
          if (gaps_allowed ? e->seq < next[e->producer] : e->seq != next[e->producer])
            {
              fprintf (stderr, "producer %u: got %llu, expected %s%llu\n", e->producer,
                       (unsigned long long) e->seq, gaps_allowed ? ">= " : "",
                       (unsigned long long) next[e->producer]);
              failures++;
            }
          next[e->producer] = e->seq + 1;
        }
      CHECK (walked == n);
      received += n;
      pfprof_collector_queue_release (q, &b);
    }
  return received;
}

static uint64_t
run_producers (PfprofCollectorQueue *q, size_t max_queued, int gaps_allowed, uint64_t *refused)
{
  pthread_t threads[PRODUCERS];
  Producer producers[PRODUCERS];
  uint64_t received;

  atomic_store (&producers_left, PRODUCERS);
  for (uint32_t i = 0; i < PRODUCERS; i++)
    {
      producers[i] = (Producer) { .q = q, .id = i, .max_queued = max_queued };
      if (pthread_create (&threads[i], NULL, produce, &producers[i]) != 0)
        {
          fprintf (stderr, "cannot start a thread\n");
          exit (1);
        }
    }
  received = consume (q, gaps_allowed);
  *refused = 0;
  for (int i = 0; i < PRODUCERS; i++)
    {
      pthread_join (threads[i], NULL);
      *refused += producers[i].refused;
    }
  return received;
}

/* Below the bounds nothing is lost, and each producer's order holds. */
static void
test_threads_no_loss (void)
{
  static PfprofCollectorQueue q = PFPROF_COLLECTOR_QUEUE_INIT (Elem, 256, 0, 4);
  uint64_t refused, received;

  received = run_producers (&q, (size_t) PRODUCERS * PER_PRODUCER, 0, &refused);
  CHECK (refused == 0);
  CHECK (pfprof_collector_queue_dropped (&q) == 0);
  CHECK (received == (uint64_t) PRODUCERS * PER_PRODUCER);
  CHECK (!pfprof_collector_queue_pending (&q));
}

/* With a tight bound, every element either arrives or is counted as
 * dropped, never both, and the order still holds. */
static void
test_threads_bounded (void)
{
  static PfprofCollectorQueue q = PFPROF_COLLECTOR_QUEUE_INIT (Elem, 64, 8, 2);
  uint64_t refused, received;

  received = run_producers (&q, 300, 1, &refused);
  CHECK (pfprof_collector_queue_dropped (&q) == refused);
  CHECK (received + refused == (uint64_t) PRODUCERS * PER_PRODUCER);
  CHECK (q.n_chunks <= 8);
}

int
main (void)
{
  test_order ();
  test_max_queued ();
  test_max_chunks ();
  test_threads_no_loss ();
  test_threads_bounded ();
  if (failures)
    {
      fprintf (stderr, "%d check(s) failed\n", failures);
      return 1;
    }
  printf ("collector queue: ok\n");
  return 0;
}
