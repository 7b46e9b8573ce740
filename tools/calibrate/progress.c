/*
 * progress.c - the status line (see progress.h).  The ETA assumes the
 * remaining tasks cost what the finished ones did on average; the mem
 * and l3 levels cost more, so it is pessimistic early and settles late.
 */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

double sbt_now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void sbt_progress_init(struct sbt_progress *p, unsigned ntasks)
{
	p->tty = isatty(2);
	p->t0 = sbt_now_s();
	p->last = 0;
	p->task = 0;
	p->ntasks = ntasks ? ntasks : 1;
	p->level = p->method = "";
}

void sbt_progress_task(struct sbt_progress *p, unsigned task,
		       const char *level, const char *method)
{
	p->task = task;
	p->level = level;
	p->method = method;
}

static void fmt_eta(char *b, size_t n, double s)
{
	if (s < 0 || s > 360000)
		snprintf(b, n, "?");
	else if (s >= 60)
		snprintf(b, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
	else
		snprintf(b, n, "%ds", (int)s);
}

void sbt_progress_cb(void *arg, const struct sbt_progress_info *pi)
{
	struct sbt_progress *p = arg;
	double now = sbt_now_s(), done, el = now - p->t0;
	char eta[24], sub[32] = "";

	if (!p->tty || now - p->last < 0.1)
		return;
	p->last = now;
	done = (p->task + (pi->frac < 1 ? pi->frac : 0.99)) / p->ntasks;
	fmt_eta(eta, sizeof eta, done > 0.01 ? el / done - el : -1);
	if (pi->nsub && pi->sub)
		snprintf(sub, sizeof sub, " %s %u/%u",
			 pi->what[2] == 'm' ? "confirm" : "pair", pi->sub,
			 pi->nsub);
	if (pi->step)
		fprintf(stderr, "\r\033[K[%s %s] %s step %llu: %s %llu%s  "
			"%3.0f%%  ETA %s", p->level, p->method, pi->what,
			(unsigned long long)pi->step,
			pi->what[2] == 'm' ? "K" : "delta",
			(unsigned long long)pi->cand, sub, 100 * done, eta);
	else
		fprintf(stderr, "\r\033[K[%s %s] %s  %3.0f%%  ETA %s",
			p->level, p->method, pi->what, 100 * done, eta);
	fflush(stderr);
}

void sbt_progress_done(struct sbt_progress *p)
{
	if (p->tty)
		fprintf(stderr, "\r\033[K");
}
