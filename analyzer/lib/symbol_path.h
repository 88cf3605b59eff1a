/* SPDX-License-Identifier: MIT */
/*
 * symbol_path.h - find the file of a module a dump names, by its recorded
 * path and its build id, in the directories the user names (--symbols,
 * GPUTRACE_SYMBOL_PATH), so that a dump analyzed elsewhere than where it
 * was recorded (another machine, another checkout) is still symbolized.
 */
#ifndef GPUTRACE_ANALYZER_SYMBOL_PATH_H
#define GPUTRACE_ANALYZER_SYMBOL_PATH_H

#include <stddef.h>
#include <stdint.h>

struct symtab;

/*
 * The directories to look in, in order: first[0..nfirst) (--symbols),
 * then those of list (colon-separated: GPUTRACE_SYMBOL_PATH; NULL: "/",
 * the recorded paths themselves; "": none).  Call it before any dump is
 * read: symbol_find only reads them.  Without it, symbol_find looks at
 * the recorded path only.
 */
void symbol_path_init(char *const *first, size_t nfirst, const char *list);
void symbol_path_release(void);

/*
 * The symbols of the first file found with build id id: for each
 * directory DIR, DIR/RECORDED (when recorded is absolute), then, when the
 * dump has a build id, DIR/.build-id/xx/rest.debug, DIR/.build-id/xx/rest
 * and DIR/NAME (recorded's file name).  NULL when none is there.
 */
struct symtab *symbol_find(const char *recorded, const uint8_t *id,
			   size_t id_len);

#endif /* GPUTRACE_ANALYZER_SYMBOL_PATH_H */
