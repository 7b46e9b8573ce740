// bench_kokkos.cpp - what a Kokkos kernel costs with the sbtmark recorder
// as its Kokkos tool, against the same kernel with no tool and with an
// empty tool, side by side in one process.
//
//   sbt-run -- bench-kokkos [--rounds R] [--kernels K] [--body NS]
//   (sbt-run preloads libsbtmark.so and names it KOKKOS_PROFILE_LIBRARY)
//
// Kokkos loads the tool at initialize; each round then times K launches
// of an empty parallel_for (or one spinning NS ns) three ways, in an
// order rotated round by round:
//   none     Kokkos::Tools::Experimental::pause_tools(): no tool
//   empty    Kokkos' tool dispatch (and its fence per callback) with
//            empty begin/end callbacks
//   sbtmark  libsbtmark.so's callbacks: each kernel a recorded sample
// and prints each way's median per-kernel cost over the rounds and its
// ratio to none.  Timed from outside with CLOCK_MONOTONIC per round.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <time.h>
#include <vector>

namespace KT = Kokkos::Tools::Experimental;

typedef void (*begin_fn)(const char *, uint32_t, uint64_t *);
typedef void (*end_fn)(uint64_t);

static void empty_begin(const char *, uint32_t, uint64_t *kid) { *kid = 0; }
static void empty_end(uint64_t) {}

static volatile double sink;     // the body's work, kept

static double now_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double spin_until(double t)
{
	double x = now_ns();
	while (x < t)
		x = now_ns();
	return x;
}

int main(int argc, char **argv)
{
	int rounds = 200, kernels = 2000;
	double body = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--kernels") && i + 1 < argc)
			kernels = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--body") && i + 1 < argc)
			body = atof(argv[++i]);
		else {
			fprintf(stderr, "usage: bench-kokkos [--rounds R] "
				"[--kernels K] [--body NS]\n");
			return 2;
		}
	}
	if (rounds < 5 || kernels < 10) {
		fprintf(stderr, "bench-kokkos: at least 5 rounds of 10\n");
		return 2;
	}
	begin_fn rec_begin = (begin_fn)dlsym(RTLD_DEFAULT,
					     "kokkosp_begin_parallel_for");
	end_fn rec_end = (end_fn)dlsym(RTLD_DEFAULT, "kokkosp_end_parallel_for");
	Kokkos::initialize(argc, argv);
	if (!rec_begin || !rec_end || !Kokkos::Tools::profileLibraryLoaded()) {
		fprintf(stderr, "bench-kokkos: run it with libsbtmark.so "
			"preloaded and as KOKKOS_PROFILE_LIBRARY (sbt-run)\n");
		Kokkos::finalize();
		return 2;
	}
	static const char *const way[3] = { "none", "empty", "sbtmark" };
	std::vector<double> per[3];
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < 3; k++) {
			int w = (k + r) % 3;
			if (w == 0) {
				KT::pause_tools();
			} else {
				KT::resume_tools();
				KT::set_begin_parallel_for_callback(
					w == 1 ? empty_begin : rec_begin);
				KT::set_end_parallel_for_callback(
					w == 1 ? empty_end : rec_end);
			}
			double t0 = now_ns();
			for (int i = 0; i < kernels; i++)
				Kokkos::parallel_for("kernel", 1,
					KOKKOS_LAMBDA(int) {
						if (body > 0)
							sink = spin_until(
								now_ns() + body);
					});
			per[w].push_back((now_ns() - t0) / kernels);
		}
	}
	KT::resume_tools();
	Kokkos::finalize();
	printf("bench-kokkos: %d rounds x %d kernels (parallel_for of one "
	       "iteration, body %.0f ns), Kokkos %d.%d.%d Serial\n", rounds,
	       kernels, body, KOKKOS_VERSION / 10000, KOKKOS_VERSION / 100 % 100,
	       KOKKOS_VERSION % 100);
	printf("%-8s %16s %10s\n", "tool", "ns/kernel p50", "vs none");
	double base = 0;
	for (int w = 0; w < 3; w++) {
		std::sort(per[w].begin(), per[w].end());
		double m = per[w][per[w].size() / 2];
		if (w == 0)
			base = m;
		printf("%-8s %16.1f %9.2fx\n", way[w], m, m / base);
	}
	return 0;
}
