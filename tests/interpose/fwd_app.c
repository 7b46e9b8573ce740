/*
 * fwd_app.c - every LIKWID and PAPI-HL entry point an app calls, C and
 * gfortran's, linked with the stand-in libraries (likwid_standin.c,
 * papi_standin.c).  Prints every value the libraries hand back, which
 * must not change under the preload; the stand-ins log every call,
 * which must reach them under the preload as without it.  Two threads:
 * main, and one that marks "lk_thread" 3 times.  Expected sbtmark log:
 * likwid lk 4, lk_inner 4, lk_thread 3, f_lk 2; papi-hl pp 3, f_pp 2.
 */
#include <pthread.h>
#include <stdio.h>

void likwid_markerInit(void);
void likwid_markerThreadInit(void);
void likwid_markerNextGroup(void);
void likwid_markerClose(void);
int likwid_markerRegisterRegion(const char *);
int likwid_markerStartRegion(const char *);
int likwid_markerStopRegion(const char *);
int likwid_markerResetRegion(const char *);
void likwid_markerGetRegion(const char *, int *, double *, double *, int *);
void likwid_markerinit_(void);
void likwid_markerthreadinit_(void);
void likwid_markerregisterregion_(const char *, int);
void likwid_markerstartregion_(const char *, int);
void likwid_markerstopregion_(const char *, int);
void likwid_markerresetregion_(const char *, int);
void likwid_markergetregion_(const char *, int *, double *, double *, int *,
			     int);
int PAPI_hl_region_begin(const char *);
int PAPI_hl_region_end(const char *);
int PAPI_hl_read(const char *);
int PAPI_hl_stop(void);
void papif_hl_region_begin_(const char *, int *, int);
void papif_hl_region_end_(const char *, int *, int);
void papif_hl_read_(const char *, int *, int);
void papif_hl_stop_(int *);

static void *thread(void *arg)
{
	(void)arg;
	likwid_markerThreadInit();
	for (int i = 0; i < 3; i++) {
		int a = likwid_markerStartRegion("lk_thread");
		int b = likwid_markerStopRegion("lk_thread");
		printf("thread start %d stop %d\n", a, b);
	}
	return NULL;
}

int main(void)
{
	pthread_t th;
	int nev, count, check;
	double ev[2], t;

	likwid_markerInit();
	likwid_markerThreadInit();
	printf("register %d\n", likwid_markerRegisterRegion("lk"));
	for (int i = 0; i < 4; i++) {
		int a = likwid_markerStartRegion("lk");
		int b = likwid_markerStartRegion("lk_inner");
		int c = likwid_markerStopRegion("lk_inner");
		int d = likwid_markerStopRegion("lk");
		printf("lk %d %d %d %d\n", a, b, c, d);
	}
	nev = 2, count = -1, t = -1;
	likwid_markerGetRegion("lk", &nev, ev, &t, &count);
	printf("getregion nev %d count %d time %.3f ev0 %.0f\n", nev, count,
	       t, nev > 0 ? ev[0] : -1.0);
	likwid_markerNextGroup();
	printf("reset %d\n", likwid_markerResetRegion("lk_none"));
	printf("stop never started %d\n",
	       likwid_markerStopRegion("never"));       /* misuse */
	pthread_create(&th, NULL, thread, NULL);
	pthread_join(th, NULL);

	likwid_markerinit_();
	likwid_markerthreadinit_();
	likwid_markerregisterregion_("f_lk  ", 6);
	for (int i = 0; i < 2; i++) {
		likwid_markerstartregion_("f_lk  ", 6);
		likwid_markerstopregion_("f_lk", 4);
	}
	nev = 2, count = -1;
	likwid_markergetregion_("f_lk", &nev, ev, &t, &count, 4);
	printf("f getregion nev %d count %d\n", nev, count);
	likwid_markerresetregion_("f_none ", 7);

	for (int i = 0; i < 3; i++) {
		int a = PAPI_hl_region_begin("pp");
		int b = PAPI_hl_read("pp");
		int c = PAPI_hl_region_end("pp");
		printf("pp %d %d %d\n", a, b, c);
	}
	printf("pp end never begun %d\n", PAPI_hl_region_end("nope"));
	for (int i = 0; i < 2; i++) {
		check = -1;
		papif_hl_region_begin_("f_pp ", &check, 5);
		printf("f_pp begin %d", check);
		papif_hl_read_("f_pp", &check, 4);
		printf(" read %d", check);
		papif_hl_region_end_("f_pp", &check, 4);
		printf(" end %d\n", check);
	}
	papif_hl_stop_(&check);
	printf("f stop %d, stop %d\n", check, PAPI_hl_stop());
	likwid_markerClose();
	puts("done");
	return 0;
}
