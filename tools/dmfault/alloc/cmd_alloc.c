// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: the allocator hook commands (alloc show/set/mark/unmark) and run,
 * which aims slab and page-allocator faults at one command the way the
 * kernel's tools/testing/fault-injection/failcmd.sh does; with --nth-sweep
 * it hands the command to the sweep (sweep.c), which fails its 1st, 2nd,
 * ... allocation until it runs clean.  Everything goes through the
 * dmf_alloc module's debugfs files (knobs.c); step.c runs the command.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc/alloc.h"

/* The hooks the options select: --slab, --page, both, or @def. */
static unsigned int dft_hook_mask(const struct dft_opts *o, unsigned int def)
{
	unsigned int m = (o->slab ? 1 : 0) | (o->page ? 2 : 0);

	return m ? m : def;
}

static int dft_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the regular files in @dir. */
static int dft_list_files(const char *dir, char ***out, unsigned int *nr)
{
	char path[512], **arr = NULL, **p;
	struct dirent *e;
	struct stat st;
	DIR *d;

	*out = NULL;
	*nr = 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		p = realloc(arr, (*nr + 1) * sizeof(*arr));
		if (!p)
			break;
		arr = p;
		arr[*nr] = strdup(e->d_name);
		if (!arr[*nr])
			break;
		(*nr)++;
	}
	closedir(d);
	if (*nr)
		qsort(arr, *nr, sizeof(*arr), dft_name_cmp);
	*out = arr;
	return 0;
}

static void dft_show_dir(const struct dft_opts *o, struct dft_json *j, const char *dir,
			 const char *title)
{
	char path[512], val[DFT_KNOB_MAX], **files;
	unsigned int n, i;
	char *nl;

	if (dft_list_files(dir, &files, &n))
		return;
	if (o->json)
		dft_json_begin(j, title, '{');
	else if (n)
		printf("%s:\n", title);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (dft_read_file(path, val, sizeof(val))) {
			if (o->json)
				dft_json_null(j, files[i]);
			else
				printf("  %-22s (write-only)\n", files[i]);
			free(files[i]);
			continue;
		}
		if (o->json) {
			dft_json_str(j, files[i], val);
		} else {
			for (nl = val; (nl = strchr(nl, '\n')) != NULL; nl++)
				*nl = '\t';	/* one line per knob */
			printf("  %-22s %s\n", files[i], val);
		}
		free(files[i]);
	}
	free(files);
	if (o->json)
		dft_json_end(j, '}');
}

DFT_HANDLER(dft_cmd_alloc_show)
{
	unsigned int mask = dft_hook_mask(o, 3), i;
	char dir[256];
	struct dft_json j;
	struct stat st;
	int r;

	(void)cmd;
	(void)argc;
	(void)argv;
	r = dft_alloc_present();
	if (r)
		return r;
	if (o->json) {
		dft_json_init(&j, stdout, false);
		dft_json_begin(&j, NULL, '{');
		dft_json_begin(&j, "hooks", '{');
	}
	for (i = 0; i < ARRAY_SIZE(dft_hooks); i++) {
		if (!(mask & (1U << i)))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", dft_debugfs(), dft_hooks[i]);
		if (stat(dir, &st)) {
			if (o->json)
				dft_json_null(&j, dft_hooks[i]);
			else
				printf("%s: not present\n", dft_hooks[i]);
			continue;
		}
		dft_show_dir(o, &j, dir, dft_hooks[i]);
	}
	if (o->json)
		dft_json_end(&j, '}');
	dft_show_dir(o, &j, dft_debugfs(), "dm-fault");
	if (o->json) {
		dft_json_end(&j, '}');
		dft_json_finish(&j);
	}
	return DFT_EXIT_OK;
}

DFT_HANDLER(dft_cmd_alloc_set)
{
	unsigned int mask = dft_hook_mask(o, 1);
	int i, r;

	r = dft_alloc_present();
	if (r)
		return r;
	for (i = 0; i < argc; i++) {
		r = dft_parse_setting(o, argv[i]);
		if (r == -EINVAL)
			return dft_usage_err(cmd, "'%s' is not KNOB=VALUE", argv[i]);
		if (r)
			return dft_err("out of memory");
	}
	return dft_apply_knobs(o->set, o->nr_set, mask, NULL, false);
}

static int dft_check_pid(const char *s, pid_t *pid)
{
	char path[64];
	uint64_t v;

	if (dft_parse_u64(s, &v) || !v || v > 4194304)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%llu", (unsigned long long)v);
	if (access(path, F_OK))
		return -ESRCH;
	*pid = v;
	return 0;
}

DFT_HANDLER(dft_cmd_alloc_mark)
{
	bool mark = !strcmp(cmd->name, "alloc mark");
	int i, r, ret = DFT_EXIT_OK;
	pid_t pid;

	(void)o;
	for (i = 0; i < argc; i++) {
		r = dft_check_pid(argv[i], &pid);
		if (r == -EINVAL)
			return dft_usage_err(cmd, "'%s' is not a process id", argv[i]);
	}
	r = dft_alloc_present();
	if (r)
		return r;
	for (i = 0; i < argc; i++) {
		r = dft_check_pid(argv[i], &pid);
		if (r == -ESRCH) {
			ret = dft_err("%s: no such process", argv[i]);
			continue;
		}
		r = dft_mark(pid, mark);
		if (r)
			ret = dft_err("%s %s: %s", mark ? "mark" : "unmark", argv[i], strerror(-r));
	}
	return ret;
}

/* Kernel trouble logged since @km's mark; prints each line, returns the count. */
static unsigned int dft_kernel_trouble(struct dft_kmsg *km, long long step, FILE *out)
{
	char rec[1024];
	const char *text;
	unsigned int n = 0;

	while (dft_kmsg_next(km, rec, sizeof(rec), &text) > 0) {
		if (!dft_kernel_problem(text))
			continue;
		if (step >= 0)
			fprintf(out, "step %lld: kernel: %s\n", step, text);
		else
			fprintf(out, "dmfault: run: kernel: %s\n", text);
		n++;
	}
	return n;
}

static void dft_on_signal(int sig)
{
	(void)sig;
	dft_stop = 1;
}

/* Defaults as failcmd.sh has them, for the knobs the user did not set. */
static int dft_run_defaults(struct dft_opts *o, unsigned int mask, struct dft_kv **out,
			    unsigned int *nr)
{
	static const struct dft_kv defaults[] = {
		{ "task-filter", "Y", NULL }, { "probability", "100", NULL },
		{ "interval", "1", NULL }, { "times", "1", NULL }, { "space", "0", NULL },
		{ "verbose", "0", NULL }, { "ignore-gfp-wait", "N", NULL },
		{ "ignore-gfp-highmem", "N", NULL }, { "min-order", "0", NULL },
	};
	struct dft_kv *kv;
	unsigned int i, k, n = 0;
	bool user;

	(void)mask;
	kv = calloc(ARRAY_SIZE(defaults) + o->nr_set, sizeof(*kv));
	if (!kv)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(defaults); i++) {
		user = false;
		for (k = 0; k < o->nr_set; k++)
			if (!strcmp(o->set[k].key, defaults[i].key))
				user = true;
		if (user)
			continue;
		kv[n] = defaults[i];
		/* a sweep fails by fail-nth alone */
		if (o->nth_sweep && !strcmp(kv[n].key, "probability"))
			kv[n].val = "0";
		if (o->nth_sweep && !strcmp(kv[n].key, "times"))
			kv[n].val = "-1";
		n++;
	}
	*out = kv;
	*nr = n;
	return 0;
}

/* One run of the command with the knobs set: its status and the faults. */
static int dft_run_report(struct dft_opts *o, unsigned int mask)
{
	int r, st = 0, ee = 0;
	struct dft_kmsg km;
	uint64_t faults;
	char desc[128];

	dft_kmsg_mark(&km);
	r = dft_run_once(o, mask, 0, &st, &ee, &faults, NULL);
	if (!r) {
		dft_describe_status(st, ee, desc, sizeof(desc));
		if (faults == UINT64_MAX)
			fprintf(stderr, "dmfault: run: %s: %s; injected faults unknown (no counter)\n",
				o->cmd_argv[0], desc);
		else
			fprintf(stderr, "dmfault: run: %s: %s; %llu fault%s injected\n",
				o->cmd_argv[0], desc, (unsigned long long)faults,
				faults == 1 ? "" : "s");
		dft_kernel_trouble(&km, -1, stderr);
		r = ee ? 127 : st;
	}
	dft_kmsg_close(&km);
	return r;
}

/*
 * Run o->cmd_argv with the hooks o->slab and o->page select (slab if none)
 * and the knobs of o->set over failcmd.sh's defaults, once or (o->nth_sweep)
 * swept; the knobs are put back after.  An exit status.
 */
int dft_alloc_run(struct dft_opts *o)
{
	unsigned int mask = dft_hook_mask(o, 1), nd = 0, h;
	struct dft_kv *defaults = NULL;
	char **saved[ARRAY_SIZE(dft_hooks)] = { NULL };
	struct sigaction sa = { .sa_handler = dft_on_signal }, oldint, oldterm;
	int r;

	r = dft_alloc_present();
	if (r)
		return r;
	r = dft_run_defaults(o, mask, &defaults, &nd);
	if (r)
		return dft_err("out of memory");
	for (h = 0; h < ARRAY_SIZE(dft_hooks); h++) {
		saved[h] = calloc(nd + o->nr_set + 1, sizeof(char *));
		if (!saved[h]) {
			r = dft_err("out of memory");
			goto out_free;
		}
	}
	sigaction(SIGINT, &sa, &oldint);
	sigaction(SIGTERM, &sa, &oldterm);
	/* the defaults quietly skip knobs a hook does not have */
	r = dft_apply_knobs(defaults, nd, mask, saved, true);
	if (!r) {
		char **user[ARRAY_SIZE(dft_hooks)];

		for (h = 0; h < ARRAY_SIZE(dft_hooks); h++)
			user[h] = saved[h] + nd;
		r = dft_apply_knobs(o->set, o->nr_set, mask, user, false);
	}
	if (r)
		goto out_restore;
	r = o->nth_sweep ? dft_sweep(o, mask) : dft_run_report(o, mask);
out_restore:
	/* the user's knobs first, then the defaults: the reverse of setting */
	for (h = 0; h < ARRAY_SIZE(dft_hooks); h++) {
		dft_restore_knobs(h, o->set, o->nr_set, saved[h] + nd);
		dft_restore_knobs(h, defaults, nd, saved[h]);
	}
	sigaction(SIGINT, &oldint, NULL);
	sigaction(SIGTERM, &oldterm, NULL);
out_free:
	for (h = 0; h < ARRAY_SIZE(dft_hooks); h++)
		free(saved[h]);
	free(defaults);
	return r;
}

DFT_HANDLER(dft_cmd_run)
{
	(void)argc;
	(void)argv;
	if (!o->cmd_argc)
		return dft_usage_err(cmd, "no command to run");
	return dft_alloc_run(o);
}
