/*
 * itt_static.h - a minimal stand-in for ittnotify's "static part", the
 * code an ITT-instrumented app carries (ittnotify_static.c in Intel's
 * ittapi).  Written for these tests from the documented ABI; no Intel
 * source is used.  What it reproduces, because the collector depends on
 * it:
 *   - one __itt_global per static part, layout as in ittnotify_config.h
 *     (magic, version, init flags, mutex, ..., api_list_ptr, domain and
 *     string lists), with an api_list of {name, &fnptr, init, null, group};
 *   - every fnptr starts at an init stub; the first task call loads the
 *     library named by INTEL_LIBITTNOTIFY64 with dlopen and calls its
 *     __itt_api_init(&global, __itt_group_all) under the global's mutex;
 *   - domain_create / string_handle_create do not load the collector:
 *     before it is loaded they create the objects themselves (flags = 1,
 *     extra fields 0) on the global's lists, so handles made early reach
 *     the collector without it ever having seen them;
 *   - the app-side macros skip a call when the domain is NULL or its
 *     flags are 0, or the function pointer is NULL.
 */
#ifndef ITT_STATIC_H
#define ITT_STATIC_H

typedef struct itt_id { unsigned long long d1, d2, d3; } itt_id;

typedef struct itt_domain {
	volatile int flags;
	const char *nameA;
	void *nameW;
	int extra1;
	void *extra2;
	struct itt_domain *next;
} itt_domain;

typedef struct itt_string_handle {
	const char *strA;
	void *strW;
	int extra1;
	void *extra2;
	struct itt_string_handle *next;
} itt_string_handle;

extern itt_domain *(*itt_domain_create_ptr)(const char *);
extern itt_string_handle *(*itt_string_handle_create_ptr)(const char *);
extern void (*itt_task_begin_ptr)(const itt_domain *, itt_id, itt_id,
				  itt_string_handle *);
extern void (*itt_task_end_ptr)(const itt_domain *);
extern void (*itt_pause_ptr)(void);

static const itt_id itt_null = { 0, 0, 0 };

/* The public macros' shape (ittnotify.h: ITTNOTIFY_VOID_D3 etc.). */
#define itt_domain_create(n)        itt_domain_create_ptr(n)
#define itt_string_handle_create(n) itt_string_handle_create_ptr(n)
#define itt_task_begin(d, i, p, n)                                      \
	((d) && (d)->flags && itt_task_begin_ptr ?                      \
	 itt_task_begin_ptr(d, i, p, n) : (void)0)
#define itt_task_end(d)                                                 \
	((d) && (d)->flags && itt_task_end_ptr ? itt_task_end_ptr(d) : (void)0)
#define itt_pause() (itt_pause_ptr ? itt_pause_ptr() : (void)0)

#endif
