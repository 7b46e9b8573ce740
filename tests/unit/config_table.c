/*
 * config_table.c - the recorder's configuration table (preload/services/config.h),
 * printed for config_doc.py, and its one boolean convention checked.
 *
 *   config_table          print "NAME<TAB>TYPE<TAB>DEFAULT" per variable
 *   config_table check    parse and load: exit 0 when everything holds
 */
#include "config.h"
#include "../common/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_name[] = { "STR", "LONG", "BOOL" };

static void print_table(void)
{
	const struct sbt_cfg_var *t = sbt_config_table();

	for (int v = 0; v < SBT_CFG__N; v++) {
		if (t[v].type == SBT_CFG_STR)
			printf("%s\t%s\t%s\n", t[v].name, type_name[t[v].type],
			       t[v].def_text ? t[v].def_text : "");
		else
			printf("%s\t%s\t%ld\t%ld\t%ld\n", t[v].name,
			       type_name[t[v].type], t[v].def, t[v].lo,
			       t[v].hi);
	}
}

static void check(void)
{
	static const char *const yes[] = { "1", "true", "YES", "On" };
	static const char *const no[] = { "0", "False", "no", "OFF" };
	static const char *const neither[] = { "", "2", "y", "enable",
					       "0x1", " 1" };

	for (size_t i = 0; i < 4; i++) {
		CHECK(sbt_cfg_parse_bool(yes[i]) == 1, "'%s' is true", yes[i]);
		CHECK(sbt_cfg_parse_bool(no[i]) == 0, "'%s' is false", no[i]);
	}
	for (size_t i = 0; i < sizeof neither / sizeof neither[0]; i++)
		CHECK(sbt_cfg_parse_bool(neither[i]) < 0, "'%s' is no boolean",
		      neither[i]);

	/* "false" is off (it used to mean on: anything not starting '0') */
	setenv("SBT_ITT_DOMAIN_PREFIX", "false", 1);
	setenv("SBT_OS_EVENTS", "off", 1);
	setenv("SBT_PROBE_PERIOD", "17", 1);
	setenv("SBT_OS_PAGES", "4096", 1);         /* out of range     */
	setenv("SBT_CYCLES", "maybe", 1);          /* not a boolean    */
	setenv("SBT_OUTPUT", "", 1);               /* empty: default   */
	setenv("SBT_QUIET", "yes", 1);
	sbt_config_load();
	CHECK(sbt_cfg(SBT_CFG_ITT_DOMAIN_PREFIX) == 0, "false is off");
	CHECK(sbt_cfg(SBT_CFG_OS_EVENTS) == 0, "off is off");
	CHECK(sbt_cfg(SBT_CFG_PROBE_PERIOD) == 17, "a number in range");
	CHECK(sbt_cfg(SBT_CFG_OS_PAGES) == 16, "out of range: the default");
	CHECK(sbt_cfg(SBT_CFG_CYCLES) == 1, "no boolean: the default");
	CHECK(!strcmp(sbt_cfg_text(SBT_CFG_OUTPUT), "region.log"),
	      "empty text: the default");
	CHECK(sbt_cfg_text(SBT_CFG_EVENTS) == NULL, "unset text: none");
	CHECK(sbt_cfg(SBT_CFG_QUIET) == 1, "yes is on");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "check")) {
		check();
		return h_done();
	}
	print_table();
	return 0;
}
