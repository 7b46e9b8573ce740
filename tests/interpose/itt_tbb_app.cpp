// itt_tbb_app.cpp - a TBB app with nothing of ours in it.  libtbb and
// libtbbmalloc each carry ITT's static part and load libsbtmark.so as
// their collector under sbt-run.
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>
#include <atomic>
#include <cstdio>

int main()
{
	std::atomic<long> sum{0};
	for (int r = 0; r < 10; r++) {
		std::atomic<long> part{0};
		tbb::parallel_for(0, 1000, [&](int i) { part += i; });
		sum = part.load();
	}
	tbb::task_group g;
	for (int i = 0; i < 4; i++)
		g.run([] {});
	g.wait();
	std::printf("tbb done %ld\n", sum.load());
	return 0;
}
