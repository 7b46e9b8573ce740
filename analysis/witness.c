/*
 * witness.c - the speed probes and the regions as each other's witness:
 * which machine events and processor shifts both saw, and which steps
 * of a region the probes could not see.
 */
#include "witness.h"
#include "axes.h"
#include "sbtlog.h"
#include "speed.h"

#include <math.h>
#include <stdlib.h>

/* The two witnesses side by side: did the speed probes see each machine
 * event (regions shifting together)?  Within the event's first region's
 * resolution of it: SBT_MACHINE_SAMPLES of its mean spacing is machine.c's;
 * a probe cadence is ours. */
int sbt_machine_witness(const struct sbt_dataset *ds,
			struct sbt_result *res)
{
	double tol = 2e3 * (res->speed.cadence_us > 0 ?
			    res->speed.cadence_us : SBT_SPEED_US_DEFAULT);

	/* ... and the other way: did regions move together in each
	 * processor shift?  Only a shift over two regions or more can
	 * tell (machine.c never blames a region alone). */
	for (size_t k = 0; k < res->speed.nsh + res->speed.ncsh; k++) {
		struct sbt_speed_shift *h = k < res->speed.nsh ?
			&res->speed.sh[k] : &res->speed.csh[k - res->speed.nsh];
		h->regions_agree = h->nregions >= 2 ? 0 : -1;
		for (size_t i = 0; i < res->nev && h->regions_agree == 0; i++)
			h->regions_agree = res->ev[i].source == h->source &&
					   res->ev[i].t_ns >= h->t0_ns - tol &&
					   res->ev[i].t_ns <= h->t1_ns + tol;
		if (h->regions_agree == 0 && h->witness_regions < 2)
			h->regions_agree = -1;  /* too few calls to see it */
	}
	/* a shift the regions could have shown and did not: no claim, and
	 * its samples are the regions' again (rescored: speed_undone) */
	sbt_speed_drop_unwitnessed(ds, &res->speed, res->mark);
	sbt_axes_remark(res);     /* the memory axis's marks stand */
	if (!res->nev)
		return 0;
	if (!(res->ev_probes = malloc(res->nev * sizeof *res->ev_probes)))
		return -1;
	for (size_t i = 0; i < res->nev; i++)
		res->ev_probes[i] = sbt_speed_covers(&res->speed,
			res->ev[i].source, res->ev[i].t_ns, tol);
	return 0;
}

/* The steps of a region, or its levels over time (decomp.c), while the
 * speed probes held (a usable timeline of its log, no shift near where
 * it moved): what the probes cannot see, so the verdict says so
 * (probe_blind). */
void sbt_probe_blind(struct sbt_result *res)
{
	double tol = 2e3 * (res->speed.cadence_us > 0 ?
			    res->speed.cadence_us : SBT_SPEED_US_DEFAULT);

	for (size_t k = 0; k < res->ngroups; k++) {
		struct sbt_group *g = &res->g[k];
		const struct sbt_phases *p = &g->phases;
		const struct sbt_comp_est *c = &g->decomp.c[SBT_COMP_TIME];
		g->probe_blind = c->resolved && isfinite(c->t_ns) &&
				 sbt_speed_covers(&res->speed, g->source,
						  c->t_ns, tol) == 0;
		double at = c->resolved && isfinite(c->t_ns) ? c->t_ns : NAN;
		for (int i = 0; i < p->nsteps && !g->probe_blind; i++)
			g->probe_blind = sbt_speed_covers(&res->speed,
				g->source, at = p->ph[p->step[i]].t_begin_ns,
				tol) == 0;
		/* where the memory probes held there too, no probe saw it */
		if (g->probe_blind && isfinite(at) &&
		    sbt_axes_held(res, g->source, at, tol) == 1)
			g->probe_blind = 2;
		/* an axis whose shift met one of its steps */
		g->step_axis = SBT_AXIS_NONE;
		for (int i = 0; i < p->nsteps && !g->step_axis; i++) {
			double t = p->ph[p->step[i]].t_begin_ns;
			if (sbt_speed_covers(&res->speed, g->source, t,
					     tol) == 1)
				g->step_axis = SBT_AXIS_SPEED;
			else if (sbt_axes_held(res, g->source, t, tol) == 0)
				g->step_axis = SBT_AXIS_MEMORY;
		}
	}
}
