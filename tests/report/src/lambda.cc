// lambda.cc - a marker inside a lambda run by std::thread: the call site
// must read as the lambda in main, not as std::thread's _M_run.
#include <thread>
#include <sbtmark.h>

static volatile int sink;

int main()
{
	std::thread t([] {
		for (int i = 0; i < 400; i++) {
			SBT_MARKER_START("lambda_region"); // SITE: lambda_region
			sink = sink + i;
			SBT_MARKER_STOP("lambda_region");
		}
	});
	t.join();
	return 0;
}
