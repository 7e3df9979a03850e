// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for the tool's children (tools/dmfault/base/proc.c): one
 * held in its exec-stop or before its exec runs or is aborted as told, a
 * failed exec gives its errno; a child that ends in time gives its status;
 * one past the deadline is killed with everything it started, and the
 * report says which task hung and in what.  KTAP output.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "ktap.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Gone or a zombie (killed, its parent not yet told). */
static bool dead(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return !p || p[2] == 'Z' || p[2] == 'X';
}

static void test_in_time(void)
{
	char hung[512] = "x";
	int st = 0, r;

	r = dft_sh_timeout("exit 3", "/dev/null", NULL, 10, &st, hung, sizeof(hung));
	KTAP_EXPECT_INT_EQ(r, 0);
	ktap_check(WIFEXITED(st) && WEXITSTATUS(st) == 3, "exit status 3, got %#x", st);
	KTAP_EXPECT_STR_EQ(hung, "");
	r = dft_sh_timeout("kill -TERM $$", "/dev/null", NULL, 10, &st, hung, sizeof(hung));
	KTAP_EXPECT_INT_EQ(r, 0);
	ktap_check(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "killed by SIGTERM, got %#x", st);
	/* no deadline: waits as long as it takes */
	r = dft_sh_timeout("sleep 0.3", "/dev/null", NULL, 0, &st, hung, sizeof(hung));
	ktap_check(!r && WIFEXITED(st) && !WEXITSTATUS(st) && !*hung, "no timeout: %d %#x", r, st);
}

/* run without --nth-sweep waits with no deadline and no @hung (a NULL once crashed it) */
static void test_no_report(void)
{
	int st = 0, r;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (!pid) {
		usleep(300000);
		_exit(4);
	}
	KTAP_EXPECT(pid > 0);
	if (pid <= 0)
		return;
	r = dft_wait_child(pid, &st, 1, NULL, 0);
	ktap_check(!r && WIFEXITED(st) && WEXITSTATUS(st) == 4, "status 4 without @hung: %d %#x",
		   r, st);
}

/* crashtest's lines: output appended to its file, the variables in the environment */
static void test_out_env(void)
{
	char file[] = "/tmp/dmfault_proc_test.XXXXXX", hung[512], buf[128] = "";
	char dev[] = "DMF_DEV=/dev/mapper/x", seed[] = "DMF_SEED=7";
	char *env[] = { dev, seed, NULL };
	int st = 0, r, fd;
	ssize_t n;

	fd = mkstemp(file);
	KTAP_EXPECT(fd >= 0);
	if (fd < 0)
		return;
	r = dft_sh_timeout("echo one", file, NULL, 10, &st, hung, sizeof(hung));
	KTAP_EXPECT_INT_EQ(r, 0);
	r = dft_sh_timeout("echo $DMF_DEV $DMF_SEED; echo err >&2", file, env, 10, &st, hung,
			   sizeof(hung));
	ktap_check(!r && WIFEXITED(st) && !WEXITSTATUS(st), "status 0: %d %#x", r, st);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	KTAP_EXPECT_STR_EQ(buf, "one\n/dev/mapper/x 7\nerr\n");
	ktap_check(!getenv("DMF_DEV"), "the caller's environment is unchanged");
	close(fd);
	unlink(file);
}

/* The end of a child's output: what hunt and crashtest say a failed line printed. */
static void test_file_tail(void)
{
	char file[] = "/tmp/dmfault_proc_test.XXXXXX", buf[8], big[64];
	int fd = mkstemp(file);

	KTAP_EXPECT(fd >= 0);
	if (fd < 0)
		return;
	KTAP_EXPECT_INT_EQ((int)dft_file_tail(file, big, sizeof(big)), 0);
	KTAP_EXPECT_STR_EQ(big, "");
	KTAP_EXPECT_INT_EQ((int)write(fd, "first\nthe last\n", 15), 15);
	/* the last 7 bytes of 15, not the first */
	KTAP_EXPECT_INT_EQ((int)dft_file_tail(file, buf, sizeof(buf)), 7);
	KTAP_EXPECT_STR_EQ(buf, "e last\n");
	KTAP_EXPECT_INT_EQ((int)dft_file_tail(file, big, sizeof(big)), 15);
	KTAP_EXPECT_STR_EQ(big, "first\nthe last\n");
	close(fd);
	unlink(file);
	KTAP_EXPECT_INT_EQ((int)dft_file_tail(file, big, sizeof(big)), 0);
	KTAP_EXPECT_STR_EQ(big, "");
}

static void test_hang(void)
{
	char file[] = "/tmp/dmfault_proc_test.XXXXXX", hung[512];
	int st = 0, r, fd, pids[2] = { 0, 0 };
	char line[256];
	double t0;
	FILE *f;

	fd = mkstemp(file);
	KTAP_EXPECT(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	/* a shell with two children of its own, the three past the deadline */
	snprintf(line, sizeof(line),
		 "sleep 97 & echo $! > %s; sleep 98 & echo $! >> %s; wait", file, file);
	t0 = now();
	r = dft_sh_timeout(line, "/dev/null", NULL, 1, &st, hung, sizeof(hung));
	KTAP_EXPECT_INT_EQ(r, -ETIMEDOUT);
	ktap_check(now() - t0 < 10, "back in %.1f s", now() - t0);
	ktap_check(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the shell was killed: %#x", st);
	ktap_check(!strncmp(hung, "killed after 1 s (--step-timeout); pid ", 39),
		   "the report: '%s'", hung);
	ktap_check(strstr(hung, "(sleep) state S") != NULL, "names what the shell waits for: '%s'",
		   hung);
	/* its kernel stack: /proc/PID/stack is root's */
	if (!geteuid())
		ktap_check(strstr(hung, ": hrtimer_nanosleep < ") != NULL ||
			   strstr(hung, ": do_nanosleep < ") != NULL, "and where: '%s'", hung);
	f = fopen(file, "r");
	KTAP_EXPECT(f != NULL);
	if (f) {
		ktap_check(fscanf(f, "%d %d", &pids[0], &pids[1]) == 2, "the children's pids");
		fclose(f);
	}
	unlink(file);
	usleep(100000);
	ktap_check(pids[0] > 0 && dead(pids[0]) && pids[1] > 0 && dead(pids[1]),
		   "what it started was killed too (%d, %d)", pids[0], pids[1]);
}

/* run's command: held in its exec-stop (traced) or before its exec, then let go */
static void test_spawn_held(void)
{
	char *argv[] = { "sh", "-c", "exit 5", NULL };
	struct dft_spawn sp = { .argv = argv, .flags = DFT_PROC_TRACE };
	struct dft_proc p;
	char state, path[64], buf[256], *s;
	FILE *f;
	int r;

	r = dft_proc_spawn(&p, &sp);
	ktap_check(!r && p.pid > 0 && !p.exec_errno, "traced spawn: %d", r);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p.pid);
	f = fopen(path, "r");
	s = f && fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	state = s ? s[2] : '?';
	if (f)
		fclose(f);
	ktap_check(state == 't', "held in its exec-stop: state %c", state);
	ktap_check(dft_proc_release(&p, true), "released");
	r = dft_proc_wait(&p, 10, NULL, 0);
	ktap_check(!r && dft_exit_code(p.status) == 5, "exit 5: %d %#x", r, p.status);
	KTAP_EXPECT_INT_EQ(p.err, -1);

	sp.flags = DFT_PROC_HOLD;
	r = dft_proc_spawn(&p, &sp);
	KTAP_EXPECT_INT_EQ(r, 0);
	ktap_check(!dft_proc_release(&p, false), "aborted before its exec");
	r = dft_proc_wait(&p, 0, NULL, 0);
	ktap_check(!r && dft_exit_code(p.status) == 127 && !p.exec_errno,
		   "an aborted child exits 127 without an exec: %d %#x %d", r, p.status,
		   p.exec_errno);

	r = dft_proc_spawn(&p, &sp);
	ktap_check(!r && dft_proc_release(&p, true), "held, then let go");
	r = dft_proc_wait(&p, 10, NULL, 0);
	ktap_check(!r && dft_exit_code(p.status) == 5, "exit 5: %d %#x", r, p.status);
}

/* An exec that fails says why, traced (reaped at once) or held */
static void test_spawn_enoent(void)
{
	char *argv[] = { "/nonexistent/dmfault-test", NULL };
	struct dft_spawn sp = { .argv = argv, .flags = DFT_PROC_TRACE };
	struct dft_proc p;
	int r;

	r = dft_proc_spawn(&p, &sp);
	ktap_check(!r && p.exec_errno == ENOENT && dft_exit_code(p.status) == 127,
		   "traced: exec errno %d, status %#x", p.exec_errno, p.status);
	sp.flags = DFT_PROC_HOLD;
	r = dft_proc_spawn(&p, &sp);
	ktap_check(!r && !p.exec_errno, "held: not run yet");
	dft_proc_release(&p, true);
	r = dft_proc_wait(&p, 10, NULL, 0);
	ktap_check(!r && p.exec_errno == ENOENT && dft_exit_code(p.status) == 127,
		   "held: exec errno %d, status %#x", p.exec_errno, p.status);
}

/* The sweep's probe: stdout to a file, stderr to a pipe, @path other than argv[0] */
static void test_spawn_fds(void)
{
	char *argv[] = { "named", "-c", "echo out; echo $0 >&2", NULL };
	struct dft_spawn sp = { .argv = argv, .path = "/bin/sh", .out = "/dev/null" };
	struct dft_proc p;
	char buf[64] = "";
	int r, fds[2];
	ssize_t n;

	KTAP_EXPECT(!pipe(fds));
	sp.fd2 = fds[1];
	r = dft_proc_spawn(&p, &sp);
	close(fds[1]);
	KTAP_EXPECT_INT_EQ(r, 0);
	n = read(fds[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	r = dft_proc_wait(&p, 0, NULL, 0);
	ktap_check(!r && dft_exit_code(p.status) == 0, "status 0: %d %#x", r, p.status);
	KTAP_EXPECT_STR_EQ(buf, "named\n");
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_spawn_held),
	KTAP_CASE(test_spawn_enoent),
	KTAP_CASE(test_spawn_fds),
	KTAP_CASE(test_in_time),
	KTAP_CASE(test_no_report),
	KTAP_CASE(test_out_env),
	KTAP_CASE(test_file_tail),
	KTAP_CASE(test_hang),
};

int main(void)
{
	return ktap_run("dmfault_proc", cases, ARRAY_SIZE(cases));
}
