/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the host tests of the target's word parsers share: a line split
 * into words at blanks, as dmsetup passes a message's words and
 * dm_split_args() a table's (no escapes).
 */
#ifndef _DMF_TESTS_WORDS_H
#define _DMF_TESTS_WORDS_H

#include <stdio.h>
#include <string.h>

/* @text copied into @buf and split there into @argv: the count, at most @max. */
static inline unsigned int words_split(const char *text, char *buf, size_t len, char **argv,
				       unsigned int max)
{
	unsigned int argc = 0;
	char *s = buf, *tok;

	snprintf(buf, len, "%s", text);
	while ((tok = strsep(&s, " ")) && argc < max)
		if (*tok)
			argv[argc++] = tok;
	return argc;
}

#endif /* _DMF_TESTS_WORDS_H */
