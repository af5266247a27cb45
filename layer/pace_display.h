/* pace_display.h — display-aware pacing: where on the display's refresh grid each frame should land.
 *
 * Pure C, no Vulkan, no clock, like pace.h: the caller (present.c, with VK_EXT_present_timing
 * feedback from present_timing.c) passes times in and gets target times back. Time is int64
 * nanoseconds on CLOCK_MONOTONIC.
 *
 * The grid rule (README "Display-aware pacing"). Let r = cap interval / refresh duration on a
 * fixed-rate display:
 *  - r <= 1 + 0.5%: the cap is at, above or within 0.5% under the refresh rate, which FIFO cannot
 *    exceed anyway: n = 1, a new frame every refresh.
 *  - else n = round(r); when |r - n| <= 0.5% * n the cap is taken to mean refresh/n (60 on 120 Hz,
 *    59.94 on 119.88 Hz, 40 on 120 Hz): the refresh grid, each target exactly n refreshes after the
 *    previous one, so every frame is shown for the same number of refreshes. The cap can be
 *    exceeded by at most 0.5% this way; a user asking for 60 on a 119.88 Hz screen means "every
 *    other refresh".
 *  - otherwise (117 on 120 Hz, 50 on 144 Hz) the time grid of the plain limiter, each target moved
 *    up to the first refresh at or after its time-grid point, so frames land on refreshes rather
 *    than drifting against them (a frame ready between two refreshes waits in the queue: latency
 *    that varies from frame to frame). Targets are never earlier than the time grid, so the
 *    long-run rate is the cap; 117 on 120 Hz repeats one refresh in about 40. Nor is a target ever
 *    the previous frame's refresh (lowlat_time_grid_target), nor before the frame can be ready.
 *    A frame presented after its refresh (released late, or slow) is moved to the next one, and
 *    the frames after it then trail their grid points, a frame every refresh, until the cap's own
 *    repeat comes: its refresh is the one they are on, so they take it back. The late frame's
 *    repeat replaces a planned one. A stall of several refreshes (the machine's or the app's) is
 *    taken back the same way, a refresh at each of the cap's next repeats, so the display shows
 *    the cap's count of frames in the long run and a stall costs only the refreshes it held.
 *    Catching up never steps faster than the cap's own short step (lowlat_time_grid_target) and
 *    never queues: each frame has a refresh of its own and is released just in time for it. Only
 *    a grid more than an interval and LOWLAT_TIME_GRID_TRAIL_REFRESHES behind restarts
 *    (lowlat_pacer_next_predicted_deadline's slack). Restarting at an
 *    interval, as the CPU grid does, kept the repeat and added the cap's own later: 117 on 120 Hz,
 *    2 ms frames, tools/bench-display's game loop on the shared 2-core VM, 2026-12-03, 12
 *    interleaved pairs of runs of 3000 frames (two sets), repeats beyond the cap's own 0.55% and
 *    0.92% of refreshes against 0.71% and 1.60%, 46 restarts against 165, latency p50 the same
 *    (means 2.70 / 3.52 ms against 2.59 / 3.76).
 *    A frame presented in time but ready after its refresh (its GPU work ended late) goes out a
 *    refresh late, and the next frame, mostly planned for that same refresh, would replace it in
 *    FIFO_LATEST_READY: a frame drawn and never shown, its refresh repeated on top of the cap's
 *    own. When the display's incomplete report says so before the next frame is released, that
 *    frame moves a refresh on (present.c, cadence_follow_late), and the slack above takes it back
 *    at the cap's own repeat. Same game loop and VM, 4 interleaved pairs of runs of 3000 frames at
 *    117: repeats beyond the cap's own 0.10% against 0.61%, frames dropped 0 against 0.52%.
 * On a variable-rate display (refreshInterval = UINT64_MAX) the time grid with absolute targets.
 *
 * The release: the late wait lets the app start its next frame at (next target - lead), lead being
 * the predicted frame-start-to-ready time (a high percentile of measured ones) plus a margin; see
 * lowlat_display_lead_ns.
 */
#ifndef LOWLAT_PACE_DISPLAY_H
#define LOWLAT_PACE_DISPLAY_H

#include <stdbool.h>
#include <stdint.h>

/* How near refresh/n a cap must be to be paced on the refresh grid, in parts per million: 0.5%,
 * wide enough for 59.94 vs 60 (0.1%) and for a display that reports 119.96 Hz, narrow enough that
 * a deliberate 117-on-120 (2.5%) stays a time-grid cap. */
#define LOWLAT_REFRESH_GRID_TOLERANCE_PPM 5000

/* Frames whose frame-start-to-ready times the prediction looks at: about two seconds at 120 fps,
 * so a past spike leaves the window within seconds. */
#define LOWLAT_READY_WINDOW 256

/* The percentile of that window taken as the prediction: 99th, the 3rd-largest of 256, so one or
 * two outliers (a page fault, a preempted thread) do not move it, three do. A miss costs the cadence
 * of two frames (the late one and the one after it), so the prediction aims high: vkcube under
 * validation on a loaded 2-core VM (load 6-7) measured p50 1.8 ms, p98 4.0 ms, p99.5 6.4 ms, and
 * with a 98th percentile plus refresh/8 five frames in 600 missed their refresh by 0.9-2.3 ms. */
#define LOWLAT_READY_PERCENTILE 99

/* At a cap of the refresh rate (n = 1) the prediction is the 95th percentile instead: there a miss
 * costs one repeated refresh, and the margin learns from misses (LOWLAT_MARGIN_CALM_FRAMES), so
 * the window need only follow the app's own work and the margin the machine's stalls. With the
 * 99th, the third-largest of 256, three slow frames of a busy host within two seconds (4-6.8 ms
 * for 2 ms of work on the shared 2-core VM) held the lead at their time for the whole window, on
 * top of the margin those same frames had raised: one stall paid twice, in the latency's p99.
 * tools/bench-display's game loop, cap 120 on 120 Hz, 2 ms frames, 5000 frames a run, 6 pairs
 * interleaved, 2026-12-03: latency p50 / p99 (means of the runs), refreshes repeated (pooled), and
 * frames over 8 ms from start to first pixel
 *     99th   5.25 / 7.76 ms, 0.90%, 10.2%   (steal 1.0-10.1% a run)
 *     95th   3.95 / 4.93 ms, 0.57%,  0.3%   (steal 0.0-4.1% a run)
 * the 95th lower in p50 and p99 in all 6 pairs, in repeats in 5; the 99th's runs had more steal
 * in 5 pairs (equal in the sixth: 4.37 / 8.31 ms, 0.43% against 3.58 / 5.38 ms, 0.59%).
 * Replaying the logs of 55 runs at cap 120 (the frames' own start-to-ready times, under each
 * rule), the 95th cut the p99 of the leads in the 8 quiet ones by 0.4-2.5 ms for 0-0.04% more
 * misses; over all 55, most on a busy host, by 1.6 ms on average (8.97 to 7.41 ms), for 0.21% more
 * misses (0.51 to 0.72%): there the margin, which lags the misses, covers less than the 99th did.
 * At refresh/n (n >= 2) the 99th stays: a miss puts two frames off the cadence, and that rule was
 * measured with it. On the time grid and on VRR the margin does not learn, and the window is all
 * that covers the app's slower frames. */
#define LOWLAT_READY_PERCENTILE_REFRESH 95

/* Until this many frames were measured the prediction is at least one refresh: the first frames
 * after start-up are the slowest and least typical (shader compiles, page faults), and a 99th
 * percentile of a handful is their maximum by chance. 32 frames: half a second at 60 fps. */
#define LOWLAT_READY_MIN_SAMPLES 32

/* The margin added to the prediction. It covers what the percentile cannot see: the release's
 * own wake-up error (the window's samples start at the actual release), the few microseconds from
 * the release to the app's first instruction, and stalls of the whole machine. It counts in steps
 * of refresh/64 (130 us at 120 Hz, 29 us at 540 Hz) because a miss costs a refresh: it scales with
 * the refresh, not with milliseconds. */
#define LOWLAT_MARGIN_STEP_DIVISOR 64

/* Its floor, the margin of a machine whose frames make their refreshes, in steps:
 * - one step at a cap of the refresh rate and on the time grid (n <= 1). Measured with
 *   tools/bench-display's game loop (120 Hz, 2 ms frames, cap 120) on the shared 2-core VM,
 *   2026-12-01, 2 x 2500 frames a margin, interleaved: latency p50 / p99 and frames dropped
 *   (missed their refresh; each a repeat)
 *     130 us (1 step)      2.58 / 3.69 ms  0.55%
 *     1040 us (8 steps)    3.54 / 4.65 ms  0.17%
 *     half of p50..p99     2.84 / 5.41 ms  0.55%  (a margin widened with the window's spread)
 *   A fixed margin charges every frame for the few that stall; the rise below charges only while
 *   frames miss.
 * - eight steps (1.04 ms at 120 Hz) at a cap of refresh/n with n >= 2, where the player chose a
 *   divisor of the refresh for its even cadence. There a miss does not just repeat a refresh: the
 *   frame is shown for n + 1 refreshes and the next one for n - 1 (two frames off their cadence),
 *   while at cap = refresh the next frame simply replaces a late one (FIFO_LATEST_READY). vkcube
 *   at 60 fps on 120 Hz under validation (vdisplay-lowlat-60fps-120hz) had 3.0-5.0% of its frames
 *   off their 2 refreshes with one step on the idle VM, 1.7% (two runs) with eight. */
#define LOWLAT_MARGIN_FLOOR_STEPS         1
#define LOWLAT_MARGIN_FLOOR_STEPS_CADENCE 8

/* On the refresh grid of a fixed-rate display (n >= 1) the margin adapts to how often this
 * machine's frames miss the refresh they were planned for (presented after their target, shown
 * later with no queue ahead of them, or not shown at all). Each miss raises it by some steps; each
 * run of so many frames in a row that made their refresh lowers it by one; it never exceeds
 * LOWLAT_MARGIN_TOP_STEPS, half a refresh in all, where a frame still starts within its own
 * refresh. It settles where raising and lowering balance, and falls back to its floor on a machine
 * that has calmed down.
 * - At a cap of the refresh rate (n = 1) latency is the point, and a miss costs one repeated
 *   refresh: a step a miss, down a step per 256 frames in a row on time. A miss restarts that
 *   count, so with misses at random it settles where a run of 256 is as likely as a miss first,
 *   (1 - p)^256 = 1/2: one miss in 370 frames (0.27% of refreshes repeated, a stutter about every
 *   three seconds at 120 Hz). A miss costs 130 us for about 2 s at 120 Hz, so a game's rare hitch
 *   barely moves it.
 * - At refresh/n, n >= 2, the player chose an even cadence, and a miss puts two frames off it: 8
 *   steps a miss, down a step per 64 frames in a row. It settles where 8 (1 - (1 - p)^64) =
 *   (1 - p)^64: one miss in 540 frames (0.37% of frames off their n refreshes), and falls back
 *   from the top in 24 x 64 frames (26 s at 60 fps).
 * Why adapt: what makes a frame miss is rarely the app's own work, which the percentile covers,
 * but stalls of the whole machine: releases woken 1-3 ms late, GPU work held as long (lavapipe's
 * threads on the shared 2-core VM; no sample of the window sees a late wake-up). A fixed margin
 * charges every player the worst machine's latency; this one charges only where frames miss.
 * tools/bench-display, cap 120 on 120 Hz, 2 ms frames, the shared 2-core VM on 2026-12-02 (a busy
 * evening), 5000 frames a run, interleaved with a fixed margin of one step; latency p50 / p99,
 * repeats, pooled:
 *     fixed 1 step                      3.27 / 6.53 ms  0.96%   (3 runs)
 *     4 steps a miss, down per 64       5.49 / 8.19 ms  0.26%
 *     fixed 1 step                      3.47 / 7.30 ms  0.79%   (3 runs)
 *     1 step a miss, down per 256       5.00 / 7.86 ms  0.32%   (this rule)
 *     fixed 1 step                      2.88 / 6.38 ms  0.72%   (2 runs, LP_NUM_THREADS=0:
 *     1 step a miss, down per 256       4.26 / 7.60 ms  0.21%    fewer lavapipe threads to stall)
 * (Repeats here and in the floor's table as bench-display counted them until 2026-12-03, which
 * left out a refresh repeated because the next frame's present came after it (released late, or
 * slow): lowlat gives such a present the next refresh as its target. Counted from the display on
 * 2026-12-03: this rule 0.57-1.02% in five runs, the fixed step 1.61-2.98% in four.)
 * Replaying lowlat's logs of 7 such runs with other rules put them all on one curve, about
 * 0.2 ms of p50 for each 0.1% of refreshes repeated, the gentler rules a little lower on it. Such
 * a machine's misses have a long tail (stalls of 1-3 ms), so the margin meets the rate it aims
 * for only high; on a quiet one it stays at its floor. A stutter every other second is what a
 * player notices here, a millisecond and a half of latency hardly.
 * At n >= 2 on 2026-12-01 (60 fps on 120 Hz) the fixed eighth left 2.11% of frames off their 2
 * refreshes, this rule 1.08%. On a variable-rate display a late frame is shown when it is ready,
 * no repeat: the floor there.
 * On the time grid (117 on 120 Hz) the floor too. There the cadence is uneven by design (117 on
 * 120 Hz shows one frame in 40 for two refreshes), a miss adds one repeat to those, and the player
 * chose a cap just under the refresh rate for its latency. tools/bench-display, 117 on 120 Hz,
 * 2 ms frames, 2026-12-03 (a busy morning), 5000 frames a run, 3 interleaved runs pooled; repeats
 * beyond the cap's own one in 40, counted from the display:
 *     fixed 1 step                      2.70 / 5.41 ms  0.92%
 *     as at n = 1, at most 8 steps      4.02 / 8.15 ms  0.85%
 *     as at n = 1 (top 32 steps)        5.95 / 10.66 ms 1.10%
 * MangoHud late at the same cap, same morning: 6.77-7.40 ms, 0.15-0.54%. The adaptive
 * runs' frames were slower too (2.3-3.3% over 3 ms from start to ready, against 0.7%; at cap 120
 * the same way): whether a frame released earlier meets more of the other threads on that VM is
 * not known. */
#define LOWLAT_MARGIN_RAISE_STEPS         1
#define LOWLAT_MARGIN_CALM_FRAMES         256
#define LOWLAT_MARGIN_RAISE_STEPS_CADENCE 8
#define LOWLAT_MARGIN_CALM_FRAMES_CADENCE 64
#define LOWLAT_MARGIN_TOP_STEPS           32 /* refresh/2 */

struct lowlat_miss_margin {
	uint32_t steps;     /* above the floor */
	uint32_t calm;      /* frames on time since the last miss or step down */
	uint64_t misses;    /* for the swapchain's summary */
	uint32_t max_steps; /* the highest it went, in all (floor included) */
};

/* One frame paced on a fixed-rate display at a cap of refresh/n: whether it missed the refresh it
 * was planned for. n <= 1 takes the rule of n = 1. */
void lowlat_miss_note(struct lowlat_miss_margin *m, bool missed, int64_t n);

/* The margin, floor and steps above it, at a cap of refresh/n, at most LOWLAT_MARGIN_TOP_STEPS
 * steps. */
int64_t lowlat_miss_margin_ns(const struct lowlat_miss_margin *m, int64_t refresh_ns, int64_t n);

/* The highest margin it went to, for the summary. */
int64_t lowlat_miss_margin_max_ns(const struct lowlat_miss_margin *m, int64_t refresh_ns);

/* The n of the grid rule above: n >= 1 to pace on the refresh grid, 0 for the time grid. mfps is the
 * cap in millihertz (pace.h), refresh_ns the refresh duration (> 0). */
int64_t lowlat_refresh_multiple(uint32_t mfps, int64_t refresh_ns);

/* Refresh starts are vblank_ns + k * refresh_ns. The first at or after t_ns, and the nearest to t_ns. */
int64_t lowlat_refresh_at_or_after(int64_t t_ns, int64_t vblank_ns, int64_t refresh_ns);
int64_t lowlat_refresh_nearest(int64_t t_ns, int64_t vblank_ns, int64_t refresh_ns);

/* A time-grid target on a fixed-rate display: the first refresh at or after the grid's
 * deadline_ns, and at least the cap's short step after the refresh of the previous frame's target
 * prev_ns (INT64_MIN: none). The short step is floor(interval / refresh) refreshes, at least one:
 * the cap steps by it and by one refresh more (117 on 120 Hz: 1 and 2; 50 on 144 Hz: 2 and 3), so
 * a grid catching up after a stall only takes the shorter of its own steps more often, never a
 * burst at the refresh rate. FIFO shows one frame a refresh, so a frame planned for its
 * predecessor's refresh is late before it starts. The grid's deadline lands there when the
 * previous present came after its own target and was moved a refresh on: the frame after it,
 * planned for that refresh again, would start as its predecessor is shown (the latency cap) and be
 * moved in its turn, and so on, every frame late by plan. */
int64_t lowlat_time_grid_target(int64_t deadline_ns, int64_t prev_ns, int64_t vblank_ns, int64_t refresh_ns,
                                int64_t interval_ns);

/* How far the time grid of a fixed-rate display may trail its grid points, beyond an interval,
 * before it restarts: six refreshes (50 ms at 120 Hz, 25 ms at 240 Hz). The frames take them back
 * one at each of the cap's own repeats, so within six of those (2 s at 117 on 120 Hz, 0.3 s at
 * 100): a hitch never buys seconds of frames above the cap, and a longer one (a loading screen)
 * restarts the grid as the CPU grid does. With one refresh (the rule before), a stall of the
 * shared 2-core VM longer than an interval and a refresh restarted the grid, and the refreshes
 * it held were lost for good, each a repeat on top of the cap's own. On a variable-rate display
 * a late frame is shown when it is ready and there is no repeat to take back: no slack there. */
#define LOWLAT_TIME_GRID_TRAIL_REFRESHES 6

/* A sample beyond twice the window's 90th percentile plus half a refresh is a stall (a preempted
 * thread, page faults, a shader compiled on the spot), not the frame's usual work: covering it
 * would hold every other frame's release that much earlier, more than half a refresh of latency
 * each for as long as the stall stays in the window, to save the rare frame that stalls one repeat.
 * So the percentile is taken over the samples below that bound. vkcube and frame_cost on this
 * shared VM stalled 20-150 ms now and then; with three such samples the 99th percentile of 256 was
 * the stall itself, and lowlat released frames 46 ms (4.6 intervals) before their targets for the
 * next 2.5 s. The bound follows the workload: a game whose frames are heavy one time in ten or
 * more has them under its 90th percentile's reach, and a 2 ms +-30% frame at 120 Hz stalls beyond
 * 9.3 ms. */
#define LOWLAT_READY_STALL_FACTOR 2

/* Measured frame-start-to-ready durations: a ring, newest replacing oldest, and the same samples
 * kept sorted, so any percentile is one lookup. */
struct lowlat_ready_window {
	int64_t sample_ns[LOWLAT_READY_WINDOW];
	int64_t sorted_ns[LOWLAT_READY_WINDOW];
	uint32_t count, next;
};

void lowlat_ready_note(struct lowlat_ready_window *w, int64_t sample_ns);

/* The percentile the prediction takes at a cap of refresh/n (n = 0: off the refresh grid):
 * LOWLAT_READY_PERCENTILE_REFRESH at n = 1, LOWLAT_READY_PERCENTILE otherwise. */
uint32_t lowlat_ready_percentile(int64_t n);

/* The given percentile of the window's samples that are not stalls (see
 * LOWLAT_READY_STALL_FACTOR) on a display refreshing every refresh_ns; -1 when it is empty. */
int64_t lowlat_ready_predict(const struct lowlat_ready_window *w, int64_t refresh_ns, uint32_t percentile);

/* How long before a target the app is released: the prediction (that percentile) plus margin_ns;
 * the prediction is at least one refresh until LOWLAT_READY_MIN_SAMPLES were measured (a guess
 * that errs early: a frame ready early waits for its target). */
int64_t lowlat_display_lead_ns(const struct lowlat_ready_window *w, int64_t refresh_ns, int64_t margin_ns,
                               uint32_t percentile);

/* The margin's floor for a cap of refresh/n (n = 0: off the refresh grid): LOWLAT_MARGIN_FLOOR_STEPS
 * steps, or LOWLAT_MARGIN_FLOOR_STEPS_CADENCE for n >= 2. */
int64_t lowlat_display_margin_ns(int64_t refresh_ns, int64_t n);

/* Releases on the display grid for a wait point away from the present: the app's present wait on
 * another thread (present_wait.h), its latency sleep on the game thread (latency_sleep.h). Each
 * present plans two releases, a lead before its next target (plan_ns[0]) and before the one after
 * (plan_ns[1], a step later); each claim at the wait point lets one frame start and must give it
 * the release of that frame's own target.
 *
 * Which frame that is, is counted, not guessed from the time: claim s (from 1) releases the frame
 * presented as present s + offset (from 1), where offset is the number of frames that were going
 * without a claim when the claims began (the engine's start-up frames: DXGI's frame latency in
 * DXVK). The latest plan came from present p, so the claim's frame is k = s + offset - p - 1
 * presents after the next one: it takes plan_ns[0] + k steps. In steady state k = 1 (the previous
 * claim's frame has not been presented yet); a present that comes late makes it 2 for that claim,
 * where a rule that looked at the releases alone would give the same release twice and stay a
 * frame early. p is the plan's present, not the latest one counted: a present is counted on entry
 * and plans a while later (under load, ms), and a claim in between would otherwise get a release
 * a step early.
 *
 * The offset is learned from causality: a frame is presented only after its claim's wait ended,
 * so at present p, with e claims ended, p - e <= offset. The largest such bound is the offset as
 * soon as one frame was presented before the next claim ended, as the start-up frames are; it only
 * grows (an engine that presents each of its frames never lowers it) until the claims start
 * afresh. The same count pairs each present with its frame's start, the end of its claim's wait:
 * the ready time the lead predicts is measured from there. */

/* Claims' wait ends kept for their presents to find: more than the frames in flight. */
#define LOWLAT_CLAIM_STARTS 8
/* The most presents a claim's frame is placed after the next one (k above): a bound for an app
 * whose waits do not gate its frames, whose count would run away. */
#define LOWLAT_CLAIM_AHEAD_MAX 3

struct lowlat_claim_start {
	uint64_t ordinal;
	int64_t end_ns;
};

struct lowlat_display_claims {
	bool on; /* the latest present planned display releases */
	int64_t plan_ns[2];
	/* Claim ordinals count up for the wait point's life; those up to base were taken before the
	 * claims (re)started and count for nothing. ended: the highest whose wait ended. */
	uint64_t base, taken, ended;
	uint64_t presents; /* presents since the claims (re)started */
	uint64_t planned;  /* the one that made the latest plan */
	uint64_t offset;
	struct lowlat_claim_start starts[LOWLAT_CLAIM_STARTS];
};

/* A present's plan: its two releases, or after_ns = 0 when it planned none (the wait point's
 * releases are then the CPU grid's). Claims start afresh at the first plan after none. */
void lowlat_display_claims_plan(struct lowlat_display_claims *c, int64_t release_ns, int64_t after_ns);

/* Starts the counts afresh (the wait point went away and came back). */
void lowlat_display_claims_restart(struct lowlat_display_claims *c);

/* A present of the swapchain, on entry, while c->on: counts it and returns when its frame started
 * (the end of its claim's wait), 0 when no claim released it (or its end is gone). */
int64_t lowlat_display_claims_present(struct lowlat_display_claims *c);

/* A claim, while c->on: the release for the frame it lets start; *ordinal names it for
 * lowlat_display_claims_ended. */
int64_t lowlat_display_claims_take(struct lowlat_display_claims *c, uint64_t *ordinal);

/* The claim's wait ended at end_ns: its frame starts. */
void lowlat_display_claims_ended(struct lowlat_display_claims *c, uint64_t ordinal, int64_t end_ns);

#endif
