/* SPDX-License-Identifier: MIT */
/*
 * test_preload_output.c - unit tests (cmocka) for the dump's path template
 * and its safe creation: mode 0600, no overwrite, no symbolic links,
 * fields that never leave the directory whatever the host name or rank,
 * an absolute path, and devices and FIFOs written into as they are.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/base/output_path.h"

static void expands_pid_host_rank(void **state)
{
	char out[512], want[512], host[256] = "";

	gethostname(host, sizeof(host) - 1);
	setenv("RANK", "7", 1);
	assert_int_equal(gt_output_expand("d/t-%h-%p-%r-%%.bin", out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "d/t-%s-%d-7-%%.bin", host, (int)getpid());
	assert_string_equal(out, want);
	unsetenv("RANK");
	setenv("SLURM_PROCID", "3", 1);
	assert_int_equal(gt_output_rank(), 3);
	setenv("PMI_RANK", "4", 1);             /* MPICH's and Intel MPI's mpirun */
	assert_int_equal(gt_output_rank(), 4);
	unsetenv("PMI_RANK");
	unsetenv("SLURM_PROCID");
	assert_int_equal(gt_output_rank(), 0);
}

static void expansion_too_long_fails(void **state)
{
	char out[8];

	assert_int_equal(gt_output_expand("0123456789", out, sizeof(out)), -1);
	assert_int_equal(gt_output_expand("", out, sizeof(out)), -1);
}

/* Without %p or %r, the main process's dump takes the name as it is; any
 * other process gets "-PID" before the extension. */
static void other_processes_get_their_pid(void **state)
{
	char out[512], want[512];
	int me = (int)getpid();

	gt_output_main_pid = me;
	assert_int_equal(gt_output_expand("d/out.bin", out, sizeof(out)), 0);
	assert_string_equal(out, "d/out.bin");
	gt_output_main_pid = me + 1;
	assert_int_equal(gt_output_expand("d/out.bin", out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "d/out-%d.bin", me);
	assert_string_equal(out, want);
	assert_int_equal(gt_output_expand("d.x/out", out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "d.x/out-%d", me);
	assert_string_equal(out, want);
	assert_int_equal(gt_output_expand("d/t-%p.bin", out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "d/t-%d.bin", me);
	assert_string_equal(out, want);                 /* %p: unique already */
	setenv("RANK", "3", 1);
	assert_int_equal(gt_output_expand("d/rank%r.bin", out, sizeof(out)), 0);
	assert_string_equal(out, "d/rank3.bin");        /* %r: one per rank */
	unsetenv("RANK");
	assert_int_equal(gt_output_expand("0123", out, 6), -1);  /* no room */
	gt_output_main_pid = 0;
	assert_int_equal(gt_output_expand("d/out.bin", out, sizeof(out)), 0);
	assert_string_equal(out, "d/out.bin");
}

static const char *fake_host;

static int hostname_of_test(char *name, size_t len)
{
	snprintf(name, len, "%s", fake_host);
	return 0;
}

static void expand_with_host(const char *host, const char *tmpl, const char *want)
{
	char out[512];

	fake_host = host;
	gt_output_hostname = hostname_of_test;
	assert_int_equal(gt_output_expand(tmpl, out, sizeof(out)), 0);
	gt_output_hostname = gethostname;
	assert_string_equal(out, want);
}

static void fields_stay_in_the_directory(void **state)
{
	char out[512];

	expand_with_host("../evil/pwn", "out/%h.bin", "out/___evil_pwn.bin");
	expand_with_host("..", "out/%h", "out/__");
	expand_with_host(".", "out/%h", "out/_");
	expand_with_host("/etc/x", "out/%h.bin", "out/_etc_x.bin");
	expand_with_host(".hidden.node", "%h-1", "_hidden.node-1");
	expand_with_host("", "%h", "localhost");
	expand_with_host("node-1.example", "../d/%h.bin", "../d/node-1.example.bin");
	setenv("RANK", "../x", 1);
	assert_int_equal(gt_output_expand("out/%r.bin", out, sizeof(out)), 0);
	assert_string_equal(out, "out/0.bin");
	unsetenv("RANK");
}

static void creates_0600_and_never_overwrites(void **state)
{
	char dir[] = "/tmp/gt-unit-XXXXXX", path[4096], first[4096];
	struct stat st;
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/dump.bin", dir);
	fd = gt_output_create(path, sizeof(path));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	strcpy(first, path);
	fd = gt_output_create(path, sizeof(path));  /* exists: a new name */
	assert_true(fd >= 0);
	close(fd);
	snprintf(first, sizeof(first), "%s/dump.1.bin", dir);
	assert_string_equal(path, first);
	snprintf(path, sizeof(path), "%s/dump.bin", dir);
	unlink(path);
	unlink(first);
	rmdir(dir);
}

static void refuses_symbolic_links(void **state)
{
	char dir[] = "/tmp/gt-unit-XXXXXX", link_path[4096], target[4096];
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link_path, sizeof(link_path), "%s/dump.bin", dir);
	assert_int_equal(symlink(target, link_path), 0);
	fd = gt_output_create(link_path, sizeof(link_path));
	/* the link is never followed: another name is used instead */
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(access(target, F_OK), -1);
	unlink(link_path);
	snprintf(link_path, sizeof(link_path), "%s/dump.1.bin", dir);
	unlink(link_path);
	snprintf(link_path, sizeof(link_path), "%s/dump.bin", dir);
	rmdir(dir);
}

/* A relative name is created from the working directory and given back
 * absolute. */
static void makes_the_path_absolute(void **state)
{
	char dir[] = "/tmp/gt-unit-XXXXXX", old[4096], path[4096] = "dump.bin";
	char want[4096];
	int fd;

	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(old, sizeof(old)));
	assert_int_equal(chdir(dir), 0);
	fd = gt_output_create(path, sizeof(path));
	assert_int_equal(chdir(old), 0);
	assert_true(fd >= 0);
	close(fd);
	snprintf(want, sizeof(want), "%s/dump.bin", dir);
	assert_string_equal(path, want);
	assert_int_equal(unlink(want), 0);
	rmdir(dir);
}

/* /dev/null is written into as it is; a FIFO too while someone reads it,
 * and refused at once (-ENXIO) when no one does; no numbered name. */
static void writes_into_devices_and_fifos(void **state)
{
	char dir[] = "/tmp/gt-unit-XXXXXX", path[4096], fifo[4096];
	struct stat st;
	int fd, reader;

	strcpy(path, "/dev/null");
	fd = gt_output_create(path, sizeof(path));
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_string_equal(path, "/dev/null");
	close(fd);

	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	strcpy(path, fifo);
	assert_int_equal(gt_output_create(path, sizeof(path)), -ENXIO);
	reader = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(reader >= 0);
	fd = gt_output_create(path, sizeof(path));
	assert_true(fd >= 0);
	assert_string_equal(path, fifo);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	close(reader);
	snprintf(path, sizeof(path), "%s/fifo.1", dir);
	assert_int_equal(access(path, F_OK), -1);
	unlink(fifo);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(expands_pid_host_rank),
		cmocka_unit_test(expansion_too_long_fails),
		cmocka_unit_test(other_processes_get_their_pid),
		cmocka_unit_test(fields_stay_in_the_directory),
		cmocka_unit_test(creates_0600_and_never_overwrites),
		cmocka_unit_test(refuses_symbolic_links),
		cmocka_unit_test(makes_the_path_absolute),
		cmocka_unit_test(writes_into_devices_and_fifos),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
