/* SPDX-License-Identifier: MIT */
/*
 * settings.h - the GPUTRACE_* settings (settings.def), read and checked
 * once at start (settings.c); each part of the library asks for its own.
 */
#ifndef GPUTRACE_PRELOAD_SETTINGS_H
#define GPUTRACE_PRELOAD_SETTINGS_H

#include <stdint.h>

enum gt_setting {
#define GT_SETTING(id, name, kind, def, min, max, words) GT_S_##id,
#include "preload/base/settings.def"
#undef GT_SETTING
	GT_S_COUNT
};

/* Read and check every setting from the environment; with secure set
 * (a secure-execution program), none: all keep their defaults. */
void gt_settings_load(int secure);
/* A NUM's value or a WORD's index (the default when unset or bad). */
uint64_t gt_setting(enum gt_setting s);
/* Whether the environment gave it a value that was taken. */
int gt_setting_given(enum gt_setting s);
/* A TEXT's value as the environment gave it; NULL when unset or empty. */
const char *gt_setting_text(enum gt_setting s);
/* Its name: "GPUTRACE_FLUSH_MS". */
const char *gt_setting_name(enum gt_setting s);

#endif /* GPUTRACE_PRELOAD_SETTINGS_H */
