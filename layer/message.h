/* message.h — lowlat's one way of talking to the player: single `lowlat: ...` lines on stderr.
 *
 * Each line goes out in one write(2) so lines from concurrent threads never interleave. Nothing on
 * the present path prints except debug lines (LOWLAT_VERBOSE=2), and one-off warnings go through
 * LOWLAT_WARN_ONCE so a fault that repeats every frame is reported once, not 60 times a second.
 */
#ifndef LOWLAT_MESSAGE_H
#define LOWLAT_MESSAGE_H

#include <stdatomic.h>

/* 0: warnings only, 1: what the layer did (one line per swapchain), 2: debug. From LOWLAT_VERBOSE. */
int lowlat_verbosity(void);

void lowlat_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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

#endif
