/* lowlat_log.h — the present log's format: one CSV file per swapchain session, one row per present.
 *
 * This header is the format's definition; the layer writes it (layer/log/log.c), tools/lowlat-stats and
 * tools/lowlat-plot read it, and README.md describes it for players.
 *
 * File: UTF-8 text, '\n' line ends. Lines starting with '#' are comments: the first line documents
 * the columns; `# dropped N records` lines appear when the layer's writer fell behind and had to
 * drop records (N is the running total); the last line, `# closed: R records written, N dropped`,
 * is there when the log was closed cleanly. The first line that is not a comment is the CSV header
 * row with the column names below, in this order; every further non-comment line is one present.
 *
 * Values: decimal integers. Times (`*_ns` columns other than durations) are nanoseconds on
 * CLOCK_MONOTONIC, comparable across the logs of one boot; durations are nanoseconds. An empty
 * field means unknown (the driver did not report it, or the path that measures it is not in use).
 * `present_mode` and `fallback` are written as names (below) rather than numbers.
 *
 * Columns are only ever appended in later versions (the header row says which exist), so a reader
 * looks them up by name.
 */
#ifndef LOWLAT_LOG_FORMAT_H
#define LOWLAT_LOG_FORMAT_H

#include <stdint.h>

/* The one-line version tag at the start of the first comment line. */
#define LOWLAT_LOG_MAGIC "lowlat present log v1"

/* "Unknown" in a record; written as an empty field. INT64_MIN: no real time or duration is that. */
#define LOWLAT_LOG_UNKNOWN INT64_MIN

/* X(name, description): every column in file order. The struct below and the file's header lines
 * are both generated from this list, so they cannot disagree. */
#define LOWLAT_LOG_COLUMNS(X)                                                                                \
	X(frame, "index of this present in the session, from 0")                                             \
	X(present_id, "VkPresentIdKHR/present id of this present; empty if none")                            \
	X(frame_start_ns, "CPU time the app began this frame (the previous present returned to it)")         \
	X(present_ns, "CPU time the app called vkQueuePresentKHR")                                           \
	X(wait_begin_ns, "CPU time lowlat's pacing wait began")                                              \
	X(wait_end_ns, "CPU time lowlat's pacing wait ended (= wait_begin_ns when no wait was needed)")      \
	X(driver_ns, "CPU time the present returned from the driver (handed over)")                          \
	X(target_ns, "pacing target: requested display time (present_timing) or the wait's deadline")        \
	X(predicted_ready_ns, "predicted render-to-ready duration (ns) the target allowed for")              \
	X(queue_done_ns,                                                                                     \
	  "GPU work done: display-reported (present_timing), or drm: ready fence seen by then")              \
	X(latched_ns, "display-reported: present request dequeued/latched (present_timing)")                 \
	X(pixel_out_ns, "display-reported: first pixel out (present_timing)")                                \
	X(pixel_visible_ns, "display-reported: first pixel visible (present_timing)")                        \
	X(present_wait_ns, "CPU time vkWaitForPresentKHR reported this present complete")                    \
	X(present_mode, "swapchain present mode: IMMEDIATE, MAILBOX, FIFO, FIFO_RELAXED, FIFO_LATEST_READY") \
	X(refresh_ns, "display refresh duration (ns)")                                                       \
	X(fallback, "pacing path in use: timing, wait, drm, cpu, off (see enum lowlat_log_fallback)")

/* One present, all int64 so a record is a fixed 136 bytes that copies without formatting; unknown
 * fields hold LOWLAT_LOG_UNKNOWN. present_mode holds a VkPresentModeKHR value and fallback an enum
 * lowlat_log_fallback value; the writer turns both into names. */
struct lowlat_log_record {
#define LOWLAT_LOG_FIELD_(name, description) int64_t name;
	LOWLAT_LOG_COLUMNS(LOWLAT_LOG_FIELD_)
#undef LOWLAT_LOG_FIELD_
};

/* Which pacing path produced the frame's target, best first; each step down is a fallback lowlat
 * took because the driver lacks what the step above needs. */
enum lowlat_log_fallback {
	LOWLAT_LOG_FALLBACK_TIMING = 0, /* "timing": VK_EXT_present_timing, targets are display times */
	LOWLAT_LOG_FALLBACK_WAIT = 1,   /* "wait": CPU pacing corrected by present-wait completions */
	LOWLAT_LOG_FALLBACK_CPU = 2,    /* "cpu": CPU pacing on the clock alone */
	LOWLAT_LOG_FALLBACK_OFF = 3,    /* "off": no cap, presents pass through (logged, not paced) */
	/* "drm": releases on the refresh grid of the screen's CRTC (refresh.h), no display targets;
	 * between "wait" and "cpu" in the order, numbered last as it came last. */
	LOWLAT_LOG_FALLBACK_DRM = 4,
};

#endif
