// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf-hunt: one short trip through a kernel path, for the paths of
 * `dmfault hunt` that no standard command reaches in a few system calls.
 * Static, so that a sweep's steps go to the kernel path and not to the
 * dynamic loader.  Installed as PREFIX/libexec/dmfault/dmf-hunt; the
 * catalogue names it $DMF_HUNT.
 *
 *   dmf-hunt [--plant FILE] [--hang] OP [ARG...]
 *
 *   pipe                  pipe2, write and read a byte
 *   unix|inet|inet6       a datagram socket pair (unix) or a UDP socket bound
 *                         to the loopback, a datagram sent to itself
 *   netlink               a NETLINK_ROUTE socket, RTM_GETLINK dump read
 *   packet                an AF_PACKET socket bound to lo
 *   epoll                 epoll_create1, add a pipe, epoll_wait
 *   inotify               inotify_init1, a watch on /dev/shm, rm the watch
 *   eventfd               eventfd, write and read
 *   timerfd               timerfd_create, arm 1 ms, read the expiry
 *   io_uring              io_uring_setup with 8 entries, mmap the rings
 *   unshare FLAGS         unshare(2); FLAGS of n m U p i u (p: then fork)
 *   mount TYPE SRC DIR    mount(2), then umount2(2) if it worked
 *   insmod DIR NAME       finit_module of DIR/NAME.ko or DIR/NAME.ko.xz
 *                         (MODULE_INIT_COMPRESSED_FILE), then delete_module
 *
 * Exit status: 0 if the op worked, 1 if a call failed (its errno on
 * stderr), 2 on bad usage.  --plant FILE is for the hunt's own test: when
 * a call fails with ENOMEM, FILE is removed, a stand-in for an error path
 * that leaves lasting damage behind.  --hang: after the op, worked or not,
 * wait for a signal forever, a stand-in for an error path that hangs (the
 * test of dmfault's --step-timeout).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE	4
#endif

static const char *plant;

/* A failed call: say which, plant the damage on ENOMEM; returns 1. */
static int failed(const char *what)
{
	int e = errno;

	fprintf(stderr, "dmf-hunt: %s: %s\n", what, strerror(e));
	if (e == ENOMEM && plant)
		unlink(plant);
	return 1;
}

static int op_pipe(void)
{
	int p[2];
	char c = 'x';

	if (pipe2(p, O_CLOEXEC))
		return failed("pipe2");
	if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
		return failed("pipe write/read");
	return 0;
}

static int op_dgram(int family)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr *a = family == AF_INET ? (void *)&a4 : (void *)&a6;
	socklen_t len = family == AF_INET ? sizeof(a4) : sizeof(a6);
	char c = 'x';
	int s, sv[2];

	if (family == AF_UNIX) {
		if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
			return failed("socketpair");
		if (send(sv[0], &c, 1, 0) != 1 || recv(sv[1], &c, 1, 0) != 1)
			return failed("unix send/recv");
		return 0;
	}
	s = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return failed("socket");
	if (bind(s, a, len) || getsockname(s, a, &len))
		return failed("bind");
	if (sendto(s, &c, 1, 0, a, len) != 1 || recv(s, &c, 1, 0) != 1)
		return failed("sendto/recv");
	return 0;
}

static int op_netlink(void)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.ifi = { .ifi_family = AF_UNSPEC },
	};
	char buf[8192];
	struct nlmsghdr *nh;
	ssize_t n;
	int s;

	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0)
		return failed("socket");
	if (send(s, &req, sizeof(req), 0) < 0)
		return failed("send");
	for (;;) {
		n = recv(s, buf, sizeof(buf), 0);
		if (n < 0)
			return failed("recv");
		for (nh = (void *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				errno = -((struct nlmsgerr *)NLMSG_DATA(nh))->error;
				return failed("RTM_GETLINK");
			}
		}
	}
}

static int op_packet(void)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int s;

	s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (s < 0)
		return failed("socket");
	sll.sll_ifindex = if_nametoindex("lo");
	if (!sll.sll_ifindex)
		return failed("if_nametoindex lo");
	if (bind(s, (void *)&sll, sizeof(sll)))
		return failed("bind");
	return 0;
}

static int op_epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep, p[2];

	if (pipe2(p, O_CLOEXEC))
		return failed("pipe2");
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		return failed("epoll_create1");
	if (epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev))
		return failed("epoll_ctl");
	if (write(p[1], "x", 1) != 1 || epoll_wait(ep, &ev, 1, 1000) != 1)
		return failed("epoll_wait");
	return 0;
}

static int op_inotify(void)
{
	int fd, wd;

	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0)
		return failed("inotify_init1");
	wd = inotify_add_watch(fd, "/dev/shm", IN_CREATE);
	if (wd < 0)
		return failed("inotify_add_watch");
	if (inotify_rm_watch(fd, wd))
		return failed("inotify_rm_watch");
	return 0;
}

static int op_eventfd(void)
{
	uint64_t v = 1;
	int fd = eventfd(0, EFD_CLOEXEC);

	if (fd < 0)
		return failed("eventfd");
	if (write(fd, &v, 8) != 8 || read(fd, &v, 8) != 8)
		return failed("eventfd write/read");
	return 0;
}

static int op_timerfd(void)
{
	struct itimerspec its = { .it_value.tv_nsec = 1000000 };
	uint64_t v;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

	if (fd < 0)
		return failed("timerfd_create");
	if (timerfd_settime(fd, 0, &its, NULL) || read(fd, &v, 8) != 8)
		return failed("timerfd settime/read");
	return 0;
}

static int op_io_uring(void)
{
	struct io_uring_params p;
	void *sq;
	int fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(__NR_io_uring_setup, 8, &p);
	if (fd < 0)
		return failed("io_uring_setup");
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(__u32), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return failed("mmap sq ring");
	return 0;
}

static int op_unshare(const char *flags)
{
	static const struct { char c; int flag; } map[] = {
		{ 'n', CLONE_NEWNET }, { 'm', CLONE_NEWNS }, { 'U', CLONE_NEWUSER },
		{ 'p', CLONE_NEWPID }, { 'i', CLONE_NEWIPC }, { 'u', CLONE_NEWUTS },
	};
	unsigned int i;
	int f = 0, st;
	pid_t pid;

	for (; *flags; flags++)
		for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (map[i].c == *flags)
				f |= map[i].flag;
	if (unshare(f))
		return failed("unshare");
	if (!(f & CLONE_NEWPID))
		return 0;
	pid = fork();
	if (pid < 0)
		return failed("fork into the new pid namespace");
	if (!pid)
		_exit(getpid() == 1 ? 0 : 3);
	if (waitpid(pid, &st, 0) < 0)
		return failed("waitpid");
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1;
}

static int op_mount(const char *type, const char *src, const char *dir)
{
	if (mount(src, dir, type, 0, NULL))
		return failed("mount");
	if (umount2(dir, 0))
		return failed("umount");
	return 0;
}

static int op_insmod(const char *dir, const char *name)
{
	char path[4096];
	int fd, flags = 0;

	snprintf(path, sizeof(path), "%s/%s.ko", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(path, sizeof(path), "%s/%s.ko.xz", dir, name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		flags = MODULE_INIT_COMPRESSED_FILE;
	}
	if (fd < 0)
		return failed(path);
	if (syscall(__NR_finit_module, fd, "", flags))
		return failed("finit_module");
	if (syscall(__NR_delete_module, name, O_NONBLOCK))
		return failed("delete_module");
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: dmf-hunt [--plant FILE] [--hang] OP [ARG...] (see its source)\n");
	return 2;
}

/* The ops by name: OP and its argument count, each taking its arguments. */
static int run_op(const char *op, int argc, char **a)
{
	static const struct { const char *name; int family; } dgram[] = {
		{ "unix", AF_UNIX }, { "inet", AF_INET }, { "inet6", AF_INET6 },
	};
	static const struct { const char *name; int (*fn)(void); } plain[] = {
		{ "pipe", op_pipe }, { "netlink", op_netlink }, { "packet", op_packet },
		{ "epoll", op_epoll }, { "inotify", op_inotify }, { "eventfd", op_eventfd },
		{ "timerfd", op_timerfd }, { "io_uring", op_io_uring },
	};
	unsigned int i;

	for (i = 0; argc == 0 && i < sizeof(dgram) / sizeof(dgram[0]); i++)
		if (!strcmp(op, dgram[i].name))
			return op_dgram(dgram[i].family);
	for (i = 0; argc == 0 && i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!strcmp(op, plain[i].name))
			return plain[i].fn();
	if (!strcmp(op, "unshare") && argc == 1)
		return op_unshare(a[0]);
	if (!strcmp(op, "mount") && argc == 3)
		return op_mount(a[0], a[1], a[2]);
	if (!strcmp(op, "insmod") && argc == 2)
		return op_insmod(a[0], a[1]);
	return usage();
}

int main(int argc, char **argv)
{
	int hang = 0, r;

	if (argc > 2 && !strcmp(argv[1], "--plant")) {
		plant = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc > 1 && !strcmp(argv[1], "--hang")) {
		hang = 1;
		argv++;
		argc--;
	}
	if (argc < 2)
		return usage();
	r = run_op(argv[1], argc - 2, argv + 2);
	while (hang)
		pause();
	return r;
}
