/* SPDX-License-Identifier: MIT */
/* collector-nvtx-test.c: the collector installs itself as the NVTX
 * injection (no GPU needed).
 *
 * A program built with the real header-only NVTX 3 loads the library named
 * by NVTX_INJECTION64_PATH at its first NVTX call. Without an injection,
 * nvtxRangePushA returns a negative "not tracked" value; with ours it
 * returns the nesting level. So the levels below prove that our callbacks
 * were registered and keep per-thread stacks.
 *
 * Usage: collector-nvtx-test LIBPFPROF-COLLECTOR.SO
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <nvtx3/nvToolsExt.h>

static int failures;

#define CHECK(cond)                                                            \
  do                                                                           \
    {                                                                          \
      if (!(cond))                                                             \
        {                                                                      \
          fprintf (stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);     \
          failures++;                                                          \
        }                                                                      \
    }                                                                          \
  while (0)

static void *
other_thread (void *data)
{
  /* A new thread starts at level 0 whatever the main thread holds. */
  CHECK (nvtxRangePushA ("other") == 0);
  CHECK (nvtxRangePop () == 0);
  return NULL;
}

int
main (int argc, char **argv)
{
  nvtxDomainHandle_t domain;
  nvtxEventAttributes_t attr = { 0 };
  nvtxRangeId_t id;
  pthread_t t;

  if (argc != 2)
    {
      fprintf (stderr, "usage: %s LIBRARY\n", argv[0]);
      return 2;
    }
  setenv ("NVTX_INJECTION64_PATH", argv[1], 1);
  setenv ("PFPROF_QUIET", "1", 1);

  CHECK (nvtxRangePushA ("outer") == 0);
  CHECK (nvtxRangePushA ("pfprof:DataLoader.next") == 1);
  nvtxMarkA ("a mark");
  pthread_create (&t, NULL, other_thread, NULL);
  pthread_join (t, NULL);
  CHECK (nvtxRangePop () == 1);
  CHECK (nvtxRangePop () == 0);
  /* Unbalanced pop: NVTX's error value, not a crash. */
  CHECK (nvtxRangePop () < 0);

  domain = nvtxDomainCreateA ("my-domain");
  CHECK (domain != NULL);
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attr.message.registered = nvtxDomainRegisterStringA (domain, "registered");
  CHECK (attr.message.registered != NULL);
  CHECK (nvtxDomainRangePushEx (domain, &attr) == 0);
  CHECK (nvtxDomainRangePop (domain) == 0);
  id = nvtxDomainRangeStartEx (domain, &attr);
  nvtxDomainRangeEnd (domain, id);
  nvtxDomainDestroy (domain);

  if (failures == 0)
    printf ("ok: NVTX calls reached the collector\n");
  return failures ? 1 : 0;
}
