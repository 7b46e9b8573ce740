/*
 * drop_os.c - the paper's OS-noise filter (section 5.4.2) as a drop
 * filter: an isolation forest scores one log's samples of a group, a cut
 * on the score is chosen, samples beyond it are dropped (filter.c).
 *
 * The analyzer adds what the kernel saw (run.c): a sample the
 * recorder's OS events show preempted is left out whatever the forest
 * said, unless the region gives its cpu away itself.
 */
#include "drop.h"
#include "stats.h"

#include <math.h>
#include <string.h>

static int run_os(const struct sbt_drop_in *in, uint8_t *keep,
		  struct sbt_drop_out *out)
{
	struct sbt_os_opts oo = {
		.method = in->os_method, .seed = in->seed,
		.quantum = in->quantum_ns,
		/* The physical floor: one kernel entry, the least the OS
		 * can add to a sample (measured by the recorder). */
		.floor = in->src->kernel_entry_ns,
	};
	struct sbt_os_result r;
	double median = in->median_ns;
	uint8_t *before = (uint8_t *)in->scratch;

	/* the OS can hit only so many samples this long */
	if (isnan(median)) {
		memcpy(in->scratch, in->ns, in->n * sizeof *in->ns);
		median = sbt_quantile(in->scratch, in->n, 0.5);
	}
	oo.max_share = sbt_os_max_share(median, oo.floor > 0 ? oo.floor :
					SBT_OS_FLOOR_DEFAULT, in->n);
	/* sbt_filter_os sets every keep[i]: an earlier filter's drops
	 * are kept aside and put back */
	memcpy(before, keep, in->n);
	if (sbt_filter_os(in->ns, in->cycles, in->n, &oo, keep, out->score,
			  &r) != 0) {
		memcpy(keep, before, in->n);
		return -1;
	}
	for (size_t i = 0; i < in->n; i++)
		keep[i] &= before[i];
	out->cut = r.cut;
	return 0;
}

const struct sbt_drop_filter sbt_drop_os = {
	.name = "os",
	.help = "samples hit by OS noise (isolation forest; --os-filter)",
	.run = run_os,
};
