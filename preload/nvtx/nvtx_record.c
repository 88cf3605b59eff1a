/* SPDX-License-Identifier: MIT */
/*
 * nvtx_record.c - the handlers NVTX calls once we are its injection: each
 * push, pop, start, end, mark and name becomes one record in the calling
 * thread's ring (kind GT_KIND_NVTX, format.h), like a traced CUDA call.
 *
 * Hot path: the clock, a hash of the message, a table probe, the record.
 * The first time a message (or domain) is seen in a dump it is written
 * through the side buffer before the record is committed, so the name
 * always precedes the event that uses it.
 */
#include <string.h>
#include <wchar.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include "include/gputrace/format.h"
#include "preload/nvtx/nvtx.h"
#include "preload/base/ops.h"
#include "preload/record/ring.h"

static __thread int depth __attribute__((tls_model("initial-exec")));
static _Atomic uint64_t next_range;
static struct gt_nvtx_str overflow = { .hash = 1, .text = "" };

static void record(int op, uint64_t t, struct gt_nvtx_str *msg,
		   struct gt_nvtx_domain *dom, uint64_t range,
		   uint32_t category, int result)
{
	struct gt_rec *r = gt_rec_begin();

	if (!r)
		return;
	r->t0 = r->t1 = t;
	r->stream = 0;
	r->stack = 0;
	r->u.nvtx.range = range;
	r->u.nvtx.msg = msg && msg != &overflow ? gt_nvtx_str_id(msg) : 0;
	r->u.nvtx.domain = gt_nvtx_domain_id(dom);
	r->u.nvtx.category = category;
	gt_rec_commit(r, op, result);
}

/* A message as its name (emit_nvtx's per-call suffixes cut off). */
static struct gt_nvtx_str *ascii(const char *s, int whole)
{
	size_t len;

	if (!s)
		return NULL;
	len = strnlen(s, GT_NVTX_TEXT_MAX);
	return gt_nvtx_intern(s, whole ? len : gt_nvtx_name_len(s, len));
}

static struct gt_nvtx_str *wide(const wchar_t *w, int whole)
{
	char buf[GT_NVTX_TEXT_MAX];
	size_t len;

	if (!w)
		return NULL;
	len = gt_nvtx_utf8(w, buf, sizeof(buf));
	return gt_nvtx_intern(buf, whole ? len : gt_nvtx_name_len(buf, len));
}

static struct gt_nvtx_str *attr_msg(const nvtxEventAttributes_t *a,
				    uint32_t *category)
{
	*category = 0;
	if (!a || a->size < offsetof(nvtxEventAttributes_t, message) +
			    sizeof(a->message))
		return NULL;
	*category = a->category;
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		return ascii(a->message.ascii, 0);
	case NVTX_MESSAGE_TYPE_UNICODE:
		return wide(a->message.unicode, 0);
	case NVTX_MESSAGE_TYPE_REGISTERED:  /* our own handle */
		return (struct gt_nvtx_str *)a->message.registered;
	default:
		return NULL;
	}
}

/* ---- the events ---------------------------------------------------------- */

static void mark(struct gt_nvtx_domain *d, struct gt_nvtx_str *m, uint32_t cat,
		 uint64_t t)
{
	record(GT_OP_nvtxMark, t, m, d, 0, cat, 0);
}

static nvtxRangeId_t start(struct gt_nvtx_domain *d, struct gt_nvtx_str *m,
			   uint32_t cat, uint64_t t)
{
	uint64_t id = atomic_fetch_add_explicit(&next_range, 1,
						memory_order_relaxed) + 1;

	record(GT_OP_nvtxRangeStart, t, m, d, id, cat, 0);
	return id;
}

static int push(struct gt_nvtx_domain *d, struct gt_nvtx_str *m, uint32_t cat,
		uint64_t t)
{
	int level = depth++;

	record(GT_OP_nvtxRangePush, t, m, d, 0, cat, level);
	return level;
}

static int pop(struct gt_nvtx_domain *d)
{
	uint64_t t = gt_stamp();
	int level = depth > 0 ? --depth : -1;

	record(GT_OP_nvtxRangePop, t, NULL, d, 0, 0, level);
	return level;
}

static void end(struct gt_nvtx_domain *d, nvtxRangeId_t id)
{
	record(GT_OP_nvtxRangeEnd, gt_stamp(), NULL, d, id, 0, 0);
}

static void name_category(struct gt_nvtx_domain *d, uint32_t cat,
			  struct gt_nvtx_str *name)
{
	record(GT_OP_nvtxNameCategory, gt_stamp(), name, d, 0, cat, 0);
}

/* ---- core: the default domain ------------------------------------------- */

#define T0 uint64_t t = gt_stamp()

static void mark_a(const char *m) { T0; mark(NULL, ascii(m, 0), 0, t); }
static void mark_w(const wchar_t *m) { T0; mark(NULL, wide(m, 0), 0, t); }
static void mark_ex(const nvtxEventAttributes_t *a)
{
	uint64_t t = gt_stamp();
	uint32_t cat;
	struct gt_nvtx_str *msg = attr_msg(a, &cat);

	mark(NULL, msg, cat, t);
}

static nvtxRangeId_t start_a(const char *m) { T0; return start(NULL, ascii(m, 0), 0, t); }
static nvtxRangeId_t start_w(const wchar_t *m) { T0; return start(NULL, wide(m, 0), 0, t); }
static nvtxRangeId_t start_ex(const nvtxEventAttributes_t *a)
{
	uint64_t t = gt_stamp();
	uint32_t cat;
	struct gt_nvtx_str *msg = attr_msg(a, &cat);

	return start(NULL, msg, cat, t);
}

static void end_default(nvtxRangeId_t id) { end(NULL, id); }

static int push_a(const char *m) { T0; return push(NULL, ascii(m, 0), 0, t); }
static int push_w(const wchar_t *m) { T0; return push(NULL, wide(m, 0), 0, t); }
static int push_ex(const nvtxEventAttributes_t *a)
{
	uint64_t t = gt_stamp();
	uint32_t cat;
	struct gt_nvtx_str *msg = attr_msg(a, &cat);

	return push(NULL, msg, cat, t);
}

static int pop_default(void) { return pop(NULL); }

static void category_a(uint32_t c, const char *n) { name_category(NULL, c, ascii(n, 1)); }
static void category_w(uint32_t c, const wchar_t *n) { name_category(NULL, c, wide(n, 1)); }

static void thread_a(uint32_t tid, const char *n)
{
	record(GT_OP_nvtxNameOsThread, gt_stamp(), ascii(n, 1), NULL, 0, tid, 0);
}

static void thread_w(uint32_t tid, const wchar_t *n)
{
	record(GT_OP_nvtxNameOsThread, gt_stamp(), wide(n, 1), NULL, 0, tid, 0);
}

/* ---- core2: domains ---------------------------------------------------- */

#define DOM(h) ((struct gt_nvtx_domain *)(h))

static void d_mark(nvtxDomainHandle_t h, const nvtxEventAttributes_t *a)
{
	uint64_t t = gt_stamp();
	uint32_t cat;
	struct gt_nvtx_str *msg = attr_msg(a, &cat);

	mark(DOM(h), msg, cat, t);
}

static nvtxRangeId_t d_start(nvtxDomainHandle_t h, const nvtxEventAttributes_t *a)
{
	uint64_t t = gt_stamp();
	uint32_t cat;
	struct gt_nvtx_str *msg = attr_msg(a, &cat);

	return start(DOM(h), msg, cat, t);
}

static void d_end(nvtxDomainHandle_t h, nvtxRangeId_t id) { end(DOM(h), id); }

static int d_push(nvtxDomainHandle_t h, const nvtxEventAttributes_t *a)
{
	uint64_t t = gt_stamp();
	uint32_t cat;
	struct gt_nvtx_str *msg = attr_msg(a, &cat);

	return push(DOM(h), msg, cat, t);
}

static int d_pop(nvtxDomainHandle_t h) { return pop(DOM(h)); }

static void d_category_a(nvtxDomainHandle_t h, uint32_t c, const char *n)
{
	name_category(DOM(h), c, ascii(n, 1));
}

static void d_category_w(nvtxDomainHandle_t h, uint32_t c, const wchar_t *n)
{
	name_category(DOM(h), c, wide(n, 1));
}

/* A registered string is the interned message itself. */
static nvtxStringHandle_t d_register_a(nvtxDomainHandle_t h, const char *s)
{
	struct gt_nvtx_str *e = ascii(s, 0);

	return (nvtxStringHandle_t)(e ? e : &overflow);
}

static nvtxStringHandle_t d_register_w(nvtxDomainHandle_t h, const wchar_t *s)
{
	struct gt_nvtx_str *e = wide(s, 0);

	return (nvtxStringHandle_t)(e ? e : &overflow);
}

static nvtxDomainHandle_t d_create_a(const char *name)
{
	return (nvtxDomainHandle_t)gt_nvtx_domain_create(
		name ? name : "", name ? strnlen(name, GT_NVTX_TEXT_MAX) : 0);
}

static nvtxDomainHandle_t d_create_w(const wchar_t *name)
{
	char buf[GT_NVTX_TEXT_MAX];

	return (nvtxDomainHandle_t)gt_nvtx_domain_create(
		buf, gt_nvtx_utf8(name, buf, sizeof(buf)));
}

static void d_destroy(nvtxDomainHandle_t h) { (void)h; } /* names outlive it */
static void initialize(const void *reserved) { (void)reserved; }

/* ---- the tables ---------------------------------------------------------- */

#define SET(id, fn) do {                                                  \
		if ((unsigned)(id) < size && table[id]) {                 \
			*table[id] = (void (*)(void))(fn);                \
			n++;                                              \
		}                                                         \
	} while (0)

int gt_nvtx_fill_core(void (***table)(void), unsigned size)
{
	int n = 0;

	SET(NVTX_CBID_CORE_MarkEx, mark_ex);
	SET(NVTX_CBID_CORE_MarkA, mark_a);
	SET(NVTX_CBID_CORE_MarkW, mark_w);
	SET(NVTX_CBID_CORE_RangeStartEx, start_ex);
	SET(NVTX_CBID_CORE_RangeStartA, start_a);
	SET(NVTX_CBID_CORE_RangeStartW, start_w);
	SET(NVTX_CBID_CORE_RangeEnd, end_default);
	SET(NVTX_CBID_CORE_RangePushEx, push_ex);
	SET(NVTX_CBID_CORE_RangePushA, push_a);
	SET(NVTX_CBID_CORE_RangePushW, push_w);
	SET(NVTX_CBID_CORE_RangePop, pop_default);
	SET(NVTX_CBID_CORE_NameCategoryA, category_a);
	SET(NVTX_CBID_CORE_NameCategoryW, category_w);
	SET(NVTX_CBID_CORE_NameOsThreadA, thread_a);
	SET(NVTX_CBID_CORE_NameOsThreadW, thread_w);
	return n;
}

int gt_nvtx_fill_core2(void (***table)(void), unsigned size)
{
	int n = 0;

	SET(NVTX_CBID_CORE2_DomainMarkEx, d_mark);
	SET(NVTX_CBID_CORE2_DomainRangeStartEx, d_start);
	SET(NVTX_CBID_CORE2_DomainRangeEnd, d_end);
	SET(NVTX_CBID_CORE2_DomainRangePushEx, d_push);
	SET(NVTX_CBID_CORE2_DomainRangePop, d_pop);
	SET(NVTX_CBID_CORE2_DomainNameCategoryA, d_category_a);
	SET(NVTX_CBID_CORE2_DomainNameCategoryW, d_category_w);
	SET(NVTX_CBID_CORE2_DomainRegisterStringA, d_register_a);
	SET(NVTX_CBID_CORE2_DomainRegisterStringW, d_register_w);
	SET(NVTX_CBID_CORE2_DomainCreateA, d_create_a);
	SET(NVTX_CBID_CORE2_DomainCreateW, d_create_w);
	SET(NVTX_CBID_CORE2_DomainDestroy, d_destroy);
	SET(NVTX_CBID_CORE2_Initialize, initialize);
	return n;
}
