// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: the call chain of an injected fault as the allocator hooks log
 * it (verbose 2), which the sweep keeps for each step and the hunt keys its
 * findings by, and the kernel's own reports of a failed allocation the
 * caller copes with.  libc only: the host unit tests link this file as it is.
 */
#include <stdio.h>
#include <string.h>

#include "alloc/alloc.h"

/* Append @sym (up to "+0x" or a blank) to @c's frames. */
static void dft_chain_add(struct dft_chain *c, const char *sym)
{
	size_t n = strcspn(sym, "+ \t"), have = strlen(c->frames);

	if (!n || have + n + 4 >= sizeof(c->frames))
		return;
	if (c->nr++)
		strcat(c->frames, " < ");
	strncat(c->frames, sym, n);
}

/*
 * Feed one kernel log line.  The hook logs a fault as
 * "dmf_alloc: FAULT_INJECTION: forcing a failure: HOOK FN(...) pid P (COMM)"
 * and, at verbose 2, "dmf_alloc:   called by SYM+0x../0x.. [MOD]" and
 * "dmf_alloc:   from SYM...".  A new fault line starts the chain again.
 * True if the line was one of these.
 */
bool dft_chain_feed(struct dft_chain *c, const char *text)
{
	static const char fault[] = "FAULT_INJECTION: forcing a failure: ";
	const char *p;
	size_t n;

	p = strstr(text, fault);
	if (p) {
		memset(c, 0, sizeof(*c));
		p += strlen(fault);
		n = strcspn(p, "\n");
		/* drop " pid P (COMM)": it differs from run to run */
		if (strstr(p, " pid "))
			n = strstr(p, " pid ") - p;
		snprintf(c->fault, sizeof(c->fault), "%.*s", (int)n, p);
		c->seen = true;
		return true;
	}
	if (!c->seen || strncmp(text, "dmf_alloc:   ", 13))
		return false;
	p = text + 13;
	if (!strncmp(p, "called by ", 10))
		dft_chain_add(c, p + 10);
	else if (!strncmp(p, "from ", 5))
		dft_chain_add(c, p + 5);
	else
		return false;
	return true;
}

/*
 * The key findings are deduplicated by: their kind and the chain of the
 * injected fault, symbols without offsets (they differ between builds, the
 * functions do not).  Without a logged chain (a __GFP_NOWARN allocation is
 * not logged) the kind and what was seen, digits dropped.
 */
void dft_chain_key(const struct dft_chain *c, const char *kind, const char *what, char *key,
		   size_t len)
{
	size_t n;

	if (c->nr) {
		snprintf(key, len, "%s|%s", kind, c->frames);
		return;
	}
	n = snprintf(key, len, "%s|unlogged|", kind);
	for (; what && *what && n + 1 < len; what++)
		if (*what < '0' || *what > '9')
			key[n++] = *what;
	if (n < len)
		key[n] = '\0';
}

/*
 * The first line of a report the kernel prints, with a stack dump
 * ("Call Trace:"), when an allocation fails and the caller copes with it:
 * warn_alloc() ("COMM: page allocation failure: order:0, mode:0x...(...),
 * nodemask=(null),cpuset=/,mems_allowed=0", "vmalloc error: ..."), and
 * 6.1's __register_sysctl_table() ("sysctl could not get directory: /net
 * -12").  Diagnostics of a failure handled, not findings.
 */
bool dft_alloc_failure_report(const char *line)
{
	return (strstr(line, ", mode:0x") && strstr(line, "nodemask=")) ||
	       strstr(line, "sysctl could not get directory: ");
}
