/* timing.h — the brain of the "timing" pacing level (VK_EXT_present_timing): from what the display
 * reports about each present, the target display time of the next one and when to release the app
 * for it. Pure C: no Vulkan, no clock, no sleeping. The caller (layer/level/level_timing.c in the layer,
 * tools/lowlat-sim in the simulator) passes every time in, in nanoseconds on CLOCK_MONOTONIC, and
 * LOWLAT_LOG_UNKNOWN where a time is not known. Its state is its own: nothing outside reads or
 * writes a field it does not own (the facts block, or the counters for the summary).
 *
 * A present goes through it in this order (late method; the early one plans before it hands down):
 *   lowlat_tb_report / lowlat_tb_partial   what the display said since (each report once);
 *   lowlat_tb_target                        this present's target, planned at the one before;
 *   lowlat_tb_ask                           the earliest display time the driver is asked for;
 *   lowlat_tb_presented                     it went down: its record for its report to come;
 *   lowlat_tb_release                       the next target, and when to release the app for it;
 *   lowlat_tb_follow_late                   after the wait: the next target moved on after a late
 *                                           frame, and the release with it;
 *   lowlat_tb_superseded, lowlat_tb_held    what the latency-frames cap needs to know.
 */
#ifndef LOWLAT_BRAIN_TIMING_H
#define LOWLAT_BRAIN_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "lowlat_log.h"
#include "pace.h"
#include "pace_display.h"

/* How long before the refresh meant for it a FIFO_RELAXED frame may be shown on a driver that
 * shows such frames at their target times. The target is a "not before" time (the spec: the image
 * should not be visible before it), and a FIFO_RELAXED frame with no new image shown since the
 * refresh before it (every frame of a cap below the refresh rate) does not wait for a refresh: a
 * driver may show it as soon as it is ready and its target has come, torn wherever the scan-out
 * is. Half a refresh of room puts that tear mid-screen; this puts it at the last lines or in the
 * blanking. It covers the error of lowlat's grid and clocks (microseconds), and it is longer than
 * LOWLAT_TEAR_SLACK_NS, so a frame that waited for its refresh is told from one that tore at its
 * target. Only there: a driver that sleeps until the target and then waits for the next refresh
 * (Arm's WSI layer) would miss the refresh whenever it woke later than this, so every swapchain
 * starts with half a refresh and moves once its driver has shown a frame at its target. */
#define LOWLAT_RELAXED_LEAD_NS 200000ll /* 200 us */

/* How much later than its ready time a FIFO_RELAXED image must go out to count as having waited
 * for a refresh: a torn present goes out as soon as it is ready (the virtual display: at exactly
 * that time; real hardware: within the scan-out's own latency, tens of us). */
#define LOWLAT_TEAR_SLACK_NS 100000ll /* 100 us */

/* Reports in a row that contradict what the brain knows before they are not trusted: a few, so
 * that a single glitch (a report lost to a mode change) costs nothing. */
#define LOWLAT_BAD_REPORTS_MAX 8

/* A first pixel reported this long before its present was made, or before the one of the present
 * before it, contradicts itself: more than calibration error or scheduling can explain. */
#define LOWLAT_REPORT_SLACK_NS 1000000ll /* 1 ms */

/* The latency-frames cap (layer/level/level_timing.c, and tools/lowlat-sim's copy of it) waits for
 * the display to report a frame shown at most this many refreshes after its target (or after now,
 * when later): a frame on time is reported within one; four let a frame that missed its refresh be
 * shown up to three later before lowlat stops waiting (the display or driver is then stalled, and
 * the app must not be). */
#define LOWLAT_LATENCY_TIMEOUT_REFRESHES 4

/* How often it looks for the display's report (layer/present/timing_reports.c): a 32nd of a
 * refresh (0.26 ms at 120 Hz, 58 us at 540 Hz), so the release comes at most that late after the
 * first pixel, and the waiting thread wakes at most 32 times a refresh. Never below 50 us: a
 * sleep's own wake-up error (~100 us at p50 on the test VMs) makes a shorter poll only burn CPU. */
#define LOWLAT_SHOWN_POLL_FRACTION 32
#define LOWLAT_SHOWN_POLL_MIN_NS   50000ll /* 50 us */

/* What a swapchain's presents may carry: absolute target times, times relative to the previous
 * present's first pixel, or none (the level then paces on the display's reports alone). */
enum lowlat_target_kind {
	LOWLAT_TARGETS_NONE,
	LOWLAT_TARGETS_RELATIVE,
	LOWLAT_TARGETS_ABSOLUTE,
};

/* The present modes the brain tells apart: those that may carry targets. */
enum lowlat_tb_mode {
	LOWLAT_TB_FIFO,
	LOWLAT_TB_FIFO_RELAXED,
	LOWLAT_TB_FIFO_LATEST_READY,
	LOWLAT_TB_OTHER, /* no targets: MAILBOX, IMMEDIATE */
};

/* One present as it went down, handed back with its report. */
struct lowlat_tb_frame {
	uint64_t seq;       /* its place among the presents with reports, from 1 */
	int64_t start_ns;   /* where its ready-time sample starts: the frame's start, or the early
	                     * method's hand-off; LOWLAT_LOG_UNKNOWN: no sample */
	int64_t blocked_ns; /* of the time since, what the app spent blocked acquiring an image */
	int64_t present_ns; /* when it was presented */
	int64_t target_ns;  /* the display time it asked for */
	int64_t ask_ns;     /* the earliest time it let the driver show it (LOWLAT_LOG_UNKNOWN: any) */
	bool judged;        /* its target is a fixed-rate refresh it was presented in time for */
	bool vblank_latch;  /* FIFO, FIFO_LATEST_READY: its first pixel out is a refresh start */
	bool relaxed;       /* FIFO_RELAXED: a refresh start too, unless it was late and tore */
	bool fifo;          /* plain FIFO: a late one holds up the frames queued after it */
};

/* What a report told the caller, beyond the brain's own state (lowlat_tb_report). */
enum lowlat_tb_news {
	LOWLAT_TB_CONTRADICTS = 1u << 0,       /* the report contradicts itself and was not used */
	LOWLAT_TB_UNTRUSTED = 1u << 1,         /* LOWLAT_BAD_REPORTS_MAX of those in a row */
	LOWLAT_TB_NO_TARGETS = 1u << 2,        /* the driver shows frames before their targets: none set
	                                        * from now on (targets is LOWLAT_TARGETS_NONE) */
	LOWLAT_TB_RELAXED_AT_TARGET = 1u << 3, /* FIFO_RELAXED frames go out at their targets, torn */
	LOWLAT_TB_PHASE_UNSEEN = 1u << 4,      /* a targeted FIFO_RELAXED frame tore while the grid's
	                                        * phase is a guess: frames may tear at one place */
	LOWLAT_TB_PHASE_SEEN = 1u << 5,        /* after PHASE_UNSEEN, a frame showed where one starts */
};

struct lowlat_timing_brain {
	/* Facts about the display, set by the caller: the target kind its presents take
	 * (lowlat_tb_init; a report may drop it to NONE) and its refresh (lowlat_tb_refresh). */
	enum lowlat_target_kind targets;
	bool refresh_known, vrr;
	int64_t refresh_ns;
	/* A known refresh start (the latest first pixel out of a FIFO latch): the grid's phase;
	 * guessed from a FIFO_RELAXED frame that may have torn. */
	bool have_vblank, vblank_guessed;
	int64_t vblank_ns;
	/* The driver showed a FIFO_RELAXED frame at its target, mid-refresh: such frames ask for less
	 * room before their refresh from then on (lowlat_tb_ask). */
	bool relaxed_at_target;
	bool phase_told;   /* LOWLAT_TB_PHASE_UNSEEN told (once a swapchain) */
	bool phase_unseen; /* ... and PHASE_SEEN not yet */
	/* Reports in a row that contradicted themselves, and frames shown before their targets. */
	uint32_t bad_reports, early_shows;

	/* The next present's target, planned at the previous present, and the release lead it
	 * allowed for; the release for the target after it (a wait point away from the present). */
	bool have_target;
	int64_t target_ns, lead_ns, after_release_ns;
	bool target_judged;         /* that target is a refresh of a fixed-rate display */
	bool target_held;           /* the latency cap held its release past the planned one */
	int64_t target_n;           /* the cap's refresh multiple it was planned at (0: the time grid) */
	int64_t target_empty_every; /* ... and how often that cap leaves a refresh empty (pace_display.h) */
	bool judge_miss;            /* this present's target is judged for the margin (lowlat_tb_target) */
	/* The next present's target as planned (lowlat_tb_release), before a late frame moved it on;
	 * this present's point on that grid (lowlat_tb_target; LOWLAT_LOG_UNKNOWN: none), what an app's
	 * own target is weighed against (lowlat_tb_app_target), and whether its target was moved on. */
	int64_t planned_ns, grid_ns;
	bool frame_moved;
	int64_t frame_lead_ns; /* the lead the current present's release allowed for */
	/* The latest present's target (LOWLAT_LOG_UNKNOWN after a present without one): the early
	 * method plans from it, relative targets count from it. */
	int64_t prev_target_ns;
	uint64_t seq; /* presents with reports so far: the seq of the latest */
	/* First pixel out of the latest present reported shown (0 before one), and its seq. */
	int64_t prev_out_ns;
	uint64_t prev_out_seq;

	/* The release lead: the ready-time prediction plus a margin that follows misses. margin_ns
	 * >= 0 fixes the margin (a bench knob), -1 lets it scale with the refresh (pace_display.h). */
	struct lowlat_ready_window ready;
	struct lowlat_miss_margin miss_margin;
	int64_t margin_ns;

	/* A queue behind V-Sync: frames ready in time for their targets went out backlog_refreshes
	 * refreshes late, so as many frames wait ahead of each new one. Presents up to drain_seq were
	 * made before the last drain and still report the old queue. */
	int64_t backlog_refreshes;
	uint64_t drain_seq, drains;
	/* The latest present that missed its refresh on a fixed-rate display (0: none yet), and its
	 * first pixel out, or the refresh it can make: the next target moves on with it. */
	uint64_t late_seq;
	int64_t late_out_ns;
	uint64_t cadence_moves; /* for the summary */
};

/* A fresh brain for presents that carry targets of this kind; margin_ns as above. */
void lowlat_tb_init(struct lowlat_timing_brain *b, enum lowlat_target_kind targets, int64_t margin_ns);

/* The display's refresh as it reports it now (vrr: refresh_ns is the shortest). A new rate drops
 * the grid's phase and the planned target; an estimate that moved by a hair keeps both. */
void lowlat_tb_refresh(struct lowlat_timing_brain *b, int64_t refresh_ns, bool vrr);

/* Whether the brain can plan targets: it knows the refresh, and its phase on a fixed-rate display.
 * The caller adds its own conditions (a cap, present timing in use, a mode that takes targets). */
bool lowlat_tb_ready(const struct lowlat_timing_brain *b);

/* This present's target: the one planned at the previous present, moved on after a late frame, or
 * to the first refresh it can make when the app presents after it; LOWLAT_LOG_UNKNOWN when none
 * (paced: whether the caller paces this present on the display at all). Judges, for the margin,
 * a target the present comes too late for. */
int64_t lowlat_tb_target(struct lowlat_timing_brain *b, int64_t now_ns, bool paced, enum lowlat_tb_mode mode);

/* Whether the app's own target for this present stands, theirs_ns being where it asks the display
 * to show the frame (LOWLAT_LOG_UNKNOWN: not known): it asks for the refresh of the cap's grid or a
 * later one (the app paces at or under the cap), or lowlat has no target for it (lowlat_tb_target).
 * The grid's point, not lowlat's target moved on after a late frame: that move is lowlat's own
 * cadence, not the cap. Otherwise lowlat's target takes its place: the cap holds over the app's
 * targets, which move later, never earlier. *shown_ns: the refresh it asks for where it stands and
 * lowlat has a grid (which goes on from it), else LOWLAT_LOG_UNKNOWN. */
bool lowlat_tb_app_target(struct lowlat_timing_brain *b, int64_t theirs_ns, int64_t *shown_ns);

/* The earliest time the driver is asked to show a frame whose target is target_ns: half a refresh
 * before it on a fixed grid (less for FIFO_RELAXED on a driver that shows those at their target),
 * the target itself on VRR. */
int64_t lowlat_tb_ask(const struct lowlat_timing_brain *b, int64_t target_ns, enum lowlat_tb_mode mode);

/* What a relative target counts from: the first pixel of the latest present where it was reported
 * already, else its target (LOWLAT_LOG_UNKNOWN: neither). */
int64_t lowlat_tb_relative_base(const struct lowlat_timing_brain *b);

/* A present went down (ok: the driver took it) with target_ns (LOWLAT_LOG_UNKNOWN: none). When its
 * report is to come (fr not NULL), fills fr->seq and fr->judged; the caller fills the rest. */
void lowlat_tb_presented(struct lowlat_timing_brain *b, bool ok, int64_t target_ns,
                         struct lowlat_tb_frame *fr);

/* A complete report of fr: its GPU work ended at ready_ns, its first pixel (the phase stage) went
 * out at out_ns (0: not reported, or not shown). Feeds the ready-time prediction, the grid's phase,
 * the margin, the queue behind V-Sync and a late frame's cadence. Returns the news
 * (enum lowlat_tb_news); a report that contradicts itself is not used. */
uint32_t lowlat_tb_report(struct lowlat_timing_brain *b, const struct lowlat_tb_frame *fr, int64_t ready_ns,
                          int64_t out_ns);

/* An incomplete report of fr whose GPU work ended at ready_ns: on a fixed-rate display a FIFO frame
 * done after the refresh it targets has missed it, and the next target moves on with it. */
void lowlat_tb_partial(struct lowlat_timing_brain *b, const struct lowlat_tb_frame *fr, int64_t ready_ns);

/* Plans the next target after current_ns (this present's target, or LOWLAT_LOG_UNKNOWN), on the
 * pacer's grid at its cap (the time grid moves it; cpu_release_ns is the CPU pacer's release of
 * the previous frame, 0 when a grid released it), at now_ns. Returns when to release the app: the
 * target less the lead. *after_ns: the release for the target after it. */
int64_t lowlat_tb_release(struct lowlat_timing_brain *b, struct lowlat_pacer *pacer, int64_t cpu_release_ns,
                          int64_t now_ns, int64_t current_ns, int64_t *after_ns);

/* After the release's wait, with the reports read: where the latest present has missed its refresh,
 * the next target moves on with it (at refresh/n the late one keeps its n refreshes; on the time
 * grid the next one takes the refresh after it). Returns the moved release, 0 when nothing moved. */
int64_t lowlat_tb_follow_late(struct lowlat_timing_brain *b);

/* The latency-frames cap: whether the present just made (its target target_ns, mode mode) missed
 * its refresh in FIFO_LATEST_READY while the next target is later, so the next frame takes its
 * place and need not wait for it to be shown. */
bool lowlat_tb_superseded(const struct lowlat_timing_brain *b, int64_t target_ns, enum lowlat_tb_mode mode,
                          int64_t now_ns);

/* The latency-frames cap's wait ended at now_ns: whether it held the release past the planned one
 * (the next present's target is then not judged for the margin: the cap had the say). */
void lowlat_tb_held(struct lowlat_timing_brain *b, int64_t now_ns);

#endif
