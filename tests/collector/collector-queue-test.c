/* SPDX-License-Identifier: MIT */
/* collector-queue-test.c: the collector's bounded queue on its own (no
 * GPU, no CUPTI; GLib is the test's, never the collector's): order, both
 * bounds and their drop counts, chunk reuse, and several producer threads
 * with one consumer taking as they push.
 */
#include <glib.h>
#include <string.h>

#include "pfprof-collector-queue.h"

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
  g_snprintf (e.payload, sizeof e.payload, "%u/%" G_GUINT64_FORMAT, producer, seq);
  return e;
}

/* Pushes elements @from to @to - 1 of @producer with @max_queued;
 * returns how many were queued. */
static unsigned
push_range (PfprofCollectorQueue *q, uint32_t producer, uint64_t from, uint64_t to, size_t max_queued)
{
  unsigned queued = 0;

  for (uint64_t i = from; i < to; i++)
    {
      Elem x = elem (producer, i);

      if (pfprof_collector_queue_push (q, &x, max_queued) == 0)
        queued++;
    }
  return queued;
}

/* Walks @b, checking it holds @producer's elements @from, @from + 1, ...
 * intact; returns how many. */
static uint64_t
check_batch (PfprofCollectorQueueBatch *b, uint32_t producer, uint64_t from)
{
  uint64_t seq = from;
  Elem *e;

  while ((e = pfprof_collector_queue_next (b)) != NULL)
    {
      Elem x = elem (producer, seq++);

      g_assert_cmpmem (e, sizeof *e, &x, sizeof x);
    }
  return seq - from;
}

/* Elements come out in push order, across chunk boundaries, intact. */
static void
test_order (void)
{
  static PfprofCollectorQueue q = PFPROF_COLLECTOR_QUEUE_INIT (Elem, 7, 0, 2);
  PfprofCollectorQueueBatch b;

  g_assert_false (pfprof_collector_queue_pending (&q));
  g_assert_cmpuint (pfprof_collector_queue_take (&q, &b), ==, 0);
  g_assert_null (pfprof_collector_queue_next (&b));
  pfprof_collector_queue_release (&q, &b);
  g_assert_cmpuint (push_range (&q, 0, 0, 100, SIZE_MAX), ==, 100);
  g_assert_true (pfprof_collector_queue_pending (&q));
  g_assert_cmpuint (pfprof_collector_queue_take (&q, &b), ==, 100);
  g_assert_false (pfprof_collector_queue_pending (&q));
  g_assert_cmpuint (check_batch (&b, 0, 0), ==, 100);
  pfprof_collector_queue_release (&q, &b);
  g_assert_null (b.chunks);
  /* 100 elements took 15 chunks; 2 are kept for the next round. */
  g_assert_cmpuint (q.n_spare, ==, 2);
  g_assert_cmpuint (q.n_chunks, ==, 2);
  /* The next two chunks' worth reuse them rather than allocate. */
  g_assert_cmpuint (push_range (&q, 0, 100, 114, SIZE_MAX), ==, 14);
  g_assert_cmpuint (q.n_spare, ==, 0);
  g_assert_cmpuint (q.n_chunks, ==, 2);
  g_assert_cmpuint (pfprof_collector_queue_take (&q, &b), ==, 14);
  g_assert_cmpuint (check_batch (&b, 0, 100), ==, 14);
  pfprof_collector_queue_release (&q, &b);
  g_assert_cmpuint (pfprof_collector_queue_dropped (&q), ==, 0);
}

/* The per-push count bound: what does not fit is dropped and counted,
 * full() says so without counting, and a take makes room again. */
static void
test_max_queued (void)
{
  static PfprofCollectorQueue q = PFPROF_COLLECTOR_QUEUE_INIT (Elem, 4, 0, 4);
  PfprofCollectorQueueBatch b;

  g_assert_cmpuint (push_range (&q, 1, 0, 25, 10), ==, 10);
  g_assert_cmpuint (pfprof_collector_queue_dropped (&q), ==, 15);
  g_assert_true (pfprof_collector_queue_full (&q, 10));
  g_assert_false (pfprof_collector_queue_full (&q, 11));
  g_assert_cmpuint (pfprof_collector_queue_dropped (&q), ==, 15);
  /* A looser bound on the same queue lets more in (the NVTX queue's
   * bound grows once the writer runs). */
  g_assert_cmpuint (push_range (&q, 1, 10, 11, 11), ==, 1);
  g_assert_cmpuint (pfprof_collector_queue_take (&q, &b), ==, 11);
  g_assert_cmpuint (check_batch (&b, 1, 0), ==, 11);
  /* The writer still holds the batch: the bound counts queued elements. */
  g_assert_false (pfprof_collector_queue_full (&q, 10));
  g_assert_cmpuint (push_range (&q, 1, 11, 12, 10), ==, 1);
  pfprof_collector_queue_release (&q, &b);
  g_assert_cmpuint (pfprof_collector_queue_dropped (&q), ==, 15);
}

/* The chunk bound counts the chunks the writer holds between take and
 * release: memory stays bounded while the writer is behind. */
static void
test_max_chunks (void)
{
  static PfprofCollectorQueue q = PFPROF_COLLECTOR_QUEUE_INIT (Elem, 4, 2, 1);
  PfprofCollectorQueueBatch b;

  g_assert_cmpuint (push_range (&q, 2, 0, 9, SIZE_MAX), ==, 8);
  g_assert_cmpuint (pfprof_collector_queue_dropped (&q), ==, 1);
  g_assert_cmpuint (pfprof_collector_queue_take (&q, &b), ==, 8);
  /* Both chunks are the writer's until released. */
  g_assert_cmpuint (push_range (&q, 2, 9, 10, SIZE_MAX), ==, 0);
  g_assert_cmpuint (pfprof_collector_queue_dropped (&q), ==, 2);
  pfprof_collector_queue_release (&q, &b);
  /* One kept as spare, one freed: room for two chunks again. */
  g_assert_cmpuint (q.n_chunks, ==, 1);
  g_assert_cmpuint (q.n_spare, ==, 1);
  g_assert_cmpuint (push_range (&q, 2, 10, 19, SIZE_MAX), ==, 8);
  g_assert_cmpuint (pfprof_collector_queue_dropped (&q), ==, 3);
  g_assert_cmpuint (pfprof_collector_queue_take (&q, &b), ==, 8);
  g_assert_cmpuint (check_batch (&b, 2, 10), ==, 8);
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
  unsigned queued;
} Producer;

static gint producers_left;

static gpointer
produce (gpointer data)
{
  Producer *p = data;

  p->queued = push_range (p->q, p->id, 0, PER_PRODUCER, p->max_queued);
  g_atomic_int_dec_and_test (&producers_left);
  return NULL;
}

/* Starts the producers and takes until every one is done and the queue
 * is empty, as the writer does, checking that each producer's elements
 * arrive intact and in its order (with no gap unless @gaps_allowed).
 * Returns how many arrived; @queued is how many the pushes said they
 * queued. */
static uint64_t
run_producers (PfprofCollectorQueue *q, size_t max_queued, gboolean gaps_allowed, uint64_t *queued)
{
  GThread *threads[PRODUCERS];
  Producer producers[PRODUCERS];
  uint64_t next[PRODUCERS] = { 0 };
  uint64_t received = 0;
  gboolean last = FALSE;

  g_atomic_int_set (&producers_left, PRODUCERS);
  for (uint32_t i = 0; i < PRODUCERS; i++)
    {
      producers[i] = (Producer) { .q = q, .id = i, .max_queued = max_queued };
      threads[i] = g_thread_new ("producer", produce, &producers[i]);
    }
  while (!last)
    {
      PfprofCollectorQueueBatch b;
      Elem *e;
      size_t n, walked = 0;

      last = g_atomic_int_get (&producers_left) == 0;
      n = pfprof_collector_queue_take (q, &b);
      while ((e = pfprof_collector_queue_next (&b)) != NULL)
        {
          Elem x;

          walked++;
          g_assert_cmpuint (e->producer, <, PRODUCERS);
          x = elem (e->producer, e->seq);
          g_assert_cmpmem (e, sizeof *e, &x, sizeof x);
          if (gaps_allowed)
            g_assert_cmpuint (e->seq, >=, next[e->producer]);
          else
            g_assert_cmpuint (e->seq, ==, next[e->producer]);
          next[e->producer] = e->seq + 1;
        }
      g_assert_cmpuint (walked, ==, n);
      received += n;
      pfprof_collector_queue_release (q, &b);
    }
  *queued = 0;
  for (int i = 0; i < PRODUCERS; i++)
    {
      g_thread_join (threads[i]);
      *queued += producers[i].queued;
    }
  return received;
}

/* Below the bounds nothing is lost, and each producer's order holds. */
static void
test_threads_no_loss (void)
{
  static PfprofCollectorQueue q = PFPROF_COLLECTOR_QUEUE_INIT (Elem, 256, 0, 4);
  uint64_t queued, received;

  received = run_producers (&q, (size_t) PRODUCERS * PER_PRODUCER, FALSE, &queued);
  g_assert_cmpuint (queued, ==, (uint64_t) PRODUCERS * PER_PRODUCER);
  g_assert_cmpuint (received, ==, queued);
  g_assert_cmpuint (pfprof_collector_queue_dropped (&q), ==, 0);
  g_assert_false (pfprof_collector_queue_pending (&q));
}

/* With tight bounds, every element either arrives or is counted as
 * dropped, never both, and the order still holds. */
static void
test_threads_bounded (void)
{
  static PfprofCollectorQueue q = PFPROF_COLLECTOR_QUEUE_INIT (Elem, 64, 8, 2);
  uint64_t queued, received;

  received = run_producers (&q, 300, TRUE, &queued);
  g_assert_cmpuint (received, ==, queued);
  g_assert_cmpuint (pfprof_collector_queue_dropped (&q), ==, (uint64_t) PRODUCERS * PER_PRODUCER - queued);
  g_assert_cmpuint (q.n_chunks, <=, 8);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector-queue/order", test_order);
  g_test_add_func ("/collector-queue/max-queued", test_max_queued);
  g_test_add_func ("/collector-queue/max-chunks", test_max_chunks);
  g_test_add_func ("/collector-queue/threads-no-loss", test_threads_no_loss);
  g_test_add_func ("/collector-queue/threads-bounded", test_threads_bounded);
  return g_test_run ();
}
