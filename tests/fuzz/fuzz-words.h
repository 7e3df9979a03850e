/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the fuzz targets that read device-mapper words share: the input as
 * a string, and split into words as dm_split_args() splits a table (at
 * blanks, no escapes).
 */
#ifndef _DMF_FUZZ_WORDS_H
#define _DMF_FUZZ_WORDS_H

#include <stdint.h>
#include <string.h>

/* @data as a string in @buf, or NULL if longer than @max or holding a NUL. */
static inline const char *fz_text(const uint8_t *data, size_t size, char *buf, size_t max)
{
	if (size > max || memchr(data, '\0', size))
		return NULL;
	memcpy(buf, data, size);
	buf[size] = '\0';
	return buf;
}

/* Split @s in place at blanks into @argv: the count, or @max + 1 for more. */
static inline unsigned int fz_split(char *s, char **argv, unsigned int max)
{
	unsigned int argc = 0;
	char *tok;

	while ((tok = strsep(&s, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		if (argc == max)
			return max + 1;
		argv[argc++] = tok;
	}
	return argc;
}

/*
 * A target that reads its input as one string defines FZ_MAX_TEXT (the
 * longest it takes) before including this file, and fz_one() to check it;
 * fz_input is the input, for its messages.
 */
#ifdef FZ_MAX_TEXT
static const char *fz_input;
static void fz_one(const char *in);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char s[FZ_MAX_TEXT + 1];

	fz_input = fz_text(data, size, s, FZ_MAX_TEXT);
	if (fz_input)
		fz_one(fz_input);
	return 0;
}
#endif

#endif /* _DMF_FUZZ_WORDS_H */
