/* message.h — lowlat's one way of talking to the player: single `lowlat: ...` lines on stderr.
 *
 * Each line goes out in one write(2) so lines from concurrent threads never interleave. Levels
 * (LOWLAT_VERBOSE): 0, the default, says only what the player must know: problems (a bad setting,
 * a fault lowlat passed through), and one line per capped swapchain (its cap and pacing); 1 adds
 * what the layer did (files read, pacing levels, wait points, summaries); 2 adds debug lines, the
 * only ones on the present path. A process that never creates a swapchain (vulkaninfo, a launcher)
 * hears nothing at 0: what it would say before then is held (lowlat_msg_held) and said at the first
 * swapchain. A line that can come again and again is rate-limited (LOWLAT_INFO_LIMITED), or said
 * once (LOWLAT_WARN_ONCE).
 */
#ifndef LOWLAT_MESSAGE_H
#define LOWLAT_MESSAGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* 0: warnings only, 1: what the layer did (one line per swapchain), 2: debug. From LOWLAT_VERBOSE. */
int lowlat_verbosity(void);

void lowlat_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A problem found before the process has a swapchain (a bad config file at the first instance):
 * said at once at LOWLAT_VERBOSE=1 or after lowlat_msg_release, else kept until then, so that a
 * process that never presents says nothing. At most LOWLAT_MSG_HELD lines are kept; the rest are
 * counted in one more line. */
void lowlat_msg_held(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define LOWLAT_MSG_HELD 8

/* The process created a swapchain: the held lines are said, and later ones go out at once. */
void lowlat_msg_release(void);

/* A call site's rate limit: its first LOWLAT_RATE_BURST lines go out, then one every
 * LOWLAT_RATE_PERIOD_NS, which says how many were left out since the one before. */
struct lowlat_rate_limit {
	_Atomic int64_t next_ns;
	_Atomic uint32_t said;
	_Atomic uint64_t skipped;
};
#define LOWLAT_RATE_BURST     4
#define LOWLAT_RATE_PERIOD_NS 10000000000ll /* 10 s */

/* Whether a line may go out now; *skipped: the lines left out before it. */
bool lowlat_rate_pass(struct lowlat_rate_limit *rl, uint64_t *skipped);

/* lowlat_msg with "(N more like it not shown)" appended when skipped > 0. */
void lowlat_msg_skipped(uint64_t skipped, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define LOWLAT_INFO(...)                                                                                     \
	do {                                                                                                 \
		if (lowlat_verbosity() >= 1)                                                                 \
			lowlat_msg(__VA_ARGS__);                                                             \
	} while (0)

#define LOWLAT_DEBUG(...)                                                                                    \
	do {                                                                                                 \
		if (lowlat_verbosity() >= 2)                                                                 \
			lowlat_msg(__VA_ARGS__);                                                             \
	} while (0)

#define LOWLAT_WARN_ONCE(...)                                                                                \
	do {                                                                                                 \
		static atomic_flag lowlat_once_ = ATOMIC_FLAG_INIT;                                          \
		if (!atomic_flag_test_and_set(&lowlat_once_))                                                \
			lowlat_msg(__VA_ARGS__);                                                             \
	} while (0)

/* LOWLAT_INFO for a line that can repeat without end (a game that keeps switching its wait point),
 * rate-limited per call site. */
#define LOWLAT_INFO_LIMITED(...)                                                                             \
	do {                                                                                                 \
		static struct lowlat_rate_limit lowlat_rate_;                                                \
		uint64_t lowlat_skipped_;                                                                    \
		if (lowlat_verbosity() >= 1 && lowlat_rate_pass(&lowlat_rate_, &lowlat_skipped_))            \
			lowlat_msg_skipped(lowlat_skipped_, __VA_ARGS__);                                    \
	} while (0)

/* The same at the default level. */
#define LOWLAT_WARN_LIMITED(...)                                                                             \
	do {                                                                                                 \
		static struct lowlat_rate_limit lowlat_rate_;                                                \
		uint64_t lowlat_skipped_;                                                                    \
		if (lowlat_rate_pass(&lowlat_rate_, &lowlat_skipped_))                                       \
			lowlat_msg_skipped(lowlat_skipped_, __VA_ARGS__);                                    \
	} while (0)

#endif
