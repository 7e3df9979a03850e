// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which files hold some sectors of a file system, for crashtest's account
 * of a failure: "write 41 (sector 2048+8) is /db" says more than a sector.
 * The file system's own debuggers answer, read-only, on the device while it
 * shows a state nobody has mounted: debugfs for ext2/3/4 (icheck: block to
 * inode, ncheck: inode to path), xfs_db for xfs (blockget -n, then
 * blockuse -n at each address).  Blocks no file owns are named by what
 * they are when the debugger says (<journal>, <log>, <sb>, ...).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash/crash.h"

#define DFT_FSMAP_BLOCKS	16	/* blocks of one write looked at */
#define DFT_FSMAP_CMD		16384

/* One block asked about: the request it is for, and the inode that owns it. */
struct dft_fsblk {
	uint64_t block;
	unsigned int req;
	uint64_t ino;			/* 0: none */
	bool named;			/* a path was found for it */
};

/* "ext" or "xfs" from the superblock's magic, or NULL. */
static const char *dft_fs_type(const char *dev)
{
	unsigned char sb[2048];
	const char *type = NULL;
	int fd = open(dev, O_RDONLY);

	if (fd < 0)
		return NULL;
	if (pread(fd, sb, sizeof(sb), 0) == (ssize_t)sizeof(sb)) {
		if (sb[1080] == 0x53 && sb[1081] == 0xef)
			type = "ext";
		else if (!memcmp(sb, "XFSB", 4))
			type = "xfs";
	}
	close(fd);
	return type;
}

/* Append @name to @req's list unless it is there already. */
static void dft_fsmap_add(struct dft_fsmap_req *req, const char *name)
{
	size_t n = strlen(req->files), l = strlen(name);
	const char *p;

	for (p = req->files; (p = strstr(p, name)) != NULL; p++)
		if ((p == req->files || p[-1] == ' ') && (!p[l] || p[l] == ','))
			return;
	if (n + strlen(name) + 6 >= sizeof(req->files)) {
		if (!strstr(req->files, "..."))
			snprintf(req->files + n, sizeof(req->files) - n, "%s...", n ? ", " : "");
		return;
	}
	snprintf(req->files + n, sizeof(req->files) - n, "%s%s", n ? ", " : "", name);
}

/* The first number after @key in the output of @cmd, or 0. */
static uint64_t dft_fsmap_value(const char *cmd, const char *key)
{
	char line[512], *p;
	uint64_t v = 0;
	FILE *f = popen(cmd, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		p = v ? NULL : strstr(line, key);
		if (p)
			v = strtoull(p + strlen(key) + strspn(p + strlen(key), " \t:="), NULL, 10);
	}
	pclose(f);
	return v;
}

/* The blocks of @sector+@nr in @bs-byte blocks, at most DFT_FSMAP_BLOCKS. */
static unsigned int dft_fsmap_span(uint64_t sector, uint64_t nr, unsigned int bs,
				   uint64_t *first)
{
	uint64_t spb = bs / 512, last = (sector + nr - 1) / spb;

	*first = sector / spb;
	return last - *first + 1 > DFT_FSMAP_BLOCKS ? DFT_FSMAP_BLOCKS : last - *first + 1;
}

/* debugfs icheck: the inode of each block ("<block not found>": none). */
static int dft_ext_icheck(const char *dev, struct dft_fsblk *b, unsigned int nb)
{
	char *cmd = malloc(DFT_FSMAP_CMD), line[256];
	unsigned long long blk, ino;
	unsigned int i, n, found = 0;
	FILE *f;

	if (!cmd)
		return -ENOMEM;
	n = snprintf(cmd, DFT_FSMAP_CMD, "debugfs -R 'icheck");
	for (i = 0; i < nb && n < DFT_FSMAP_CMD - 64; i++)
		n += snprintf(cmd + n, DFT_FSMAP_CMD - n, " %llu", (unsigned long long)b[i].block);
	snprintf(cmd + n, DFT_FSMAP_CMD - n, "' '%s' 2>/dev/null", dev);
	f = popen(cmd, "r");
	free(cmd);
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu", &blk) != 1)
			continue;
		found++;
		if (sscanf(line, "%*u %llu", &ino) != 1)
			ino = 0;
		for (i = 0; i < nb; i++)
			if (b[i].block == blk)
				b[i].ino = ino;
	}
	pclose(f);
	return found ? 0 : -ENOENT;
}

/* debugfs ncheck: the path of each inode, into the requests of its blocks. */
static void dft_ext_ncheck(const char *dev, struct dft_fsblk *b, unsigned int nb,
			   struct dft_fsmap_req *req)
{
	char *cmd = malloc(DFT_FSMAP_CMD), line[1024], path[1024], *s;
	unsigned long long ino;
	unsigned int i, n;
	FILE *f;

	if (!cmd)
		return;
	n = snprintf(cmd, DFT_FSMAP_CMD, "debugfs -R 'ncheck");
	for (i = 0; i < nb && n < DFT_FSMAP_CMD - 64; i++)
		if (b[i].ino > 8)	/* the reserved inodes have no path */
			n += snprintf(cmd + n, DFT_FSMAP_CMD - n, " %llu",
				      (unsigned long long)b[i].ino);
	snprintf(cmd + n, DFT_FSMAP_CMD - n, "' '%s' 2>/dev/null", dev);
	f = popen(cmd, "r");
	free(cmd);
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %1023[^\n]", &ino, path) != 2)
			continue;
		/* debugfs prints the root's entries as "//name" */
		for (s = path; s[0] == '/' && s[1] == '/'; s++)
			;
		for (i = 0; i < nb; i++) {
			if (b[i].ino != ino)
				continue;
			b[i].named = true;
			dft_fsmap_add(&req[b[i].req], s);
		}
	}
	if (f)
		pclose(f);
}

/* What a block no path was found for is. */
static void dft_ext_name(struct dft_fsblk *b, struct dft_fsmap_req *req)
{
	char name[48];

	if (b->named)
		return;
	if (b->ino == 8)
		snprintf(name, sizeof(name), "<journal>");
	else if (b->ino == 7)
		snprintf(name, sizeof(name), "<resize inode>");
	else if (b->ino)
		snprintf(name, sizeof(name), "<inode %llu>", (unsigned long long)b->ino);
	else
		snprintf(name, sizeof(name), "<metadata or free>");
	dft_fsmap_add(req, name);
}

static int dft_fsmap_ext(const char *dev, struct dft_fsmap_req *req, unsigned int n,
			 char *note, size_t len)
{
	struct dft_fsblk *b = calloc(n * DFT_FSMAP_BLOCKS, sizeof(*b));
	char cmd[512];
	unsigned int bs, i, j, k, nb = 0;
	uint64_t first;
	int r;

	if (!b)
		return -ENOMEM;
	snprintf(cmd, sizeof(cmd), "dumpe2fs -h '%s' 2>/dev/null", dev);
	bs = dft_fsmap_value(cmd, "Block size");
	for (i = 0; bs >= 512 && i < n; i++)
		for (k = dft_fsmap_span(req[i].sector, req[i].nr, bs, &first), j = 0; j < k; j++)
			b[nb++] = (struct dft_fsblk){ .block = first + j, .req = i };
	r = bs < 512 ? -ENOENT : dft_ext_icheck(dev, b, nb);
	if (r) {
		snprintf(note, len, "debugfs and dumpe2fs could not read the ext4 file system");
		free(b);
		return r;
	}
	dft_ext_ncheck(dev, b, nb, req);
	for (i = 0; i < nb; i++)
		dft_ext_name(&b[i], &req[b[i].req]);
	free(b);
	return 0;
}

/* One line of blockuse -n: "block N (a/b) type T [inode I [path]]". */
static void dft_xfs_line(const char *line, struct dft_fsmap_req *req)
{
	char type[32] = "", path[1024] = "", name[1040];
	unsigned long long ino = 0;
	const char *p = strstr(line, " type ");

	if (!p || sscanf(p, " type %31s inode %llu %1023[^\n]", type, &ino, path) < 1)
		return;
	if (*path)
		snprintf(name, sizeof(name), "%s%s", *path == '/' ? "" : "/", path);
	else if (ino)
		snprintf(name, sizeof(name), "<inode %llu>", ino);
	else
		snprintf(name, sizeof(name), "<%s>", type);
	dft_fsmap_add(req, name);
}

static int dft_fsmap_xfs(const char *dev, struct dft_fsmap_req *req, unsigned int n,
			 char *note, size_t len)
{
	char *cmd = malloc(DFT_FSMAP_CMD), line[1024];
	unsigned int bs, i, k, m;
	int cur = -1, lines = 0;
	uint64_t first;
	FILE *f;

	if (!cmd)
		return -ENOMEM;
	snprintf(cmd, DFT_FSMAP_CMD, "xfs_db -r -c 'sb 0' -c 'p blocksize' '%s' 2>/dev/null", dev);
	bs = dft_fsmap_value(cmd, "blocksize");
	/* each request's lines follow its "convert" line ("0x1c (28)") */
	m = snprintf(cmd, DFT_FSMAP_CMD, "xfs_db -r -c 'blockget -n'");
	for (i = 0; bs >= 512 && i < n && m < DFT_FSMAP_CMD - 128; i++) {
		k = dft_fsmap_span(req[i].sector, req[i].nr, bs, &first);
		m += snprintf(cmd + m, DFT_FSMAP_CMD - m,
			      " -c 'convert daddr %llu fsblock' -c 'daddr %llu' -c 'blockuse -n -c %u'",
			      (unsigned long long)req[i].sector, (unsigned long long)req[i].sector,
			      k);
	}
	snprintf(cmd + m, DFT_FSMAP_CMD - m, " '%s' 2>/dev/null", dev);
	f = bs >= 512 ? popen(cmd, "r") : NULL;
	free(cmd);
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0x", 2))
			cur++;
		else if (cur >= 0 && cur < (int)n && !strncmp(line, "block ", 6))
			lines++, dft_xfs_line(line, &req[cur]);
	}
	if (f)
		pclose(f);
	if (!lines) {
		snprintf(note, len, "xfs_db could not map the xfs file system's blocks");
		return -ENOENT;
	}
	return 0;
}

/**
 * dft_fsmap - name the files that hold sectors of the file system on a device
 * @dev: the device, showing a state no one has mounted
 * @req: sectors in, in @req[i].files the names found ("" for none)
 * @n: how many requests
 * @note: on failure, why nothing could be named
 * @len: its size
 *
 * Return: 0, -ENOENT (no ext2/3/4 or xfs file system, or its debugger gave
 * nothing), or -ENOMEM.
 */
int dft_fsmap(const char *dev, struct dft_fsmap_req *req, unsigned int n, char *note,
	      size_t len)
{
	const char *type = dft_fs_type(dev);
	unsigned int i;

	for (i = 0; i < n; i++)
		req[i].files[0] = '\0';
	if (!n)
		return 0;
	if (!type) {
		snprintf(note, len, "no ext4 or xfs file system on the device to map sectors to files");
		return -ENOENT;
	}
	if (!strcmp(type, "ext"))
		return dft_fsmap_ext(dev, req, n, note, len);
	return dft_fsmap_xfs(dev, req, n, note, len);
}
