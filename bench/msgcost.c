// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench/msgcost: what a rule message costs, without a process start per
 * message.  For ROUNDS rounds, each device in turn is sent "rule add
 * error:id=ID,p=0" and then "rule remove ID" through libdevmapper, as
 * dmsetup message sends them; prints the messages sent and the
 * nanoseconds a message took on average (CLOCK_MONOTONIC).
 *
 *   msgcost ROUNDS ID DEV...
 */
#include <errno.h>
#include <libdevmapper.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int send_msg(const char *dev, const char *msg)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_TARGET_MSG);
	int ok;

	if (!dmt)
		return -ENOMEM;
	ok = dm_task_set_name(dmt, dev) && dm_task_set_sector(dmt, 0) &&
	     dm_task_set_message(dmt, msg) && dm_task_run(dmt);
	dm_task_destroy(dmt);
	if (!ok) {
		fprintf(stderr, "msgcost: %s: '%s' failed\n", dev, msg);
		return -EIO;
	}
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	char add[64], del[64];
	long rounds, r, n = 0;
	double t0;
	int i;

	if (argc < 4 || (rounds = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: msgcost ROUNDS ID DEV...\n");
		return 2;
	}
	snprintf(add, sizeof(add), "rule add error:id=%s,p=0", argv[2]);
	snprintf(del, sizeof(del), "rule remove %s", argv[2]);
	dm_log_init_verbose(0);
	t0 = now_ns();
	for (r = 0; r < rounds; r++)
		for (i = 3; i < argc; i++, n += 2)
			if (send_msg(argv[i], add) || send_msg(argv[i], del))
				return 1;
	printf("%ld messages, %.0f ns a message\n", n, (now_ns() - t0) / n);
	return 0;
}
