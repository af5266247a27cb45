/* sim.h — tools/lowlat-sim: lowlat's pacing brain against the virtual display's engine, in
 * virtual time.
 *
 * A run is one policy on one world: an app whose frames take a drawn CPU and GPU time, a host whose
 * sleeps wake late and whose threads stall as a trace (or the quiet model) says, a present call of
 * a fixed cost, and a display: the virtual display's presentation engine (tests/vdisplay/scanout.h)
 * with a driver profile's rules (tests/vdisplay/vd_model.h). Every policy of one invocation runs on
 * the same world: the same draws, the same host. Nothing reads a clock and nothing sleeps; the same
 * seed gives the same output, byte for byte.
 */
#ifndef LOWLAT_SIM_H
#define LOWLAT_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scanout.h"
#include "vd_model.h"

/* ---- the host ---- */

/* A machine's scheduling, recorded (host.c, sim_host_record) or modelled: how late each sleep
 * wakes (cycled), and when a thread that wants to run is held off. */
struct sim_trace {
	char *name;
	int64_t *wake_ns; /* lateness of successive sleeps */
	size_t wakes;
	int64_t *stall_at_ns, *stall_ns; /* stalls: start (from the trace's start) and length */
	size_t stalls;
	int64_t span_ns; /* the trace's length: stalls repeat with this period */
};

/* The quiet host: a sleep wakes 3 us plus an exponential tail of mean 10 us late (p99 about
 * 49 us), no stalls. Documented in docs/simulator.md. */
#define SIM_QUIET_WAKE_BASE_NS 3000
#define SIM_QUIET_WAKE_MEAN_NS 10000

/* Loads a trace; NULL and a message on stderr when it cannot be read. */
struct sim_trace *sim_trace_load(const char *path);
void sim_trace_free(struct sim_trace *t);

/* Records this machine into path for `seconds`: a thread sleeps to absolute deadlines 1 ms apart
 * (timer slack 1 ns, as lowlat's waits) and notes how late it woke, while another spins and notes
 * every gap over 50 us in its view of the clock. Returns 0 on success. */
int sim_host_record(const char *path, double seconds);

/* One run's view of the host: where in the trace it starts (from the seed), or the quiet model's
 * random state. */
struct sim_host {
	const struct sim_trace *trace; /* NULL: quiet */
	size_t next_wake;
	int64_t stall_origin_ns; /* trace time at virtual time 0 */
	uint64_t rng;
};

void sim_host_init(struct sim_host *h, const struct sim_trace *trace, uint64_t seed);
/* How late the next sleep wakes. */
int64_t sim_host_wake_late(struct sim_host *h);
/* The work of a thread that runs from t_ns for work_ns: when it is done, with the stalls that fall
 * in it. */
int64_t sim_host_run(const struct sim_host *h, int64_t t_ns, int64_t work_ns);

/* ---- the world ---- */

struct sim_config {
	const struct vd_profile *profile;
	int64_t rate_mhz, vrr_min_mhz; /* the display; vrr_min_mhz 0: fixed rate */
	double fps;                    /* the cap */
	int64_t render_ns, gpu_ns;     /* the app's CPU and GPU time per frame (means) */
	double jitter;                 /* the CPU time's relative standard deviation */
	bool relaxed;                  /* the app presents in FIFO_RELAXED (else FIFO) */
	/* The app presents in IMMEDIATE: nothing holds it back but its limiter (vkcube on Xvfb, as
	 * tools/bench-limiter runs it). */
	bool immediate;
	int64_t present_ns; /* the driver's present call */
	uint32_t images;
	uint64_t frames, warmup;
	uint64_t seed;
	const struct sim_trace *trace; /* NULL: the quiet host */
};

/* One frame, as the world saw it. */
struct sim_frame {
	int64_t start_ns;   /* the app was released: it samples input */
	int64_t blocked_ns; /* of its CPU time, blocked in acquire */
	int64_t present_ns; /* it called present */
	int64_t ready_ns;   /* its GPU work ended */
	int64_t release_ns; /* the release the policy planned after it (its own clock), 0: none */
	int64_t target_ns;  /* the display time it asked for, 0: none */
	int64_t planned_ns; /* the target planned for it before it came, 0: as target_ns */
	uint64_t seq;       /* its request */
	bool fated;         /* the display showed or dropped it */
	bool shown;
	int64_t fate_ns; /* when it was shown (first pixel) or dropped */
	int64_t out_ns;  /* the first pixel as the platform reports it */
	int64_t refresh; /* the refresh it was shown on */
};

struct sim;

/* A limiter under test. request: the present of f at s->now, whose request the policy may give a
 * mode and a target. release: the present returned at s->now; the policy waits (sim_sleep_*) until
 * the app may start the next frame. */
struct sim_policy {
	const char *name;
	bool (*init)(struct sim *s); /* false: out of memory */
	void (*request)(struct sim *s, struct sim_frame *f, struct vd_request *req);
	void (*release)(struct sim *s, struct sim_frame *f);
	void (*fini)(struct sim *s);
	int64_t lead_ns;       /* the oracle's fixed lead */
	int64_t tail_ns;       /* lowlat-cpu's wait: one sleep and a spin this long, or SIM_TAIL_ADAPTIVE */
	bool keep_timer_slack; /* lowlat-cpu's sleeper leaves the thread's default timer slack */
};

/* lowlat-cpu's wait is lowlat's own sleeper, its lead and tail learned (layer/clock/clock.c). */
#define SIM_TAIL_ADAPTIVE (-1)

struct sim {
	const struct sim_config *cfg;
	const struct sim_policy *policy;
	void *state; /* the policy's */
	struct sim_host host;
	uint64_t rng;
	int64_t now;
	int64_t period_ns;                    /* the display's nominal refresh */
	int64_t spin_ns;                      /* CPU spent spinning in waits */
	uint64_t sleeps;                      /* sleeps made in waits (each a syscall) */
	bool spin_read;                       /* the sleeper's next clock read is a spin step */
	const struct lowlat_sleeper *sleeper; /* whose waits sim_lowlat_clock serves */
	struct vd_engine engine;
	struct vd_model model;
	/* lowlat's mode: the app's FIFO_RELAXED kept, its FIFO made FIFO_LATEST_READY where the
	 * profile offers it (present_mode=auto); the app's own for the others. */
	enum vd_mode fifo_mode, app_mode;
	struct sim_frame *frames;
	uint64_t count; /* frames presented */
	uint32_t free_images;
	uint64_t repeats, refreshes; /* after the warm-up */
	int64_t measure_from_refresh;
};

struct sim_result {
	double p50_ms, p99_ms, mean_ms;
	double repeats_pct, off_pct;
	double wait_cpu_us;
	double mid_tears_pct; /* frames shown mid-refresh, more than a tear's slack before the next */
	uint64_t measured, dropped;
	int64_t first_off;  /* the first measured frame off its refresh count, -1: none */
	int64_t first_late; /* the first measured frame shown after its target's refresh, or
	                     * dropped, -1: none */
	int64_t first_torn; /* the first measured frame torn mid-refresh, -1: none */
};

/* Runs policy p on the world cfg; frames (cfg->frames of them) is filled, res summed up. Returns
 * false when the world cannot be made (out of memory). */
bool sim_run(const struct sim_config *cfg, const struct sim_policy *p, struct sim_frame *frames,
             struct sim_result *res);

/* The display up to now: its events reach the frames. */
void sim_display(struct sim *s);

/* Sleeps, for the policies. To an absolute deadline with the thread's timer slack at 1 ns (lowlat's
 * own waits, the floor); relative, with the kernel's default 50 us slack (MangoHud's
 * std::this_thread::sleep_for). Each returns when the thread runs again: the timer fires at the end
 * of the slack (an hrtimer's hard expiry, where no other timer fires first), and the thread runs
 * as late after that as the host says. */
void sim_sleep_until(struct sim *s, int64_t deadline_ns);
void sim_sleep_for(struct sim *s, int64_t duration_ns);

/* Sorts n values in ascending order. */
void sim_sort_i64(int64_t *v, uint64_t n);
/* The nearest-rank pct-th percentile of n sorted values; 0 where n is 0. */
int64_t sim_percentile(const int64_t *sorted, uint64_t n, double pct);
/* The kernel's default timer slack for a normal thread (prctl(2), PR_SET_TIMERSLACK). */
#define SIM_DEFAULT_TIMER_SLACK_NS 50000
/* The CPU a sleep costs its thread beyond the spin: the syscall and the two context switches. */
#define SIM_SLEEP_CPU_NS 2000
/* A spinning thread's clock reads are this far apart in virtual time. */
#define SIM_SPIN_STEP_NS 1000

/* How far before a refresh a torn frame's first pixel may go out and still tear in the last lines
 * or the blanking: lowlat's FIFO_RELAXED room and the tear slack (brain/timing.h). */
#define SIM_TEAR_EDGE_NS 300000

/* A clock for lowlat's sleeper (clock.h, struct lowlat_clock) on the world's time. Its sleeps have
 * the timer slack the sleeper gives them: 1 ns, or the thread's default where it keeps the
 * thread's (keep_timer_slack). */
struct lowlat_clock;
struct lowlat_sleeper;
struct lowlat_clock sim_lowlat_clock(struct sim *s, const struct lowlat_sleeper *sleeper);

/* The policies (policies.c). lowlat-cpu is the layer's "cpu" level, the level of a swapchain
 * without present timing (bench-limiter's): lowlat's CPU pacer (layer/brain/pace.h) and a precise
 * wait to its deadline, with lowlat's sleeper or a fixed spin tail (tail_ns). */
extern const struct sim_policy sim_lowlat, sim_mangohud_late, sim_floor, sim_oracle, sim_lowlat_cpu;

/* ---- the sleep curve (sleep_curve.c) ---- */

/* Runs lowlat-cpu with fixed spin tails, with lowlat's own sleeper and MangoHud's late limiter on
 * the world cfg (the app in IMMEDIATE), and prints each wait's release error and CPU a frame: the
 * precision a wait buys with its CPU on this host, and where lowlat's rule sits on that curve.
 * host names the host in the heading. Returns 0, or 1 out of memory. */
int sim_sleep_curve(const struct sim_config *cfg, const char *host, bool json);

/* The cap's refresh multiple: n >= 1 when the cap is at or near refresh/n (brain/pace_display.h),
 * 0 otherwise (the time grid). */
int64_t sim_cap_multiple(const struct sim_config *cfg);

#endif
