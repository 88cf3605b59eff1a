/* SPDX-License-Identifier: MIT */
/*
 * settings.c - the GPUTRACE_* settings of settings.def, read once at start
 * (settings.h).  A NUM out of range or not a whole number, or a WORD that
 * is none of its words, keeps its default and is said once on stderr: a
 * bad setting never stops the traced program.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "preload/base/internal.h"
#include "preload/base/settings.h"

enum kind { NUM, WORD, TEXT };

static const struct decl {
	const char *name;
	enum kind kind;
	uint64_t def, min, max;
	const char *words;          /* WORD: "a|b|c" */
} decls[GT_S_COUNT] = {
#define GT_SETTING(id, nm, k, d, lo, hi, w) \
	[GT_S_##id] = { nm, k, (uint64_t)(d), (uint64_t)(lo), (uint64_t)(hi), w },
#include "preload/base/settings.def"
#undef GT_SETTING
};

static struct {
	uint64_t value;
	int given;
	const char *text;
} vals[GT_S_COUNT];

static int num(const struct decl *d, const char *v, uint64_t *out)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || v[0] == '-' || n < d->min || n > d->max) {
		gt_log("gputrace: ignoring %s='%s' (want %llu..%llu), using %llu\n",
		       d->name, v, (unsigned long long)d->min,
		       (unsigned long long)d->max, (unsigned long long)d->def);
		return -1;
	}
	*out = n;
	return 0;
}

/* Word i of words ("a|b|c") and its length; NULL past the last. */
static const char *nth_word(const char *words, uint64_t i, int *len)
{
	for (; i && words; i--)
		words = strchr(words, '|') ? strchr(words, '|') + 1 : NULL;
	if (words)
		*len = (int)strcspn(words, "|");
	return words;
}

/* The index of v among d->words, else -1 (said). */
static int word(const struct decl *d, const char *v, uint64_t *out)
{
	const char *w;
	int n;

	for (uint64_t i = 0; (w = nth_word(d->words, i, &n)); i++) {
		if ((size_t)n == strlen(v) && !strncmp(w, v, (size_t)n)) {
			*out = i;
			return 0;
		}
	}
	w = nth_word(d->words, d->def, &n);
	gt_log("gputrace: ignoring %s='%s' (want one of %s), using %.*s\n",
	       d->name, v, d->words, w ? n : 0, w ? w : "");
	return -1;
}

static void load_one(enum gt_setting s)
{
	const struct decl *d = &decls[s];
	const char *v = getenv(d->name);

	vals[s].value = d->def;
	if (!v || !*v)
		return;
	if (d->kind == TEXT) {
		vals[s].text = v;
		vals[s].given = 1;
	} else if ((d->kind == NUM ? num(d, v, &vals[s].value)
				   : word(d, v, &vals[s].value)) == 0) {
		vals[s].given = 1;
	}
}

void gt_settings_load(int secure)
{
	for (int s = 0; s < GT_S_COUNT; s++) {
		memset(&vals[s], 0, sizeof(vals[s]));
		vals[s].value = decls[s].def;
		if (!secure)
			load_one((enum gt_setting)s);
	}
}

uint64_t gt_setting(enum gt_setting s)
{
	return vals[s].value;
}

int gt_setting_given(enum gt_setting s)
{
	return vals[s].given;
}

const char *gt_setting_text(enum gt_setting s)
{
	return vals[s].text;
}

const char *gt_setting_name(enum gt_setting s)
{
	return decls[s].name;
}
