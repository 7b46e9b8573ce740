/*
 * bysite.c - group by call site on top of analyze.c's grouping by thread.
 *
 * analyze.c keys groups by thread, cpu, rank or host.  Until it has a
 * call-site key, run it by thread with each sample's thread number
 * replaced by its call site: a site belongs to one source as a thread
 * does, so the groups are exactly (region, site).  The thread numbers are
 * put back after, and the verdicts recomposed without the word "thread".
 * (With a key in analyze.c -- `case SBT_BY_SITE: return s->site;` -- this
 * file reduces to the fallback mapping below.)
 */
#include "bysite.h"

#include <stdlib.h>

int sbt_analyze_by_site(struct sbt_dataset *ds, const struct sbt_options *o,
			const struct sbt_callsites *cs,
			struct sbt_result *res)
{
	struct sbt_options so = *o;
	uint32_t *thread;
	int rc;

	/* analyze.c keys a thread group by thread ^ source << 20 */
	if (cs->n >= 1u << 20)
		return -2;
	if (!(thread = malloc((ds->n ? ds->n : 1) * sizeof *thread)))
		return -1;
	for (size_t i = 0; i < ds->n; i++) {
		struct sbt_sample *s = &ds->s[i];
		thread[i] = s->thread;
		s->thread = s->site < ds->nsites ? s->site :
			    cs->fallback[s->region];
	}
	so.by = SBT_BY_THREAD;
	rc = sbt_analyze(ds, &so, res);
	for (size_t i = 0; i < ds->n; i++)
		ds->s[i].thread = thread[i];
	free(thread);
	for (size_t k = 0; rc == 0 && k < res->ngroups; k++)
		sbt_verdict(&res->g[k], SBT_BY_NONE);
	return rc;
}
