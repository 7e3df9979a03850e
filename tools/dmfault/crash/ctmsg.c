// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest's words with its fault device: its own errors, said,
 * and the messages it sends.  The run (cmd_crash.c, run.c, recovery.c) and
 * a saved run (save.c) all talk to the device through here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash/crash.h"
#include "dev/dev.h"

/* An error of crashtest's own, said: the -1 its steps return. */
int dft_ct_err(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dft_err("%s", msg);
	return -1;
}

/* Send a message to the device; its reply in *@reply if not NULL.  0 or -1 (said why). */
int dft_ct_send(const struct dft_ct *ct, char **reply, const char *fmt, ...)
{
	char kreason[256], *msg, *rep = NULL;
	const char *why;
	va_list ap;
	int r, err = 0;

	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		return dft_ct_err("out of memory");
	r = dft_send(ct->name, msg, &rep, kreason, sizeof(kreason), &err);
	if (r) {
		why = dft_reason_tail(kreason);
		dft_err("%s: message '%.64s%s' refused: %s", ct->name, msg,
			strlen(msg) > 64 ? "..." : "", why ? why : strerror(err ? -err : EIO));
	}
	free(msg);
	if (reply && !r)
		*reply = rep;
	else
		free(rep);
	return r ? -1 : 0;
}
