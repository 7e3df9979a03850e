// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for dmfault hunt's pure parts (tools/dmfault/hunt.c): the
 * catalogue and its file syntax, the call chain of an injected fault read
 * from the hook's log lines, and findings deduplicated by that chain.
 * KTAP output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmfault.h"
#include "ktap.h"

/* The lines dmf_alloc logs for one fault at verbose 2 (6.12). */
static const char *const clunk[] = {
	"dmf_alloc: FAULT_INJECTION: forcing a failure: failslab kmem_cache_alloc_noprof(cache p9_req_t, size 152, gfp GFP_NOFS) pid 388 (busybox)",
	"dmf_alloc:   called by p9_tag_alloc+0x48/0x270 [9pnet]",
	"dmf_alloc:   from p9_client_prepare_req+0x97/0x170 [9pnet]",
	"dmf_alloc:   from p9_client_rpc+0x9d/0x410 [9pnet]",
	"dmf_alloc:   from p9_client_clunk+0x35/0x80 [9pnet]",
};

static void feed(struct dft_chain *c, const char *const *lines, unsigned int n)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < n; i++)
		dft_chain_feed(c, lines[i]);
}

static void test_chain(void)
{
	struct dft_chain c;

	feed(&c, clunk, ARRAY_SIZE(clunk));
	KTAP_EXPECT_STR_EQ(c.frames,
			   "p9_tag_alloc < p9_client_prepare_req < p9_client_rpc < p9_client_clunk");
	ktap_check(c.nr == 4 && c.seen, "chain: four frames, a fault seen");
	KTAP_EXPECT_STR_EQ(c.fault,
			   "failslab kmem_cache_alloc_noprof(cache p9_req_t, size 152, gfp GFP_NOFS)");
	ktap_check(!dft_chain_feed(&c, "WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2"),
		   "chain: a warning is not the hook's");
	ktap_check(c.nr == 4, "chain: other lines leave it alone");
	dft_chain_feed(&c, clunk[0]);
	ktap_check(c.nr == 0 && !c.frames[0] && c.seen, "chain: a new fault starts again");
	memset(&c, 0, sizeof(c));
	ktap_check(!dft_chain_feed(&c, clunk[1]), "chain: frames before any fault are ignored");
}

static void test_key(void)
{
	const char *other[ARRAY_SIZE(clunk)];
	char k1[2048], k2[2048], k3[2048];
	struct dft_chain a, b;

	feed(&a, clunk, ARRAY_SIZE(clunk));
	memcpy(other, clunk, sizeof(clunk));
	other[1] = "dmf_alloc:   called by p9_tag_alloc+0x50/0x270 [9pnet]";
	other[0] = "dmf_alloc: FAULT_INJECTION: forcing a failure: failslab kmem_cache_alloc_noprof(cache p9_req_t, size 152, gfp GFP_NOFS) pid 977 (cat)";
	feed(&b, other, ARRAY_SIZE(other));
	dft_chain_key(&a, "lasting damage", "open x: Invalid argument", k1, sizeof(k1));
	dft_chain_key(&b, "lasting damage", "open y: Invalid argument", k2, sizeof(k2));
	KTAP_EXPECT_STR_EQ(k1, k2);
	dft_chain_key(&a, "WARNING:", "open x", k3, sizeof(k3));
	ktap_check(strcmp(k1, k3), "key: another kind is another finding");
	other[3] = "dmf_alloc:   from p9_client_walk+0x9d/0x410 [9pnet]";
	feed(&b, other, ARRAY_SIZE(other));
	dft_chain_key(&b, "lasting damage", "open x: Invalid argument", k2, sizeof(k2));
	ktap_check(strcmp(k1, k2), "key: another chain is another finding");
	memset(&a, 0, sizeof(a));
	dft_chain_key(&a, "WARNING:", "WARNING: CPU: 1 PID: 212 at fs/x.c:10", k1, sizeof(k1));
	dft_chain_key(&a, "WARNING:", "WARNING: CPU: 0 PID: 99 at fs/x.c:10", k2, sizeof(k2));
	KTAP_EXPECT_STR_EQ(k1, k2);
}

static void test_alloc_report(void)
{
	ktap_check(dft_alloc_failure_report("dmf-hunt: vmalloc error: size 16384, vm_struct allocation failed, mode:0xdc0(GFP_KERNEL|__GFP_ZERO), nodemask=(null),cpuset=/,mems_allowed=0"),
		   "alloc report: vmalloc error");
	ktap_check(dft_alloc_failure_report("mount: page allocation failure: order:0, mode:0x40cc0(GFP_KERNEL|__GFP_COMP), nodemask=(null)"),
		   "alloc report: page allocation failure");
	ktap_check(dft_alloc_failure_report("sysctl could not get directory: /net/netfilter/nf_log -12"),
		   "alloc report: 6.1's sysctl registration");
	ktap_check(!dft_alloc_failure_report("WARNING: CPU: 1 PID: 1581 at fs/proc/generic.c:733 remove_proc_entry+0xb6/0x1d0"),
		   "alloc report: a warning is not one");
}

static void test_findings(void)
{
	struct dft_findings fs = { 0 };
	struct dft_finding f;

	memset(&f, 0, sizeof(f));
	strcpy(f.key, "k1");
	strcpy(f.path, "pipe");
	f.step = 3;
	ktap_check(!dft_findings_add(&fs, &f), "findings: add");
	strcpy(f.path, "pipe2");
	f.step = 9;
	dft_findings_add(&fs, &f);
	strcpy(f.path, "pipe");
	dft_findings_add(&fs, &f);
	strcpy(f.key, "k2");
	dft_findings_add(&fs, &f);
	ktap_check(fs.nr == 2, "findings: one per key (%u)", fs.nr);
	ktap_check(fs.f[0].hits == 3 && fs.f[0].step == 3 && !strcmp(fs.f[0].path, "pipe"),
		   "findings: hits counted, the first place kept");
	KTAP_EXPECT_STR_EQ(fs.f[0].paths, "pipe pipe2");
	dft_findings_free(&fs);
}

static void test_catalog(void)
{
	char line[] = "plant|: > /dev/shm/a|dmf-hunt --plant /dev/shm/a pipe|||probe=/dev/shm/a\n";
	char two[] = "x||true", bad[] = "x|setup", blank[] = "  # comment";
	char extra[] = "a|b|c|d|e|f|g";
	struct dft_hunt_path p;
	unsigned int i, j;

	ktap_check(!dft_hunt_parse_line(line, &p) && !strcmp(p.name, "plant") &&
		   !strcmp(p.cmd, "dmf-hunt --plant /dev/shm/a pipe") && !p.post &&
		   !p.teardown && !strcmp(p.knobs, "probe=/dev/shm/a"),
		   "catalogue: a full line");
	ktap_check(!dft_hunt_parse_line(two, &p) && !p.setup && !strcmp(p.cmd, "true") &&
		   !p.knobs, "catalogue: trailing fields optional");
	ktap_check(dft_hunt_parse_line(bad, &p) == -EINVAL, "catalogue: no command");
	ktap_check(dft_hunt_parse_line(extra, &p) == -EINVAL, "catalogue: too many fields");
	ktap_check(dft_hunt_parse_line(blank, &p) == 1, "catalogue: a comment");
	for (i = 0; i < dft_hunt_catalog_size; i++)
		for (j = i + 1; j < dft_hunt_catalog_size; j++)
			if (!strcmp(dft_hunt_catalog[i].name, dft_hunt_catalog[j].name))
				ktap_check(0, "built-in catalogue: %s twice",
					   dft_hunt_catalog[i].name);
	ktap_check(dft_hunt_catalog_size >= 20, "built-in catalogue: %u paths",
		   dft_hunt_catalog_size);
}

static const struct ktap_case dft_cases[] = {
	KTAP_CASE(test_chain),
	KTAP_CASE(test_key),
	KTAP_CASE(test_alloc_report),
	KTAP_CASE(test_findings),
	KTAP_CASE(test_catalog),
};

int main(void)
{
	return ktap_run("dmfault_hunt", dft_cases, ARRAY_SIZE(dft_cases));
}
