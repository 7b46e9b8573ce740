/*
 * markers.c - the entry points behind markers/sbtmark.h.
 *
 * Each one is a tail call into the recorder with the app's call site
 * (our caller's return address: the marker's place in the app).
 * Being the app's own API, they report misuse through return codes only.
 */
#include "hot.h"

#define SITE __builtin_return_address(0)

SBT_API int sbt_marker_init(void)        { return sbt_rec_init(); }
SBT_API int sbt_marker_thread_init(void) { return sbt_rec_thread_init(); }
SBT_API int sbt_marker_close(void)       { return sbt_rec_close(); }

SBT_API int sbt_marker_start(const char *tag)
{
	return sbt_hot_start(tag, SBT_API_SBTMARK, SITE);
}

SBT_API int sbt_marker_stop(const char *tag)
{
	return sbt_hot_stop(tag, SBT_API_SBTMARK, SITE);
}

/* The general path of the inline markers (sbtmark.h), told the version
 * of the header they were built against. */
SBT_API int sbt_marker_start_hot(const char *tag, struct sbt_csite *cs,
				 struct sbt_hot **hot, unsigned abi)
{
	return sbt_rec_start_at(tag, cs, hot, abi, SITE);
}

/* The same for binaries built against a header older than SBT_HOT_ABI 2. */
SBT_API int sbt_marker_start_at(const char *tag, struct sbt_csite *cs,
				struct sbt_hot **hot)
{
	return sbt_rec_start_at(tag, cs, hot, 1, SITE);
}

SBT_API int sbt_marker_stop_at(const char *tag, uint64_t t1, uint32_t aux)
{
	return sbt_rec_stop_at(tag, t1, aux, SITE);
}

SBT_API int sbt_marker_register(const char *tag)
{
	return sbt_rec_intern(tag, (size_t)-1, SBT_API_SBTMARK, SITE) ?
	       SBT_OK : SBT_EMISUSE;
}

SBT_API int sbt_marker_reset(const char *tag)
{
	sbt_id id = sbt_rec_intern(tag, (size_t)-1, SBT_API_SBTMARK, SITE);

	return id ? sbt_rec_reset_id(id) : SBT_EMISUSE;
}

/* For sbt-calibrate: the calling thread's last sample, in wall ticks and
 * cycles (0 without a cycle clock).  Not part of the marker API. */
SBT_API int sbt_marker_last(uint64_t *ticks, uint64_t *cycles)
{
	return sbt_rec_last(ticks, cycles);
}

/* Where this process's log is, or NULL before the first marker. */
SBT_API const char *sbt_marker_log_path(void)
{
	return sbt_rec_log_path();
}
