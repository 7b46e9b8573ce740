/*
 * keyed.c - the interposed APIs' keyed fast path (api_common.h,
 * hot.h: sbt_key_slot): a begin finds its region in the thread's name
 * cache under (call site, key), where the key is an ITT string handle,
 * an NVTX message in read-only memory or a Fortran name with its length.
 * Each case below has one call site meet what a key must tell apart, or
 * must not stand for:
 *   - a Fortran literal at one address with two lengths: "abc", "abcdef";
 *   - a writable Fortran buffer and a writable NVTX message rewritten
 *     between calls: never keys (fb_a, fb_b; nv_1, nv_2);
 *   - two NVTX literals and two ITT handles at one site (l_1, l_2;
 *     t_1, t_2), and with SBT_ITT_DOMAIN_PREFIX=1 one handle in two
 *     domains (d1/t_1, d2/t_1; else t_1 counts them too);
 *   - NVTX ranges nested past the APIs' stack (32): counted, unrecorded;
 *   - two Kokkos kernel labels from one buffer at one site, as Kokkos
 *     launches every kernel (kk_a, kk_b): the site's last label is a
 *     guess to compare, never an answer.
 * Each of these 3 times.  Exits non-zero when a value the app sees is
 * wrong; interpose_test.py checks the log.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "itt_static.h"
#include "nvtx_instance.h"
#include "../common/harness.h"

void likwid_markerstartregion_(const char *tag, int len);
void likwid_markerstopregion_(const char *tag, int len);

static const struct nvtx_api *a;

/* Kokkos Tools' entry points: only the preload defines them. */
void kokkosp_begin_parallel_for(const char *name, uint32_t dev,
				uint64_t *kid) __attribute__((weak));
void kokkosp_end_parallel_for(uint64_t kid) __attribute__((weak));

/* One call site each: the compiler must not copy them into the loop. */
static __attribute__((noinline)) void fortran_pair(const char *t, int len)
{
	likwid_markerstartregion_(t, len);
	likwid_markerstopregion_(t, len);
}

static __attribute__((noinline)) void nvtx_pair(const char *m)
{
	CHECK_TRUE(a->push_a(m) == 0);
	CHECK_TRUE(a->pop() == 0);
}

static __attribute__((noinline)) void itt_pair(itt_domain *d,
					       itt_string_handle *h)
{
	itt_task_begin(d, itt_null, itt_null, h);
	itt_task_end(d);
}

static __attribute__((noinline)) void kokkos_pair(const char *label)
{
	uint64_t kid = 0;

	kokkosp_begin_parallel_for(label, 0, &kid);
	CHECK_TRUE(kid != 0);
	kokkosp_end_parallel_for(kid);
}

#define D8(p) p "0", p "1", p "2", p "3", p "4", p "5", p "6", p "7"
static const char *const deep_names[40] = {
	D8("d0"), D8("d1"), D8("d2"), D8("d3"), D8("d4")
};

static __attribute__((noinline)) void deep(int k)
{
	if (k == 40)
		return;
	CHECK_TRUE(a->push_a(deep_names[k]) == k);
	deep(k + 1);
	CHECK_TRUE(a->pop() == k);
}

int main(void)
{
	char fb[8], nb[8], kb[8];
	itt_domain *d1, *d2;
	itt_string_handle *h1, *h2;

	a = nvtx_lib_a();
	d1 = itt_domain_create("d1");
	d2 = itt_domain_create("d2");
	h1 = itt_string_handle_create("t_1");
	h2 = itt_string_handle_create("t_2");
	CHECK_TRUE(d1 && d2 && h1 && h2 && h1 != h2);
	CHECK_TRUE(kokkosp_begin_parallel_for != NULL);
	for (int i = 0; i < 3; i++) {
		fortran_pair("abcdef", 3);
		fortran_pair("abcdef", 6);
		memcpy(fb, "fb_a    ", 8);
		fortran_pair(fb, 8);
		memcpy(fb, "fb_b    ", 8);
		fortran_pair(fb, 8);

		nvtx_pair("l_1");
		nvtx_pair("l_2");
		snprintf(nb, sizeof nb, "nv_1");
		nvtx_pair(nb);
		snprintf(nb, sizeof nb, "nv_2");
		nvtx_pair(nb);

		itt_pair(d1, h1);
		itt_pair(d1, h2);
		itt_pair(d2, h1);

		deep(0);

		snprintf(kb, sizeof kb, "kk_a");
		kokkos_pair(kb);
		snprintf(kb, sizeof kb, "kk_b");
		kokkos_pair(kb);
	}
	return h_status("keyed");
}
