// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault badblocks load, with no I/O to a device: a list in the format
 * badblocks(8) writes (one block number a line, in blocks of its -b size)
 * read and checked, turned into sector ranges with consecutive blocks
 * merged, and those ranges packed into "bad add" messages of a bounded
 * size.  libc only: the host unit tests run this file as it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dev/dev.h"

void dft_badlist_free(struct dft_badlist *bl)
{
	free(bl->blocks);
	memset(bl, 0, sizeof(*bl));
}

static int dft_badlist_push(struct dft_badlist *bl, uint64_t block)
{
	uint64_t *p;

	if (bl->nr == bl->size) {
		p = realloc(bl->blocks, (bl->size ? bl->size * 2 : 4096) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		bl->blocks = p;
		bl->size = bl->size ? bl->size * 2 : 4096;
	}
	bl->blocks[bl->nr++] = block;
	return 0;
}

/* @line without the blanks around it, in place. */
static char *dft_trim(char *line)
{
	size_t n;

	line += strspn(line, " \t\r\n\v\f");
	n = strlen(line);
	while (n && strchr(" \t\r\n\v\f", line[n - 1]))
		n--;
	line[n] = '\0';
	return line;
}

/**
 * dft_badlist_read - read a list of bad blocks as badblocks(8) writes it
 * @f: the list
 * @name: its name, for errors ("-" is shown as "<stdin>")
 * @nr_blocks: blocks on the device: a block number at or past it is refused
 * @bl: the block numbers are appended, in the order read
 * @err: on failure, "NAME:LINE: reason"
 * @len: the size of @err
 *
 * One block number a line, in decimal; blank lines and blanks around a
 * number are ignored, anything else is refused.
 *
 * Return: 0, -EINVAL (@err set), -ENOMEM or -errno of the read.
 */
int dft_badlist_read(FILE *f, const char *name, uint64_t nr_blocks, struct dft_badlist *bl,
		     char *err, size_t len)
{
	const char *shown = strcmp(name, "-") ? name : "<stdin>";
	char *line = NULL, *t;
	size_t cap = 0;
	uint64_t b;
	int r = 0;

	while (getline(&line, &cap, f) >= 0) {
		bl->lines++;
		t = dft_trim(line);
		if (!*t)
			continue;
		r = dft_parse_u64(t, &b);
		if (r && strlen(t) > 40)
			strcpy(t + 37, "...");	/* shown shorter */
		if (r == -ERANGE || (!r && b >= nr_blocks)) {
			snprintf(err, len,
				 "%s:%llu: block %s is past the end of the device (%llu blocks)",
				 shown, (unsigned long long)bl->lines, t, (unsigned long long)nr_blocks);
			r = -EINVAL;
			break;
		}
		if (r) {
			snprintf(err, len,
				 "%s:%llu: '%s' is not a block number (one a line, in decimal)",
				 shown, (unsigned long long)bl->lines, t);
			break;
		}
		r = dft_badlist_push(bl, b);
		if (r)
			break;
	}
	if (!r && ferror(f)) {
		r = -errno;
		snprintf(err, len, "%s: %s", shown, strerror(errno));
	}
	free(line);
	return r;
}

static int dft_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/**
 * dft_badlist_ranges - the sector ranges of a list's blocks
 * @bl: the blocks, sorted here
 * @block_size: bytes a block, a multiple of 512
 * @ranges: an allocated array (free() it), ascending and apart, consecutive
 *          and repeated blocks merged
 * @nr: its length
 *
 * Return: 0, -ENOMEM, or -EOVERFLOW when a block lies past 2^64 sectors.
 */
int dft_badlist_ranges(struct dft_badlist *bl, uint64_t block_size, struct dft_range **ranges,
		       size_t *nr)
{
	uint64_t spb = block_size / 512, b;
	struct dft_range *r;
	size_t i, n = 0;

	*ranges = NULL;
	*nr = 0;
	if (!bl->nr)
		return 0;
	qsort(bl->blocks, bl->nr, sizeof(*bl->blocks), dft_u64_cmp);
	if (bl->blocks[bl->nr - 1] > (UINT64_MAX - (spb - 1)) / spb)
		return -EOVERFLOW;
	r = malloc(bl->nr * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (i = 0; i < bl->nr; i++) {
		b = bl->blocks[i];
		if (i && b == bl->blocks[i - 1])
			continue;
		if (i && b == bl->blocks[i - 1] + 1) {
			r[n - 1].last += spb;
			continue;
		}
		r[n].first = b * spb;
		r[n].last = b * spb + spb - 1;
		n++;
	}
	*ranges = r;
	*nr = n;
	return 0;
}

/* A range as the bad messages take it: "<sector>" or "<first>+<count>". */
int dft_bad_range_word(const struct dft_range *r, char *buf, size_t len)
{
	if (r->first == r->last)
		return snprintf(buf, len, "%llu", (unsigned long long)r->first);
	return snprintf(buf, len, "%llu+%llu", (unsigned long long)r->first,
			(unsigned long long)(r->last - r->first + 1));
}

/**
 * dft_bad_batch - one message: @head and as many ranges as fit
 * @b: the message, replaced
 * @head: its first words ("bad add mode=sticky")
 * @r: the ranges left to send
 * @n: how many
 * @max: the most bytes a message may have, @head's included
 *
 * At least one range goes in, whatever @max says.
 *
 * Return: the number of ranges in the message; 0 if out of memory (b->oom).
 */
size_t dft_bad_batch(struct dft_buf *b, const char *head, const struct dft_range *r, size_t n,
		     size_t max)
{
	char word[48];
	size_t i;
	int w;

	b->len = 0;
	dft_buf_add(b, "%s", head);
	for (i = 0; i < n && !b->oom; i++) {
		w = dft_bad_range_word(&r[i], word, sizeof(word));
		if (i && b->len + 1 + w > max)
			break;
		dft_buf_add(b, " %s", word);
	}
	return b->oom ? 0 : i;
}
