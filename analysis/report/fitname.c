/*
 * fitname.c - a name in a table's column (fitname.h).
 *
 * A name too long for its column keeps whole words only: a head (as
 * much of its start as fits, possibly nothing) and a tail (its end from
 * a word on), the words between dropped for one '~'.  The rows of a
 * table differ most at their ends (a site's file:line, the function,
 * the offset) and share their starts (the construct, the binary), so the
 * tail is kept first and the head takes what is left; a form that reads
 * like another name of the table is passed over for a longer tail.
 */
#include "fitname.h"

#include <stdio.h>
#include <string.h>

#define MAX_CUTS 64

/* Where a name may be cut: after a space, a '/' or a "::", before '(',
 * '[' or '+' (an offset).  Position 0 (no head) is handled apart. */
static int is_cut(const char *s, int p)
{
	char a = s[p - 1], b = s[p];

	return a == ' ' || a == '/' || (a == ':' && p >= 2 && s[p - 2] == ':') ||
	       b == '(' || b == '[' || b == '+';
}

/* The cuts of s (length n) inside it, ascending; how many. */
static int cuts_of(const char *s, int n, int *cut)
{
	int k = 0;

	for (int p = 1; p < n && k < MAX_CUTS; p++)
		if (is_cut(s, p))
			cut[k++] = p;
	return k;
}

static int checked(const struct sbt_fit_rows *all)
{
	return all && all->n <= SBT_FIT_CHECK_MAX;
}

/* Whether name's first h and its characters from t on could be another
 * name of all, cut alike. */
static int ambiguous(const struct sbt_fit_rows *all, const char *name, int n,
		     int h, int t)
{
	size_t tail = (size_t)(n - t);

	if (!checked(all))
		return 0;
	for (size_t i = 0; i < all->n; i++) {
		const char *o = all->at(all->ctx, i);
		size_t m = strlen(o);
		if (m < (size_t)h + tail || !strcmp(o, name))
			continue;
		if (!strncmp(o, name, (size_t)h) &&
		    !strcmp(o + m - tail, name + t))
			return 1;
	}
	return 0;
}

/* The form of name in w columns that keeps the most of it (ties: the
 * longer tail), told apart from the others when distinct is set: its
 * head *h and tail start *t.  0 when none fits. */
static int best_form(const char *name, int w, const struct sbt_fit_rows *all,
		     int distinct, int *h, int *t)
{
	int n = (int)strlen(name), cut[MAX_CUTS], k = cuts_of(name, n, cut);
	int best = -1;

	for (int i = -1; i < k; i++) {
		int hh = i < 0 ? 0 : cut[i], tt = -1;
		/* the longest tail that fits beside this head */
		for (int j = i + 1; j < k; j++)
			if (hh + 1 + n - cut[j] <= w) {
				tt = cut[j];
				break;
			}
		if (tt < 0 || hh + n - tt <= best)
			continue;
		if (distinct && ambiguous(all, name, n, hh, tt))
			continue;
		best = hh + n - tt, *h = hh, *t = tt;
	}
	return best >= 0;
}

int sbt_fit_need(const char *name, const struct sbt_fit_rows *all)
{
	int n = (int)strlen(name), cut[MAX_CUTS], k = cuts_of(name, n, cut);
	int need = n;

	if (!checked(all))
		return 0;
	for (int i = -1; i < k; i++) {
		int hh = i < 0 ? 0 : cut[i];
		/* the shortest tail that tells it apart beside this head */
		for (int j = k - 1; j > i; j--)
			if (!ambiguous(all, name, n, hh, cut[j])) {
				if (hh + 1 + n - cut[j] < need)
					need = hh + 1 + n - cut[j];
				break;
			}
	}
	return need;
}

void sbt_fit_name(char *out, size_t len, const char *name, int w,
		  const struct sbt_fit_rows *all)
{
	int n = (int)strlen(name), h, t;

	if (n <= w) {
		snprintf(out, len, "%-*s", w, name);
	} else if (best_form(name, w, all, 1, &h, &t) ||
		   best_form(name, w, all, 0, &h, &t)) {
		snprintf(out, len, "%.*s~%-*s", h, name, w - 1 - h, name + t);
	} else {        /* its last word is longer than the column: its end */
		snprintf(out, len, "~%s", name + n - (w - 1));
	}
}

int sbt_fit_width(const struct sbt_fit_rows *all, int room, int limit)
{
	int longest = 0, w = room;

	for (size_t i = 0; i < all->n; i++) {
		int n = (int)strlen(all->at(all->ctx, i));
		if (n > longest)
			longest = n;
	}
	if (longest <= room)
		return longest;
	for (size_t i = 0; i < all->n && w < limit; i++) {
		const char *name = all->at(all->ctx, i);
		if ((int)strlen(name) > w) {
			/* a name that needs more than the limit is cut
			 * at it anyway: it widens nothing */
			int need = sbt_fit_need(name, all);
			if (need > w && need <= limit)
				w = need;
		}
	}
	return w < longest ? w : longest;
}
