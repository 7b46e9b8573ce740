/*
 * harness.h - what the C tests share: checks that count, and running an
 * app with or without the recorder preloaded.  Every suite includes this
 * one file (tests/common); none defines a CHECK of its own.
 *
 *   CHECK(cond, fmt, ...)   count; on failure print file:line and why
 *   CHECK_TRUE(cond)        the same, the reason being the condition
 *   h_done()                "N passed, M failed" on stdout; exit status
 *   h_status(who)           the same on stderr only (for apps whose
 *                           stdout a driver reads)
 */
#ifndef SBT_HARNESS_H
#define SBT_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int h_pass, h_fail;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (cond) {                                               \
			h_pass++;                                         \
		} else {                                                  \
			h_fail++;                                         \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);\
			fprintf(stderr, __VA_ARGS__);                     \
			fputc('\n', stderr);                              \
		}                                                         \
	} while (0)

#define CHECK_TRUE(cond) CHECK(cond, "%s", #cond)

static inline int h_done(void)
{
	printf("%d passed, %d failed\n", h_pass, h_fail);
	return h_fail ? 1 : 0;
}

static inline int h_status(const char *who)
{
	if (h_fail)
		fprintf(stderr, "%s: %d of %d checks failed\n", who, h_fail,
			h_pass + h_fail);
	return h_fail ? 1 : 0;
}

/* A fresh temporary directory, made the working directory. */
static inline const char *h_tmpdir(void)
{
	static char dir[] = "/tmp/sbt-test-XXXXXX";
	if (!mkdtemp(dir) || chdir(dir) != 0) {
		perror("tmpdir");
		exit(99);
	}
	return dir;
}

/* Run argv with `preload` (NULL: none) and extra NAME=VALUE settings;
 * returns the wait status. */
static inline int h_run(const char *preload, char *const env[],
			char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (preload)
			setenv("LD_PRELOAD", preload, 1);
		else
			unsetenv("LD_PRELOAD");
		for (int i = 0; env && env[i]; i++)
			putenv(env[i]);
		freopen("/dev/null", "w", stdout);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

#endif
