/* dl_main.c - dlopen a library, time a region in it, dlclose it, then
 * time one more region in the app (the library's mapping is gone by the
 * time the log is analyzed: only the module map knows it). */
#include <dlfcn.h>
#include <stdio.h>
#include <sbtmark.h>

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "./libdl_lib.so", RTLD_NOW);
	void (*work)(int);

	if (!h || !(work = (void (*)(int))dlsym(h, "dl_work"))) {
		fprintf(stderr, "dl_main: %s\n", dlerror());
		return 1;
	}
	for (int i = 0; i < 300; i++)
		work(i);
	dlclose(h);
	for (int i = 0; i < 200; i++) {
		SBT_MARKER_START("after_close");  /* SITE: after_close */
		SBT_MARKER_STOP("after_close");
	}
	return 0;
}
