// SPDX-License-Identifier: GPL-2.0-only
/*
 * One grammar: every rule of rules.corpus, and a generated set of numbers
 * at and past each key's limits, goes to the target's own parser
 * (drivers/md/dm-fault-parse.c compiled on the host) and to the built tool
 * (`dmfault create --print`).  They must give the same verdict, the tool
 * must print an accepted rule unchanged and name the parser's reason for a
 * refused one, and the corpus's expected verdicts must hold.
 */
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../drivers/md/dm-fault-rule.h"
#include "ktap.h"

extern char **environ;

/* Run the tool on @rule; its exit status, stdout and stderr (cut). */
static int tool_verdict(const char *rule, char *out, size_t olen, char *err, size_t elen)
{
	char *argv[] = { "dmfault", "create", "v", "1:1", "--size", "1M", "--print",
			 "--rule", (char *)rule, NULL };
	char opath[] = "/tmp/dmf-verdict-XXXXXX", epath[] = "/tmp/dmf-verdict-XXXXXX";
	posix_spawn_file_actions_t fa;
	int ofd = mkstemp(opath), efd = mkstemp(epath), st = -1;
	ssize_t n;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, ofd, 1);
	posix_spawn_file_actions_adddup2(&fa, efd, 2);
	if (!posix_spawn(&pid, DFT_BIN, &fa, NULL, argv, environ))
		waitpid(pid, &st, 0);
	posix_spawn_file_actions_destroy(&fa);
	n = pread(ofd, out, olen - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	n = pread(efd, err, elen - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(ofd);
	close(efd);
	unlink(opath);
	unlink(epath);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Both sides on one rule; @want: 1 accepted, 0 refused, -1 no expectation. */
static void agree(const char *rule, int want)
{
	struct fault_rule_err kerr = { };
	struct fault_rule_cfg cfg;
	char out[1024], err[1024], line[600];
	int kr, rc;
	bool ok;

	fault_rule_cfg_init(&cfg);
	kr = fault_rule_cfg_parse(&cfg, rule, &kerr);
	fault_rule_cfg_destroy(&cfg);
	rc = tool_verdict(rule, out, sizeof(out), err, sizeof(err));
	if (!kr) {
		snprintf(line, sizeof(line), "0 2048 fault 1:1 0 1 %s\n", rule);
		ok = rc == 0 && !strcmp(out, line);
	} else {
		ok = rc == 2 && (strstr(err, kerr.reason) || strpbrk(rule, " \t\n\r"));
	}
	if (want >= 0 && (want == 1) != !kr)
		ok = false;
	ktap_check(ok, "'%s': target %s%s%s, tool exit %d%s%s", rule, kr ? "refuses: " : "accepts",
		   kr ? kerr.reason : "",
		   want >= 0 && (want == 1) != !kr ? " (expected the other verdict)" : "",
		   rc, rc ? ": " : "", rc ? strtok(err, "\n") : "");
}

/* "\t", "\xHH" and "\\" in a corpus line. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (*s == '\\' && s[1] == 't') {
			*d++ = '\t';
			s++;
		} else if (*s == '\\' && s[1] == 'x' && s[2] && s[3]) {
			char hex[3] = { s[2], s[3], 0 };

			*d++ = (char)strtol(hex, NULL, 16);
			s += 3;
		} else if (*s == '\\' && s[1] == '\\') {
			*d++ = *++s;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

static void test_corpus(void)
{
	char line[70000];
	unsigned int n = 0;
	FILE *f = fopen(CORPUS, "r");

	if (!f) {
		ktap_check(false, "cannot open %s", CORPUS);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		unescape(line);
		if (!strncmp(line, "ok ", 3))
			agree(line + 3, 1);
		else if (!strncmp(line, "bad ", 4))
			agree(line + 4, 0);
		else
			ktap_check(false, "corpus line without ok/bad: '%s'", line);
		n++;
	}
	fclose(f);
	ktap_check(n >= 100, "the corpus holds %u rules", n);
}

/*
 * Every numeric key with values at and past the limits of its type, each
 * with the verdict the grammar gives it (Documentation/admin-guide/
 * device-mapper/dm-fault.rst), written out by hand: a parser that takes a
 * value it should refuse, or refuses one it should take, fails here even
 * when the tool, which shares its code, agrees with it.
 */
static const char *const limit_vals[] = {
	"0", "1", "-1", "4294967295", "4294967296", "9223372036854775807",
	"9223372036854775808", "18446744073709551615", "18446744073709551616",
	"0x10", "010", "1x", "+1", "1-", "1-0", "0-1", "4k-", "1/0", "1e-30", "100%",
	"86400s", "86401s", "random",
};

/*
 * One column a value of limit_vals, in its order: 'y' accepted, '-' refused.
 * Numbers are kstrtou64's (base 0 where noted: 0x10 is 16, 010 is 8; a
 * leading '+' is taken, a '-' is not); durations are decimal digits with
 * an optional ns, us, ms or s (ms without one), at most a day; sizes are
 * decimal with k, m or g, at most 2^32-1; ranges are "A-B" with A <= B.
 */
static const struct {
	const char *key;
	const char *ok;
} limit_want[] = {
	/* value:		 0         1         2 */
	/*			 01234567890123456789012 */
	{ "id",		"-y-y-----yy-y----------" },	/* 1 to 2^32-1, base 0 */
	{ "sectors",	"yy-yyyyy-yy-y--y-------" },	/* u64 range, base 0 */
	{ "size",	"yy-y------y-yy-yy------" },	/* byte range, "A-": no max */
	{ "up",		"y----------------------" },	/* u32; not 0 needs down= */
	{ "down",	"yy-y-----yy-y----------" },	/* u32, base 0 */
	{ "after",	"yy-y-----yy-y----------" },	/* u32, base 0 */
	{ "skip",	"yy-yyyyy-yy-y----------" },	/* u64, base 0 */
	{ "bits",	"-y-------yy-y----------" },	/* 1 to 4096, base 0 */
	{ "byte",	"yy-------yy-y----------" },	/* 0 to 255, base 0 */
	{ "offset",	"yy-y-----yy-y---------y" },	/* random or a u32, base 0 */
	{ "delay",	"yy--------y---------y--" },	/* duration */
	{ "jitter",	"yy--------y---------y--" },	/* duration */
	{ "timeout",	"yy--------y---------y--" },	/* duration */
	{ "keep",	"yy-y-----yy-y---------y" },	/* random or a u32, base 0 */
	{ "p",		"yy--------y--------y---" },	/* percent, 0 to 100 */
	{ "interval",	"-y-yyyyy--y-y----------" },	/* u64 >= 1, base 10 */
	{ "times",	"yyyyyy----y-y----------" },	/* s64 >= -1, base 10 */
	{ "space",	"yy-yyy----y-y----------" },	/* s64 >= 0, base 10 */
	{ "seed",	"yy-yyyyy-yy-y----------" },	/* u64, base 0 */
	{ "verbose",	"yy----------y----------" },	/* 0 to 2, base 10 */
};

static void test_limits(void)
{
	static const char *const actions[] = { "error", "corrupt:op=write", "delay:delay=1" };
	char rule[256];
	unsigned int a, k, v, n = 0;
	int want;

	for (k = 0; k < ARRAY_SIZE(limit_want); k++)
		ktap_check(strlen(limit_want[k].ok) == ARRAY_SIZE(limit_vals),
			   "%s: %zu verdicts for %zu values", limit_want[k].key,
			   strlen(limit_want[k].ok), ARRAY_SIZE(limit_vals));
	for (a = 0; a < ARRAY_SIZE(actions); a++)
		for (k = 0; k < ARRAY_SIZE(limit_want); k++)
			for (v = 0; v < ARRAY_SIZE(limit_vals); v++) {
				snprintf(rule, sizeof(rule), "%s%c%s=%s", actions[a],
					 strchr(actions[a], ':') ? ',' : ':',
					 limit_want[k].key, limit_vals[v]);
				want = limit_want[k].ok[v] == 'y';
				/* a delay rule with delay=0 and no jitter delays nothing */
				if (!strncmp(actions[a], "delay:", 6) &&
				    !strcmp(limit_want[k].key, "delay") &&
				    !strcmp(limit_vals[v], "0"))
					want = 0;
				agree(rule, want);
				n++;
			}
	ktap_check(n == 60 * ARRAY_SIZE(limit_vals), "%u generated rules", n);
}

static const struct ktap_case verdict_cases[] = {
	KTAP_CASE(test_corpus),
	KTAP_CASE(test_limits),
};

int main(void)
{
	return ktap_run("verdict", verdict_cases, ARRAY_SIZE(verdict_cases));
}
