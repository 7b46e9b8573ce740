/*
 * itt_all.c - every entry point an ITT static part can take from a
 * collector, offered to libsbtmark.so's __itt_api_init, each answered.
 *
 *   itt_all LIB new|old
 *
 * The table is the api_list of ittnotify_static.c (intel/ittapi, Linux
 * entries, in its order), names only: {"__itt_" name in the collector,
 * 1 when the static part implements it itself (null_func = its stub)}.
 * The sync/fsync pairs share names there, and so here.  The global and
 * its list are laid out as ittnotify_config.h has them ("new": builds
 * after 20101001, with null_func; "old": without).
 *
 * After __itt_api_init every slot must hold either a function of the
 * collector (then it is called here with valid arguments - a slot we
 * cannot call is a failure: a new entry needs a line below) or the
 * static part's answer without a collector: null_func (new) / NULL (old).
 * Left at its init stub is the failure libomp died of: non-NULL, so a
 * runtime calls it, and it returns 0.  Exit 0 and a line "ok N M" (N
 * slots, M taken by the collector), else 1.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; int is_static; } entries[] = {
	{ "__itt_domain_create", 1 },
	{ "__itt_module_load_with_sections", 1 },
	{ "__itt_module_unload_with_sections", 1 },
	{ "__itt_string_handle_create", 1 },
	{ "__itt_counter_create", 1 },
	{ "__itt_counter_create_typed", 1 },
	{ "__itt_pause", 1 },
	{ "__itt_resume", 1 },
	{ "__itt_pause_scoped", 1 },
	{ "__itt_resume_scoped", 1 },
	{ "__itt_thread_set_name", 1 },
	{ "__itt_thread_ignore", 1 },
	{ "__itt_thr_name_set", 1 },
	{ "__itt_thr_ignore", 1 },
	{ "__itt_histogram_create", 1 },
	{ "__itt_counter_create_v3", 1 },
	{ "__itt_bind_context_metadata_to_counter", 1 },
	{ "__itt_enable_attach", 1 },
	{ "__itt_detach", 0 },
	{ "__itt_sync_create", 0 },
	{ "__itt_sync_rename", 0 },
	{ "__itt_sync_destroy", 0 },
	{ "__itt_sync_prepare", 0 },
	{ "__itt_sync_cancel", 0 },
	{ "__itt_sync_acquired", 0 },
	{ "__itt_sync_releasing", 0 },
	{ "__itt_suppress_push", 0 },
	{ "__itt_suppress_pop", 0 },
	{ "__itt_suppress_mark_range", 0 },
	{ "__itt_suppress_clear_range", 0 },
	{ "__itt_sync_prepare", 0 },
	{ "__itt_sync_cancel", 0 },
	{ "__itt_sync_acquired", 0 },
	{ "__itt_sync_releasing", 0 },
	{ "__itt_model_site_begin", 0 },
	{ "__itt_model_site_end", 0 },
	{ "__itt_model_task_begin", 0 },
	{ "__itt_model_task_end", 0 },
	{ "__itt_model_lock_acquire", 0 },
	{ "__itt_model_lock_release", 0 },
	{ "__itt_model_record_allocation", 0 },
	{ "__itt_model_record_deallocation", 0 },
	{ "__itt_model_induction_uses", 0 },
	{ "__itt_model_reduction_uses", 0 },
	{ "__itt_model_observe_uses", 0 },
	{ "__itt_model_clear_uses", 0 },
	{ "__itt_model_site_beginA", 0 },
	{ "__itt_model_site_beginAL", 0 },
	{ "__itt_model_task_beginA", 0 },
	{ "__itt_model_task_beginAL", 0 },
	{ "__itt_model_iteration_taskA", 0 },
	{ "__itt_model_iteration_taskAL", 0 },
	{ "__itt_model_site_end_2", 0 },
	{ "__itt_model_task_end_2", 0 },
	{ "__itt_model_lock_acquire_2", 0 },
	{ "__itt_model_lock_release_2", 0 },
	{ "__itt_model_aggregate_task", 0 },
	{ "__itt_model_disable_push", 0 },
	{ "__itt_model_disable_pop", 0 },
	{ "__itt_heap_function_create", 0 },
	{ "__itt_heap_allocate_begin", 0 },
	{ "__itt_heap_allocate_end", 0 },
	{ "__itt_heap_free_begin", 0 },
	{ "__itt_heap_free_end", 0 },
	{ "__itt_heap_reallocate_begin", 0 },
	{ "__itt_heap_reallocate_end", 0 },
	{ "__itt_heap_internal_access_begin", 0 },
	{ "__itt_heap_internal_access_end", 0 },
	{ "__itt_heap_record_memory_growth_begin", 0 },
	{ "__itt_heap_record_memory_growth_end", 0 },
	{ "__itt_heap_reset_detection", 0 },
	{ "__itt_heap_record", 0 },
	{ "__itt_id_create", 0 },
	{ "__itt_id_destroy", 0 },
	{ "__itt_get_timestamp", 0 },
	{ "__itt_region_begin", 0 },
	{ "__itt_region_end", 0 },
	{ "__itt_frame_begin_v3", 0 },
	{ "__itt_frame_end_v3", 0 },
	{ "__itt_frame_submit_v3", 0 },
	{ "__itt_task_group", 0 },
	{ "__itt_task_begin", 0 },
	{ "__itt_task_begin_fn", 0 },
	{ "__itt_task_end", 0 },
	{ "__itt_counter_inc_v3", 0 },
	{ "__itt_counter_inc_delta_v3", 0 },
	{ "__itt_counter_dec_v3", 0 },
	{ "__itt_counter_dec_delta_v3", 0 },
	{ "__itt_marker", 0 },
	{ "__itt_formatted_metadata_add", 0 },
	{ "__itt_formatted_metadata_add_overlapped", 0 },
	{ "__itt_metadata_add", 0 },
	{ "__itt_metadata_str_add", 0 },
	{ "__itt_relation_add_to_current", 0 },
	{ "__itt_relation_add", 0 },
	{ "__itt_event_create", 0 },
	{ "__itt_event_start", 0 },
	{ "__itt_event_end", 0 },
	{ "__itt_sync_set_name", 0 },
	{ "__itt_notify_sync_name", 0 },
	{ "__itt_notify_sync_prepare", 0 },
	{ "__itt_notify_sync_cancel", 0 },
	{ "__itt_notify_sync_acquired", 0 },
	{ "__itt_notify_sync_releasing", 0 },
	{ "__itt_memory_read", 0 },
	{ "__itt_memory_write", 0 },
	{ "__itt_memory_update", 0 },
	{ "__itt_state_get", 0 },
	{ "__itt_state_set", 0 },
	{ "__itt_obj_mode_set", 0 },
	{ "__itt_thr_mode_set", 0 },
	{ "__itt_frame_create", 0 },
	{ "__itt_pt_region_create", 0 },
	{ "__itt_frame_begin", 0 },
	{ "__itt_frame_end", 0 },
	{ "__itt_counter_destroy", 0 },
	{ "__itt_counter_inc", 0 },
	{ "__itt_counter_inc_delta", 0 },
	{ "__itt_counter_dec", 0 },
	{ "__itt_counter_dec_delta", 0 },
	{ "__itt_counter_set_value", 0 },
	{ "__itt_counter_set_value_ex", 0 },
	{ "__itt_mark_create", 0 },
	{ "__itt_mark", 0 },
	{ "__itt_mark_off", 0 },
	{ "__itt_mark_global", 0 },
	{ "__itt_mark_global_off", 0 },
	{ "__itt_stack_caller_create", 0 },
	{ "__itt_stack_caller_destroy", 0 },
	{ "__itt_stack_callee_enter", 0 },
	{ "__itt_stack_callee_leave", 0 },
	{ "__itt_clock_domain_create", 0 },
	{ "__itt_clock_domain_reset", 0 },
	{ "__itt_id_create_ex", 0 },
	{ "__itt_id_destroy_ex", 0 },
	{ "__itt_task_begin_ex", 0 },
	{ "__itt_task_begin_fn_ex", 0 },
	{ "__itt_task_end_ex", 0 },
	{ "__itt_task_begin_overlapped", 0 },
	{ "__itt_task_begin_overlapped_ex", 0 },
	{ "__itt_task_end_overlapped", 0 },
	{ "__itt_task_end_overlapped_ex", 0 },
	{ "__itt_marker_ex", 0 },
	{ "__itt_metadata_add_with_scope", 0 },
	{ "__itt_metadata_str_add_with_scope", 0 },
	{ "__itt_relation_add_to_current_ex", 0 },
	{ "__itt_relation_add_ex", 0 },
	{ "__itt_track_group_create", 0 },
	{ "__itt_track_create", 0 },
	{ "__itt_set_track", 0 },
	{ "__itt_api_version", 0 },
	{ "__itt_av_save", 0 },
	{ "__itt_module_load", 0 },
	{ "__itt_module_unload", 0 },
	{ "__itt_histogram_submit", 0 },
	{ "__itt_counter_set_value_v3", 0 },
};
#define N (sizeof entries / sizeof entries[0])

struct info_new { const char *name; void **fp; void *init, *null; int grp; };
struct info_old { const char *name; void **fp; void *init; int grp; };

struct global {              /* __itt_global (ittnotify_config.h)      */
	unsigned char magic[8];
	unsigned long major, minor, build;
	volatile long api_initialized, mutex_initialized, atomic_counter;
	pthread_mutex_t mutex;
	void *lib, *error_handler;
	const char **dll_path_ptr;
	void *api_list_ptr;
	struct global *next;
	void *thread_list, *domain_list, *string_list;
	int state;
	void *counter_list;
	unsigned ipt;
	void *histogram_list, *counter_metadata_list;
};

typedef struct { unsigned long long d1, d2, d3; } itt_id;
typedef struct dom { volatile int flags; const char *nameA; void *nameW;
		     int extra1; void *extra2; struct dom *next; } dom;
typedef struct str { const char *strA; void *strW; int extra1;
		     void *extra2; struct str *next; } str;

/* Stand-ins for the static part's stubs: distinct addresses. */
static int init_calls, static_calls;
static void init_stub(void) { init_calls++; }
static void static_stub(void) { static_calls++; }

static void *slots[N];
static void *lib;

static int in_lib(void *fn)
{
	Dl_info a, b;
	return dladdr(fn, &a) && dladdr((void *)dlsym(lib, "__itt_api_init"),
					&b) && a.dli_fbase == b.dli_fbase;
}

void itt_all_named_fn(void) { }

static void *slot(const char *nm)
{
	for (size_t j = 0; j < N; j++)
		if (!strcmp(entries[j].name, nm))
			return slots[j];
	return NULL;
}

/* Call the collector's entry `nm` (fn) as an app would: 0 done, -1 we
 * do not know how, -2 it answered wrongly. */
static int call(const char *nm, void *fn, dom **d, str **s)
{
	itt_id z = { 0, 0, 0 };
	void (*end)(dom *) = (void (*)(dom *))slot("__itt_task_end");
	void (*fend)(dom *, itt_id *) =
		(void (*)(dom *, itt_id *))slot("__itt_frame_end_v3");

	if (!strcmp(nm, "__itt_domain_create")) {
		*d = ((dom *(*)(const char *))fn)("itt.all");
		return *d && (*d)->flags && !strcmp((*d)->nameA, "itt.all") ?
		       0 : -2;
	}
	if (!strcmp(nm, "__itt_string_handle_create")) {
		*s = ((str *(*)(const char *))fn)("all_task");
		return *s && !strcmp((*s)->strA, "all_task") ? 0 : -2;
	}
	if (!*d || !*s)
		return -2;               /* the table has the creates first */
	if (!strcmp(nm, "__itt_task_begin") && in_lib((void *)end)) {
		for (int k = 0; k < 10; k++) {
			((void (*)(dom *, itt_id, itt_id, str *))fn)(*d, z, z, *s);
			end(*d);
		}
		return 0;
	}
	if (!strcmp(nm, "__itt_task_begin_fn") && in_lib((void *)end)) {
		for (int k = 0; k < 3; k++) {
			((void (*)(dom *, itt_id, itt_id, void *))fn)(
				*d, z, z, (void *)itt_all_named_fn);
			end(*d);
		}
		return 0;
	}
	if (!strcmp(nm, "__itt_frame_begin_v3") && in_lib((void *)fend)) {
		for (int k = 0; k < 5; k++) {
			((void (*)(dom *, itt_id *))fn)(*d, NULL);
			fend(*d, NULL);
		}
		return 0;
	}
	/* Ends: called above with their begins. */
	if (!strcmp(nm, "__itt_task_end") || !strcmp(nm, "__itt_frame_end_v3"))
		return 0;
	return -1;
}

int main(int argc, char **argv)
{
	static struct info_new list_new[N + 1];
	static struct info_old list_old[N + 1];
	static struct global g = {
		{ 0xED, 0xAB, 0xAB, 0xEC, 0x0D, 0xEE, 0xDA, 0x30 },
		3, 0, 20250807, 0, 0, 0, PTHREAD_MUTEX_INITIALIZER,
		NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0,
		NULL, NULL,
	};
	int old = argc > 2 && !strcmp(argv[2], "old"), bad = 0, taken = 0;
	void (*api_init)(struct global *, int);
	dom *d = NULL;
	str *s = NULL;

	if (argc < 3 || !(lib = dlopen(argv[1], RTLD_NOW))) {
		fprintf(stderr, "usage: itt_all LIB new|old (%s)\n", dlerror());
		return 2;
	}
	for (size_t i = 0; i < N; i++) {
		void *null = entries[i].is_static ? (void *)static_stub : NULL;
		slots[i] = entries[i].is_static ? null : (void *)init_stub;
		list_new[i] = (struct info_new){ entries[i].name, &slots[i],
			slots[i], null, -1 };
		list_old[i] = (struct info_old){ entries[i].name, &slots[i],
			slots[i], -1 };
	}
	if (old)
		g.build = 20100901;
	g.api_list_ptr = old ? (void *)list_old : (void *)list_new;
	*(void **)&api_init = dlsym(lib, "__itt_api_init");
	if (!api_init) {
		fprintf(stderr, "no __itt_api_init\n");
		return 1;
	}
	pthread_mutex_lock(&g.mutex);            /* as the static part does */
	api_init(&g, -1);
	pthread_mutex_unlock(&g.mutex);
	for (size_t i = 0; i < N; i++) {
		const char *nm = entries[i].name;
		void *want = old ? NULL :
			     entries[i].is_static ? (void *)static_stub : NULL;
		int r;

		if (slots[i] == want)
			continue;                        /* declined */
		if (!in_lib(slots[i])) {
			fprintf(stderr, "FAIL %s: neither declined nor the "
				"collector's (%p)\n", nm, slots[i]);
			bad++;
			continue;
		}
		taken++;
		if ((r = call(nm, slots[i], &d, &s)) != 0) {
			fprintf(stderr, "FAIL %s: %s\n", nm, r == -1 ?
				"taken but not known to this test" :
				"answered wrongly");
			bad++;
		}
	}
	if (init_calls || static_calls)
		bad++;
	printf("%s %zu %d\n", bad ? "bad" : "ok", N, taken);
	return bad != 0;
}
