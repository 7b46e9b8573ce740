/*
 * cali_standin.c - a stand-in for libcaliper's C annotation entry points
 * (Caliper is not packaged for Debian).  Same signatures and data
 * symbols; each call is only counted, and with CALI_STANDIN_REPORT set
 * the count is printed at exit, so a test can tell whether the preload
 * answered every call the app made (then 0 here).
 */
#include <stdio.h>
#include <stdlib.h>
#include "cali_standin.h"

cali_id_t cali_loop_attr_id = CALI_INV_ID;
cali_id_t cali_region_attr_id = CALI_INV_ID;
cali_id_t cali_phase_attr_id = CALI_INV_ID;

static unsigned long calls;

/* As Caliper's own initialization does: its ids are small numbers. */
void cali_init(void)
{
	calls++;
	cali_loop_attr_id = 3, cali_region_attr_id = 4, cali_phase_attr_id = 5;
}

#define NAMED(f) void f(const char *n) { (void)n; calls++; }
NAMED(cali_begin_region) NAMED(cali_end_region) NAMED(cali_begin_phase)
NAMED(cali_end_phase) NAMED(cali_begin_comm_region)
NAMED(cali_end_comm_region) NAMED(cali_begin_byname) NAMED(cali_end_byname)

void cali_begin(cali_id_t a) { (void)a; calls++; }
void cali_begin_int(cali_id_t a, int v) { (void)a, (void)v; calls++; }
void cali_begin_double(cali_id_t a, double v) { (void)a, (void)v; calls++; }
void cali_begin_string(cali_id_t a, const char *v) { (void)a, (void)v; calls++; }
void cali_end(cali_id_t a) { (void)a; calls++; }
void cali_safe_end_string(cali_id_t a, const char *v) { (void)a, (void)v; calls++; }
void cali_begin_int_byname(const char *a, int v) { (void)a, (void)v; calls++; }
void cali_begin_string_byname(const char *a, const char *v)
{
	(void)a, (void)v;
	calls++;
}

cali_id_t cali_create_attribute(const char *n, cali_attr_type t, int p)
{
	(void)n, (void)t, (void)p;
	return ++calls;
}

cali_id_t cali_find_attribute(const char *n) { (void)n; calls++; return CALI_INV_ID; }
const char *cali_attribute_name(cali_id_t a) { (void)a; calls++; return NULL; }

cali_id_t cali_make_loop_iteration_attribute(const char *n)
{
	(void)n;
	return ++calls;
}

__attribute__((destructor)) static void report(void)
{
	if (getenv("CALI_STANDIN_REPORT"))
		fprintf(stderr, "cali-standin: %lu calls\n", calls);
}
