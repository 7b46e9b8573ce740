// kokkos_app.cpp - a Kokkos app with no sbtmark code: kernels, regions,
// fences, deep copies and a profiling section, STEPS times; the tool
// library named by KOKKOS_PROFILE_LIBRARY (libsbtmark.so) hears of them
// through Kokkos itself.  Then two misuses: a pop without push and the
// end of a kernel id never handed out.
//
//   kokkos_app STEPS
#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ProfileSection.hpp>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 100;
	double total = 0;

	Kokkos::initialize(argc, argv);
	{
		Kokkos::View<double *> a("a", 1000), b("b", 1000);
		Kokkos::Profiling::ProfilingSection section("section");
		for (int s = 0; s < steps; s++) {
			Kokkos::Profiling::pushRegion("step");
			section.start();
			Kokkos::parallel_for("fill", 1000,
				KOKKOS_LAMBDA(int i) { a(i) = i + s; });
			double sum = 0;
			Kokkos::parallel_reduce("sum", 1000,
				KOKKOS_LAMBDA(int i, double &x) { x += a(i); },
				sum);
			total += sum;
			Kokkos::parallel_scan("scan", 1000,
				KOKKOS_LAMBDA(int i, double &x, bool last) {
					x += a(i);
					if (last)
						a(i) = x;
				});
			Kokkos::Profiling::pushRegion("inner");
			Kokkos::parallel_for("fill2", 1000,
				KOKKOS_LAMBDA(int i) { b(i) = a(i); });
			Kokkos::Profiling::popRegion();
			uint64_t fence;
			Kokkos::Tools::beginFence("sync", 0, &fence);
			Kokkos::fence();
			Kokkos::Tools::endFence(fence);
			Kokkos::deep_copy(b, a);
			section.stop();
			Kokkos::Profiling::popRegion();
		}
		Kokkos::Profiling::popRegion();          /* misuse: no push */
		Kokkos::Tools::endParallelFor(0x12345);  /* misuse: no such id */
	}
	Kokkos::finalize();
	printf("total %.0f\n", total);
	return 0;
}
