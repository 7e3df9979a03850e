// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for dmfault hunt's pure parts (tools/dmfault/hunt/hunt.c
 * and alloc/chain.c): the catalogue's file syntax and its strict errors, the catalogue shipped with
 * the tool, the $DMF_ENV lines and variables of a path, the call chain of an injected fault read
 * from the hook's log lines, and findings deduplicated by that chain.
 * KTAP output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hunt/hunt.h"
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

/* Parse @text as the catalogue "t.cat": 0 or -errno, the message in @err. */
static int parse(struct dft_hunt_catalog *c, const char *text, char *err, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->text = strdup(text);
	return c->text ? dft_hunt_catalog_parse(c, "t.cat", err, len) : -ENOMEM;
}

static void test_catalog(void)
{
	static const char good[] =
		"# a comment\n"
		"\n"
		"[plant]\n"
		"setup = : > /dev/shm/a\n"
		"step = $DMF_HUNT --plant /dev/shm/a pipe\n"
		"knobs = probe=/dev/shm/a  require-symbol=x\n"
		"[two]\n"
		"  step=true   \n"
		"teardown = a && \\\n"
		"\tb \\\n"
		"    c\n"
		"# a comment \\\n"
		"[three]\n"
		"step = x\n";
	struct dft_hunt_catalog c;
	char err[256];

	ktap_check(!parse(&c, good, err, sizeof(err)) && c.nr == 3, "catalogue: parsed (%s)", err);
	if (c.nr == 3) {
		ktap_check(!strcmp(c.paths[0].name, "plant") && c.paths[0].line == 3 &&
			   !strcmp(c.paths[0].setup, ": > /dev/shm/a") &&
			   !strcmp(c.paths[0].cmd, "$DMF_HUNT --plant /dev/shm/a pipe") &&
			   !c.paths[0].post && !c.paths[0].teardown &&
			   !strcmp(c.paths[0].knobs, "probe=/dev/shm/a  require-symbol=x"),
			   "catalogue: a stanza's keys and values, blanks around '=' dropped");
		ktap_check(!strcmp(c.paths[1].cmd, "true") && !c.paths[1].setup,
			   "catalogue: keys optional but step, value trimmed");
		KTAP_EXPECT_STR_EQ(c.paths[1].teardown, "a && b c");
		ktap_check(!strcmp(c.paths[2].name, "three") && c.paths[2].line == 13,
			   "catalogue: a comment line does not continue");
	}
	dft_hunt_catalog_free(&c);
}

static void test_catalog_errors(void)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "[a]\nstep = x\nsetp = y\n", "t.cat:3: unknown key 'setp' (setup, step, post, teardown or knobs)" },
		{ "[a]\nsetup = x\n[b]\nstep = y\n", "t.cat:1: path 'a' has no step" },
		{ "[a]\nstep = x\n\n[b]\nstep = y\n[a]\nstep = z\n", "t.cat:6: path 'a' again (first at line 1)" },
		{ "[a]\nstep = x\n[b]\npost = y\n", "t.cat:3: path 'b' has no step" },
		{ "step = x\n", "t.cat:1: 'step = x' is outside a path's stanza ([NAME] first)" },
		{ "[a]\nstep = x\nstep = y\n", "t.cat:3: step given twice in path 'a'" },
		{ "[a]\nstep =\n", "t.cat:2: step is empty" },
		{ "[a]\nstep x\n", "t.cat:2: 'step x' is not KEY = VALUE" },
		{ "[a b]\nstep = x\n", "t.cat:1: 'a b' is not a path name (letters, digits, '.', '_', '-')" },
		{ "[a] x\nstep = x\n", "t.cat:1: '[a] x' is not a [NAME] header" },
		{ "[a]\nstep = x\nknobs = probe=/a verbose\n", "t.cat:3: knobs: 'verbose' is not KNOB=VALUE" },
		{ "[a]\nstep = x \\\n", "t.cat:2: the last line ends in a backslash" },
		{ "# nothing\n\n", "t.cat:2: no path" },
	};
	struct dft_hunt_catalog c;
	char err[256];
	unsigned int i;
	int r;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		r = parse(&c, bad[i].text, err, sizeof(err));
		ktap_check(r == -EINVAL && !strcmp(err, bad[i].err), "catalogue error %u: %s", i,
			   err);
		dft_hunt_catalog_free(&c);
	}
	r = dft_hunt_catalog_read(&c, "/nonexistent/hunt.catalog", err, sizeof(err));
	ktap_check(r == -ENOENT && !strcmp(err, "/nonexistent/hunt.catalog: No such file or directory"),
		   "catalogue: a file that is not there (%s)", err);
	dft_hunt_catalog_free(&c);
}

/* The catalogue installed with the tool parses, with the paths it names. */
static void test_catalog_file(void)
{
	static const char *const want[] = { "netns", "tmpfs", "ext4", "xfs", "dm-remove", "pipe",
					    "io_uring", "module" };
	struct dft_hunt_catalog c;
	unsigned int i, j;
	char err[512];

	ktap_check(!dft_hunt_catalog_read(&c, DFT_TOOL_DIR "/hunt/hunt.catalog", err, sizeof(err)),
		   "hunt.catalog parses (%s)", err);
	ktap_check(c.nr >= 20, "hunt.catalog: %u paths", c.nr);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		for (j = 0; j < c.nr && strcmp(c.paths[j].name, want[i]); j++)
			;
		ktap_check(j < c.nr, "hunt.catalog has %s", want[i]);
	}
	for (i = 0; i < c.nr; i++)
		if (c.paths[i].setup && strstr(c.paths[i].setup, "/dev/loop"))
			ktap_check(0, "hunt.catalog: %s names a fixed loop device", c.paths[i].name);
	dft_hunt_catalog_free(&c);
}

static void test_env_expand(void)
{
	char ok[] = "LOOP=/dev/loop7\n", blank[] = " \n", dmf[] = "DMF_DIR=/x\n",
	     digit[] = "1X=a\n", noeq[] = "LOOP /dev/loop7\n";
	char out[64], bad[32], *k, *v;

	ktap_check(!dft_hunt_env_line(ok, &k, &v) && !strcmp(k, "LOOP") &&
		   !strcmp(v, "/dev/loop7"), "env: KEY=VALUE");
	ktap_check(dft_hunt_env_line(blank, &k, &v) == 1, "env: a blank line");
	ktap_check(dft_hunt_env_line(dmf, &k, &v) == -EINVAL &&
		   dft_hunt_env_line(digit, &k, &v) == -EINVAL &&
		   dft_hunt_env_line(noeq, &k, &v) == -EINVAL,
		   "env: DMF... keys, bad names, no '=' refused");
	setenv("DFT_T_LOOP", "/dev/loop7", 1);
	unsetenv("DFT_T_UNSET");
	ktap_check(!dft_hunt_expand("mount ext4 $DFT_T_LOOP ${DFT_T_LOOP}x $ 5$ a$-", out,
				    sizeof(out), bad, sizeof(bad)) &&
		   !strcmp(out, "mount ext4 /dev/loop7 /dev/loop7x $ 5$ a$-"),
		   "expand: $NAME and ${NAME}, a lone '$' kept (%s)", out);
	ktap_check(dft_hunt_expand("x $DFT_T_UNSET y", out, sizeof(out), bad, sizeof(bad)) ==
		   -ENOENT && !strcmp(bad, "DFT_T_UNSET"), "expand: an unset variable named");
	ktap_check(dft_hunt_expand("$DFT_T_LOOP", out, 10, bad, sizeof(bad)) == -E2BIG &&
		   dft_hunt_expand("123456789", out, 10, bad, sizeof(bad)) == 0 &&
		   dft_hunt_expand("1234567890", out, 10, bad, sizeof(bad)) == -E2BIG,
		   "expand: the output's size is kept");
}

static const struct ktap_case dft_cases[] = {
	KTAP_CASE(test_chain),
	KTAP_CASE(test_key),
	KTAP_CASE(test_alloc_report),
	KTAP_CASE(test_findings),
	KTAP_CASE(test_catalog),
	KTAP_CASE(test_catalog_errors),
	KTAP_CASE(test_catalog_file),
	KTAP_CASE(test_env_expand),
};

int main(void)
{
	return ktap_run("dmfault_hunt", dft_cases, ARRAY_SIZE(dft_cases));
}
