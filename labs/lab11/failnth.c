// SPDX-License-Identifier: GPL-2.0
/*
 * failnth - fail every slab allocation of one operation in turn (Lab 11;
 * runs in the guest on the debug kernel, built on the host with
 * "gcc -static -Os -o failnth failnth.c").
 *
 *   failnth load MODULE.ko [PARAMS [RESET]]   load the module (finit_module)
 *   failnth read FILE                         open FILE and read it to the end
 *
 * For N = 1, 2, 3, ...: write N to /proc/thread-self/fail-nth, so that the
 * Nth fault injection point this thread passes fails (with failslab: the
 * Nth slab allocation; /sys/kernel/debug/failslab/ignore-gfp-wait must be
 * N), do the operation with system calls of this thread, and read back
 * the count: 0 means the failure was injected, more means the operation
 * made fewer than N allocations, and the scan is over.  A module that
 * loaded is unloaded again before the next N; with RESET (gcov/reset),
 * "1" is written there after each unload, so that no ghost is left and
 * the next load makes its debugfs files anew.  Prints how many operations
 * failed and how many succeeded in spite of a failed allocation (the
 * kernel coped), and exits 1 if the operation fails without any failed
 * allocation, or if a loaded module cannot be unloaded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int load(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

static int unload(const char *path)
{
	char name[256];
	char *dot;

	snprintf(name, sizeof(name), "%s", basename((char *)path));
	dot = strstr(name, ".ko");
	if (dot)
		*dot = '\0';
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

static int reset(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, "1", 1) == 1 ? 0 : -1;
	close(fd);
	return ret;
}

static int read_all(const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf, sizeof(buf));
	} while (n > 0);
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

static int set_nth(int ctl, unsigned int n)
{
	char num[16];
	int len = snprintf(num, sizeof(num), "%u", n);

	return pwrite(ctl, num, len, 0) == len ? 0 : -errno;
}

/* The count left: 0 once the failure was injected. */
static long get_nth(int ctl)
{
	char num[16] = "";

	if (pread(ctl, num, sizeof(num) - 1, 0) <= 0)
		return -1;
	return strtol(num, NULL, 10);
}

int main(int argc, char **argv)
{
	unsigned int n, failed = 0, coped = 0;
	int is_load, ctl, ret, status = 0;
	long left;

	if (argc < 3 || (strcmp(argv[1], "load") && strcmp(argv[1], "read"))) {
		fprintf(stderr, "usage: failnth load MODULE.ko [PARAMS [RESET]] | failnth read FILE\n");
		return 2;
	}
	is_load = !strcmp(argv[1], "load");
	/* Opened once: an open during the scan would be an allocation too. */
	ctl = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		perror("failnth: /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION?)");
		return 2;
	}
	for (n = 1; n < 100000; n++) {
		if (set_nth(ctl, n)) {
			perror("failnth: writing fail-nth");
			return 2;
		}
		ret = is_load ? load(argv[2], argc > 3 ? argv[3] : "") :
				read_all(argv[2]);
		left = get_nth(ctl);
		set_nth(ctl, 0);
		if (is_load && !ret && unload(argv[2])) {
			printf("failnth: %s loaded with allocation %u failing, and cannot be unloaded: %s\n",
			       argv[2], n, strerror(errno));
			return 1;
		}
		if (is_load && argc > 4 && reset(argv[4])) {
			printf("failnth: cannot write %s: %s\n", argv[4], strerror(errno));
			return 1;
		}
		if (left != 0) {
			/* Fewer than n allocations: nothing failed. */
			if (ret) {
				printf("failnth: %s %s failed with no allocation failing: %s\n",
				       argv[1], argv[2], strerror(-ret));
				status = 1;
			}
			break;
		}
		if (ret)
			failed++;
		else
			coped++;
	}
	printf("failnth: %s %s: %u allocations failed in turn: %u times the %s failed, %u times it succeeded\n",
	       argv[1], argv[2], n - 1, failed, is_load ? "load" : "read", coped);
	return status;
}
