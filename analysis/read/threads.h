/*
 * threads.h - who each recorded thread was: the log's META THREAD
 * entries (kernel tid, name, OpenMP thread number and nesting level)
 * kept per (source, thread), and the label a report gives a thread.
 */
#ifndef SBT_THREADS_H
#define SBT_THREADS_H

#include <stddef.h>
#include <stdint.h>
#include "dataset.h"

/* Note one META THREAD entry (payload p, len bytes) in source s.
 * 0, or -1 when it is damaged (too short, absurd thread index, tid 0)
 * or memory ran out: the entry is then left out. */
int sbt_threads_note(struct sbt_source *s, const void *p, uint32_t len);

/* Thread `thread`'s entry in s, or NULL when it has none. */
const struct sbt_thread_info *sbt_threads_find(const struct sbt_source *s,
					       uint32_t thread);

/* The label of thread `thread` of source `src`, in buf (len bytes):
 * "omp N" when it had one OpenMP thread number, else its name when no
 * other thread of the source has the same, else "tid N", else (no
 * entry: older logs, CSV) its sbtmark index, "N".  Returns buf. */
const char *sbt_thread_label(const struct sbt_dataset *ds, uint32_t src,
			     uint32_t thread, char *buf, size_t len);

#endif
