/*
 * logfile.h - the log file: its name, its header, and chunk allocation.
 *
 * The whole file is one MAP_SHARED mapping reserved at open (address space
 * only; MAP_NORESERVE).  Disk blocks are allocated ahead of use with
 * posix_fallocate, so a write into an allocated chunk can never SIGBUS on
 * a full disk: when space runs out, chunk allocation fails and the caller
 * drops and counts.  Because the pages belong to the file, whatever a
 * thread stored is in the kernel's page cache the moment it is stored and
 * survives the process being killed.
 */
#ifndef SBT_LOGFILE_H
#define SBT_LOGFILE_H

#include <stddef.h>
#include <stdint.h>
#include "sbtlog.h"

struct sbt_logfile;

/* Expand `pattern` (%p pid, %r rank, %h host, %% percent) into out. */
int sbt_log_expand(const char *pattern, char *out, size_t outlen);

/* Create the log named by pattern, without following symlinks and without
 * replacing a file the recorder did not write or a log of a live process.
 * `reserve` is the most bytes the log may grow to.  Returns NULL (and
 * says why on stderr) on failure. */
struct sbt_logfile *sbt_log_create(const char *pattern, size_t reserve);

struct sbt_file_header *sbt_log_header(struct sbt_logfile *lf);
const char *sbt_log_path(struct sbt_logfile *lf);

/* A new chunk of `size` bytes (a multiple of 4096), header filled in and
 * pages faulted in: by sbt_log_prepare ahead of time where it reached,
 * by the caller for the rest.  Any thread, lock-free unless the file must
 * grow.  NULL when the log is full, closed, or the disk is full. */
struct sbt_chunk *sbt_log_chunk(struct sbt_logfile *lf, uint32_t type,
				size_t size, uint32_t thread, int32_t tid);

/* Ready the next piece of the log ahead of the chunks taken: allocate it
 * on disk and fault its pages in (page cache, page tables), so that a
 * chunk taken there costs its taker no kernel work.  One thread only
 * (the preparer, prepare.h).  1 when it readied a piece and more is
 * wanted, 0 when far enough ahead (or finished, full). */
int sbt_log_prepare(struct sbt_logfile *lf);

/* fn is called by sbt_log_chunk's caller when the readied space ahead
 * has run below half of what the preparer keeps (cheap: wake it). */
void sbt_log_on_low(struct sbt_logfile *lf, void (*fn)(void));

/* Bytes of chunks whose pages their taker had to fault in itself. */
uint64_t sbt_log_late(struct sbt_logfile *lf);

/* Mark the log finished: set SBT_HF_CLOSED, give back preallocated space.
 * Chunks already handed out stay writable. */
void sbt_log_finish(struct sbt_logfile *lf);

/* In a fork child: forget the parent's log without touching its file. */
void sbt_log_abandon(struct sbt_logfile *lf);

#endif
