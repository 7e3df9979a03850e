// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest's recording, with no I/O: the target's "record list"
 * replies read and checked, the epochs, what is durable at a crash point,
 * and the marks made before one.  explore.c builds the crash states on it;
 * the host unit tests run this file as it is.
 *
 * The recording numbers the completed writes 1, 2, ... and says after which
 * write each flush completed: a flush point n makes writes 1..n durable.
 * Epoch k holds the writes after the k-th distinct flush point, up to and
 * including the (k+1)-th.  A crash after write P is a moment in the list:
 * right after the line "w P", writes after P never completed, nor did the
 * flushes listed after that line (a flush point P is listed after it: that
 * flush was issued once write P had completed).  So a state must keep the
 * writes up to the last flush point before P, and the FUA writes up to P;
 * any other write may be kept or lost.  The workload's marks ("m n label",
 * after write n) say what it had done by then: those after a write before P.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash/crash.h"

/* the most writes crashtest allocates for (24 bytes each) */
#define DFT_REC_MAX_WRITES	(1ULL << 28)

static const char *const dft_rw_kind_names[DFT_NR_RW_KINDS] = {
	[DFT_RW_WRITE] = "write",
	[DFT_RW_FUA] = "fua",
	[DFT_RW_DISCARD] = "discard",
	[DFT_RW_ZEROES] = "zeroes",
};

const char *dft_rw_kind_name(enum dft_rw_kind kind)
{
	return kind < DFT_NR_RW_KINDS ? dft_rw_kind_names[kind] : "?";
}

static int dft_proto(const char **err, const char *why)
{
	*err = why;
	return -EPROTO;
}

/* Split @line at blanks: the number of words, or @max + 1 if there are more. */
unsigned int dft_split_words(char *line, char **w, unsigned int max)
{
	unsigned int n = 0;
	char *tok;

	while ((tok = strsep(&line, " \t\r")) != NULL) {
		if (!*tok)
			continue;
		if (n == max)
			return max + 1;
		w[n++] = tok;
	}
	return n;
}

/*
 * The first line of each page: "writes=<n> flushes=<n> marks=<n>
 * unit=<sectors> overflow=<0|1>".  Keys a newer target adds are skipped;
 * every page must agree with the first, as a crashed recording is frozen.
 */
static int dft_rec_header(struct dft_record *rec, char *line, const char **err)
{
	static const char *const keys[] = { "writes", "flushes", "marks", "unit", "overflow" };
	uint64_t v[ARRAY_SIZE(keys)] = { 0 };
	unsigned int seen = 0, i;
	char *tok, *eq;

	while ((tok = strsep(&line, " \t\r")) != NULL) {
		if (!*tok)
			continue;
		eq = strchr(tok, '=');
		if (!eq)
			return dft_proto(err, "the first line is not the header");
		*eq = '\0';
		for (i = 0; i < ARRAY_SIZE(keys) && strcmp(tok, keys[i]); i++)
			;
		if (i == ARRAY_SIZE(keys))
			continue;
		if (dft_parse_u64(eq + 1, &v[i]))
			return dft_proto(err, "a header value is not a number");
		seen |= 1U << i;
	}
	if (seen != (1U << ARRAY_SIZE(keys)) - 1 || !v[3] || v[4] > 1)
		return dft_proto(err, "the header lacks writes, flushes, marks, unit or overflow");
	if (rec->have_header)
		return v[0] == rec->writes && v[4] == rec->overflow ? 0 :
		       dft_proto(err, "the header changed between pages");
	if (v[0] > DFT_REC_MAX_WRITES)
		return dft_proto(err, "more writes than crashtest can hold");
	rec->w = calloc(v[0] ? v[0] : 1, sizeof(*rec->w));
	if (!rec->w)
		return -ENOMEM;
	rec->writes = v[0];
	rec->flushes = v[1];
	rec->marks = v[2];
	rec->unit = v[3];
	rec->overflow = v[4];
	rec->have_header = true;
	return 0;
}

/* "w <n> <sector> <nr_sectors> <kind>": the next write, in order. */
static int dft_rec_write(struct dft_record *rec, char **word, const char **err)
{
	struct dft_rw *rw;
	uint64_t n;
	unsigned int k;

	if (dft_parse_u64(word[1], &n) || n != rec->nr_w + 1 || n > rec->writes)
		return dft_proto(err, "a write out of order or past the header's count");
	rw = &rec->w[n - 1];
	if (dft_parse_u64(word[2], &rw->sector) || dft_parse_u64(word[3], &rw->nr) || !rw->nr)
		return dft_proto(err, "a write's sector or length is not a number");
	for (k = 0; k < DFT_NR_RW_KINDS && strcmp(word[4], dft_rw_kind_names[k]); k++)
		;
	if (k == DFT_NR_RW_KINDS)
		return dft_proto(err, "a write of an unknown kind");
	rw->kind = k;
	rec->nr_w = n;
	return 0;
}

/* "f <n>": writes 1..n are durable.  Repeated points (flushes with no write between) are one. */
static int dft_rec_flush(struct dft_record *rec, const char *word, const char **err)
{
	uint64_t n, *bar, last = rec->nr_bar ? rec->bar[rec->nr_bar - 1] : 0;

	if (dft_parse_u64(word, &n) || n > rec->nr_w || n < last)
		return dft_proto(err, "a flush point out of order");
	if (!n || n == last)
		return 0;
	/* a power of two, or not yet allocated: grow */
	if (!(rec->nr_bar & (rec->nr_bar - 1))) {
		bar = realloc(rec->bar, (rec->nr_bar ? 2 * rec->nr_bar : 16) * sizeof(*bar));
		if (!bar)
			return -ENOMEM;
		rec->bar = bar;
	}
	rec->bar[rec->nr_bar++] = n;
	return 0;
}

/* "m <n> <label>": a step mark after write n; label "-" is none. */
static int dft_rec_mark(struct dft_record *rec, const char *num, const char *label,
			const char **err)
{
	struct dft_rmark *m;
	uint64_t n;

	if (dft_parse_u64(num, &n) || n > rec->nr_w ||
	    (rec->nr_m && n < rec->m[rec->nr_m - 1].after))
		return dft_proto(err, "a mark out of order");
	if (strlen(label) > DFT_LABEL_MAX)
		return dft_proto(err, "a mark's label is too long");
	if (!(rec->nr_m & (rec->nr_m - 1))) {
		m = realloc(rec->m, (rec->nr_m ? 2 * rec->nr_m : 16) * sizeof(*m));
		if (!m)
			return -ENOMEM;
		rec->m = m;
	}
	m = &rec->m[rec->nr_m++];
	m->after = n;
	strcpy(m->label, strcmp(label, "-") ? label : "");
	return 0;
}

/* One line after the header; 1 for the page's last ("next <n>" or "end"). */
static int dft_rec_line(struct dft_record *rec, char *line, uint64_t from, uint64_t *next,
			const char **err)
{
	char *w[5];
	unsigned int n = dft_split_words(line, w, 5);

	if (!n)
		return 0;
	if (n == 5 && !strcmp(w[0], "w"))
		return dft_rec_write(rec, w, err);
	if (n == 2 && !strcmp(w[0], "f"))
		return dft_rec_flush(rec, w[1], err);
	if (n == 3 && !strcmp(w[0], "m"))
		return dft_rec_mark(rec, w[1], w[2], err);
	if (n == 2 && !strcmp(w[0], "next")) {
		/* a page that lists nothing would be asked for again and again */
		if (dft_parse_u64(w[1], next) || *next != rec->nr_w + 1 || rec->nr_w < from)
			return dft_proto(err, "a next line that does not follow the page");
		return 1;
	}
	if (n == 1 && !strcmp(w[0], "end")) {
		if (rec->nr_w != rec->writes)
			return dft_proto(err, "the list ended before the header's count of writes");
		*next = 0;
		return 1;
	}
	return dft_proto(err, "a line that is not w, f, m, next or end");
}

/**
 * dft_record_page - add one reply of "record list <from>" to a recording
 * @rec: zeroed before the first page; the writes, flush points and marks
 *       of the page are appended
 * @reply: the target's reply
 * @from: the first write asked for: 1, then what @next said
 * @next: set to the next page's @from, or 0 after the last page
 * @err: on failure, what is wrong with the reply
 *
 * The reply is checked as it is read (writes in order and within the
 * header's count, flush points and marks in order and after a listed
 * write, a last line that ends the page), because a state built from a
 * misread recording would be checked and reported as if it were real.
 *
 * Return: 0, -EPROTO for a malformed reply, or -ENOMEM.
 */
int dft_record_page(struct dft_record *rec, const char *reply, uint64_t from, uint64_t *next,
		    const char **err)
{
	char *buf, *s, *line;
	bool header = true, done = false;
	int r = 0;

	if (from != rec->nr_w + 1)
		return dft_proto(err, "pages asked for out of order");
	buf = strdup(reply);
	if (!buf)
		return -ENOMEM;
	s = buf;
	while (!r && (line = strsep(&s, "\n")) != NULL) {
		if (done) {
			if (line[strspn(line, " \t\r")])
				r = dft_proto(err, "lines after the page's last");
		} else if (header) {
			r = dft_rec_header(rec, line, err);
			header = false;
		} else {
			r = dft_rec_line(rec, line, from, next, err);
			done = r > 0;
			r = r > 0 ? 0 : r;
		}
	}
	free(buf);
	if (!r && !done)
		r = dft_proto(err, "the reply has no next or end line (cut short?)");
	return r;
}

/**
 * dft_record_done - check a recording read to its end and find its epochs
 * @rec: every page read
 * @err: on failure, why
 *
 * The writes explored are those before the last mark labelled
 * DFT_END_MARK, which crashtest sends when the workload has ended: what
 * comes after it (the clean unmount) is kept only in the control view.
 *
 * Return: 0 or -EPROTO.
 */
int dft_record_done(struct dft_record *rec, const char **err)
{
	size_t i, b = 0;
	uint64_t w;

	if (!rec->have_header || rec->nr_w != rec->writes)
		return dft_proto(err, "the recording was not read to its end");
	for (i = rec->nr_m; i > 0 && strcmp(rec->m[i - 1].label, DFT_END_MARK); i--)
		;
	if (!i)
		return dft_proto(err, "the recording has no " DFT_END_MARK " mark");
	rec->end = rec->m[i - 1].after;
	/* the epoch of write w: the flush points before it */
	for (w = 1; w <= rec->nr_w; w++) {
		while (b < rec->nr_bar && rec->bar[b] < w)
			b++;
		rec->w[w - 1].epoch = b;
	}
	rec->nr_epochs = rec->end ? rec->w[rec->end - 1].epoch + 1 : 1;
	return 0;
}

void dft_record_free(struct dft_record *rec)
{
	free(rec->w);
	free(rec->bar);
	free(rec->m);
	memset(rec, 0, sizeof(*rec));
}

/* Epoch @k's writes: @first..@last of the explored ones (@first > @last: none). */
void dft_epoch_span(const struct dft_record *rec, unsigned int k, uint64_t *first,
		    uint64_t *last)
{
	*first = k ? rec->bar[k - 1] + 1 : 1;
	*last = k < rec->nr_bar && rec->bar[k] < rec->end ? rec->bar[k] : rec->end;
	if (*last < *first)
		*last = *first - 1;
}

/*
 * The last flush point before @point: the writes up to it are durable in a
 * crash after write @point.  A flush point equal to @point is not: that
 * flush was issued after write @point completed and may not have completed.
 */
uint64_t dft_durable_upto(const struct dft_record *rec, uint64_t point)
{
	size_t lo = 0, hi = rec->nr_bar, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rec->bar[mid] < point)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? rec->bar[lo - 1] : 0;
}

/* Whether a crash after write @point must keep write @w. */
bool dft_is_durable(const struct dft_record *rec, uint64_t w, uint64_t point)
{
	if (!w || w > point || w > rec->nr_w)
		return false;
	return rec->w[w - 1].kind == DFT_RW_FUA || w <= dft_durable_upto(rec, point);
}

/*
 * The marks made before write @n completed: those after a write before it.
 * They are what a check knows the workload had done (acknowledged) when the
 * power failed; a mark after write @n - 1 came before write @n completed.
 */
unsigned int dft_marks_below(const struct dft_record *rec, uint64_t n)
{
	unsigned int i = 0;

	while (i < rec->nr_m && rec->m[i].after < n)
		i++;
	return i;
}

/* The label of the last mark before write @w: the workload's step, or NULL. */
const char *dft_step(const struct dft_record *rec, uint64_t w)
{
	size_t i;

	for (i = rec->nr_m; i > 0; i--)
		if (rec->m[i - 1].after < w)
			return rec->m[i - 1].label[0] ? rec->m[i - 1].label : NULL;
	return NULL;
}

/**
 * dft_record_same - whether two recordings hold the same writes, flushes and marks
 * @a: a recording read to its end (dft_record_done)
 * @b: another
 * @why: on a difference, the first one in words
 * @len: its size
 *
 * Crash states name writes by number, so a state of @a is a state of @b
 * only if write n is the same write in both: its sectors, its kind and the
 * flush points and marks around it.  The header's count of flushes is not
 * compared: a flush with no write since the last one adds no point.
 *
 * Return: true if they are the same.
 */
bool dft_record_same(const struct dft_record *a, const struct dft_record *b, char *why,
		     size_t len)
{
	const struct dft_rw *x, *y;
	uint64_t i;

	if (a->unit != b->unit) {
		snprintf(why, len, "the tearing unit is %llu sectors, not %llu",
			 (unsigned long long)b->unit, (unsigned long long)a->unit);
		return false;
	}
	for (i = 0; i < a->nr_w && i < b->nr_w; i++) {
		x = &a->w[i];
		y = &b->w[i];
		if (x->sector != y->sector || x->nr != y->nr || x->kind != y->kind ||
		    x->epoch != y->epoch) {
			snprintf(why, len, "write %llu is sector %llu+%llu %s, epoch %u, not %llu+%llu %s, epoch %u",
				 (unsigned long long)i + 1, (unsigned long long)y->sector,
				 (unsigned long long)y->nr, dft_rw_kind_name(y->kind), y->epoch,
				 (unsigned long long)x->sector, (unsigned long long)x->nr,
				 dft_rw_kind_name(x->kind), x->epoch);
			return false;
		}
	}
	if (a->nr_w != b->nr_w || a->nr_bar != b->nr_bar ||
	    memcmp(a->bar, b->bar, a->nr_bar * sizeof(*a->bar))) {
		snprintf(why, len, "%llu writes and %zu flush points, not %llu and %zu",
			 (unsigned long long)b->nr_w, b->nr_bar, (unsigned long long)a->nr_w,
			 a->nr_bar);
		return false;
	}
	for (i = 0; i < a->nr_m && i < b->nr_m; i++) {
		if (a->m[i].after != b->m[i].after || strcmp(a->m[i].label, b->m[i].label)) {
			snprintf(why, len, "mark %llu is '%s' after write %llu, not '%s' after %llu",
				 (unsigned long long)i + 1, b->m[i].label,
				 (unsigned long long)b->m[i].after, a->m[i].label,
				 (unsigned long long)a->m[i].after);
			return false;
		}
	}
	if (a->nr_m != b->nr_m) {
		snprintf(why, len, "%zu marks, not %zu", b->nr_m, a->nr_m);
		return false;
	}
	return true;
}
