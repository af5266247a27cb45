/* pace_display.h — display-aware pacing: where on the display's refresh grid each frame should
 * land, and how long before its target the app is released. Pure C, no Vulkan, no clock; time is
 * int64 ns on CLOCK_MONOTONIC. Let r = cap interval / refresh duration on a fixed-rate display:
 *  - r <= 1 + 0.5%: a new frame every refresh (n = 1);
 *  - r within 0.5% of an integer n: the refresh grid, each target n refreshes after the last
 *    (60 on 120 Hz, 59.94 on 119.88 Hz), so every frame is shown equally long;
 *  - otherwise (117 on 120 Hz) the time grid, each point moved up to the next refresh, never the
 *    previous frame's refresh; a late frame or a stall is taken back at the cap's own repeats
 *    (LOWLAT_TIME_GRID_TRAIL_REFRESHES) rather than restarting the grid.
 * On a variable-rate display, the time grid itself. The release is the next target less the lead:
 * a high percentile of measured frame-start-to-ready times plus a margin that learns from misses.
 * docs/design.md has the rule, docs/rationale.md the measurements behind each constant.
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

/* The prediction: the 99th percentile of the window (its 3rd-largest), so one or two outliers do
 * not move it; a miss at refresh/n costs two frames their cadence, so it aims high. */
#define LOWLAT_READY_PERCENTILE 99

/* At a cap of the refresh rate (n = 1) and off the refresh grid (n = 0: the time grid and VRR) the
 * 95th instead: there a miss costs at most one refresh, and on a fixed-rate display the margin
 * learns from misses, so the window need only follow the app's own work; with the 99th a few slow
 * frames of a busy host were paid twice, by the window and by the margin. */
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

/* The margin's floor, in steps: one at a cap of the refresh rate, on the time grid and on VRR (a
 * fixed margin charges every frame for the few that stall), eight at refresh/n with n >= 2, where a
 * miss puts two frames off the even cadence the player chose. */
#define LOWLAT_MARGIN_FLOOR_STEPS         1
#define LOWLAT_MARGIN_FLOOR_STEPS_CADENCE 8

/* On a fixed-rate display the margin follows misses: each miss raises it by some steps, each run of
 * so many frames in a row on time lowers it by one, up to half a refresh. At n = 1, a step a miss
 * and down per 256 on time (it settles near one miss in 370 frames); on the time grid (n = 0) the
 * same, but down sooner where the cap leaves refreshes empty (below); at n >= 2, 8 steps a miss and
 * down per 64 (near one in 540). Misses come mostly from stalls of the
 * whole machine, which no window sees: a fixed margin would charge every player the worst
 * machine's latency. On VRR the floor: a late frame flips late and repeats nothing. */
#define LOWLAT_MARGIN_RAISE_STEPS         1
#define LOWLAT_MARGIN_CALM_FRAMES         256
#define LOWLAT_MARGIN_RAISE_STEPS_CADENCE 8
#define LOWLAT_MARGIN_CALM_FRAMES_CADENCE 64
#define LOWLAT_MARGIN_TOP_STEPS           32 /* refresh/2 */
/* On the time grid of a fixed-rate display (a cap below the refresh rate, n = 0) the cap leaves a
 * refresh with no new frame every refresh/(refresh - cap) frames (40 at 117 on 120 Hz). A late frame
 * takes such a refresh: the frames after it move on a refresh until the next one the cap leaves
 * empty (timing.c), so a miss costs the late frame a refresh of latency and the cadence nothing the
 * cap does not already do. There the margin steps down after that many frames on time (it settles
 * near one miss in 1.4 times as many, fewer misses than empty refreshes), but after no fewer than
 * this many. */
#define LOWLAT_MARGIN_CALM_FRAMES_MIN 16
/* At n = 1 in plain FIFO (no FIFO_LATEST_READY: every Mesa WSI) a miss costs more: the late frame
 * takes the next frame's refresh, which then waits for it and goes a refresh later too, where the
 * latest-ready mode shows the next frame in the late one's place. So a miss there raises twice. */
#define LOWLAT_MARGIN_RAISE_STEPS_FIFO 2

struct lowlat_miss_margin {
	uint32_t steps;     /* above the floor */
	uint32_t calm;      /* frames on time since the last miss or step down */
	uint64_t misses;    /* for the swapchain's summary */
	uint32_t max_steps; /* the highest it went, in all (floor included) */
};

/* One frame paced on a fixed-rate display at a cap of refresh/n: whether it missed the refresh it
 * was planned for. n <= 1 takes the rule of n = 1; fifo: presented in plain FIFO; empty_every: at
 * n = 0, the frames per refresh the cap leaves empty (lowlat_empty_every(); 0: none). */
void lowlat_miss_note(struct lowlat_miss_margin *m, bool missed, int64_t n, bool fifo, int64_t empty_every);

/* Every how many frames a cap of mfps (pace.h) leaves a refresh of refresh_ns with no new frame:
 * refresh rate / (refresh rate - cap), rounded; 0 for no cap, or one within
 * LOWLAT_REFRESH_GRID_TOLERANCE_PPM of the refresh rate or above it. */
int64_t lowlat_empty_every(uint32_t mfps, int64_t refresh_ns);

/* The margin, floor and steps above it, at a cap of refresh/n, at most LOWLAT_MARGIN_TOP_STEPS
 * steps. */
int64_t lowlat_miss_margin_ns(const struct lowlat_miss_margin *m, int64_t refresh_ns, int64_t n);

/* The highest margin it went to, for the summary. */
int64_t lowlat_miss_margin_max_ns(const struct lowlat_miss_margin *m, int64_t refresh_ns);

/* The n of the grid rule above: n >= 1 to pace on the refresh grid, 0 for the time grid. mfps is the
 * cap in millihertz (pace.h), refresh_ns the refresh duration (> 0). */
int64_t lowlat_refresh_multiple(uint32_t mfps, int64_t refresh_ns);

/* A time-grid target on a fixed-rate display: the first refresh at or after deadline_ns, and at
 * least the cap's short step (floor(interval / refresh) refreshes, at least one) after the refresh
 * of the previous target prev_ns (INT64_MIN: none). A grid catching up after a stall so takes its
 * own shorter step more often, never a burst at the refresh rate, and never plans a frame for its
 * predecessor's refresh, where it would be late before it starts. */
int64_t lowlat_time_grid_target(int64_t deadline_ns, int64_t prev_ns, int64_t vblank_ns, int64_t refresh_ns,
                                int64_t interval_ns);

/* How far the time grid of a fixed-rate display may trail its points, beyond an interval, before it
 * restarts: six refreshes. The frames take them back one at each of the cap's own repeats, so a
 * hitch never buys seconds of frames above the cap, and a loading screen restarts the grid. */
#define LOWLAT_TIME_GRID_TRAIL_REFRESHES 6

/* A sample beyond twice the window's 90th percentile plus half a refresh is a stall (a preempted
 * thread, a shader compiled on the spot), not the frame's usual work: the percentile leaves it out,
 * or one stall would hold every frame's release that much earlier while it stays in the window. */
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
 * LOWLAT_READY_PERCENTILE_REFRESH at n <= 1, LOWLAT_READY_PERCENTILE at n >= 2. */
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
