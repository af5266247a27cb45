/* live.h — what `lowlat status` shows of each swapchain while the game runs: its cap, pacing level,
 * frame rate and, where the level measures it, latency. The presenting thread publishes them in
 * atomics; the control socket's thread reads them for its `stats` command. They live in a fixed
 * table of slots, not in the swapchain, so that reader never follows a pointer into a swapchain
 * being destroyed. Pure (no Vulkan): tests/unit/test_fps_refresh.c.
 */
#ifndef LOWLAT_LIVE_H
#define LOWLAT_LIVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lowlat_config.h"

/* Swapchains shown; a game with more (rare: one per window) shows its first 16. */
#define LOWLAT_LIVE_SLOTS 16
/* Latency samples kept per swapchain: the last 128 frames, about 2 s at 60 fps. */
#define LOWLAT_LIVE_LATENCIES 128
/* A frame's latency, whole and in parts (lowlat-stats' "latency parts"): frame start to shown, and
 * game (start to present call), GPU (present call to its work done), display (work done to shown). */
enum lowlat_live_part {
	LOWLAT_LIVE_TOTAL,
	LOWLAT_LIVE_GAME,
	LOWLAT_LIVE_GPU,
	LOWLAT_LIVE_DISPLAY,
	LOWLAT_LIVE_PARTS
};
/* The frame rate is counted over windows of half a second: live enough for a key press to show
 * within a second, long enough to hold ~30 frames at 60 fps. */
#define LOWLAT_LIVE_WINDOW_NS 500000000ll /* 0.5 s */
/* A swapchain that has not presented for this long shows 0 fps (minimised, or replaced). */
#define LOWLAT_LIVE_IDLE_NS 1000000000ll /* 1 s */

struct lowlat_live {
	atomic_bool used;
	_Atomic uint32_t width, height;
	_Atomic uint32_t mfps;               /* the cap in force, millihertz; 0 = none */
	_Atomic int fps_base;                /* the config's cap as given (enum lowlat_fps_base) ... */
	_Atomic uint32_t fps_milli, n_milli; /* ... and its numbers, in thousandths */
	_Atomic(const char *) level;         /* the pacing level's name, a constant string */
	_Atomic uint32_t window_mhz;         /* presents a second over the latest full window, millihertz */
	_Atomic int64_t last_present_ns;     /* CLOCK_MONOTONIC, 0 before the first */
	_Atomic uint64_t presents;
	_Atomic int64_t latency_ns[LOWLAT_LIVE_PARTS][LOWLAT_LIVE_LATENCIES]; /* < 0: that part unknown */
	_Atomic(const char *) display_until; /* where the display part ends: "out", "visible", "dequeued" */
	_Atomic uint32_t latency_count;      /* samples written so far, up to LOWLAT_LIVE_LATENCIES */
	_Atomic uint32_t latency_next;
	/* The presenting thread's own: the window being counted. */
	int64_t window_start_ns;
	uint64_t window_presents;
};

/* A free slot for a new swapchain, NULL when all are taken (it is then not shown). */
struct lowlat_live *lowlat_live_claim(uint32_t width, uint32_t height);
void lowlat_live_release(struct lowlat_live *live);

/* The cap in force (mfps), the config's cap it came from, and the level. live may be NULL. */
void lowlat_live_cap(struct lowlat_live *live, uint32_t mfps, const struct lowlat_config *cfg,
                     const char *level);
/* A present at t_ns (CLOCK_MONOTONIC). */
void lowlat_live_present(struct lowlat_live *live, int64_t t_ns);
/* A frame's latency: from its start to when it was shown, as the level reports it, and its parts
 * (LOWLAT_LIVE_GAME..DISPLAY; < 0 where unknown); display_until names where the display part ends
 * ("out": first pixel out, "visible", "dequeued": taken by the compositor), a constant string. */
void lowlat_live_latency(struct lowlat_live *live, const int64_t parts_ns[LOWLAT_LIVE_PARTS],
                         const char *display_until);

/* The `stats` reply, one line: "ok stats now_ns=N last_present_ns=N" and for each swapchain
 * "; WxH cap=60 spec=refresh/2 level=timing fps=59.98 p50_ms=3.40 p99_ms=5.21 game_ms=0.8/1.1
 * gpu_ms=0.4/0.9 display_ms=2.2/3.5 until=out presents=N" (cap 0: none; "-" where nothing
 * measures that latency, each part as p50/p99). now_ns: CLOCK_MONOTONIC. */
void lowlat_live_describe(char *dst, size_t size, int64_t now_ns);

#endif
