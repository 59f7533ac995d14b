// SPDX-License-Identifier: GPL-2.0
/*
 * badio - feed a gcov debugfs file the input a careless user or program
 * gives it (Lab 11; runs in the guest, built on the host with
 * "gcc -static -Os -o badio badio.c").
 *
 *   badio FILE...
 *
 * For each FILE (a .gcda file or gcov/reset): writes of 0 bytes, of
 * 1 MiB and of binary data; a read after a seek past the end; seeks to
 * a negative offset, from the start and from the end.  One line per
 * operation with what the kernel answered.  A write may succeed or fail
 * with an error number, but it must not hang or crash; a read past the
 * end must return 0 bytes; a seek before the start must fail with
 * EINVAL, or do nothing in a file whose seeks do nothing (gcov/reset).
 * Exit status 1 if any of those did not hold, 0 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024 * 1024)

static int failed;

static void show(const char *path, const char *what, long ret, int err)
{
	if (ret < 0)
		printf("badio: %s: %s: -1 (%s)\n", path, what, strerror(err));
	else
		printf("badio: %s: %s: %ld\n", path, what, ret);
}

static void expect(int ok, const char *path, const char *what)
{
	if (!ok) {
		printf("badio: %s: %s: UNEXPECTED\n", path, what);
		failed = 1;
	}
}

static void try_write(const char *path, const char *what, const char *buf,
		      size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t ret;

	if (fd < 0) {
		/* A ghost's file goes with the first write: not an error. */
		show(path, "open for writing", -1, errno);
		return;
	}
	ret = write(fd, buf, len);
	show(path, what, ret, errno);
	expect(ret < 0 || (size_t)ret <= len, path, what);
	close(fd);
}

static void try_seeks(const char *path)
{
	char buf[64];
	off_t end, pos, before;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		show(path, "open for reading", -1, errno);
		return;
	}
	end = lseek(fd, 0, SEEK_END);
	show(path, "seek to the end", end, errno);
	pos = lseek(fd, end + 4096, SEEK_SET);
	show(path, "seek 4096 past the end", pos, errno);
	n = read(fd, buf, sizeof(buf));
	show(path, "read there", n, errno);
	expect(n == 0, path, "read past the end returns 0 bytes");
	/*
	 * Before the start: an error (EINVAL), or, for a file whose seeks
	 * do nothing (noop_llseek), the position it had.
	 */
	before = lseek(fd, 0, SEEK_CUR);
	errno = 0;
	pos = lseek(fd, -1, SEEK_SET);
	show(path, "seek to -1", pos, errno);
	expect(pos < 0 ? errno == EINVAL : pos == before, path,
	       "seek to -1 fails with EINVAL or does nothing");
	errno = 0;
	pos = lseek(fd, -(end + 1), SEEK_END);
	show(path, "seek to 1 before the start, from the end", pos, errno);
	expect(pos < 0 ? errno == EINVAL : pos == before, path,
	       "seek before the start fails with EINVAL or does nothing");
	close(fd);
}

int main(int argc, char **argv)
{
	char *big = malloc(MIB);
	char binary[256];
	int i;

	if (argc < 2 || !big) {
		fprintf(stderr, "usage: badio FILE...\n");
		return 2;
	}
	memset(big, '1', MIB);
	for (i = 0; i < 256; i++)
		binary[i] = (char)i;
	for (i = 1; i < argc; i++) {
		try_seeks(argv[i]);
		try_write(argv[i], "write 0 bytes", big, 0);
		try_write(argv[i], "write 1 MiB", big, MIB);
		try_write(argv[i], "write 256 binary bytes", binary,
			  sizeof(binary));
	}
	free(big);
	return failed;
}
