/* SPDX-License-Identifier: MIT */
/*
 * framework_report.c - the program's framework in the text report (a line
 * under its header: what was seen, from which evidence, and whether a
 * DataLoader feeds it) and in the JSON report ("framework").
 */
#include <stdio.h>
#include <string.h>

#include "analyzer/passes/framework.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/util.h"

/* "PyTorch (module libtorch_cuda.so, CUDA calls in 12 call stacks)" */
static void seen_text(char *buf, size_t size, const struct framework *f,
		      enum fw_kind k)
{
	const struct fw_seen *s = &f->seen[k];
	int at = snprintf(buf, size, "%s (%s", framework_title(k), s->why);

	if (s->stacks && at > 0 && (size_t)at < size)
		at += snprintf(buf + at, size - (size_t)at, "; %u call stack%s of CUDA "
			       "calls through it", s->stacks, plural(s->stacks, "", "s"));
	if (at > 0 && (size_t)at < size)
		snprintf(buf + at, size - (size_t)at, ")");
}

/* "; also loaded: JAX/XLA (module ...)" for the others seen. */
static void others_text(char *buf, size_t size, const struct framework *f)
{
	size_t at = 0;

	buf[0] = 0;
	for (int k = FW_PYTORCH; k < FW_CUDA && at < size; k++) {
		if ((enum fw_kind)k == f->kind || !f->seen[k].why[0])
			continue;
		at += (size_t)snprintf(buf + at, size - at, "%s%s (%s)",
				       at ? ", " : "; also seen: ",
				       framework_title((enum fw_kind)k), f->seen[k].why);
	}
}

static void loader_text(char *buf, size_t size, const struct framework *f)
{
	if (!framework_dataloader(f))
		snprintf(buf, size, "%s", f->kind == FW_PYTORCH ?
			 "; no DataLoader seen" : "");
	else if (f->workers)
		snprintf(buf, size, "; DataLoader (%s), %llu worker process%s",
			 f->loader_why, (unsigned long long)f->workers,
			 plural(f->workers, "", "es"));
	else
		snprintf(buf, size, "; DataLoader (%s), no worker processes",
			 f->loader_why);
}

void framework_report_text(FILE *out, const struct model *m)
{
	const struct framework *f = framework_of(m);
	char main[FW_WHY + 96], others[3 * FW_WHY], loader[FW_WHY + 64], line[1024];

	if (f->kind == FW_UNKNOWN && !f->python)
		return;
	if (f->kind == FW_UNKNOWN)
		snprintf(main, sizeof(main), "Python, none of PyTorch, JAX, TensorFlow "
			 "or CuPy seen");
	else
		seen_text(main, sizeof(main), f, f->kind);
	others_text(others, sizeof(others), f);
	loader_text(loader, sizeof(loader), f);
	snprintf(line, sizeof(line), "%s%s%s", main, others, loader);
	report_wrap(out, "program: ", "    ", line);
}

static void seen_json(struct json *j, const struct framework *f)
{
	json_key(j, "seen");
	json_begin_array(j);
	for (int k = FW_PYTORCH; k < FW_KINDS; k++) {
		const struct fw_seen *s = &f->seen[k];

		if (!s->why[0])
			continue;
		json_begin_object(j);
		json_key(j, "name");
		json_string(j, framework_name((enum fw_kind)k));
		json_key(j, "evidence");
		json_string(j, s->why);
		json_key(j, "modules");
		json_uint(j, s->modules);
		json_key(j, "call_stacks");
		json_uint(j, s->stacks);
		json_key(j, "python_stacks");
		json_uint(j, s->frames);
		json_end_object(j);
	}
	json_end_array(j);
}

void framework_report_json(struct json *j, const struct model *m)
{
	const struct framework *f = framework_of(m);

	json_key(j, "framework");
	json_begin_object(j);
	json_key(j, "name");
	json_string(j, framework_name(f->kind));
	json_key(j, "python");
	json_bool(j, f->python);
	seen_json(j, f);
	json_key(j, "dataloader");
	json_bool(j, framework_dataloader(f));
	json_key(j, "dataloader_evidence");
	if (f->loader_why[0])
		json_string(j, f->loader_why);
	else
		json_null(j);
	json_key(j, "dataloader_call_stacks");
	json_uint(j, f->loader_stacks);
	json_key(j, "workers");
	json_uint(j, f->workers);
	json_key(j, "worker_cores");
	json_double(j, f->worker_cores);
	json_end_object(j);
}
