// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest's picture of an exploration: an SVG file with a row per
 * epoch, a bar of its states (passed, failed, skipped) scaled to the largest
 * epoch, and the counts in words beside it, so that the file reads the same
 * in a browser and to grep.  Written as text, with libc only: the host unit
 * tests link this file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "crash/crash.h"

#define DFT_SVG_ROW	22	/* pixels */
#define DFT_SVG_TEXT	360	/* the counts' column */
#define DFT_SVG_BAR	360	/* the longest bar */

/* The picture's text (a title with <, & and " escaped). */
static void dft_svg_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

/* A part of a bar, @n of @max states wide, at *@x; *@x moves past it. */
static void dft_svg_bar(FILE *f, unsigned int *x, unsigned int y, uint64_t n, uint64_t max,
			const char *colour, const char *what)
{
	unsigned int w = max ? (unsigned int)(n * DFT_SVG_BAR / max) : 0;

	if (!n)
		return;
	if (!w)
		w = 1;
	fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\"><title>%llu %s</title></rect>\n",
		*x, y, w, DFT_SVG_ROW - 6, colour, (unsigned long long)n, what);
	*x += w;
}

/**
 * dft_ct_svg - draw the states of each epoch, as an SVG file
 * @file: the file to write
 * @title: the picture's first line
 * @ep: for each epoch, the states checked, failed and skipped
 * @n: epochs
 * @err: on failure, why
 * @len: its size
 *
 * A row reads "epoch K: C checked, P passed, F failed, S skipped".
 *
 * Return: 0, or -errno with @err set.
 */
int dft_ct_svg(const char *file, const char *title, const struct dft_svg_epoch *ep,
	       unsigned int n, char *err, size_t len)
{
	unsigned int k, x, y, height = (n + 2) * DFT_SVG_ROW;
	uint64_t max = 0;
	FILE *f;
	int r;

	for (k = 0; k < n; k++)
		if (ep[k].checked + ep[k].skipped > max)
			max = ep[k].checked + ep[k].skipped;
	f = fopen(file, "w");
	if (!f) {
		r = -errno;
		snprintf(err, len, "%s: %s", file, strerror(errno));
		return r;
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" font-family=\"monospace\" font-size=\"12\">\n",
		DFT_SVG_TEXT + DFT_SVG_BAR + 20, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"10\" y=\"16\">");
	dft_svg_text(f, title);
	fprintf(f, " (green passed, red failed, grey skipped)</text>\n");
	for (k = 0; k < n; k++) {
		y = (k + 1) * DFT_SVG_ROW;
		fprintf(f, "<text x=\"10\" y=\"%u\">epoch %u: %llu checked, %llu passed, %llu failed, %llu skipped</text>\n",
			y + 14, k, (unsigned long long)ep[k].checked,
			(unsigned long long)(ep[k].checked - ep[k].failed),
			(unsigned long long)ep[k].failed, (unsigned long long)ep[k].skipped);
		x = DFT_SVG_TEXT;
		dft_svg_bar(f, &x, y + 2, ep[k].checked - ep[k].failed, max, "#4c9a2a", "passed");
		dft_svg_bar(f, &x, y + 2, ep[k].failed, max, "#c0392b", "failed");
		dft_svg_bar(f, &x, y + 2, ep[k].skipped, max, "#aaaaaa", "skipped");
	}
	fprintf(f, "</svg>\n");
	if (fclose(f)) {
		r = -errno;
		snprintf(err, len, "%s: %s", file, strerror(errno));
		return r;
	}
	return 0;
}
