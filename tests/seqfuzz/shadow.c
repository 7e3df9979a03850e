// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf-seqfuzz: what each disk sector must hold.
 *
 * Every write the fuzzer makes carries a tag, and its data is a pattern of
 * the tag and the byte's offset on the disk it lands on, so a sector read
 * back through any device, at any offset or stacking, names the write it
 * came from.  The shadow keeps one tag a sector: 0 where nothing is known
 * (never written, or written where a rule, a cache, a crash or a write in
 * flight may have changed it), 1 for zeroes, else the last write's tag.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "seqfuzz.h"

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/**
 * sf_pattern - the data of write @tag at disk offset @disk_byte
 * @buf: filled with @len bytes
 * @disk_byte: where @buf[0] lands on the disk, a multiple of 8
 * @len: a multiple of 8
 * @tag: the write's tag, 2 or more; 1 gives zeroes
 */
void sf_pattern(unsigned char *buf, uint64_t disk_byte, size_t len, uint32_t tag)
{
	size_t i;

	if (tag == 1) {
		memset(buf, 0, len);
		return;
	}
	for (i = 0; i < len; i += 8) {
		uint64_t v = mix(((uint64_t)tag << 40) ^ (disk_byte + i));

		memcpy(buf + i, &v, 8);
	}
}

/* Sectors @first.. of @d now hold write @tag (0: nothing known). */
void sf_shadow_set(struct sf_disk *d, uint64_t first, uint64_t nr, uint32_t tag)
{
	uint64_t i;

	for (i = first; i < first + nr && i < d->sectors; i++)
		d->shadow[i] = tag;
}

/**
 * sf_shadow_check - compare sectors read back with what the shadow knows
 * @d: the disk they come from
 * @first: the disk sector of @buf's first
 * @buf: @nr sectors read
 * @nr: sectors
 * @bad_sector: set to the first that differs
 * @tag: set to the tag it should hold
 *
 * Return: the number of sectors compared, or -1 if one differs.
 */
int sf_shadow_check(const struct sf_disk *d, uint64_t first, const unsigned char *buf,
		    uint64_t nr, uint64_t *bad_sector, uint32_t *tag)
{
	unsigned char want[512];
	uint64_t i;
	int n = 0;

	for (i = 0; i < nr && first + i < d->sectors; i++) {
		uint32_t t = d->shadow[first + i];

		if (!t)
			continue;
		sf_pattern(want, (first + i) << 9, sizeof(want), t);
		if (memcmp(want, buf + (i << 9), sizeof(want))) {
			*bad_sector = first + i;
			*tag = t;
			return -1;
		}
		n++;
	}
	return n;
}
