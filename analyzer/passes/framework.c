/* SPDX-License-Identifier: MIT */
/*
 * framework.c - tell the program's framework from the dump (framework.h).
 *
 * An object of a framework is known by its file name (libtorch_cuda.so,
 * xla_cuda_plugin.so, libtensorflow_framework.so) or by the package it
 * sits in (site-packages/jaxlib/..., site-packages/cupy/...): the package
 * is the folder right after site-packages or dist-packages, never a
 * folder higher up (a virtual environment in /opt/torch/.venv is no
 * PyTorch).  A call stack is credited to the framework whose object made
 * the CUDA call (its innermost native frame in one), else to the package
 * of its innermost Python frame in one.  The framework the program uses
 * is the one with the most call stacks, then Python files, then objects;
 * with none, a native executable is CUDA C/C++.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/env_internal.h"
#include "analyzer/passes/framework.h"
#include "analyzer/lib/util.h"

#define LOADER_PATH "torch/utils/data/"

/* An object of a framework, for the native frames of stacks. */
struct fw_range {
	uint64_t start, end;
	enum fw_kind kind;
};

struct fw_state {
	struct framework f;             /* first: framework_of's answer */
	int rank[FW_KINDS];             /* the rank of the object in why
					   (object_kind), 0 none */
	struct fw_range *r;
	size_t nr, cap;
};

static const char *const names[FW_KINDS] = {
	"unknown", "pytorch", "jax", "tensorflow", "cupy", "cuda",
};

static const char *const titles[FW_KINDS] = {
	"unknown", "PyTorch", "JAX/XLA", "TensorFlow", "CuPy", "CUDA C/C++",
};

const char *framework_name(enum fw_kind k)
{
	return k < FW_KINDS ? names[k] : "?";
}

const char *framework_title(enum fw_kind k)
{
	return k < FW_KINDS ? titles[k] : "?";
}

/* Packages (the folder after site-packages) of each framework. */
static const struct {
	const char *pkg;
	enum fw_kind kind;
} packages[] = {
	{ "torch", FW_PYTORCH }, { "torchvision", FW_PYTORCH },
	{ "torchaudio", FW_PYTORCH }, { "lightning", FW_PYTORCH },
	{ "pytorch_lightning", FW_PYTORCH }, { "timm", FW_PYTORCH },
	{ "jax", FW_JAX }, { "jaxlib", FW_JAX }, { "jax_plugins", FW_JAX },
	{ "flax", FW_JAX }, { "optax", FW_JAX }, { "equinox", FW_JAX },
	{ "haiku", FW_JAX },
	{ "tensorflow", FW_TENSORFLOW }, { "keras", FW_TENSORFLOW },
	{ "tf_keras", FW_TENSORFLOW },
	{ "cupy", FW_CUPY }, { "cupyx", FW_CUPY }, { "cupy_backends", FW_CUPY },
};

/* Objects known by their file name, wherever they are (the start of it). */
static const struct {
	const char *prefix;
	enum fw_kind kind;
} objects[] = {
	{ "libtorch_cuda.so", FW_PYTORCH }, { "libc10_cuda.so", FW_PYTORCH },
	{ "libtorch_cpu.so", FW_PYTORCH }, { "libtorch.so", FW_PYTORCH },
	{ "xla_cuda_plugin.so", FW_JAX }, { "xla_extension.so", FW_JAX },
	{ "libtensorflow_framework.so", FW_TENSORFLOW },
	{ "_pywrap_tensorflow_internal.so", FW_TENSORFLOW },
	{ "libtensorflow_cc.so", FW_TENSORFLOW },
};

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* The package folder of path: what follows the last site-packages/ or
 * dist-packages/, up to its '/', in *len; NULL when none. */
static const char *package_of(const char *path, size_t *len)
{
	const char *p = NULL, *q, *end;

	for (q = path; (q = strstr(q, "-packages/")); q++)
		p = q + strlen("-packages/");
	if (!p || !(end = strchr(p, '/')))
		return NULL;
	*len = (size_t)(end - p);
	return p;
}

/* path from its package on ("torch/nn/modules/module.py"), or its
 * file name. */
static const char *in_package(const char *path)
{
	size_t len;
	const char *p = package_of(path, &len);

	return p ? p : base_name(path);
}

static enum fw_kind package_kind(const char *path)
{
	size_t len;
	const char *p = package_of(path, &len);

	if (!p)
		return FW_UNKNOWN;
	if (!strncmp(p, "jax_cuda", 8))         /* jax_cuda13_plugin */
		return FW_JAX;
	for (size_t i = 0; i < ARRAY_SIZE(packages); i++)
		if (strlen(packages[i].pkg) == len && !strncmp(p, packages[i].pkg, len))
			return packages[i].kind;
	return FW_UNKNOWN;
}

/* The framework of an object; *rank: 1 + its place in objects[] when
 * known by its file name (the better evidence, the lower the better),
 * else INT_MAX. */
static enum fw_kind object_kind(const char *path, int *rank)
{
	const char *b = base_name(path);

	for (size_t i = 0; i < ARRAY_SIZE(objects); i++) {
		*rank = (int)i + 1;
		if (!strncmp(b, objects[i].prefix, strlen(objects[i].prefix)))
			return objects[i].kind;
	}
	*rank = INT_MAX;
	return package_kind(path);
}

static struct fw_state *state(struct model *m)
{
	if (!m->framework)
		m->framework = xcalloc(1, sizeof(struct fw_state));
	return (struct fw_state *)m->framework;
}

/* The first evidence of kind k, kept. */
static void note(struct framework *f, enum fw_kind k, const char *what,
		 const char *name)
{
	if (!f->seen[k].why[0])
		snprintf(f->seen[k].why, FW_WHY, "%s %s", what, name);
}

static void add_range(struct fw_state *s, uint64_t start, uint64_t size,
		      enum fw_kind k)
{
	if (s->nr == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 32;
		s->r = xrealloc(s->r, s->cap * sizeof(*s->r));
	}
	s->r[s->nr++] = (struct fw_range){ start, start + size, k };
}

static void add_modules(struct fw_state *s, const struct dump_reader *r,
			const struct dump_record *rec)
{
	for (uint32_t i = 0; i < rec->modules.count; i++) {
		struct gt_module g;
		const char *path;
		enum fw_kind k;
		int rank;

		memcpy(&g, (const uint8_t *)rec->modules.mods + i * sizeof(g), sizeof(g));
		path = g.path_str ? dump_string(r, g.path_str) : NULL;
		if (!path)
			continue;
		if (!strncmp(base_name(path), "libpython", 9))
			s->f.python = 1;
		if ((k = object_kind(path, &rank)) == FW_UNKNOWN)
			continue;
		if (rank < s->rank[k])
			s->f.seen[k].why[0] = 0;        /* a better one */
		if (rank < s->rank[k] || !s->rank[k])
			s->rank[k] = rank;
		s->f.seen[k].modules++;
		note(&s->f, k, "module", base_name(path));
		if (g.size && g.start + g.size > g.start)
			add_range(s, g.start, g.size, k);
	}
}

/* The framework of the object holding pc, or FW_UNKNOWN. */
static enum fw_kind pc_kind(const struct fw_state *s, uint64_t pc)
{
	for (size_t i = s->nr; i-- > 0;)        /* the latest first */
		if (pc - 1 >= s->r[i].start && pc - 1 < s->r[i].end)
			return s->r[i].kind;
	return FW_UNKNOWN;
}

/* Who made the CUDA call of a stack: the innermost native frame in a
 * framework's object. */
static enum fw_kind native_caller(const struct fw_state *s,
				  const struct dump_record *rec)
{
	for (uint32_t i = 0; i < rec->stack.native; i++) {
		uint64_t pc;
		enum fw_kind k;

		memcpy(&pc, (const uint8_t *)rec->stack.pcs + i * 8, 8);
		if ((k = pc_kind(s, pc)) != FW_UNKNOWN)
			return k;
	}
	return FW_UNKNOWN;
}

/* A Python frame's file: torch/utils/data, from "torch/" on. */
static void loader_frame(struct framework *f, const char *file, int *seen)
{
	const char *at = strstr(file, LOADER_PATH);

	if (!at || package_kind(file) != FW_PYTORCH)
		return;
	if (!*seen)
		f->loader_stacks++;
	*seen = 1;
	if (!f->loader_why[0])
		snprintf(f->loader_why, FW_WHY, "%s", at);
}

/* The innermost Python frame of a framework's package, or FW_UNKNOWN;
 * DataLoader frames counted on the way. */
static enum fw_kind python_caller(struct framework *f, const struct dump_reader *r,
				  const struct dump_record *rec)
{
	enum fw_kind first = FW_UNKNOWN;
	int loader = 0;

	for (uint32_t i = 0; i < rec->stack.python; i++) {
		struct gt_pyframe pf;
		const char *file;
		enum fw_kind k;

		memcpy(&pf, (const uint8_t *)rec->stack.frames + i * sizeof(pf), sizeof(pf));
		file = pf.file_str ? dump_string(r, pf.file_str) : NULL;
		f->python = 1;
		if (!file)
			continue;
		loader_frame(f, file, &loader);
		if (first == FW_UNKNOWN && (k = package_kind(file)) != FW_UNKNOWN) {
			first = k;
			note(f, k, "Python file", in_package(file));
		}
	}
	return first;
}

static void add_stack(struct fw_state *s, const struct dump_reader *r,
		      const struct dump_record *rec)
{
	enum fw_kind native = native_caller(s, rec);
	enum fw_kind py = python_caller(&s->f, r, rec);

	if (native != FW_UNKNOWN)
		s->f.seen[native].stacks++;
	else if (py != FW_UNKNOWN)
		s->f.seen[py].stacks++;
	if (py != FW_UNKNOWN)
		s->f.seen[py].frames++;
}

void framework_add(struct model *m, const struct dump_reader *r,
		   const struct dump_record *rec)
{
	if (rec->type == DUMP_MODULES)
		add_modules(state(m), r, rec);
	else if (rec->type == DUMP_STACK)
		add_stack(state(m), r, rec);
}

/* Launchers that start PyTorch programs only. */
static void command_facts(struct framework *f, const struct model *m)
{
	static const char *const torch_launchers[] = {
		"torchrun", "deepspeed", "accelerate",
	};
	const char *exe = base_name(m->exe), *cmd = m->command;
	size_t len = strcspn(cmd, " ");

	if (!strncmp(exe, "python", 6))
		f->python = 1;
	for (size_t i = 0; i < ARRAY_SIZE(torch_launchers); i++) {
		const char *l = torch_launchers[i];
		size_t n = strlen(l);

		if (len >= n && !strncmp(cmd + len - n, l, n) &&
		    (len == n || cmd[len - n - 1] == '/')) {    /* argv[0]'s name */
			f->seen[FW_PYTORCH].modules++;
			note(f, FW_PYTORCH, "command", l);
		}
	}
	if (strstr(cmd, "-m torch.distributed.")) {
		f->seen[FW_PYTORCH].modules++;
		note(f, FW_PYTORCH, "command", "python -m torch.distributed");
	}
}

static int more(const struct fw_seen *a, const struct fw_seen *b)
{
	if (a->stacks != b->stacks)
		return a->stacks > b->stacks;
	if (a->frames != b->frames)
		return a->frames > b->frames;
	return a->modules > b->modules;
}

static enum fw_kind pick(const struct framework *f, const struct model *m)
{
	enum fw_kind best = FW_UNKNOWN;

	for (int k = FW_PYTORCH; k < FW_CUDA; k++)
		if (f->seen[k].modules + f->seen[k].stacks + f->seen[k].frames &&
		    (best == FW_UNKNOWN || more(&f->seen[k], &f->seen[best])))
			best = (enum fw_kind)k;
	if (best == FW_UNKNOWN && !f->python && *m->exe)
		best = FW_CUDA;
	return best;
}

/* A DataLoader: its files in the stacks, or a PyTorch program's busy
 * child processes (its workers make no CUDA calls: no stacks of theirs),
 * two or more: one child can as well be a helper the program started
 * (a server, another job on the GPU). */
static void loader_facts(struct framework *f, const struct model *m)
{
	const struct env_stats *s = m->env;
	double cores = 0;

	if (!s)
		return;
	env_cpu_cores(s, GT_SAMPLE_CHILD_USER, GT_SAMPLE_CHILD_SYS, &cores);
	if (f->kind != FW_PYTORCH)
		return;
	if (!f->loader_stacks && s->children_max >= 2 && cores >= 0.1)
		snprintf(f->loader_why, FW_WHY, "presumably: %llu busy child "
			 "process%s of a PyTorch program", (unsigned long long)s->children_max,
			 plural(s->children_max, "", "es"));
	f->dataloader = f->loader_why[0] != 0;
	if (f->dataloader) {
		f->workers = s->children_max;
		f->worker_cores = cores;
	}
}

void framework_finish(struct model *m)
{
	struct framework *f = &state(m)->f;

	command_facts(f, m);
	f->kind = pick(f, m);
	if (f->kind == FW_CUDA)
		snprintf(f->seen[FW_CUDA].why, FW_WHY, "executable %s, no framework's "
			 "objects loaded", base_name(m->exe));
	loader_facts(f, m);
}

const struct framework *framework_of(const struct model *m)
{
	static const struct framework none;

	return m->framework ? &((const struct fw_state *)m->framework)->f : &none;
}

void framework_release(struct model *m)
{
	struct fw_state *s = (struct fw_state *)m->framework;

	if (!s)
		return;
	free(s->r);
	free(s);
	m->framework = NULL;
}
