/*
 * osevents.h - what the kernel saw happen to a recording thread: its
 * context switches (voluntary or preempted), page faults and cpu
 * migrations, from unprivileged software perf events.
 *
 * The kernel writes them, timestamped, into a small ring per thread
 * without the thread doing anything.  The recorder moves them into the
 * log (SBT_META_OS entries) only off the timed path: when a thread takes
 * a new chunk with no region open, before fork, at thread exit, at CLOSE
 * and at exit.  Nothing here runs between a START and its STOP.  A ring
 * that fills past a quarter meanwhile (a burst inside one region) wakes
 * a drainer thread, which copies its records aside for the owner's next
 * drain (osevents.c).
 *
 * SBT_OS_EVENTS=0 turns it off; SBT_OS_PAGES sets the ring's data pages
 * (a power of two, default 16).  Where perf_event_open is refused the log
 * header says why and every other part of the recording goes on.
 */
#ifndef SBT_OSEVENTS_H
#define SBT_OSEVENTS_H

#include <stdint.h>
#include "diag.h"
#include "logfile.h"

struct sbt_os;

/* Open the calling thread's events.  NULL when off, refused or out of
 * fds / locked memory (counted as SBT_CNT_OS_MISSED). */
SBT_HIDDEN struct sbt_os *sbt_os_open(void);

/* Move what the kernel has written so far into the log as `thread`'s
 * (tid `tid`).  Call only on the thread itself, with no region open or
 * while it ends; does nothing without a log. */
SBT_HIDDEN void sbt_os_drain(struct sbt_os *o, struct sbt_logfile *lf,
			     uint32_t thread, int32_t tid);

/* Whether the ring holds more than half its size unread: time to
 * drain (a load of data_head; no system call). */
SBT_HIDDEN int sbt_os_half(const struct sbt_os *o);

/* Close the events and free the ring (NULL is fine). */
SBT_HIDDEN void sbt_os_close(struct sbt_os *o);

/* fork(): the drainer's lock held across it (prepare, parent); the
 * child starts with no drainer and no rings on its list (child). */
SBT_HIDDEN void sbt_os_fork_prepare(void);
SBT_HIDDEN void sbt_os_fork_parent(void);
SBT_HIDDEN void sbt_os_fork_child(void);

/* The process's OS-event state into a new log's header. */
SBT_HIDDEN void sbt_os_header(struct sbt_file_header *h);

#endif
