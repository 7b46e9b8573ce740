/*
 * sbt-events - the event names SBT_EVENTS accepts, for sbt-run.
 *
 *   sbt-events --list          every name known here, one per line
 *   sbt-events --version       the version
 *   sbt-events --check LIST    exit 0 when every name of the comma-
 *                              separated LIST is known; else exit 2 and
 *                              name the first unknown one
 *
 * The recorder resolves names with the same code (preload/services/evname.c), so
 * a name that passes here is one the recorder knows; whether the kernel
 * can count it on this machine is the recorder's to find out and tell.
 */
#include "evname.h"

#include <stdio.h>
#include <string.h>

static const char *unknown;
static char unknown_buf[SBT_EVNAME_MAX + 2];

static void check(const char *name, void *arg)
{
	struct perf_event_attr a;

	(void)arg;
	if (!unknown && sbt_evname_resolve(name, &a) != 0) {
		snprintf(unknown_buf, sizeof unknown_buf, "%s", name);
		unknown = unknown_buf;
	}
}

#ifndef SBT_VERSION
#define SBT_VERSION "0.1.0"
#endif

int main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--version") ||
			  !strcmp(argv[1], "-V"))) {
		printf("sbt-events %s\n", SBT_VERSION);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		sbt_evname_list(stdout);
		return ferror(stdout) ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--check")) {
		if (sbt_evname_split(argv[2], check, NULL) == 0) {
			fprintf(stderr, "sbt-run: SBT_EVENTS names no event; "
				"list them with `sbt-run --list-events`\n");
			return 2;
		}
		if (unknown) {
			fprintf(stderr, "sbt-run: unknown event '%s' in "
				"SBT_EVENTS; list them with `sbt-run "
				"--list-events`\n", unknown);
			return 2;
		}
		return 0;
	}
	fprintf(stderr, "usage: sbt-events --list | --check NAME[,NAME...] | "
		"--version\n");
	return 2;
}
