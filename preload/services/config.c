/*
 * config.c - read the table of config.h, once.
 */
#include "config.h"
#include "sample.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct sbt_cfg_var table[SBT_CFG__N] = {
#define SBT_X_VAR(id, name, type, num, text, lo, hi, meaning)                \
	[SBT_CFG_##id] = { name, SBT_CFG_##type, num, text, lo, hi, meaning },
	SBT_CONFIG(SBT_X_VAR)
#undef SBT_X_VAR
};

/* Written by sbt_config_load() before main(), read-only afterwards. */
long sbt_cfg_num[SBT_CFG__N];
static struct {
	const char *text[SBT_CFG__N];   /* into the environment */
} cfg;

int sbt_cfg_parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (!strcasecmp(s, yes[i]))
			return 1;
		if (!strcasecmp(s, no[i]))
			return 0;
	}
	return -1;
}

/* Variable v's value from text s (set, non-empty) into cfg. */
static void load_one(enum sbt_cfg v, const char *s)
{
	const struct sbt_cfg_var *t = &table[v];
	char *end;
	long n;

	switch (t->type) {
	case SBT_CFG_STR:
		cfg.text[v] = s;
		return;
	case SBT_CFG_BOOL:
		if ((n = sbt_cfg_parse_bool(s)) >= 0) {
			sbt_cfg_num[v] = n;
			return;
		}
		sbt_warn("%s='%s' is not 1/0, true/false, yes/no or on/off; "
			 "using %ld", t->name, s, t->def);
		return;
	case SBT_CFG_LONG:
		errno = 0;
		n = strtol(s, &end, 10);
		if (!errno && !*end && n >= t->lo && n <= t->hi) {
			sbt_cfg_num[v] = n;
			return;
		}
		sbt_warn("%s='%s' is not a number in [%ld, %ld]; using %ld",
			 t->name, s, t->lo, t->hi, t->def);
		return;
	}
}

void sbt_config_load(void)
{
	/* SBT_QUIET first: it decides whether the others may warn */
	for (int pass = 0; pass < 2; pass++)
		for (int v = 0; v < SBT_CFG__N; v++) {
			const char *s = getenv(table[v].name);
			if ((v == SBT_CFG_QUIET) != (pass == 0))
				continue;
			sbt_cfg_num[v] = table[v].def;
			cfg.text[v] = table[v].def_text;
			if (s && *s)
				load_one((enum sbt_cfg)v, s);
			if (v == SBT_CFG_QUIET)
				sbt_diag_quiet((int)sbt_cfg_num[v]);
		}
	(void)sbt_sample_setup(cfg.text[SBT_CFG_SAMPLE]);
}

const char *sbt_cfg_text(enum sbt_cfg v) { return cfg.text[v]; }
const struct sbt_cfg_var *sbt_config_table(void) { return table; }
