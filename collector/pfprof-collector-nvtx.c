/* SPDX-License-Identifier: MIT */
/* pfprof-collector-nvtx.c: the collector as the program's NVTX injection.
 *
 * Why not CUPTI's MARKER activity: routing NVTX through libcupti crashes in
 * some 13.0 setups and delivered no MARKER record at all on the H200 (see
 * shared/GPU.md). So the launcher points NVTX_INJECTION64_PATH at this
 * library; every NVTX instance in the process (each library carries its
 * own copy of the header-only NVTX 3) calls InitializeInjectionNvtx2, and
 * we fill its callback tables through the public export-table interface
 * (nvtx3/nvtxDetail/nvtxTypes.h).
 *
 * Ranges are kept on per-thread stacks (push/pop nest per thread and
 * domain) and written complete, with their depth, through a queue that
 * the writer thread drains (pfprof-collector-queue.h: pointers to the
 * records, which carry their message). Timestamps come from CUPTI's
 * clock.
 *
 * Convention with the launcher's Python hook: a message of the default
 * domain that starts with "pfprof:" belongs to the "pfprof" domain (the
 * PyTorch NVTX binding has no domains).
 */
#include "pfprof-collector-private.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

/* Our handles: NVTX treats them as opaque. */
struct nvtxDomainRegistration_st
{
  char name[1]; /* flexible in practice; allocated to fit */
};
struct nvtxStringRegistration_st
{
  char value[1];
};

#define STACK_MAX 64
#define PENDING_MAX 1000000 /* if the writer stalls */
#define PENDING_MAX_IDLE 100000 /* before CUDA starts, which may be never */
#define PENDING_CHUNK 4096

typedef struct
{
  PfprofNvtxPending *ranges[STACK_MAX];
  unsigned depth;     /* may exceed STACK_MAX; deeper ones are not kept */
  uint32_t tid;
} ThreadStack;

static __thread ThreadStack stack;

/* Bounded by count alone (PENDING_MAX or PENDING_MAX_IDLE a push). */
PfprofCollectorQueue pfprof_collector_nvtx_queue =
  PFPROF_COLLECTOR_QUEUE_INIT (PfprofNvtxPending *, PENDING_CHUNK, 0, 4);

/* Start/end ranges may end on another thread: keyed by id. */
static pthread_mutex_t started_lock = PTHREAD_MUTEX_INITIALIZER;
static PfprofNvtxPending *started; /* linked through next; category holds nothing */
static _Atomic uint64_t next_range_id = 1;

static const char pfprof_prefix[] = "pfprof:";

static int
recording (void)
{
  return !atomic_load (&pfprof_collector.child) && atomic_load (&pfprof_collector.tracing)
         && atomic_load (&pfprof_collector.state) != PFPROF_COLLECTOR_STOPPED;
}

static uint32_t
current_tid (void)
{
  if (stack.tid == 0)
    stack.tid = (uint32_t) gettid ();
  return stack.tid;
}

/* Copies the message of @attr (or @ascii) into a new pending record. */
static PfprofNvtxPending *
pending_new (nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr, const char *ascii,
             const wchar_t *wide)
{
  const char *text = ascii;
  const char *domain_name = domain ? domain->name : NULL;
  char converted[256];
  PfprofNvtxPending *p;
  size_t len;

  if (attr != NULL)
    {
      switch (attr->messageType)
        {
        case NVTX_MESSAGE_TYPE_ASCII: text = attr->message.ascii; break;
        case NVTX_MESSAGE_TYPE_UNICODE: wide = attr->message.unicode; break;
        case NVTX_MESSAGE_TYPE_REGISTERED:
          text = attr->message.registered ? attr->message.registered->value : NULL;
          break;
        default: break;
        }
    }
  if (text == NULL && wide != NULL)
    {
      /* Names are ASCII in practice; keep it locale-free. */
      size_t i;

      for (i = 0; wide[i] && i < sizeof converted - 1; i++)
        converted[i] = wide[i] > 0 && wide[i] < 128 ? (char) wide[i] : '?';
      converted[i] = '\0';
      text = converted;
    }
  if (text == NULL)
    text = "";
  if (domain_name == NULL && strncmp (text, pfprof_prefix, sizeof pfprof_prefix - 1) == 0)
    {
      domain_name = PFPROF_NVTX_DOMAIN_PFPROF;
      text += sizeof pfprof_prefix - 1;
    }
  len = strlen (text);
  if (len > 4096)
    len = 4096;
  p = malloc (sizeof *p + len + 1);
  if (p == NULL)
    return NULL;
  memset (p, 0, sizeof *p);
  memcpy (p->name, text, len);
  p->name[len] = '\0';
  p->domain = domain_name;
  p->record.tid = current_tid ();
  p->record.category = attr ? attr->category : 0;
  p->record.color = attr && attr->colorType == NVTX_COLOR_ARGB ? attr->color : 0;
  p->record.domain_id = PFPROF_NONE;
  p->record.name_id = PFPROF_NONE;
  return p;
}

static void
pending_push (PfprofNvtxPending *p)
{
  size_t max = atomic_load (&pfprof_collector.state) == PFPROF_COLLECTOR_IDLE ? PENDING_MAX_IDLE : PENDING_MAX;

  if (pfprof_collector_queue_push (&pfprof_collector_nvtx_queue, &p, max) != 0)
    free (p);
}

void
pfprof_collector_nvtx_discard (void)
{
  PfprofCollectorQueueBatch batch;
  PfprofNvtxPending **p;

  pfprof_collector_queue_take (&pfprof_collector_nvtx_queue, &batch);
  while ((p = pfprof_collector_queue_next (&batch)) != NULL)
    free (*p);
  pfprof_collector_queue_release (&pfprof_collector_nvtx_queue, &batch);
}

/* ---- Marks ---------------------------------------------------------- */

static void
mark (nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr, const char *ascii, const wchar_t *wide)
{
  PfprofNvtxPending *p;

  if (!recording () || (p = pending_new (domain, attr, ascii, wide)) == NULL)
    return;
  p->record.start_ns = p->record.end_ns = pfprof_collector_cupti_timestamp ();
  p->record.kind = PFPROF_NVTX_MARK;
  p->record.depth = (uint16_t) (stack.depth < UINT16_MAX ? stack.depth : UINT16_MAX);
  pending_push (p);
}

static void NVTX_API
cb_mark_ex (const nvtxEventAttributes_t *attr)
{
  mark (NULL, attr, NULL, NULL);
}

static void NVTX_API
cb_mark_a (const char *message)
{
  mark (NULL, NULL, message, NULL);
}

static void NVTX_API
cb_mark_w (const wchar_t *message)
{
  mark (NULL, NULL, NULL, message);
}

static void NVTX_API
cb_domain_mark_ex (nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr)
{
  mark (domain, attr, NULL, NULL);
}

/* ---- Push/pop ------------------------------------------------------- */

static int
push (nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr, const char *ascii, const wchar_t *wide)
{
  unsigned level = stack.depth;
  PfprofNvtxPending *p = NULL;

  /* Keep the stack balanced even while not recording, so a pop after
   * --delay ends matches its push. */
  if (recording ())
    p = pending_new (domain, attr, ascii, wide);
  if (p != NULL)
    {
      p->record.start_ns = pfprof_collector_cupti_timestamp ();
      p->record.kind = PFPROF_NVTX_RANGE;
      p->record.depth = (uint16_t) (level < UINT16_MAX ? level : UINT16_MAX);
    }
  if (level < STACK_MAX)
    stack.ranges[level] = p;
  else
    free (p);
  stack.depth++;
  return (int) level;
}

static int
pop (void)
{
  PfprofNvtxPending *p;
  unsigned level;

  if (stack.depth == 0)
    return -1; /* NVTX's "unbalanced" answer */
  level = --stack.depth;
  if (level >= STACK_MAX)
    return (int) level;
  p = stack.ranges[level];
  stack.ranges[level] = NULL;
  if (p == NULL)
    return (int) level;
  if (atomic_load (&pfprof_collector.child) || atomic_load (&pfprof_collector.state) == PFPROF_COLLECTOR_STOPPED)
    {
      free (p);
      return (int) level;
    }
  p->record.end_ns = pfprof_collector_cupti_timestamp ();
  pending_push (p);
  return (int) level;
}

static int NVTX_API
cb_push_ex (const nvtxEventAttributes_t *attr)
{
  return push (NULL, attr, NULL, NULL);
}

static int NVTX_API
cb_push_a (const char *message)
{
  return push (NULL, NULL, message, NULL);
}

static int NVTX_API
cb_push_w (const wchar_t *message)
{
  return push (NULL, NULL, NULL, message);
}

static int NVTX_API
cb_pop (void)
{
  return pop ();
}

static int NVTX_API
cb_domain_push_ex (nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr)
{
  return push (domain, attr, NULL, NULL);
}

static int NVTX_API
cb_domain_pop (nvtxDomainHandle_t domain)
{
  /* One stack per thread for all domains: domains nest in practice, and
   * the depth a reader needs is the thread's. */
  return pop ();
}

/* ---- Start/end ------------------------------------------------------ */

static nvtxRangeId_t
start (nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr, const char *ascii, const wchar_t *wide)
{
  nvtxRangeId_t id = atomic_fetch_add (&next_range_id, 1);
  PfprofNvtxPending *p;

  if (!recording () || (p = pending_new (domain, attr, ascii, wide)) == NULL)
    return id;
  p->record.start_ns = pfprof_collector_cupti_timestamp ();
  p->record.kind = PFPROF_NVTX_RANGE;
  /* Start/end ranges do not nest; the id rides in end_ns until the end. */
  p->record.end_ns = (int64_t) id;
  pthread_mutex_lock (&started_lock);
  p->next = started;
  started = p;
  pthread_mutex_unlock (&started_lock);
  return id;
}

static void
end (nvtxRangeId_t id)
{
  PfprofNvtxPending **link, *p = NULL;

  pthread_mutex_lock (&started_lock);
  for (link = &started; *link != NULL; link = &(*link)->next)
    if ((nvtxRangeId_t) (*link)->record.end_ns == id)
      {
        p = *link;
        *link = p->next;
        break;
      }
  pthread_mutex_unlock (&started_lock);
  if (p == NULL)
    return;
  p->record.end_ns = pfprof_collector_cupti_timestamp ();
  pending_push (p);
}

static nvtxRangeId_t NVTX_API
cb_start_ex (const nvtxEventAttributes_t *attr)
{
  return start (NULL, attr, NULL, NULL);
}

static nvtxRangeId_t NVTX_API
cb_start_a (const char *message)
{
  return start (NULL, NULL, message, NULL);
}

static nvtxRangeId_t NVTX_API
cb_start_w (const wchar_t *message)
{
  return start (NULL, NULL, NULL, message);
}

static void NVTX_API
cb_end (nvtxRangeId_t id)
{
  end (id);
}

static nvtxRangeId_t NVTX_API
cb_domain_start_ex (nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr)
{
  return start (domain, attr, NULL, NULL);
}

static void NVTX_API
cb_domain_end (nvtxDomainHandle_t domain, nvtxRangeId_t id)
{
  end (id);
}

/* ---- Domains and registered strings --------------------------------- */

/* Handles live as long as the process: NVTX callers may keep using a
 * string after destroying its domain, and they are few. */
static void *
copy_handle (const char *s)
{
  size_t len = s ? strlen (s) : 0;
  char *h = malloc (len + 1);

  if (h != NULL)
    {
      if (len)
        memcpy (h, s, len);
      h[len] = '\0';
    }
  return h;
}

static nvtxDomainHandle_t NVTX_API
cb_domain_create_a (const char *name)
{
  return (nvtxDomainHandle_t) copy_handle (name ? name : "");
}

static nvtxStringHandle_t NVTX_API
cb_domain_register_string_a (nvtxDomainHandle_t domain, const char *string)
{
  return (nvtxStringHandle_t) copy_handle (string ? string : "");
}

static void NVTX_API
cb_domain_destroy (nvtxDomainHandle_t domain)
{
}

static void NVTX_API
cb_initialize (const void *reserved)
{
}

/* ---- Injection entry point ------------------------------------------ */

static void
set_slot (NvtxFunctionTable table, unsigned size, unsigned id, NvtxFunctionPointer fn)
{
  if (id < size && table[id] != NULL)
    *table[id] = fn;
}

#define FN(f) ((NvtxFunctionPointer) (f))

PFPROF_EXPORT int NVTX_API InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_export_table);

PFPROF_EXPORT int NVTX_API
InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_export_table)
{
  const NvtxExportTableCallbacks *callbacks;
  const NvtxExportTableVersionInfo *version;
  NvtxFunctionTable table = NULL;
  unsigned size = 0;

  pfprof_collector_configure ();
  /* 0 makes NVTX turn every call into a no-op: what a forked child or a
   * process whose tracing failed wants. */
  if (get_export_table == NULL || atomic_load (&pfprof_collector.child)
      || atomic_load (&pfprof_collector.state) == PFPROF_COLLECTOR_STOPPED)
    return 0;
  callbacks = (const NvtxExportTableCallbacks *) get_export_table (NVTX_ETID_CALLBACKS);
  if (callbacks == NULL || callbacks->struct_size < sizeof *callbacks || callbacks->GetModuleFunctionTable == NULL)
    return 0;
  version = (const NvtxExportTableVersionInfo *) get_export_table (NVTX_ETID_VERSIONINFO);
  if (version != NULL && version->struct_size >= sizeof *version && version->SetInjectionNvtxVersion != NULL)
    version->SetInjectionNvtxVersion (NVTX_VERSION);

  if (!callbacks->GetModuleFunctionTable (NVTX_CB_MODULE_CORE, &table, &size) || table == NULL)
    return 0;
  set_slot (table, size, NVTX_CBID_CORE_MarkEx, FN (cb_mark_ex));
  set_slot (table, size, NVTX_CBID_CORE_MarkA, FN (cb_mark_a));
  set_slot (table, size, NVTX_CBID_CORE_MarkW, FN (cb_mark_w));
  set_slot (table, size, NVTX_CBID_CORE_RangeStartEx, FN (cb_start_ex));
  set_slot (table, size, NVTX_CBID_CORE_RangeStartA, FN (cb_start_a));
  set_slot (table, size, NVTX_CBID_CORE_RangeStartW, FN (cb_start_w));
  set_slot (table, size, NVTX_CBID_CORE_RangeEnd, FN (cb_end));
  set_slot (table, size, NVTX_CBID_CORE_RangePushEx, FN (cb_push_ex));
  set_slot (table, size, NVTX_CBID_CORE_RangePushA, FN (cb_push_a));
  set_slot (table, size, NVTX_CBID_CORE_RangePushW, FN (cb_push_w));
  set_slot (table, size, NVTX_CBID_CORE_RangePop, FN (cb_pop));

  table = NULL;
  size = 0;
  if (callbacks->GetModuleFunctionTable (NVTX_CB_MODULE_CORE2, &table, &size) && table != NULL)
    {
      set_slot (table, size, NVTX_CBID_CORE2_DomainMarkEx, FN (cb_domain_mark_ex));
      set_slot (table, size, NVTX_CBID_CORE2_DomainRangeStartEx, FN (cb_domain_start_ex));
      set_slot (table, size, NVTX_CBID_CORE2_DomainRangeEnd, FN (cb_domain_end));
      set_slot (table, size, NVTX_CBID_CORE2_DomainRangePushEx, FN (cb_domain_push_ex));
      set_slot (table, size, NVTX_CBID_CORE2_DomainRangePop, FN (cb_domain_pop));
      set_slot (table, size, NVTX_CBID_CORE2_DomainRegisterStringA, FN (cb_domain_register_string_a));
      set_slot (table, size, NVTX_CBID_CORE2_DomainCreateA, FN (cb_domain_create_a));
      set_slot (table, size, NVTX_CBID_CORE2_DomainDestroy, FN (cb_domain_destroy));
      set_slot (table, size, NVTX_CBID_CORE2_Initialize, FN (cb_initialize));
    }
  return 1;
}
