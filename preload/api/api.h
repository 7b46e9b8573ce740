/*
 * api.h - an interposed API as the recorder and the tools see it: one
 * descriptor, sbt_api_NAME, defined by api_NAME.c.  The build lists
 * them (api/meson.build writes api_table.h) and apis.c registers what
 * they ask of the recorder; tests/unit/apis_doc.py checks the format's
 * SBT_APIS, sbt-run's pattern and FORMAT.md against them.
 */
#ifndef SBT_API_H
#define SBT_API_H

#include "sbtlog.h"

struct sbt_api_desc {
	unsigned id;            /* SBT_API_* (sbtlog.h): its regions' api */
	const char *name;       /* its report name in SBT_APIS            */
	const char *symbols;    /* what a program that calls it names, as
				   sbt-run looks for it (grep -E: a|b)   */
	const char *env;        /* the variables it reads, space-separated,
				   or ""                                  */
	void (*at_exit)(void);  /* run at exit before the log is finished,
				   or NULL                               */
};

#endif
