/*
 * kk_threads.c - the Kokkos Tools callbacks from four threads at once,
 * loaded the way Kokkos loads a tool: dlopen(KOKKOS_PROFILE_LIBRARY) and
 * dlsym on that handle.
 *
 * Each thread, 1000 times: region "work" around kernel "k<thread>"
 * (named from one stack buffer rewritten each time: names are looked up
 * by content, not address) around fence "sync".  Kernel ids of all
 * threads are in flight together.  Then one misuse: the main thread
 * ends a kernel id thread 0 was handed and has ended (not its own, not
 * open): one STOP without START.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define ROUNDS  1000

typedef void (*begin_fn)(const char *, uint32_t, uint64_t *);
typedef void (*end_fn)(uint64_t);
typedef void (*push_fn)(const char *);
typedef void (*pop_fn)(void);
typedef void (*init_fn)(int, uint64_t, uint32_t, void *);

static begin_fn begin_for, begin_fence;
static end_fn end_for, end_fence;
static push_fn push;
static pop_fn pop;
static uint64_t last_id[THREADS];

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	if (!p) {
		fprintf(stderr, "kk_threads: no %s\n", name);
		exit(1);
	}
	return p;
}

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	char name[32];

	for (int i = 0; i < ROUNDS; i++) {
		uint64_t k, f;
		push("work");
		snprintf(name, sizeof name, "k%d", me);
		begin_for(name, 0, &k);
		memset(name, 'x', sizeof name - 1);   /* the app reuses it */
		begin_fence("sync", 0, &f);
		end_fence(f);
		end_for(k);
		pop();
		last_id[me] = k;
	}
	return NULL;
}

int main(void)
{
	const char *lib = getenv("KOKKOS_PROFILE_LIBRARY");
	pthread_t th[THREADS];
	void *h;

	if (!lib || !(h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL))) {
		fprintf(stderr, "kk_threads: cannot load the tool: %s\n",
			lib ? dlerror() : "KOKKOS_PROFILE_LIBRARY unset");
		return 1;
	}
	begin_for = (begin_fn)sym(h, "kokkosp_begin_parallel_for");
	end_for = (end_fn)sym(h, "kokkosp_end_parallel_for");
	begin_fence = (begin_fn)sym(h, "kokkosp_begin_fence");
	end_fence = (end_fn)sym(h, "kokkosp_end_fence");
	push = (push_fn)sym(h, "kokkosp_push_profile_region");
	pop = (pop_fn)sym(h, "kokkosp_pop_profile_region");
	((init_fn)sym(h, "kokkosp_init_library"))(0, 20210225, 0, NULL);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	end_for(last_id[0]);             /* misuse: another thread's, ended */
	((void (*)(void))sym(h, "kokkosp_finalize_library"))();
	return 0;
}
