// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: read what the kernel logged after a mark, from /dev/kmsg.  The
 * fault target explains a refused table line or message only in the kernel
 * log ("device-mapper: fault: rule 1 'x': Unknown rule action"), and a
 * fail-nth sweep looks there for oopses and warnings.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

/* Open /dev/kmsg positioned after the last record; fd -1 if unavailable. */
void dft_kmsg_mark(struct dft_kmsg *k)
{
	k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd >= 0 && lseek(k->fd, 0, SEEK_END) < 0) {
		close(k->fd);
		k->fd = -1;
	}
}

/*
 * The next record logged since the mark: 1 with *text set, 0 when there is
 * none left, -errno on failure.
 */
int dft_kmsg_next(struct dft_kmsg *k, char *buf, size_t len, const char **text)
{
	uint64_t usec;
	ssize_t n;
	int level;

	if (k->fd < 0)
		return 0;
	for (;;) {
		n = read(k->fd, buf, len - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on with the next */
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0)
			return 0;
		buf[n] = '\0';
		if (!dft_parse_kmsg(buf, &level, &usec, text))
			return 1;
	}
}

void dft_kmsg_close(struct dft_kmsg *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

/*
 * Why device-mapper refused what we just asked, from the kernel log: the
 * target's own line ("fault: rule 1 'x': reason", "fault: dev: rule add:
 * reason") is preferred over dm-table's ("table: 254:0: fault: reason (-EINVAL)").
 * Returns @out, or NULL when nothing was logged.
 */
const char *dft_kmsg_dm_reason(struct dft_kmsg *k, char *out, size_t len)
{
	char rec[1024];
	const char *text, *p;
	bool own = false;
	size_t n;

	out[0] = '\0';
	while (dft_kmsg_next(k, rec, sizeof(rec), &text) > 0) {
		p = strstr(text, "device-mapper: ");
		if (!p)
			continue;
		p += strlen("device-mapper: ");
		if (!strncmp(p, "fault: ", 7)) {
			p += 7;
			own = true;
		} else if (!strncmp(p, "table: ", 7) && !own) {
			p = strstr(p, " fault: ");
			if (!p)
				continue;
			p += 8;
		} else {
			continue;
		}
		n = strlen(p);
		/* " (-EINVAL)" at the end of dm-table's line */
		if (n > 3 && p[n - 1] == ')' && strstr(p, " (-"))
			n = strstr(p, " (-") - p;
		if (n >= len)
			n = len - 1;
		memcpy(out, p, n);
		out[n] = '\0';
	}
	return out[0] ? out : NULL;
}
