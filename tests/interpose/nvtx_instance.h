/*
 * nvtx_instance.h - the NVTX calls a test "library" offers its app.
 *
 * NVTX v3 is header-only: each library that includes nvToolsExt.h gets
 * its own NVTX instance (globals, function-pointer tables, one-time
 * init), and each instance loads and initializes the injection library
 * by itself.  nvtx_instance.c is our stand-in for that header code,
 * written for these tests from the public ABI (nvToolsExt.h,
 * nvtxDetail/nvtxTypes.h, nvtxInit.h); no NVIDIA source is used.  It is
 * compiled into two shared libraries, so the process has two instances
 * and the injection's InitializeInjectionNvtx2 runs twice, as in an app
 * that uses NVTX and links a library that uses it too.
 */
#ifndef NVTX_INSTANCE_H
#define NVTX_INSTANCE_H

#include <stdint.h>

struct nvtx_api {
	int      (*push_a)(const char *msg);
	int      (*push_ex_ascii)(const char *msg);
	int      (*pop)(void);
	uint64_t (*start_a)(const char *msg);
	void     (*end)(uint64_t id);
	void    *(*domain_create)(const char *name);
	void    *(*register_string)(void *domain, const char *s);
	int      (*domain_push_registered)(void *domain, void *str);
	int      (*domain_push_ascii)(void *domain, const char *msg);
	int      (*domain_pop)(void *domain);
	uint64_t (*domain_start_registered)(void *domain, void *str);
	void     (*domain_end)(void *domain, uint64_t id);
	void     (*mark_a)(const char *msg);      /* not injected: no-op */
	int      (*init_calls)(void);             /* injection inits seen */
};

const struct nvtx_api *nvtx_lib_a(void);
const struct nvtx_api *nvtx_lib_b(void);

#endif
