/* SPDX-License-Identifier: MIT */
/*
 * env.c - take in the environment records of a dump: facts about the host
 * and this process (GT_SCOPE_HOST), each NVML device and each CUDA device.
 * A later item replaces an earlier one of the same scope and key (the
 * CUDA driver's own version replaces NVML's); topology and setting items
 * add up (a setting of a name already seen replaces it).
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/env_internal.h"
#include "analyzer/lib/util.h"

struct env_stats *env_stats_of(struct model *m)
{
	if (!m->env) {
		m->env = xcalloc(1, sizeof(*m->env));
		m->env->cupti = "off";
	}
	return m->env;
}

static void set_fact(struct env_fact *f, const struct env_item *it)
{
	free(f->text);
	f->have = 1;
	f->status = it->status;
	f->value = it->value;
	f->text = it->len ? xmemdupz(it->text, it->len) : NULL;
}

static struct env_device *device(struct env_stats *s, uint32_t scope)
{
	uint32_t i = scope & ~GT_SCOPE_CUDA;

	if (scope == GT_SCOPE_HOST || i >= ENV_MAX_DEVICES)
		return NULL;
	if (scope & GT_SCOPE_CUDA) {
		if (i >= s->n_cuda)
			s->n_cuda = i + 1;
		return &s->cuda[i];
	}
	if (i >= s->n_nvml)
		s->n_nvml = i + 1;
	return &s->nvml[i];
}

static void device_item(struct env_device *d, const struct env_item *it)
{
	if (it->key == GT_ENV_TOPOLOGY) {
		if (it->status == GT_INFO_OK && d->ntopo < ENV_MAX_DEVICES)
			d->topo[d->ntopo++] = (uint64_t)it->value;
		else if (it->status != GT_INFO_OK)
			set_fact(&d->f[it->key - 32], it);
	} else if (it->key >= 32 && it->key < 32 + ENV_DEV_KEYS) {
		set_fact(&d->f[it->key - 32], it);
	}
}

/* "NAME=value": a later one of the same name replaces the earlier. */
static void add_setting(struct env_stats *s, const struct env_item *it)
{
	const char *eq = memchr(it->text, '=', it->len);
	size_t n = eq ? (size_t)(eq - it->text) + 1 : 0;
	uint32_t i;

	if (it->status != GT_INFO_OK || !eq)
		return;
	for (i = 0; i < s->nsettings; i++)
		if (!strncmp(s->settings[i], it->text, n))
			break;
	if (i == ENV_MAX_SETTINGS)
		return;
	if (i == s->nsettings)
		s->nsettings++;
	else
		free(s->settings[i]);
	s->settings[i] = xmemdupz(it->text, it->len);
}

static void host_item(struct env_stats *s, const struct env_item *it)
{
	if (it->key == GT_ENV_SETTING) {
		add_setting(s, it);
	} else if (it->key < ENV_HOST_KEYS) {
		set_fact(&s->host[it->key], it);
	}
}

static void env_record(struct env_stats *s, const struct dump_record *rec)
{
	const void *pos = rec->info.items;
	const void *end = (const uint8_t *)pos + rec->info.size;
	struct env_device *d = device(s, rec->info.h.scope);
	struct env_item it;

	while (env_item_next(&pos, end, &it)) {
		if (rec->info.h.scope == GT_SCOPE_HOST)
			host_item(s, &it);
		else if (d)
			device_item(d, &it);
	}
}

static NOINLINE void add_info(struct model *m, const struct dump_record *rec)
{
	if (rec->type == DUMP_ENV)
		env_record(env_stats_of(m), rec);
	else
		env_sample(env_stats_of(m), rec);
}

/* Every record comes here: the others return before any work. */
void env_add(struct model *m, const struct dump_reader *r,
	     const struct dump_record *rec)
{
	(void)r;
	if (rec->type == DUMP_ENV || rec->type == DUMP_SAMPLE)
		add_info(m, rec);
}

void env_set_cupti(struct model *m, const char *state)
{
	env_stats_of(m)->cupti = state;
}

const char *env_cupti(const struct model *m)
{
	return m->env ? m->env->cupti : "off";
}

const char *env_setting(const struct env_stats *s, const char *name)
{
	size_t n = strlen(name);

	for (uint32_t i = 0; s && i < s->nsettings; i++)
		if (!strncmp(s->settings[i], name, n) && s->settings[i][n] == '=')
			return s->settings[i] + n + 1;
	return NULL;
}

int env_settings_known(const struct env_stats *s)
{
	return s && s->host[GT_ENV_SETTINGS].have &&
	       s->host[GT_ENV_SETTINGS].status == GT_INFO_OK;
}

static void free_facts(struct env_fact *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i].text);
}

void env_release(struct model *m)
{
	struct env_stats *s = m->env;

	if (!s)
		return;
	free_facts(s->host, ENV_HOST_KEYS);
	for (uint32_t i = 0; i < s->nsettings; i++)
		free(s->settings[i]);
	for (size_t i = 0; i < ENV_MAX_DEVICES; i++) {
		free_facts(s->nvml[i].f, ENV_DEV_KEYS);
		free_facts(s->cuda[i].f, ENV_DEV_KEYS);
	}
	free(s);
	m->env = NULL;
}
