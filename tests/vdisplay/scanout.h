/* scanout.h — the virtual display's presentation engine: which request is on screen at each refresh.
 *
 * Pure C, no Vulkan, no clock, no threads: the owner tells it facts (a request was queued, a request
 * became ready at a recorded time) and how far time has provably advanced (the horizon), and it
 * replays the display up to that horizon on the *ideal* refresh grid, emitting events. Every decision
 * uses the recorded ready times and the grid, never the time the caller happened to wake up, so a
 * scan-out thread that overshoots its sleep by a millisecond still yields the exact same history.
 *
 * Time is signed 64-bit nanoseconds on CLOCK_MONOTONIC. The grid is anchored at 0: refresh k starts
 * (vblank k ends, first pixel of the new image goes out) at floor(k * 1e12 / rate_mhz) ns, so every
 * swapchain of the process shares one display clock, and a fractional rate such as 59.94 Hz
 * (59940 mHz) never drifts.
 *
 * Present-mode rules, from the Vulkan specification (VkPresentModeKHR):
 *  FIFO              one request is removed from the head of the queue at each vblank in which the
 *                    queue is non-empty; requests are appended, so the queue grows.
 *  FIFO_RELAXED      as FIFO, but "if a vertical blanking period has already passed since the last
 *                    update of the current image" the request is shown as soon as it is ready (tears);
 *                    the engine's start counts as the first update.
 *  MAILBOX           single-entry queue: a new request replaces the pending one, whose image becomes
 *                    available for reuse at once; the pending one is shown at the next vblank.
 *  IMMEDIATE         shown as soon as it is ready, without waiting for a vblank (tears); never dropped.
 *  FIFO_LATEST_READY at each vblank, dequeue the successive ready requests from the head, stopping at
 *                    the first that is not ready; a request whose target time has not arrived is not
 *                    ready; show the last one dequeued, drop the others.
 * "Ready" means the request's queue operations (the wait on its semaphores, i.e. the app's GPU work)
 * completed: presentation requests reach the engine in the order they were queued, so a request that
 * is not ready holds back the ones behind it in every mode.
 *
 * Variable refresh (vd_engine_set_vrr): refreshes no longer follow a fixed grid. A refresh starts
 * when the request at the head of the queue becomes eligible (ready, and its target reached), but
 * no sooner than one shortest period (the maximum rate) after the previous refresh; when nothing is
 * eligible by one longest period (the minimum rate), the display refreshes anyway, repeating the
 * image (low framerate compensation). Refresh indices then simply count refreshes.
 *
 * Target times (VK_EXT_present_timing): a request is not shown at a vblank before its target time;
 * with the NEAREST flag it may be shown at the vblank that starts the refresh cycle whose first half
 * contains the target (vblank >= target - period/2). A relative target is a minimum duration counted
 * from the previous request's first pixel (visible) time, resolved when that request is shown.
 * IMMEDIATE and late FIFO_RELAXED requests are shown at max(ready, target). A request with early_ns
 * may latch at a vblank that early before its target (Mesa's XWayland path sleeps until the target
 * less a margin, then presents at the next refresh).
 */
#ifndef VD_SCANOUT_H
#define VD_SCANOUT_H

#include <stdbool.h>
#include <stdint.h>

enum vd_mode {
	VD_MODE_IMMEDIATE,
	VD_MODE_MAILBOX,
	VD_MODE_FIFO,
	VD_MODE_FIFO_RELAXED,
	VD_MODE_FIFO_LATEST_READY,
};

#define VD_TIME_UNKNOWN INT64_MAX /* a ready time not yet known */
#define VD_MAX_PENDING  64        /* pending requests per engine; each holds a distinct image */

enum vd_target_kind {
	VD_TARGET_NONE,
	VD_TARGET_ABSOLUTE,
	VD_TARGET_RELATIVE,
};

struct vd_request {
	uint64_t seq;        /* engine-assigned, 1, 2, ... in queue order */
	uint64_t present_id; /* the app's present id, 0 if none */
	uint32_t image;
	enum vd_mode mode;
	int64_t queued_ns;
	int64_t ready_ns; /* VD_TIME_UNKNOWN until set */
	enum vd_target_kind target_kind;
	int64_t target_ns; /* absolute time, or duration for VD_TARGET_RELATIVE */
	bool nearest;      /* PRESENT_AT_NEAREST_REFRESH_CYCLE */
	int64_t early_ns;  /* may latch this long before its target (a driver that sleeps eagerly) */
	/* Filled by the engine. */
	int64_t target_abs_ns; /* resolved absolute target, 0 when none */
	int64_t dequeued_ns;   /* REQUEST_DEQUEUED */
	int64_t first_pixel_ns;
	int64_t refresh;      /* index of the refresh it was dequeued on (or scanned out during) */
	uint64_t replaced_by; /* seq of the request that replaced / outran it */
};

enum vd_event_kind {
	VD_EV_SHOWN,    /* request latched; first_pixel_ns set. Its predecessor on screen is released. */
	VD_EV_REPLACED, /* MAILBOX: replaced by a newer request before it was shown */
	VD_EV_SKIPPED,  /* FIFO_LATEST_READY: dequeued together with a later one and dropped */
	VD_EV_REPEAT,   /* refresh `refresh` scanned out the same image as the one before it */
	VD_EV_RELEASED, /* the display no longer holds `request.image` */
};

struct vd_event {
	enum vd_event_kind kind;
	int64_t time_ns;
	int64_t refresh;
	struct vd_request request; /* a copy; for REPEAT the request on screen */
};

typedef void (*vd_event_fn)(void *user, const struct vd_event *event);

struct vd_engine {
	int64_t rate_mhz;       /* refresh rate in millihertz; the maximum rate with VRR */
	int64_t vrr_min_mhz;    /* 0: fixed rate; else the minimum rate of the VRR range */
	int64_t last_vblank_ns; /* VRR: when the last refresh started */
	vd_event_fn emit;
	void *user;

	uint64_t next_seq;
	int64_t next_refresh; /* index of the next vblank to process */
	int64_t cursor_ns;    /* every event before this has been processed */
	struct vd_request queue[VD_MAX_PENDING];
	uint32_t count;

	bool has_current;
	struct vd_request current; /* on screen */
	int64_t last_update_ns;    /* when the current image started scanning out */
	bool updated_this_refresh; /* a new image started since the last vblank */
};

/* Rate in Hz as text ("60", "59.94", "540") -> millihertz; 0 when invalid. */
int64_t vd_parse_rate_mhz(const char *text);

/* Start the display at `start_ns`: the first vblank processed is the first one after it. */
void vd_engine_init(struct vd_engine *e, int64_t rate_mhz, int64_t start_ns, vd_event_fn emit, void *user);

/* Makes the display variable-rate between min_mhz and the engine's rate (0 < min_mhz < rate).
 * Call right after vd_engine_init. */
void vd_engine_set_vrr(struct vd_engine *e, int64_t min_mhz);

/* Start time of refresh k, and the refresh scanning out at time t, on a fixed grid. */
int64_t vd_refresh_start_ns(int64_t rate_mhz, int64_t k);
int64_t vd_refresh_at(int64_t rate_mhz, int64_t t_ns);
int64_t vd_engine_period_ns(const struct vd_engine *e);

/* Appends a request; fills and returns its seq, or 0 when the queue is full. Only seq/image/mode/
 * queued/target/present_id fields of *req are read. queued_ns must not precede the horizon. */
uint64_t vd_engine_queue(struct vd_engine *e, const struct vd_request *req);
/* The queued request seq, or NULL. */
const struct vd_request *vd_engine_request(const struct vd_engine *e, uint64_t seq);
/* Records when a queued request became ready. Returns false for an unknown seq. */
bool vd_engine_set_ready(struct vd_engine *e, uint64_t seq, int64_t ready_ns);
/* Forgets a request that will never become ready (its submission failed). */
bool vd_engine_cancel(struct vd_engine *e, uint64_t seq);

/* Replays the display up to and including horizon_ns. Precondition: every queued request whose
 * ready time is still unknown was not ready at horizon_ns. */
void vd_engine_advance(struct vd_engine *e, int64_t horizon_ns);

/* The next vblank to be processed (VRR: the latest it can be, given what is known so far). */
int64_t vd_engine_next_vblank_ns(const struct vd_engine *e);

#endif
