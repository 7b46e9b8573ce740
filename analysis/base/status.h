/*
 * status.h - one status line on stderr during long analyses ("reading
 * run-3.log (4/16)", "analyzing 12,000,000 samples"); silent unless
 * stderr is a terminal.
 */
#ifndef SBT_STATUS_H
#define SBT_STATUS_H

/* Decide once whether to speak (a TTY, and not quiet). */
void sbt_status_init(int quiet);
/* Replace the line. */
void sbt_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Erase it (before normal output goes to the same terminal). */
void sbt_status_done(void);

#endif
