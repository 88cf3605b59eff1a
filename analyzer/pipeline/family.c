/* SPDX-License-Identifier: MIT */
/*
 * family.c - which of the dumps given are DataLoader workers of another
 * (family.h): each dump's header and process record first (a dump starts
 * with them), then the children of a process given are read, and those
 * without a CUDA call are its workers.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/pipeline/family.h"
#include "analyzer/pipeline/loader.h"
#include "analyzer/pipeline/pipeline.h"
#include "analyzer/lib/util.h"

/* Who wrote a dump, from its first records. */
struct who {
	uint32_t pid, ppid;
	uint64_t run_id;
	char *host;                 /* NULL: no process record */
	size_t parent;              /* index + 1 of its parent's dump, 0 none */
	struct model *m;            /* read as a worker */
};

#define HEAD_RECORDS 64             /* a process record comes before these */

static void read_who(const char *path, struct who *w)
{
	struct dump_reader *r;
	struct dump_record rec;

	if (dump_open(&r, path) == 0) {
		w->pid = dump_header(r)->pid;
		w->run_id = dump_header(r)->run_id;
		for (int i = 0; i < HEAD_RECORDS && dump_next(r, &rec) > 0; i++) {
			if (rec.type == DUMP_EVENT)
				break;
			if (rec.type != DUMP_PROCESS)
				continue;
			w->pid = rec.process->pid;
			w->ppid = rec.process->ppid;
			w->host = xstrdup(rec.process->host);
			break;
		}
	}
	dump_close(r);
}

/* The dump of w's parent among who[0..n), index + 1, or 0. */
static size_t parent_of(const struct who *who, size_t n, const struct who *w)
{
	for (size_t i = 0; w->host && w->ppid && i < n; i++)
		if (&who[i] != w && who[i].host && who[i].pid == w->ppid &&
		    who[i].run_id == w->run_id && !strcmp(who[i].host, w->host))
			return i + 1;
	return 0;
}

/* Read a child's dump: kept as a worker if it made no CUDA call. */
static void read_child(const char *path, struct who *w)
{
	struct model *m = xcalloc(1, sizeof(*m));
	char *why = NULL;

	if (loader_try_model(path, m, LOADER_NO_PROGRESS, 0, &why) < 0) {
		warning_msg("%s; left out, the other dumps are read",
			    why ? why : path);
		free(why);
		free(m);
		w->parent = SIZE_MAX;   /* neither a worker nor a process */
		return;
	}
	if (m->events) {
		pipeline_release(m);
		free(m);
		w->parent = 0;          /* CUDA calls: a process of its own */
		return;
	}
	w->m = m;
}

static void adopt(struct family *f, struct model *m)
{
	f->workers = xrealloc(f->workers, (f->nworkers + 1) * sizeof(*f->workers));
	f->workers[f->nworkers++] = m;
}

/* The families of who: its processes, each with its workers. */
static struct family *gather(char **paths, struct who *who, size_t count,
			     size_t *n)
{
	struct family *f = xcalloc(count, sizeof(*f));
	size_t *at = xcalloc(count, sizeof(*at));

	*n = 0;
	for (size_t i = 0; i < count; i++) {
		if (who[i].m || who[i].parent == SIZE_MAX)
			continue;
		at[i] = *n;
		f[(*n)++].path = paths[i];
	}
	for (size_t i = 0; i < count; i++)
		if (who[i].m)
			adopt(&f[at[who[i].parent - 1]], who[i].m);
	free(at);
	return f;
}

struct family *loader_families(char **paths, size_t count, size_t *n)
{
	struct who *who = xcalloc(count ? count : 1, sizeof(*who));
	struct family *f;

	for (size_t i = 0; count > 1 && i < count; i++)
		read_who(paths[i], &who[i]);
	for (size_t i = 0; count > 1 && i < count; i++)
		who[i].parent = parent_of(who, count, &who[i]);
	for (size_t i = 0; i < count; i++)
		if (who[i].parent && !who[who[i].parent - 1].parent)
			read_child(paths[i], &who[i]);
	for (size_t i = 0; i < count; i++)     /* a worker's child: a process */
		if (who[i].parent && !who[i].m && who[i].parent != SIZE_MAX)
			who[i].parent = 0;
	f = gather(paths, who, count, n);
	for (size_t i = 0; i < count; i++)
		free(who[i].host);
	free(who);
	return f;
}

void family_give_workers(struct family *f, struct model *m)
{
	m->workers = f->workers;
	m->nworkers = f->nworkers;
	f->workers = NULL;
	f->nworkers = 0;
}

void loader_free_families(struct family *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++) {
		struct model tmp = { .workers = f[i].workers,
				     .nworkers = f[i].nworkers };

		pipeline_release_workers(&tmp);
	}
	free(f);
}
