// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: what every command tells its user: errors and usage errors on
 * stderr, prefixed with the program's name, with the exit status they
 * mean; notes under -v; sizes in a human's units.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

const char dft_prog[] = "dmfault";

bool dft_tty(FILE *f)
{
	return isatty(fileno(f));
}

int dft_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", dft_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return DFT_EXIT_FAIL;
}

int dft_usage_err(const struct dft_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s%s", dft_prog, cmd ? cmd->name : "", cmd ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fprintf(stderr, "Try '%s %s%s--help'.\n", dft_prog, cmd ? cmd->name : "",
		cmd ? " " : "");
	return DFT_EXIT_USAGE;
}

void dft_info(const struct dft_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->verbose)
		return;
	fprintf(stderr, "%s: ", dft_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Report a failure about device @name from its -errno; returns the exit status. */
int dft_dev_err(const char *name, int r)
{
	switch (-r) {
	case ENXIO:
	case ENODEV:
		if (r == -ENODEV && !name)
			return dft_err("device-mapper is not available in this kernel");
		return dft_err("%s: no such device", name);
	case DFT_ENOTFAULT:
		return dft_err("%s: not a fault device", name);
	case DFT_ENOMODULE:
		return dft_err("dm-fault module not loaded: the kernel has no '%s' target (modprobe dm-fault)",
			       DFT_TARGET);
	case EACCES:
	case EPERM:
		return dft_err("%s: permission denied (device-mapper needs root)",
			       name ? name : "device-mapper");
	case EBUSY:
		return dft_err("%s: device is busy (in use)", name);
	case EEXIST:
		return dft_err("%s: a device of that name already exists", name);
	default:
		return dft_err("%s: %s", name ? name : "device-mapper", strerror(-r));
	}
}

void dft_human_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "BKMGTPE";
	double v = bytes;
	int u = 0;

	while (v >= 1024 && u < 6) {
		v /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, v < 10 ? "%.1f%c" : "%.0f%c", v, units[u]);
}
