// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf-allocsys: the process the allocator suite aims faults at.
 *
 *   dmf-allocsys RESULTS READY FIFO OP... [-- PROG ARGS...]
 *
 * Locks its memory (no page fault after this), prepares what the OPs need,
 * creates READY, blocks reading FIFO until the parent has marked it or set
 * its fail-nth, then runs each OP and writes "OP ERRNO" lines into RESULTS
 * through a shared mapping made before (so reporting allocates nothing).
 * With "-- PROG ARGS" it then execs PROG.  Exit status: the number of
 * failed OPs.  A static binary on tmpfs: nothing is read from the 9p root.
 *
 *   creat:PATH      open(O_CREAT|O_TRUNC) and close
 *   open:PATH       open an existing file and close
 *   mkdir:PATH      mkdir
 *   setpipe:BYTES   F_SETPIPE_SZ on a pipe made beforehand
 *   pipewrite       write one byte into an empty pipe made beforehand
 *   fork:PATH       fork; the child creats PATH; its errno is the result
 *   loop:N:DIR      N times creat DIR/f, close, unlink (a benchmark)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *out;
static size_t outlen;

static void put(const char *s)
{
	while (*s && outlen < 4095)
		out[outlen++] = *s++;
}

static void put_num(long v)
{
	char b[24];
	int i = sizeof(b);

	b[--i] = 0;
	do {
		b[--i] = '0' + v % 10;
		v /= 10;
	} while (v && i);
	put(b + i);
}

static int op_creat(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int run(const char *op, int *pipes)
{
	const char *arg = strchr(op, ':');
	pid_t pid;
	int st, fd;

	arg = arg ? arg + 1 : "";
	if (!strncmp(op, "creat:", 6))
		return op_creat(arg);
	if (!strncmp(op, "open:", 5)) {
		fd = open(arg, O_RDONLY);
		if (fd < 0)
			return errno;
		close(fd);
		return 0;
	}
	if (!strncmp(op, "mkdir:", 6))
		return mkdir(arg, 0755) ? errno : 0;
	if (!strncmp(op, "setpipe:", 8))
		return fcntl(pipes[1], F_SETPIPE_SZ, atoi(arg)) < 0 ? errno : 0;
	if (!strcmp(op, "pipewrite"))
		return write(pipes[3], "x", 1) < 0 ? errno : 0;
	if (!strncmp(op, "fork:", 5)) {
		pid = fork();
		if (pid < 0)
			return errno;
		if (!pid)
			_exit(op_creat(arg));
		if (waitpid(pid, &st, 0) < 0)
			return errno;
		return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
	}
	if (!strncmp(op, "loop:", 5)) {
		long n = atol(arg), i;
		const char *dir = strchr(arg, ':');
		char path[256];

		if (!dir || strlen(dir) > 200)
			return EINVAL;
		strcpy(path, dir + 1);
		strcat(path, "/f");
		for (i = 0; i < n; i++) {
			st = op_creat(path);
			if (st)
				return st;
			unlink(path);
		}
		return 0;
	}
	return EINVAL;
}

int main(int argc, char **argv)
{
	int pipes[4], fd, i, failed = 0;
	char go;

	if (argc < 4)
		return 127;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 4096))
		return 127;
	out = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (out == MAP_FAILED)
		return 127;
	close(fd);
	memset(out, 0, 4096);
	if (pipe(pipes) || pipe(pipes + 2))
		return 127;
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		return 127;
	if (op_creat(argv[2]))
		return 127;
	fd = open(argv[3], O_RDONLY);
	if (fd < 0 || read(fd, &go, 1) != 1)
		return 127;
	close(fd);
	for (i = 4; i < argc && strcmp(argv[i], "--"); i++) {
		int r = run(argv[i], pipes);

		put(argv[i]);
		put(" ");
		put_num(r);
		put("\n");
		failed += !!r;
	}
	if (i < argc - 1) {
		execv(argv[i + 1], argv + i + 1);
		return 126;
	}
	return failed;
}
