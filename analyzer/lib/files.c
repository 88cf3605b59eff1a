/* SPDX-License-Identifier: MIT */
/*
 * files.c - opening dumps without blocking on a FIFO, and writing
 * outputs through a temporary file renamed over the target (files.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/lib/files.h"
#include "analyzer/lib/util.h"

/* errno for a kind of file refused here; open() gives it for none */
#define NOT_REGULAR EMEDIUMTYPE

/* Make fd blocking again and wrap it; NULL (fd closed) on failure. */
static FILE *wrap(int fd, const char *mode)
{
	int flags = fcntl(fd, F_GETFL);
	FILE *fp;

	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		close(fd);
		return NULL;
	}
	fp = fdopen(fd, mode);
	if (!fp)
		close(fd);
	return fp;
}

/* Close fd and fail with err. */
static FILE *refuse(int fd, int err)
{
	close(fd);
	errno = err;
	return NULL;
}

FILE *files_open_input(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0)
		return refuse(fd, errno);
	if (!S_ISREG(st.st_mode))
		return refuse(fd, S_ISDIR(st.st_mode) ? EISDIR : NOT_REGULAR);
	return wrap(fd, "rb");
}

/* The temporary file being written: removed at exit (die) or on a
 * signal that ends the analyzer, never left behind. */
static char *volatile live_tmp;

static void drop_live_tmp(void)
{
	if (live_tmp)
		unlink(live_tmp);
}

static void drop_and_die(int sig)
{
	drop_live_tmp();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The signals that end the analyzer, and remove the temporary file first. */
static const int ending[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

/*
 * Once: the temporary file removed at exit and on the signals that end
 * the analyzer; a file size limit (ulimit -f) made a write error (EFBIG)
 * rather than a signal that kills.  Signals the analyzer was started
 * with ignored stay ignored.
 */
static void arm_signals(void)
{
	static int armed;
	struct sigaction sa, old;

	if (armed++)
		return;
	atexit(drop_live_tmp);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = drop_and_die;
	for (size_t i = 0; i < sizeof(ending) / sizeof(ending[0]); i++)
		if (sigaction(ending[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(ending[i], &sa, NULL);
	signal(SIGXFSZ, SIG_IGN);
}

/*
 * Hold the ending signals off (the old mask in *old) while the temporary
 * file is created or renamed and live_tmp catches up: one arriving
 * between the two would find a file live_tmp does not name yet, or no
 * longer.  Held, it comes when released, and the handler sees both agree.
 * Outputs are written by one thread, the only one then.
 */
static void hold_ending(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(ending) / sizeof(ending[0]); i++)
		sigaddset(&set, ending[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void release_ending(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* mkostemp(tmp), live_tmp naming it as soon as it exists. */
static int make_tmp(char *tmp)
{
	sigset_t old;
	int fd, err;

	hold_ending(&old);
	fd = mkostemp(tmp, O_CLOEXEC);
	err = errno;
	if (fd >= 0)
		live_tmp = tmp;
	release_ending(&old);
	errno = err;
	return fd;
}

/* Rename tmp over dest (ok) or remove it; live_tmp no longer names it.
 * -1 with errno set when the rename failed (tmp removed). */
static int settle_tmp(const char *tmp, const char *dest, int ok)
{
	sigset_t old;
	int rc = 0, err = 0;

	hold_ending(&old);
	if (ok && rename(tmp, dest) < 0) {
		err = errno;
		rc = -1;
	}
	if (!ok || rc)
		unlink(tmp);
	live_tmp = NULL;
	release_ending(&old);
	errno = err;
	return rc;
}

static int cannot(const char *path, const char *why)
{
	error_msg("cannot write '%s': %s", path, why);
	return -1;
}

/* A character device or a FIFO (st), written into as it is. */
static int straight(struct files_out *o, const struct stat *st,
		    const char *file_only)
{
	struct stat now;
	int fd;

	if (S_ISDIR(st->st_mode))
		return cannot(o->name, strerror(EISDIR));
	if (!S_ISCHR(st->st_mode) && !S_ISFIFO(st->st_mode))
		return cannot(o->name, "not a regular file, a character device "
			      "or a FIFO");
	if (file_only) {
		error_msg("cannot write '%s': %s needs a regular file, not a "
			  "device or a FIFO", o->name, file_only);
		return -1;
	}
	/* O_NONBLOCK: a FIFO nobody reads fails at once (ENXIO) */
	fd = open(o->name, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return cannot(o->name, errno == ENXIO ? "no program reads this "
			      "FIFO" : strerror(errno));
	if (fstat(fd, &now) < 0 || (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT)) {
		close(fd);
		return cannot(o->name, "it changed while it was opened");
	}
	o->fp = wrap(fd, "w");
	return o->fp ? 0 : cannot(o->name, strerror(errno));
}

/* "DIR/.NAME.XXXXXX" beside dest. */
static char *tmp_name(const char *dest)
{
	const char *slash = strrchr(dest, '/');
	int dir = slash ? (int)(slash - dest + 1) : 0;

	return xasprintf("%.*s.%s.XXXXXX", dir, dest, dest + dir);
}

/* A regular file, or none yet: written beside, renamed over it at the end. */
static int beside(struct files_out *o, const char *file_only)
{
	struct stat st;
	mode_t mode, mask;
	int fd, have;

	if (lstat(o->name, &st) == 0 && S_ISLNK(st.st_mode)) {
		o->dest = realpath(o->name, NULL);  /* replace what it points to */
		if (!o->dest)
			return cannot(o->name, strerror(errno));
	} else {
		o->dest = xstrdup(o->name);
	}
	have = stat(o->dest, &st) == 0;
	if (have) {
		mode = st.st_mode & 07777;
	} else {
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	o->tmp = tmp_name(o->dest);
	fd = make_tmp(o->tmp);
	/* the file replaced keeps its owner where we may give it (root) */
	if (fd >= 0 && have && fchown(fd, st.st_uid, st.st_gid) < 0)
		errno = 0;
	if (fd < 0 || fchmod(fd, mode) < 0) {
		cannot(o->name, strerror(errno));
		if (fd >= 0) {
			close(fd);
			settle_tmp(o->tmp, o->dest, 0);
		}
		free(o->tmp);
		free(o->dest);
		o->tmp = o->dest = NULL;
		return -1;
	}
	if (file_only) {
		close(fd);
		return 0;
	}
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		close(fd);
		files_out_end(o, 0);
		return cannot(o->name, strerror(ENOMEM));
	}
	return 0;
}

int files_out_begin(struct files_out *o, const char *path,
		    const char *file_only)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->name = path;
	arm_signals();
	if (!strcmp(path, "-")) {
		if (file_only) {
			error_msg("%s cannot go to standard output ('-'): give a "
				  "file name", file_only);
			return -1;
		}
		o->fp = stdout;
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return straight(o, &st, file_only);
	return beside(o, file_only);
}

int files_out_end(struct files_out *o, int ok)
{
	int rc = ok ? 0 : -1;

	if (o->fp && ferror(o->fp) && rc == 0)    /* a write that failed */
		rc = cannot(o->name, strerror(errno ? errno : EIO));
	if (o->fp == stdout) {
		if (fflush(stdout) && rc == 0)
			rc = cannot(o->name, strerror(errno));
	} else if (o->fp && fclose(o->fp) && rc == 0) {
		rc = cannot(o->name, strerror(errno));
	}
	o->fp = NULL;
	if (o->tmp) {
		if (settle_tmp(o->tmp, o->dest, rc == 0) < 0 && rc == 0)
			rc = cannot(o->name, strerror(errno));
		free(o->tmp);
		free(o->dest);
		o->tmp = o->dest = NULL;
	}
	return rc;
}

const char *files_strerror(int err)
{
	return err == NOT_REGULAR ? "not a regular file" : strerror(err);
}
