/*
 * axes.c - the machine's memory-latency axis (axes.h).
 *
 * The memory probes are a dataset's probes like any other to speed.c:
 * a view of the dataset whose probes are the memory probes runs its
 * timelines, shifts and the regions' agreement unchanged.  Only the
 * marks are kept apart (res->mem_mark), as speed.c clears the marks it
 * is given.
 */
#include "axes.h"
#include "mark.h"
#include "speed.h"

#include <stdlib.h>

/* A chase's loads mostly leave the caches (see sbtlog.h), each probe
 * with its own few misses: probes spread some 20 % either way, and a
 * level of 30 resolves ~20 % (the speed probe's ~1 %).  Memory latency
 * that moves moves by tens of percent: coarser than this says nothing. */
#define SBT_AXES_MEM_USABLE 0.30
#include <string.h>

int sbt_axes_analyze(const struct sbt_dataset *ds, struct sbt_result *res)
{
	struct sbt_dataset view;

	if (!ds->nmprobes)
		return 0;
	if (!(res->mem_mark = calloc(ds->n ? ds->n : 1, 1)))
		return -1;
	view = *ds;
	view.probes = ds->mprobes;
	view.nprobes = ds->nmprobes;
	view.cap_probes = ds->cap_mprobes;
	if (sbt_speed_analyze_usable(&view, 0, SBT_AXES_MEM_USABLE, &res->mem,
				     res->mem_mark) != 0)
		return -1;
	sbt_axes_remark(res);
	return 0;
}

void sbt_axes_remark(struct sbt_result *res)
{
	if (!res->mem_mark)
		return;
	for (size_t i = 0; i < res->nmark; i++)
		res->mark[i] |= res->mem_mark[i] & SBT_MK_SPEED;
}

int sbt_axes_held(const struct sbt_result *res, uint32_t src, double t_ns,
		  double tol_ns)
{
	if (!res->mem_mark)
		return -1;
	int c = sbt_speed_covers(&res->mem, src, t_ns, tol_ns);
	return c < 0 ? -1 : !c;
}

void sbt_axes_free(struct sbt_result *res)
{
	free(res->mem_mark);
	res->mem_mark = NULL;
	sbt_speed_free(&res->mem);
}
