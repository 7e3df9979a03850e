// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault badblocks: the bad-block map of a live fault device, through the
 * target's "bad" messages.  Every message is checked with the target's own
 * parser (base/msg.c) before it is sent; list pages through the map; load reads
 * a list as badblocks(8) writes it (badfile.c) and sends it in batches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dev/dev.h"

/* the most bytes of one "bad add" message that load sends */
#define DFT_BAD_MSG_MAX		65536
/* badblocks(8)'s default block size */
#define DFT_BAD_BLOCK_SIZE	1024

/* " mode=M status=S wr_fail=N", for the options given. */
static void dft_bad_keys(const struct dft_opts *o, struct dft_buf *b)
{
	if (o->bad_mode)
		dft_buf_add(b, " mode=%s", o->bad_mode);
	if (o->bad_status)
		dft_buf_add(b, " status=%s", o->bad_status);
	if (o->bad_have_wr_fail)
		dft_buf_add(b, " wr_fail=%llu", (unsigned long long)o->bad_wr_fail);
}

/* The target's parser on @msg: 0, or the exit status of its refusal. */
static int dft_bad_check(const struct dft_cmd *cmd, const char *msg)
{
	const char *why = NULL;
	char word[128];
	int r;

	r = dft_msg_check(msg, word, sizeof(word), &why);
	if (r == -ENOMEM)
		return dft_err("out of memory");
	if (r && word[0])
		return dft_usage_err(cmd, "'%s': %s", word, why);
	if (r)
		return dft_usage_err(cmd, "%s", why);
	return 0;
}

/* Send @msg (checked) to @name; its reply in *@reply, or the exit status. */
static int dft_bad_send(const char *name, const char *msg, char **reply)
{
	char kreason[512], what[16];
	int r, e = 0;

	r = dft_send(name, msg, reply, kreason, sizeof(kreason), &e);
	if (r > 0)
		return r;
	if (r < 0) {
		/* "bad add" out of "bad add mode=sticky 0+8" */
		snprintf(what, sizeof(what), "%.*s", (int)strcspn(msg + 4, " ") + 4, msg);
		return dft_msg_failed(name, what, e, kreason);
	}
	return 0;
}

/*
 * add, remove, clear, enable, disable, partial, count, query: one message,
 * "bad <subcommand>" with the options' keys (add) and the arguments after
 * the device; the reply, if any, is printed as the target gives it.
 */
DFT_HANDLER(dft_cmd_bad_msg)
{
	struct dft_buf msg = { 0 };
	char *reply;
	int i, r;

	dft_buf_add(&msg, "bad %s", cmd->name + strlen("badblocks "));
	dft_bad_keys(o, &msg);
	for (i = 1; i < argc; i++)
		dft_buf_add(&msg, " %s", argv[i]);
	if (msg.oom)
		return dft_err("out of memory");
	r = dft_bad_check(cmd, msg.text);
	if (!r)
		r = dft_bad_send(argv[0], msg.text, &reply);
	dft_buf_free(&msg);
	if (r)
		return r;
	if (*reply)
		printf("%s%s", reply, reply[strlen(reply) - 1] == '\n' ? "" : "\n");
	free(reply);
	return DFT_EXIT_OK;
}

/*
 * One page of "bad list": its range lines printed, *@next set from its
 * "next <sector>" line; *@more false on the last page.
 */
static int dft_bad_list_page(const char *name, char *reply, uint64_t from, uint64_t *next,
			     bool *more)
{
	char *s = reply, *line;

	*more = false;
	while ((line = strsep(&s, "\n")) != NULL) {
		if (!*line)
			continue;
		if (strncmp(line, "next ", 5)) {
			printf("%s\n", line);
			continue;
		}
		if (dft_parse_u64(line + 5, next) || *next <= from)
			return dft_err("%s: bad list: the target's '%s' does not go on from %llu",
				       name, line, (unsigned long long)from);
		*more = true;
	}
	return 0;
}

/* list: every range of the map, one a line, following the pages' "next". */
DFT_HANDLER(dft_cmd_bad_list)
{
	uint64_t from = 0, next;
	char msg[64], *reply;
	bool more = true;
	int r = 0;

	(void)o;
	(void)argc;
	while (more && !r) {
		if (from)
			snprintf(msg, sizeof(msg), "bad list %llu", (unsigned long long)from);
		else
			snprintf(msg, sizeof(msg), "bad list");
		r = dft_bad_check(cmd, msg);
		if (!r)
			r = dft_bad_send(argv[0], msg, &reply);
		if (r)
			break;
		r = dft_bad_list_page(argv[0], reply, from, &next, &more);
		free(reply);
		from = next;
	}
	return r;
}

/* The whole blocks of @name's fault target, of @bs bytes each. */
static int dft_bad_dev_blocks(const char *name, uint64_t bs, uint64_t *blocks)
{
	struct dft_dev dev;
	int r;

	r = dft_open_fault(name, &dev);
	if (r)
		return dft_dev_err(name, r);
	*blocks = dev.segs[dev.fault].len / (bs / 512);
	dft_dm_put(&dev);
	return 0;
}

/* The file's blocks as ranges; an exit status on failure, nothing sent. */
static int dft_bad_load_read(const char *name, const char *file, uint64_t bs,
			     struct dft_badlist *bl, struct dft_range **rg, size_t *nr)
{
	uint64_t blocks = 0;
	char err[512];
	FILE *f;
	int r;

	r = dft_bad_dev_blocks(name, bs, &blocks);
	if (r)
		return r;
	f = strcmp(file, "-") ? fopen(file, "re") : stdin;
	if (!f)
		return dft_err("%s: %s", file, strerror(errno));
	r = dft_badlist_read(f, file, blocks, bl, err, sizeof(err));
	if (f != stdin)
		fclose(f);
	if (r == -ENOMEM)
		return dft_err("out of memory");
	if (r)
		return dft_err("%s; nothing loaded", err);
	r = dft_badlist_ranges(bl, bs, rg, nr);
	return r ? dft_err("out of memory") : 0;
}

/* The messages that add @rg, each checked by the target's parser first. */
static int dft_bad_load_msgs(const struct dft_cmd *cmd, const char *head,
			     const struct dft_range *rg, size_t nr, char ***msgs, size_t *nr_msgs)
{
	struct dft_buf b = { 0 };
	size_t done = 0, n;
	char **p;
	int r;

	*msgs = NULL;
	*nr_msgs = 0;
	while (done < nr) {
		n = dft_bad_batch(&b, head, rg + done, nr - done, DFT_BAD_MSG_MAX);
		p = n ? realloc(*msgs, (*nr_msgs + 1) * sizeof(*p)) : NULL;
		if (!p) {
			dft_buf_free(&b);
			return dft_err("out of memory");
		}
		*msgs = p;
		r = dft_bad_check(cmd, b.text);
		if (r) {
			dft_buf_free(&b);
			return r;
		}
		p[(*nr_msgs)++] = b.text;
		memset(&b, 0, sizeof(b));
		done += n;
	}
	return 0;
}

static uint64_t dft_bad_sectors(const struct dft_range *rg, size_t nr)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < nr; i++)
		s += rg[i].last - rg[i].first + 1;
	return s;
}

/*
 * load: a badblocks(8) list, blocks of --block-size bytes, as "bad add"
 * messages of at most DFT_BAD_MSG_MAX bytes.  The whole list is read,
 * converted and checked before the first message goes.
 */
DFT_HANDLER(dft_cmd_bad_load)
{
	uint64_t bs = o->bad_have_block_size ? o->bad_block_size : DFT_BAD_BLOCK_SIZE;
	struct dft_badlist bl = { 0 };
	struct dft_range *rg = NULL;
	struct dft_buf head = { 0 };
	char **msgs = NULL, *reply;
	size_t nr = 0, nr_msgs = 0, i;
	uint64_t sectors;
	int r;

	(void)argc;
	if (!bs)
		return dft_usage_err(cmd, "--block-size: a block is 512 bytes at least");
	dft_buf_add(&head, "bad add");
	dft_bad_keys(o, &head);
	if (head.oom)
		return dft_err("out of memory");
	r = dft_bad_load_read(argv[0], argv[1], bs, &bl, &rg, &nr);
	if (!r)
		r = dft_bad_load_msgs(cmd, head.text, rg, nr, &msgs, &nr_msgs);
	sectors = dft_bad_sectors(rg, nr);
	for (i = 0; !r && i < nr_msgs; i++) {
		r = dft_bad_send(argv[0], msgs[i], &reply);
		if (r && i)
			dft_err("%s: %zu of %zu messages were sent before that one", argv[0], i,
				nr_msgs);
		if (!r)
			free(reply);
	}
	if (!r)
		printf("%s: loaded %llu blocks of %llu bytes (%zu entries): %zu ranges, %llu sectors, %zu message%s\n",
		       argv[0], (unsigned long long)(sectors / (bs / 512)), (unsigned long long)bs,
		       bl.nr, nr, (unsigned long long)sectors, nr_msgs, nr_msgs == 1 ? "" : "s");
	for (i = 0; i < nr_msgs; i++)
		free(msgs[i]);
	free(msgs);
	free(rg);
	dft_badlist_free(&bl);
	dft_buf_free(&head);
	return r;
}
