/*
 * cali_standin.c - a stand-in for libcaliper's C annotation entry points
 * (Caliper is not packaged for Debian).  Same signatures and data
 * symbols; each call is counted and, with STANDIN_LOG set, logged with
 * its arguments (standin_log.h), so a test can tell that every call the
 * app made reached the library, in order, with the same arguments
 * (CALI_STANDIN_REPORT: the count is printed at exit).  Attributes get
 * ids from their names, as libcaliper gives each name one id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cali_standin.h"
#include "standin_log.h"

cali_id_t cali_loop_attr_id = CALI_INV_ID;
cali_id_t cali_region_attr_id = CALI_INV_ID;
cali_id_t cali_phase_attr_id = CALI_INV_ID;

static unsigned long calls;

/* Attributes made so far: an id per name (FNV-1a, from 100). */
#define ATTRS 64
static struct { cali_id_t id; char name[64]; } attr[ATTRS];
static int nattr;

static cali_id_t id_of(const char *n)
{
	uint32_t h = 2166136261u;

	for (const char *p = n; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return 100 + h % 100000;
}

static cali_id_t make(const char *n)
{
	cali_id_t id;

	if (!n)
		return CALI_INV_ID;
	id = id_of(n);
	pthread_mutex_lock(&sl_lock);
	for (int i = 0; i < nattr; i++)
		if (attr[i].id == id)
			goto out;
	if (nattr < ATTRS) {
		attr[nattr].id = id;
		snprintf(attr[nattr++].name, sizeof attr[0].name, "%s", n);
	}
out:
	pthread_mutex_unlock(&sl_lock);
	return id;
}

/* As Caliper's own initialization does: its ids are small numbers. */
void cali_init(void)
{
	calls++;
	sl_log(__func__, "");
	cali_loop_attr_id = 3, cali_region_attr_id = 4, cali_phase_attr_id = 5;
}

#define NAMED(f) void f(const char *n)                                    \
	{ calls++; sl_log(__func__, " %s", SL_S(n)); }
NAMED(cali_begin_region) NAMED(cali_end_region) NAMED(cali_begin_phase)
NAMED(cali_end_phase) NAMED(cali_begin_comm_region)
NAMED(cali_end_comm_region) NAMED(cali_begin_byname) NAMED(cali_end_byname)

void cali_begin(cali_id_t a) { calls++; sl_log(__func__, " %llu", (unsigned long long)a); }
void cali_begin_int(cali_id_t a, int v)
{
	calls++;
	sl_log(__func__, " %llu %d", (unsigned long long)a, v);
}
void cali_begin_double(cali_id_t a, double v)
{
	calls++;
	sl_log(__func__, " %llu %g", (unsigned long long)a, v);
}
void cali_begin_string(cali_id_t a, const char *v)
{
	calls++;
	sl_log(__func__, " %llu %s", (unsigned long long)a, SL_S(v));
}
void cali_end(cali_id_t a) { calls++; sl_log(__func__, " %llu", (unsigned long long)a); }
void cali_safe_end_string(cali_id_t a, const char *v)
{
	calls++;
	sl_log(__func__, " %llu %s", (unsigned long long)a, SL_S(v));
}
void cali_begin_int_byname(const char *a, int v)
{
	calls++;
	sl_log(__func__, " %s %d", SL_S(a), v);
}
void cali_begin_string_byname(const char *a, const char *v)
{
	calls++;
	sl_log(__func__, " %s %s", SL_S(a), SL_S(v));
}

cali_id_t cali_create_attribute(const char *n, cali_attr_type t, int p)
{
	calls++;
	sl_log(__func__, " %s %d %d", SL_S(n), (int)t, p);
	return make(n);
}

cali_id_t cali_find_attribute(const char *n)
{
	cali_id_t id = n ? id_of(n) : CALI_INV_ID;
	int known = 0;

	calls++;
	sl_log(__func__, " %s", SL_S(n));
	pthread_mutex_lock(&sl_lock);
	for (int i = 0; i < nattr; i++)
		known |= attr[i].id == id;
	pthread_mutex_unlock(&sl_lock);
	return known ? id : CALI_INV_ID;
}

const char *cali_attribute_name(cali_id_t a)
{
	const char *name = NULL;

	calls++;
	sl_log(__func__, " %llu", (unsigned long long)a);
	pthread_mutex_lock(&sl_lock);
	for (int i = 0; i < nattr; i++)
		if (attr[i].id == a)
			name = attr[i].name;
	pthread_mutex_unlock(&sl_lock);
	return name;
}

cali_id_t cali_make_loop_iteration_attribute(const char *n)
{
	char buf[80];

	calls++;
	sl_log(__func__, " %s", SL_S(n));
	snprintf(buf, sizeof buf, "iteration#%s", SL_S(n));
	return make(buf);
}

__attribute__((destructor)) static void report(void)
{
	if (getenv("CALI_STANDIN_REPORT"))
		fprintf(stderr, "cali-standin: %lu calls\n", calls);
}
