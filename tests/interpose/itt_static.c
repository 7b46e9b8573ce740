/*
 * itt_static.c - the stand-in static part (see itt_static.h).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "itt_static.h"

struct api_info {           /* __itt_api_info (builds after 20101001) */
	const char *name;
	void **func_ptr;
	void *init_func;
	void *null_func;
	int group;
};

struct itt_global {         /* __itt_global, all fields                */
	unsigned char magic[8];
	unsigned long version_major, version_minor, version_build;
	volatile long api_initialized, mutex_initialized, atomic_counter;
	pthread_mutex_t mutex;
	void *lib;
	void *error_handler;
	const char **dll_path_ptr;
	struct api_info *api_list_ptr;
	struct itt_global *next;
	void *thread_list;
	itt_domain *domain_list;
	itt_string_handle *string_list;
	int state;
	void *counter_list;
	unsigned int ipt_collect_events;
	void *histogram_list;
	void *counter_metadata_list;
};

static void init_lib(void);

/* Init stubs: load the collector, then forward if it took the slot. */
static void task_begin_init(const itt_domain *d, itt_id i, itt_id p,
			    itt_string_handle *n);
static void task_end_init(const itt_domain *d);
static void pause_init(void);
static itt_domain *domain_create_init(const char *name);
static itt_string_handle *string_handle_create_init(const char *name);

itt_domain *(*itt_domain_create_ptr)(const char *) = domain_create_init;
itt_string_handle *(*itt_string_handle_create_ptr)(const char *) =
	string_handle_create_init;
void (*itt_task_begin_ptr)(const itt_domain *, itt_id, itt_id,
			   itt_string_handle *) = task_begin_init;
void (*itt_task_end_ptr)(const itt_domain *) = task_end_init;
void (*itt_pause_ptr)(void) = pause_init;

#define G_STRUCTURE (1 << 12)
#define G_CONTROL   (1 << 1)

static struct api_info api_list[] = {
	{ "__itt_domain_create", (void **)&itt_domain_create_ptr,
	  (void *)domain_create_init, (void *)domain_create_init, G_STRUCTURE },
	{ "__itt_string_handle_create", (void **)&itt_string_handle_create_ptr,
	  (void *)string_handle_create_init, (void *)string_handle_create_init,
	  G_STRUCTURE },
	{ "__itt_task_begin", (void **)&itt_task_begin_ptr,
	  (void *)task_begin_init, NULL, G_STRUCTURE },
	{ "__itt_task_end", (void **)&itt_task_end_ptr,
	  (void *)task_end_init, NULL, G_STRUCTURE },
	{ "__itt_pause", (void **)&itt_pause_ptr,
	  (void *)pause_init, NULL, G_CONTROL },
	{ NULL, NULL, NULL, NULL, 0 },
};

static struct itt_global global = {
	{ 0xED, 0xAB, 0xAB, 0xEC, 0x0D, 0xEE, 0xDA, 0x30 },
	3, 0, 20250807, 0, 0, 0, PTHREAD_MUTEX_INITIALIZER,
	NULL, NULL, NULL, api_list, NULL, NULL, NULL, NULL, 0, NULL, 0,
	NULL, NULL,
};

/* __itt_init_ittlib for a version-2 collector (one with __itt_api_init). */
static void init_lib(void)
{
	pthread_mutex_lock(&global.mutex);
	if (!global.api_initialized) {
		const char *path = getenv("INTEL_LIBITTNOTIFY64");
		void (*api_init)(struct itt_global *, int) = NULL;

		if (path && (global.lib = dlopen(path, RTLD_LAZY)))
			api_init = (void (*)(struct itt_global *, int))
				dlsym(global.lib, "__itt_api_init");
		if (api_init)
			api_init(&global, -1 /* __itt_group_all */);
		else    /* no collector: everything becomes a no-op */
			for (struct api_info *a = api_list; a->name; a++)
				*a->func_ptr = a->null_func;
		global.api_initialized = 1;
	}
	pthread_mutex_unlock(&global.mutex);
}

static void task_begin_init(const itt_domain *d, itt_id i, itt_id p,
			    itt_string_handle *n)
{
	init_lib();
	if (itt_task_begin_ptr && itt_task_begin_ptr != task_begin_init)
		itt_task_begin_ptr(d, i, p, n);
}

static void task_end_init(const itt_domain *d)
{
	init_lib();
	if (itt_task_end_ptr && itt_task_end_ptr != task_end_init)
		itt_task_end_ptr(d);
}

static void pause_init(void)
{
	init_lib();
	if (itt_pause_ptr && itt_pause_ptr != pause_init)
		itt_pause_ptr();
}

/* Static implementations: make the object here until the collector is
 * loaded (and keep it on the global's list for the collector). */
static itt_domain *domain_create_init(const char *name)
{
	itt_domain *h, **tail;

	if (!name)
		return NULL;
	pthread_mutex_lock(&global.mutex);
	if (global.api_initialized) {
		pthread_mutex_unlock(&global.mutex);
		return itt_domain_create_ptr != domain_create_init ?
		       itt_domain_create_ptr(name) : NULL;
	}
	for (tail = &global.domain_list; (h = *tail); tail = &h->next)
		if (!strcmp(h->nameA, name))
			break;
	if (!h && getenv("INTEL_LIBITTNOTIFY64") &&
	    (h = calloc(1, sizeof *h))) {
		h->flags = 1;
		h->nameA = strdup(name);
		*tail = h;
	}
	pthread_mutex_unlock(&global.mutex);
	return h;
}

static itt_string_handle *string_handle_create_init(const char *name)
{
	itt_string_handle *h, **tail;

	if (!name)
		return NULL;
	pthread_mutex_lock(&global.mutex);
	if (global.api_initialized) {
		pthread_mutex_unlock(&global.mutex);
		return itt_string_handle_create_ptr != string_handle_create_init ?
		       itt_string_handle_create_ptr(name) : NULL;
	}
	for (tail = &global.string_list; (h = *tail); tail = &h->next)
		if (!strcmp(h->strA, name))
			break;
	if (!h && getenv("INTEL_LIBITTNOTIFY64") &&
	    (h = calloc(1, sizeof *h))) {
		h->strA = strdup(name);
		*tail = h;
	}
	pthread_mutex_unlock(&global.mutex);
	return h;
}
