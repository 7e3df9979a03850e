// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest --save and --load: a recorded run kept in a directory,
 * so that its crash states can be checked on other machines, a share on
 * each (--shard), and their reports merged (merge.c).
 *
 *   DIR/manifest  "dmfault-crashtest-save 1", then "key value" lines: what
 *                 the states and their verdicts depend on (the commands,
 *                 the cache's unit and limit, the explorer's options), the
 *                 disk's size, and the hash of each file below
 *   DIR/disk.img  the disk as the setup left it (the recording never
 *                 reaches it), sparse: blocks of zeroes are holes
 *   DIR/record    the target's "record list" replies as crashtest read them
 *   DIR/data      what each write wrote, in order (a discard or a
 *                 write-zeroes carries nothing)
 *
 * The target keeps the recorded writes in memory, so their list is not
 * enough: --save reads each write back through a view that keeps it alone.
 * --load writes the disk back, then replays the writes into a new recording
 * as the workload's bios were: each write one direct bio (a FUA write by
 * asynchronous O_DSYNC I/O, which completes without the flush a synchronous
 * one adds), a flush at each flush point, each mark after its write.  The
 * new recording must list the same writes, flush points and marks, or the
 * load is refused: a state names writes by number.
 *
 * The run's hash, which each shard's report carries, is the manifest's, and
 * the manifest holds the hashes of the other three files.
 *
 * What --save, --load and --shard go with is checked here too, beside the
 * code they drive: a loaded run takes its commands and options from its
 * manifest, so none may be given again.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "crash/crash.h"

#define DFT_SV_BLOCK		4096		/* what a hole is made of */
#define DFT_SV_CHUNK		(1U << 20)	/* the disk is copied this much at a time */
#define DFT_SV_MAGIC		"dmfault-crashtest-save"
#define DFT_FNV_BASIS		0xcbf29ce484222325ULL

/* FNV-1a, 64 bits: the hashes that tell one saved run from another. */
static uint64_t dft_sv_hash(uint64_t h, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

static bool dft_sv_zero(const char *p, size_t n)
{
	return !*p && !memcmp(p, p + 1, n - 1);
}

static char *dft_sv_path(const char *dir, const char *file)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, file) < 0 ? NULL : p;
}

static int dft_sv_open(const char *dir, const char *file, int flags, int *fd)
{
	char *p = dft_sv_path(dir, file);

	if (!p)
		return dft_ct_err("out of memory");
	*fd = open(p, flags | O_CLOEXEC, 0644);
	if (*fd < 0)
		dft_err("%s: %s", p, strerror(errno));
	free(p);
	return *fd < 0 ? -1 : 0;
}

static int dft_sv_write(int fd, const void *buf, size_t n, off_t at, const char *what)
{
	ssize_t r = at < 0 ? write(fd, buf, n) : pwrite(fd, buf, n, at);

	if (r == (ssize_t)n)
		return 0;
	return dft_ct_err("%s: %s", what, r < 0 ? strerror(errno) : "short write");
}

static int dft_sv_read(int fd, void *buf, size_t n, off_t at, const char *what)
{
	ssize_t r = at < 0 ? read(fd, buf, n) : pread(fd, buf, n, at);

	if (r == (ssize_t)n)
		return 0;
	return dft_ct_err("%s: %s", what, r < 0 ? strerror(errno) : "shorter than its list says");
}

/* A buffer for direct I/O of at least @n bytes in *@buf (of *@size). */
static int dft_sv_buf(char **buf, size_t *size, size_t n)
{
	if (n <= *size)
		return 0;
	free(*buf);
	*size = 0;
	if (posix_memalign((void **)buf, DFT_SV_BLOCK, n)) {
		*buf = NULL;
		return dft_ct_err("out of memory");
	}
	*size = n;
	return 0;
}

/* The end of a copy from @in (if open) into @out: synced if it went well, both closed. */
static int dft_sv_done(int in, int out, const char *what, int r)
{
	if (!r && fsync(out))
		r = dft_ct_err("%s: %s", what, strerror(errno));
	if (in >= 0)
		close(in);
	close(out);
	return r;
}

/*
 * The disk below, as the setup left it, into DIR/disk.img: only the blocks
 * that are not zeroes are written.  Its hash in *@hash.
 */
static int dft_sv_disk(const struct dft_ct *ct, const char *dir, uint64_t *hash)
{
	uint64_t bytes = ct->sectors << 9, at, h = DFT_FNV_BASIS;
	size_t n, b;
	char *buf;
	int in, out, r = 0;

	if (dft_sv_open(dir, "disk.img", O_WRONLY | O_CREAT | O_TRUNC, &out))
		return -1;
	in = open(ct->disk, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (in < 0 || posix_memalign((void **)&buf, DFT_SV_BLOCK, DFT_SV_CHUNK)) {
		r = dft_ct_err("%s: %s", ct->disk, in < 0 ? strerror(errno) : "out of memory");
		buf = NULL;
	}
	for (at = 0; !r && at < bytes; at += n) {
		n = bytes - at < DFT_SV_CHUNK ? bytes - at : DFT_SV_CHUNK;
		r = dft_sv_read(in, buf, n, at, ct->disk);
		for (b = 0; !r && b < n; b += DFT_SV_BLOCK) {
			size_t len = n - b < DFT_SV_BLOCK ? n - b : DFT_SV_BLOCK;
			uint64_t off = at + b;

			if (dft_sv_zero(buf + b, len))
				continue;
			h = dft_sv_hash(dft_sv_hash(h, &off, sizeof(off)), buf + b, len);
			r = dft_sv_write(out, buf + b, len, off, "disk.img");
		}
	}
	if (!r && ftruncate(out, bytes))
		r = dft_ct_err("disk.img: %s", strerror(errno));
	free(buf);
	*hash = h;
	return dft_sv_done(in, out, "disk.img", r);
}

/* The "record list" replies, as they come, into DIR/record; the file's hash in *@hash. */
static int dft_sv_record(const struct dft_ct *ct, const char *dir, uint64_t *hash)
{
	uint64_t from = 1, h = DFT_FNV_BASIS;
	const char *p;
	char *reply;
	int fd, r = 0;

	if (dft_sv_open(dir, "record", O_WRONLY | O_CREAT | O_TRUNC, &fd))
		return -1;
	while (!r && from) {
		if (dft_ct_send(ct, &reply, "record list %llu", (unsigned long long)from)) {
			r = -1;
			break;
		}
		r = dft_sv_write(fd, reply, strlen(reply), -1, "record");
		if (!r)
			r = dft_sv_write(fd, "\n", 1, -1, "record");
		h = dft_sv_hash(dft_sv_hash(h, reply, strlen(reply)), "\n", 1);
		p = strstr(reply, "\nnext ");
		from = p ? strtoull(p + 6, NULL, 10) : 0;
		free(reply);
	}
	close(fd);
	*hash = h;
	return r;
}

/*
 * What each write wrote, into DIR/data: shown by a view that keeps it
 * alone, read past the page cache.
 */
static int dft_sv_data(const struct dft_ct *ct, const char *dir, uint64_t *hash)
{
	const struct dft_rw *rw;
	uint64_t w, h = DFT_FNV_BASIS;
	size_t size = 0, n;
	char *buf = NULL;
	int in, out, r = 0;

	if (dft_sv_open(dir, "data", O_WRONLY | O_CREAT | O_TRUNC, &out))
		return -1;
	in = open(ct->dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (in < 0)
		r = dft_ct_err("%s: %s", ct->dev, strerror(errno));
	for (w = 1; !r && w <= ct->rec.nr_w; w++) {
		rw = &ct->rec.w[w - 1];
		if (rw->kind == DFT_RW_DISCARD || rw->kind == DFT_RW_ZEROES)
			continue;
		n = rw->nr << 9;
		r = dft_sv_buf(&buf, &size, n);
		if (!r)
			r = dft_ct_send(ct, NULL, "view keep=%llu", (unsigned long long)w);
		if (!r)
			r = dft_sv_read(in, buf, n, rw->sector << 9, ct->dev);
		if (!r)
			r = dft_sv_write(out, buf, n, -1, "data");
		h = dft_sv_hash(h, buf, r ? 0 : n);
	}
	free(buf);
	*hash = h;
	return dft_sv_done(in, out, "data", r);
}

/* "key value": the value with backslashes and newlines escaped. */
static void dft_sv_put(struct dft_buf *b, const char *key, const char *val)
{
	dft_buf_add(b, "%s ", key);
	for (; *val; val++) {
		if (*val == '\\')
			dft_buf_add(b, "\\\\");
		else if (*val == '\n')
			dft_buf_add(b, "\\n");
		else
			dft_buf_add(b, "%c", *val);
	}
	dft_buf_add(b, "\n");
}

/* What the states and verdicts depend on, and the files' hashes. */
static int dft_sv_manifest(const struct dft_ct *ct, const char *dir, const uint64_t *hash)
{
	const struct dft_opts *o = ct->o;
	struct dft_buf b = { 0 };
	int fd, r;

	dft_buf_add(&b, "%s %d\n", DFT_SV_MAGIC, DFT_CT_SAVE_VERSION);
	dft_buf_add(&b, "sectors %llu\n", (unsigned long long)ct->sectors);
	if (o->ct_have_unit)
		dft_buf_add(&b, "unit %llu\n", (unsigned long long)o->ct_unit);
	if (o->ct_have_limit)
		dft_buf_add(&b, "limit %llu\n", (unsigned long long)o->ct_limit);
	dft_buf_add(&b, "settle %u\nsubset-max %u\nsamples %u\nseed %llu\nmax-states %u\n",
		    o->ct_settle, ct->cfg.subset_max, ct->cfg.samples,
		    (unsigned long long)ct->cfg.seed, ct->cfg.max_states);
	dft_buf_add(&b, "minimise %u\nstep-timeout %u\n", ct->minimise, o->step_timeout);
	dft_sv_put(&b, "setup", o->ct_setup);
	dft_sv_put(&b, "workload", o->ct_workload);
	dft_sv_put(&b, "check", o->ct_check);
	if (o->ct_entry) {
		dft_sv_put(&b, "entry", o->ct_entry);
		dft_sv_put(&b, "fs", ct->fs);
		dft_sv_put(&b, "lib", ct->lib);
		if (o->catalog)
			dft_sv_put(&b, "catalog", o->catalog);
	}
	dft_buf_add(&b, "disk-hash %016" PRIx64 "\nrecord-hash %016" PRIx64 "\n", hash[0],
		    hash[1]);
	dft_buf_add(&b, "data-hash %016" PRIx64 "\n", hash[2]);
	if (b.oom) {
		dft_buf_free(&b);
		return dft_ct_err("out of memory");
	}
	r = dft_sv_open(dir, "manifest", O_WRONLY | O_CREAT | O_TRUNC, &fd);
	if (!r) {
		r = dft_sv_write(fd, b.text, b.len, -1, "manifest");
		if (!r && fsync(fd))
			r = dft_ct_err("manifest: %s", strerror(errno));
		close(fd);
	}
	if (!r && !ct->o->json)
		printf("saved in %s: run %016" PRIx64 ", %llu writes, %u states\n", dir,
		       dft_sv_hash(DFT_FNV_BASIS, b.text, b.len), (unsigned long long)ct->rec.nr_w,
		       ct->plan.nr);
	dft_buf_free(&b);
	return r;
}

/**
 * dft_ct_save - keep a recorded run in a directory, for --load
 * @ct: recorded, crashed and read; its control passed and its plan built
 * @dir: created if it is not there; its files are replaced
 *
 * The manifest is written last, so a directory with one holds a whole run.
 *
 * Return: 0, or -1 said why.
 */
int dft_ct_save(struct dft_ct *ct, const char *dir)
{
	uint64_t hash[3];

	if (mkdir(dir, 0755) && errno != EEXIST)
		return dft_ct_err("%s: %s", dir, strerror(errno));
	if (dft_sv_disk(ct, dir, &hash[0]) || dft_sv_record(ct, dir, &hash[1]) ||
	    dft_sv_data(ct, dir, &hash[2]))
		return -1;
	return dft_sv_manifest(ct, dir, hash);
}

/* Undo dft_sv_put's escapes in place. */
static void dft_sv_unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (*s == '\\' && (s[1] == 'n' || s[1] == '\\'))
			*d++ = *++s == 'n' ? '\n' : '\\';
		else
			*d++ = *s;
	}
	*d = '\0';
}

/* The manifest's numbers: where each goes in struct dft_opts, and its "given" flag. */
static const struct {
	const char *key;
	size_t off, have;		/* have: 0 if none */
	unsigned int size;		/* of the field: 4 or 8 bytes */
} dft_sv_nums[] = {
	{ "unit", offsetof(struct dft_opts, ct_unit), offsetof(struct dft_opts, ct_have_unit), 8 },
	{ "limit", offsetof(struct dft_opts, ct_limit), offsetof(struct dft_opts, ct_have_limit),
	  8 },
	{ "settle", offsetof(struct dft_opts, ct_settle), offsetof(struct dft_opts, ct_have_settle),
	  4 },
	{ "subset-max", offsetof(struct dft_opts, ct_subset_max),
	  offsetof(struct dft_opts, ct_have_subset_max), 8 },
	{ "samples", offsetof(struct dft_opts, ct_samples),
	  offsetof(struct dft_opts, ct_have_samples), 8 },
	{ "seed", offsetof(struct dft_opts, ct_seed), offsetof(struct dft_opts, ct_have_seed), 8 },
	{ "max-states", offsetof(struct dft_opts, ct_max_states), 0, 8 },
	{ "minimise", offsetof(struct dft_opts, ct_minimise),
	  offsetof(struct dft_opts, ct_have_minimise), 8 },
	{ "step-timeout", offsetof(struct dft_opts, step_timeout), 0, 4 },
};

/* The hashes of disk.img, record and data, in struct dft_ct's order. */
static const char *const dft_sv_hashes[] = { "disk-hash", "record-hash", "data-hash" };

/* A number of the manifest into its field of @o. */
static int dft_sv_num(struct dft_opts *o, unsigned int i, const char *val)
{
	char *base = (char *)o;
	uint64_t v;

	if (dft_parse_u64(val, &v) || (dft_sv_nums[i].size == 4 && v > UINT32_MAX) ||
	    v > INT64_MAX)
		return dft_ct_err("manifest: %s '%s' is not a number", dft_sv_nums[i].key, val);
	if (dft_sv_nums[i].size == 4) {
		unsigned int u = v;

		memcpy(base + dft_sv_nums[i].off, &u, sizeof(u));
	} else {
		memcpy(base + dft_sv_nums[i].off, &v, sizeof(v));
	}
	if (dft_sv_nums[i].have)
		base[dft_sv_nums[i].have] = true;
	return 0;
}

/* One "key value" line of the manifest into @o and @ct; keys it does not know are skipped. */
static int dft_sv_line(struct dft_ct *ct, struct dft_opts *o, char *key, char *val)
{
	static const char *const strs[] = { "setup", "workload", "check", "entry", "catalog" };
	char **str[] = { &o->ct_setup, &o->ct_workload, &o->ct_check, &o->ct_entry, &o->catalog };
	size_t i;

	dft_sv_unescape(val);
	for (i = 0; i < ARRAY_SIZE(strs); i++) {
		if (!strcmp(key, strs[i])) {
			*str[i] = val;
			return 0;
		}
	}
	for (i = 0; i < ARRAY_SIZE(dft_sv_nums); i++)
		if (!strcmp(key, dft_sv_nums[i].key))
			return dft_sv_num(o, i, val);
	for (i = 0; i < ARRAY_SIZE(dft_sv_hashes); i++)
		if (!strcmp(key, dft_sv_hashes[i]) && sscanf(val, "%" SCNx64, &ct->hash[i]) != 1)
			return dft_ct_err("manifest: %s '%s' is not a hash", key, val);
	if (!strcmp(key, "fs"))
		snprintf(ct->fs, sizeof(ct->fs), "%s", val);
	else if (!strcmp(key, "lib"))
		snprintf(ct->lib, sizeof(ct->lib), "%s", val);
	else if (!strcmp(key, "sectors") && (dft_parse_u64(val, &ct->sectors) ||
					     ct->sectors > UINT64_MAX >> 9))
		return dft_ct_err("manifest: sectors '%s' is not a number", val);
	return 0;
}

/**
 * dft_ct_slurp - the whole of a file, NUL-terminated
 * @path: the file
 * @len: its length
 *
 * Return: the text, malloc()ed, or NULL said why.
 */
char *dft_ct_slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || !(buf = malloc(st.st_size + 1))) {
		dft_ct_err("%s: %s", path, strerror(fd < 0 || !buf ? errno : ENOMEM));
	} else if (dft_sv_read(fd, buf, st.st_size, 0, path)) {
		free(buf);
		buf = NULL;
	}
	if (fd >= 0)
		close(fd);
	if (buf) {
		buf[st.st_size] = '\0';
		*len = st.st_size;
	}
	return buf;
}

/* A file of the saved run, whole. */
static char *dft_sv_slurp(const char *dir, const char *file, size_t *len)
{
	char *p = dft_sv_path(dir, file), *text;

	if (!p) {
		dft_ct_err("out of memory");
		return NULL;
	}
	text = dft_ct_slurp(p, len);
	free(p);
	return text;
}

/**
 * dft_ct_load_manifest - the options of a saved run, from its manifest
 * @ct: its run hash and disk size are set; the manifest is kept in
 *      @ct->saved, which the options point into
 * @o: the options it sets, as the saved run had them
 * @dir: what --save wrote
 *
 * Return: 0, or -1 said why.
 */
static int dft_ct_load_manifest(struct dft_ct *ct, struct dft_opts *o, const char *dir)
{
	char *line, *next, *val;
	unsigned int version;
	size_t len;

	ct->saved = dft_sv_slurp(dir, "manifest", &len);
	if (!ct->saved)
		return -1;
	snprintf(ct->run, sizeof(ct->run), "%016" PRIx64,
		 dft_sv_hash(DFT_FNV_BASIS, ct->saved, len));
	if (sscanf(ct->saved, DFT_SV_MAGIC " %u", &version) != 1)
		return dft_ct_err("%s/manifest: not a saved crashtest run", dir);
	if (version != DFT_CT_SAVE_VERSION)
		return dft_ct_err("%s/manifest: format %u; this dmfault reads format %d", dir,
				  version, DFT_CT_SAVE_VERSION);
	/* the lines are cut where they end: the options point into them */
	for (line = strchr(ct->saved, '\n'); line && *++line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next = '\0';
		val = strchr(line, ' ');
		if (!val)
			return dft_ct_err("%s/manifest: '%s' is not 'key value'", dir, line);
		*val++ = '\0';
		if (dft_sv_line(ct, o, line, val))
			return -1;
		if (!next)
			break;
	}
	if (!o->ct_setup || !o->ct_workload || !o->ct_check || !ct->sectors)
		return dft_ct_err("%s/manifest: no setup, workload, check or sectors", dir);
	if (!ct->hash[0] || !ct->hash[1] || !ct->hash[2])
		return dft_ct_err("%s/manifest: no disk-hash, record-hash or data-hash", dir);
	return 0;
}

/* --shard I/N: the states i with i % N == I. */
static int dft_ct_shard(const struct dft_cmd *cmd, const char *arg, struct dft_ct *ct)
{
	unsigned int i, n;
	char end;

	if (sscanf(arg, "%u/%u%c", &i, &n, &end) != 2 || !n || i >= n || n > DFT_CT_LIMIT)
		return dft_usage_err(cmd, "--shard '%s': I/N, with 0 <= I < N <= %u", arg,
				     DFT_CT_LIMIT);
	ct->shard = i;
	ct->shards = n;
	/* shards may run at once on one machine, each on a scratch device of its own */
	snprintf(ct->name_buf, sizeof(ct->name_buf), "%s-%u", DFT_CT_NAME, i);
	ct->name = ct->name_buf;
	return 0;
}

/* What --save, --load and --shard go with; and a saved run's options, from its manifest. */
int dft_ct_saved_opts(const struct dft_cmd *cmd, struct dft_opts *o, struct dft_ct *ct)
{
	if (o->ct_shard && !o->ct_load)
		return dft_usage_err(cmd, "--shard needs --load: the saved run it checks a share of");
	if (o->ct_save && o->ct_load)
		return dft_usage_err(cmd, "--save and --load: one or the other");
	if ((o->ct_save || o->ct_load) && o->ct_recovery)
		return dft_usage_err(cmd, "--recovery is not saved: it picks its first states from the verdicts of all of them");
	if (o->ct_save && o->ct_state)
		return dft_usage_err(cmd, "--save records for other machines; --state checks one state here");
	if (o->ct_shard && dft_ct_shard(cmd, o->ct_shard, ct))
		return DFT_EXIT_USAGE;
	if (!o->ct_load)
		return 0;
	if (o->ct_setup || o->ct_workload || o->ct_check || o->ct_entry || o->ct_fs ||
	    o->catalog || o->ct_have_settle || o->ct_have_subset_max || o->ct_have_samples ||
	    o->ct_have_seed || o->ct_max_states || o->ct_have_minimise || o->ct_have_limit ||
	    o->ct_have_unit || o->step_timeout != DFT_STEP_TIMEOUT)
		return dft_usage_err(cmd, "--load: the run's commands and options are those saved in %s/manifest",
				     o->ct_load);
	return dft_ct_load_manifest(ct, o, o->ct_load) ? DFT_EXIT_USAGE : 0;
}

/* Zero bytes @from..@to of the disk: a hole of the image. */
static int dft_sv_zeroout(int fd, const char *disk, uint64_t from, uint64_t to)
{
	uint64_t range[2] = { from, to - from };

	if (to > from && ioctl(fd, BLKZEROOUT, range))
		return dft_ct_err("%s: cannot zero bytes %llu-%llu: %s", disk,
				  (unsigned long long)from, (unsigned long long)to, strerror(errno));
	return 0;
}

/**
 * dft_ct_restore - write a saved disk onto the user's disk
 * @ct: the manifest loaded; @ct->disk is written from 0 to the saved size
 * @dir: the saved run
 *
 * The image's data is copied and its holes are zeroed, and what was copied
 * must hash as the manifest says.
 *
 * Return: 0, or -1 said why.
 */
int dft_ct_restore(struct dft_ct *ct, const char *dir)
{
	uint64_t bytes = ct->sectors << 9, disk, at = 0, data, hole, h = DFT_FNV_BASIS;
	size_t n, b;
	char *buf;
	int in, out, r = 0;

	if (dft_sv_open(dir, "disk.img", O_RDONLY, &in))
		return -1;
	out = open(ct->disk, O_WRONLY | O_CLOEXEC);
	if (out < 0 || ioctl(out, BLKGETSIZE64, &disk)) {
		r = dft_ct_err("%s: %s", ct->disk, strerror(errno));
	} else if (disk < bytes) {
		r = dft_ct_err("%s: %llu bytes, smaller than the saved disk's %llu", ct->disk,
			       (unsigned long long)disk, (unsigned long long)bytes);
	}
	buf = malloc(DFT_SV_CHUNK);
	if (!buf)
		r = dft_ct_err("out of memory");
	while (!r && at < bytes) {
		off_t d = lseek(in, at, SEEK_DATA);

		data = d < 0 ? bytes : (uint64_t)d;
		r = dft_sv_zeroout(out, ct->disk, at, data);
		d = data < bytes ? lseek(in, data, SEEK_HOLE) : (off_t)bytes;
		hole = d < 0 ? bytes : (uint64_t)d;
		for (at = data; !r && at < hole; at += n) {
			n = hole - at < DFT_SV_CHUNK ? hole - at : DFT_SV_CHUNK;
			r = dft_sv_read(in, buf, n, at, "disk.img");
			for (b = 0; !r && b < n; b += DFT_SV_BLOCK) {
				size_t len = n - b < DFT_SV_BLOCK ? n - b : DFT_SV_BLOCK;
				uint64_t off = at + b;

				if (!dft_sv_zero(buf + b, len))
					h = dft_sv_hash(dft_sv_hash(h, &off, sizeof(off)), buf + b,
							len);
			}
			if (!r)
				r = dft_sv_write(out, buf, n, at, ct->disk);
		}
	}
	if (!r && (fsync(out) || ioctl(out, BLKFLSBUF, 0)))
		r = dft_ct_err("%s: %s", ct->disk, strerror(errno));
	if (!r && h != ct->hash[0])
		r = dft_ct_err("%s/disk.img is not the disk this run saved (its hash differs)", dir);
	free(buf);
	if (out >= 0)
		close(out);
	close(in);
	return r;
}

/* The last line of a "record list" reply: "next <n>" or "end". */
static bool dft_sv_page_end(const char *line, size_t len)
{
	return (len == 3 && !strncmp(line, "end", 3)) || !strncmp(line, "next ", 5);
}

/* The saved "record list" replies, page by page, into @rec. */
static int dft_sv_read_record(const struct dft_ct *ct, const char *dir, struct dft_record *rec)
{
	const char *err = "cut short";
	uint64_t from = 1, next = 0;
	char *text, *page, *p, *eol, c;
	size_t len;
	int r = 0;

	text = dft_sv_slurp(dir, "record", &len);
	if (!text)
		return -1;
	if (dft_sv_hash(DFT_FNV_BASIS, text, len) != ct->hash[1]) {
		free(text);
		return dft_ct_err("%s/record is not what this run saved (its hash differs)", dir);
	}
	for (page = p = text; !r && from && *p; p = c ? eol + 1 : eol) {
		eol = strchrnul(p, '\n');
		c = *eol;
		if (!dft_sv_page_end(p, eol - p))
			continue;
		*eol = '\0';
		r = dft_record_page(rec, page, from, &next, &err);
		from = next;
		page = c ? eol + 1 : eol;
	}
	if (!r && from)
		r = -EPROTO;
	if (!r)
		r = dft_record_done(rec, &err);
	free(text);
	return r ? dft_ct_err("%s/record: %s", dir, err) : 0;
}

/* A FUA write: asynchronous O_DSYNC direct I/O, so that no flush follows it. */
static int dft_sv_fua(int fd, const void *buf, size_t n, uint64_t at)
{
	aio_context_t ctx = 0;
	struct iocb cb = { .aio_lio_opcode = IOCB_CMD_PWRITE, .aio_fildes = fd,
			   .aio_buf = (uintptr_t)buf, .aio_nbytes = n, .aio_offset = at,
			   .aio_rw_flags = RWF_DSYNC };
	struct iocb *cbs[1] = { &cb };
	struct io_event ev;
	long r;

	if (syscall(SYS_io_setup, 1, &ctx))
		return -errno;
	r = syscall(SYS_io_submit, ctx, 1, cbs);
	if (r == 1)
		r = syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL) == 1 ? ev.res : -errno;
	else
		r = r < 0 ? -errno : -EIO;
	syscall(SYS_io_destroy, ctx);
	return r == (long)n ? 0 : r < 0 ? (int)r : -EIO;
}

/* Write @w of @rec again, as its bio was: 0 or -errno. */
static int dft_sv_replay_one(int fd, const struct dft_rw *rw, const char *buf)
{
	uint64_t range[2] = { rw->sector << 9, rw->nr << 9 };
	ssize_t r;

	switch (rw->kind) {
	case DFT_RW_FUA:
		return dft_sv_fua(fd, buf, range[1], range[0]);
	case DFT_RW_DISCARD:
		return ioctl(fd, BLKDISCARD, range) ? -errno : 0;
	case DFT_RW_ZEROES:
		return ioctl(fd, BLKZEROOUT, range) ? -errno : 0;
	default:
		r = pwrite(fd, buf, range[1], range[0]);
		return r == (ssize_t)range[1] ? 0 : r < 0 ? -errno : -EIO;
	}
}

/* The marks made after write @w (0: before the first), from *@m on. */
static int dft_sv_marks(const struct dft_ct *ct, const struct dft_record *rec, uint64_t w,
			size_t *m)
{
	for (; *m < rec->nr_m && rec->m[*m].after == w; ++*m)
		if (dft_ct_send(ct, NULL, "mark%s%s", *rec->m[*m].label ? " " : "",
				rec->m[*m].label))
			return -1;
	return 0;
}

/* Every write of @rec with its data from DIR/data, the flushes and the marks between. */
static int dft_sv_replay(const struct dft_ct *ct, const char *dir, const struct dft_record *rec)
{
	uint64_t w, h = DFT_FNV_BASIS;
	size_t size = 0, m = 0, b = 0, n;
	const struct dft_rw *rw;
	char *buf = NULL;
	int in, fd, r;

	if (dft_sv_open(dir, "data", O_RDONLY, &in))
		return -1;
	fd = open(ct->dev, O_WRONLY | O_DIRECT | O_CLOEXEC);
	r = fd < 0 ? dft_ct_err("%s: %s", ct->dev, strerror(errno)) : 0;
	if (!r)
		r = dft_sv_marks(ct, rec, 0, &m);
	for (w = 1; !r && w <= rec->nr_w; w++) {
		rw = &rec->w[w - 1];
		n = rw->kind == DFT_RW_DISCARD || rw->kind == DFT_RW_ZEROES ? 0 : rw->nr << 9;
		if (dft_sv_buf(&buf, &size, n) || (n && dft_sv_read(in, buf, n, -1, "data"))) {
			r = -1;
			break;
		}
		h = dft_sv_hash(h, buf, n);
		r = dft_sv_replay_one(fd, rw, buf);
		if (r) {
			r = dft_ct_err("%s: write %llu (sector %llu+%llu %s) again: %s", ct->dev,
				       (unsigned long long)w, (unsigned long long)rw->sector,
				       (unsigned long long)rw->nr, dft_rw_kind_name(rw->kind),
				       strerror(-r));
			break;
		}
		for (; b < rec->nr_bar && rec->bar[b] == w; b++)
			if (fdatasync(fd))
				r = dft_ct_err("%s: a flush: %s", ct->dev, strerror(errno));
		if (!r)
			r = dft_sv_marks(ct, rec, w, &m);
	}
	if (!r && h != ct->hash[2])
		r = dft_ct_err("%s/data is not what this run saved (its hash differs)", dir);
	free(buf);
	if (fd >= 0)
		close(fd);
	close(in);
	return r;
}

/**
 * dft_ct_replay - the saved recording, made again on the fault device
 * @ct: its fault device created on the restored disk
 * @dir: the saved run
 * @saved: zeroed; the saved recording, read and checked, for the caller
 *         to compare with the one the device now lists
 *
 * The device records the writes replayed and crashes after them.
 *
 * Return: 0, or -1 said why.
 */
int dft_ct_replay(struct dft_ct *ct, const char *dir, struct dft_record *saved)
{
	if (dft_sv_read_record(ct, dir, saved) || dft_ct_send(ct, NULL, "record") ||
	    dft_sv_replay(ct, dir, saved))
		return -1;
	return dft_ct_send(ct, NULL, "crash");
}
