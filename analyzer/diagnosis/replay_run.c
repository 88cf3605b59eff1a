/* SPDX-License-Identifier: MIT */
/*
 * replay_run.c - the replay engine: re-time a dependency graph
 * (replay.h).  The host thread that is furthest behind goes next, so that
 * operations reach each stream in the order of their items' start; a
 * thread cannot run past an item that waits until what it waits for is
 * done; an operation starts when both its item has queued it (plus its
 * latency) and its stream's previous operation is done (plus the gap).
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/replay.h"
#include "analyzer/lib/util.h"

struct run_state {
	const struct rp_graph *g;
	struct rp_times *t;
	uint64_t *now;          /* per thread */
	size_t *next;           /* per thread: its next item, relative */
	uint64_t *send;         /* per stream: its last op ends */
	uint64_t *opend;        /* per op: 0 not queued yet, else end + 1 */
	uint64_t host_end, gpu_end;
	uint64_t supply;        /* the workers' last batch was ready + 1, 0
				   none taken yet */
};

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t wait_until(const struct run_state *s, const struct rp_item *it)
{
	uint64_t end = 0;

	switch (it->wkind) {
	case RW_OP:
		if (it->wait < s->g->nops && s->opend[it->wait])
			end = s->opend[it->wait] - 1;
		break;
	case RW_STREAM:
		if (it->wait < s->g->nstreams)
			end = s->send[it->wait];
		break;
	case RW_ALL:
		for (size_t i = 0; i < s->g->nstreams; i++)
			end = max64(end, s->send[i]);
		break;
	default:
		break;
	}
	return end;
}

/* A batch taken at t0: ready one interval after the last one (the first
 * at once); when it is taken. */
static uint64_t take_batch(struct run_state *s, const struct rp_item *it,
			   uint64_t t0)
{
	uint64_t ready = s->supply ? s->supply - 1 + it->ret : t0;
	uint64_t t1 = max64(t0 + it->own, ready);

	s->supply = ready + 1;
	return t1;
}

/* t is s->t, given so that the loop of run_items is made twice: with
 * times to set and without (the fixes' replays). */
static ALWAYS_INLINE void queue_op(struct run_state *s, uint32_t idx,
				   uint64_t t0, struct rp_times *t)
{
	const struct rp_op *op = &s->g->ops[idx];
	uint64_t start = max64(t0 + op->lat, s->send[op->stream] + op->gap);
	uint64_t end = start + op->dur;

	s->send[op->stream] = end;
	s->opend[idx] = end + 1;
	s->gpu_end = max64(s->gpu_end, end);
	if (t) {
		t->op0[idx] = start;
		t->op1[idx] = end;
	}
}

/* Item idx of thread th, started at t0: when it ends. */
static ALWAYS_INLINE uint64_t step_item(struct run_state *s, size_t th,
					size_t idx, uint64_t t0,
					struct rp_times *t)
{
	const struct rp_item *it = &s->g->items[idx];
	uint64_t t1;

	if (it->op && it->op - 1 < s->g->nops)
		queue_op(s, it->op - 1, t0, t);
	t1 = t0 + it->own;
	if (it->wkind == RW_SUPPLY) {
		t1 = take_batch(s, it, t0);
	} else if (it->wkind != RW_NONE) {
		uint64_t w = wait_until(s, it);

		if (w > t0)
			t1 = max64(t1, w + it->ret);
	}
	if (th == 0)
		s->host_end = max64(s->host_end, t1);
	if (t) {
		t->it0[idx] = t0;
		t->it1[idx] = t1;
		if (th == 0 && it->step <= s->g->steps && !t->step0[it->step])
			t->step0[it->step] = t0 + 1;
	}
	return t1;
}

/* The thread furthest behind with items left, or -1. */
static long pick(const struct run_state *s)
{
	long best = -1;

	for (size_t i = 0; i < s->g->nth; i++)
		if (s->next[i] < s->g->th[i].n &&
		    (best < 0 || s->now[i] < s->now[best]))
			best = (long)i;
	return best;
}

/* Thread th's items while it stays the one furthest behind: its clock
 * under `before` (the earliest of the threads before it with items left)
 * and at most `after` (of those after it). */
static ALWAYS_INLINE void items_while(struct run_state *s, size_t th,
				      uint64_t before, uint64_t after,
				      struct rp_times *times)
{
	const struct rp_thread *t = &s->g->th[th];
	size_t i = s->next[th];
	uint64_t now = s->now[th];

	do
		now = step_item(s, th, t->first + i++, now, times);
	while (i < t->n && now < before && now <= after);
	s->next[th] = i;
	s->now[th] = now;
}

static void run_items(struct run_state *s, size_t th, uint64_t before,
		      uint64_t after)
{
	if (s->t)
		items_while(s, th, before, after, s->t);
	else
		items_while(s, th, before, after, NULL);
}

/* Thread th, picked, goes on while it stays the one furthest behind (the
 * others do not move meanwhile; at one time the first thread goes). */
static void run_thread(struct run_state *s, size_t th)
{
	uint64_t before = UINT64_MAX, after = UINT64_MAX;

	for (size_t i = 0; i < s->g->nth; i++) {
		if (i == th || s->next[i] >= s->g->th[i].n)
			continue;
		if (i < th)
			before = s->now[i] < before ? s->now[i] : before;
		else
			after = s->now[i] < after ? s->now[i] : after;
	}
	run_items(s, th, before, after);
}

static uint64_t run(struct run_state *s)
{
	const struct rp_graph *g = s->g;
	uint64_t backlog = 0;
	long th;

	for (size_t i = 0; i < g->nth; i++)
		s->now[i] = g->th[i].start;
	for (size_t i = 0; i < g->nstreams; i++) {
		s->send[i] = g->backlog ? g->backlog[i] : 0;
		backlog = max64(backlog, s->send[i]);
	}
	while ((th = pick(s)) >= 0)
		run_thread(s, (size_t)th);
	if (s->gpu_end > backlog)
		s->gpu_end -= backlog;
	else
		s->gpu_end = 0;
	return max64(s->host_end, s->gpu_end);
}

/* A step the first thread has no item of starts where the next does. */
static void finish_steps(const struct rp_graph *g, struct rp_times *t,
			 uint64_t span)
{
	uint64_t next = span;

	for (uint32_t i = g->steps + 1; i-- > 0;) {
		t->step0[i] = t->step0[i] && t->step0[i] - 1 <= next ?
			      t->step0[i] - 1 : next;
		next = t->step0[i];
	}
	t->span = span;
}

uint64_t replay_run(const struct rp_graph *g, struct rp_times *t)
{
	struct run_state s = { .g = g, .t = t };
	uint64_t span;

	s.now = xcalloc(g->nth + 1, sizeof(*s.now));
	s.next = xcalloc(g->nth + 1, sizeof(*s.next));
	s.send = xcalloc(g->nstreams + 1, sizeof(*s.send));
	s.opend = xcalloc(g->nops + 1, sizeof(*s.opend));
	if (t)
		memset(t->step0, 0, (g->steps + 1) * sizeof(*t->step0));
	span = run(&s);
	if (t)
		finish_steps(g, t, span);
	free(s.now);
	free(s.next);
	free(s.send);
	free(s.opend);
	return span;
}

/* Not cleared: the replay sets the time of every item of a thread and of
 * every operation such an item queues. */
void replay_times_alloc(const struct rp_graph *g, struct rp_times *t)
{
	t->it0 = xmalloc((g->nitems + 1) * sizeof(*t->it0));
	t->it1 = xmalloc((g->nitems + 1) * sizeof(*t->it1));
	t->op0 = xmalloc((g->nops + 1) * sizeof(*t->op0));
	t->op1 = xmalloc((g->nops + 1) * sizeof(*t->op1));
	t->step0 = xcalloc(g->steps + 2, sizeof(*t->step0));
	t->span = 0;
}

void replay_times_release(struct rp_times *t)
{
	free(t->it0);
	free(t->it1);
	free(t->op0);
	free(t->op1);
	free(t->step0);
	memset(t, 0, sizeof(*t));
}

static void *dup_array(const void *src, size_t n, size_t size)
{
	void *p = xmalloc((n ? n : 1) * size);

	if (n)
		memcpy(p, src, n * size);
	return p;
}

void replay_copy(struct rp_graph *dst, const struct rp_graph *src)
{
	*dst = *src;
	dst->items = dup_array(src->items, src->nitems, sizeof(*src->items));
	dst->ops = dup_array(src->ops, src->nops, sizeof(*src->ops));
	dst->th = dup_array(src->th, src->nth, sizeof(*src->th));
	dst->backlog = src->backlog ?
		       dup_array(src->backlog, src->nstreams, sizeof(*src->backlog)) :
		       NULL;
	dst->stream_name = src->stream_name ?
			   dup_array(src->stream_name, src->nstreams,
				     sizeof(*src->stream_name)) : NULL;
}

void replay_release(struct rp_graph *g)
{
	free(g->items);
	free(g->ops);
	free(g->th);
	free(g->backlog);
	free(g->stream_name);
	memset(g, 0, sizeof(*g));
}
