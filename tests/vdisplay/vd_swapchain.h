/* vd_swapchain.h — a virtual display swapchain, shared by the files that implement it:
 * vd_swapchain.c (creation, destruction, the scan-out thread) and vd_present.c (acquire, present,
 * present wait, release, present timing).
 *
 * Image states: FREE -> (acquire) ACQUIRED -> (present) QUEUED -> SHOWN -> FREE when the display lets
 * go of it (a newer image latched, or it was replaced/skipped). Guarded by the swapchain lock, as are
 * the engine, shown_present_id and the timing queue. Lock order: swapchain lock, then the truth log's
 * stdio lock; no lock is held while calling down the chain or waiting on a fence.
 */
#ifndef VD_SWAPCHAIN_H
#define VD_SWAPCHAIN_H

#include <pthread.h>
#include <time.h>

#include "scanout.h"
#include "vd_latency.h"
#include "vd_layer.h"
#include "vd_model.h"
#include "vd_profile.h"
#include "vd_timing.h"

#define VD_MAX_IMAGES 16

enum image_state { IMG_FREE, IMG_ACQUIRED, IMG_QUEUED, IMG_SHOWN };

struct vd_image {
	VkImage image;
	VkDeviceMemory memory;
	VkFence fence;       /* signalled by the present submission, after the timestamp */
	VkCommandBuffer cmd; /* resets and writes query `index`: the ready timestamp */
	enum image_state state;
	uint64_t seq;   /* its request while QUEUED */
	bool submitted; /* the present submission was made and its fence not yet seen signalled */
};

struct vd_swapchain {
	struct vd_device *dev;
	uint32_t id;
	enum vd_mode mode;
	uint32_t image_count;
	struct vd_image images[VD_MAX_IMAGES];
	VkQueryPool queries;
	VkCommandPool pool; /* made at the first present, for that queue's family */
	uint32_t pool_family;
	int64_t device_offset_ns; /* CLOCK_MONOTONIC = ticks * period + offset */
	uint32_t next_acquire;    /* acquire looks for a free image from here, round robin */

	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC; an image was released or shown, a request queued, or quit */
	/* The thread of the latest present, and whether a call the app must synchronise with its
	 * presents came from another thread (vd_present.c, off_present_thread). */
	pthread_t presenter;
	bool has_presenter, told_off_thread;
	pthread_t thread;
	bool quit, retired;
	struct vd_engine engine;
	uint64_t shown_present_id;     /* the highest present id whose image reached the screen */
	struct vd_timing_queue timing; /* VK_EXT_present_timing results */
	uint64_t last_seq;             /* the latest request queued */
	uint64_t late_every;           /* LOWLAT_VDISPLAY_LATE_READY: every late_every-th request is */
	int64_t late_ns;               /* ready late_ns after its GPU work finished; 0: none */
	int64_t untargeted_phase_ns;   /* LOWLAT_VDISPLAY_UNTARGETED_READY_PHASE, in ns; -1: none */

	/* The driver profile's view of this swapchain (vd_profile.h). */
	const struct vd_profile *profile;
	struct vd_model model;               /* its rules: reported times, refresh reports, targets */
	int64_t clock_epoch_ns;              /* the stage clocks' epoch: when the swapchain was created */
	int64_t clock_extra_ns;              /* added to every stage clock's offset (per-swapchain clocks) */
	bool broken;                         /* a present failed: acquire and present are OUT_OF_DATE */
	uint64_t presents;                   /* presents to it, counted for LOWLAT_VDISPLAY_FAIL_PRESENT */
	uint64_t fail_present;               /* LOWLAT_VDISPLAY_FAIL_PRESENT: that present fails; 0: none */
	struct vd_latency_swapchain latency; /* VK_NV_low_latency2 (vd_latency.c), under lock */
};

enum vd_mode vd_mode_of(VkPresentModeKHR mode);

/* The swapchain's clock of stage `stage` (VD_STAGE_*) and conversions to and from CLOCK_MONOTONIC. */
struct vd_clock vd_swapchain_clock(const struct vd_swapchain *sc, uint32_t stage);
int64_t vd_swapchain_to_stage(const void *sc, uint32_t stage, int64_t monotonic_ns);
int64_t vd_swapchain_from_stage(const struct vd_swapchain *sc, uint32_t stage, int64_t stage_ns);
/* The nominal refresh period, rounded to the ns (RANDR's mode, wp_presentation's refresh). */
uint64_t vd_swapchain_period_ns(const struct vd_swapchain *sc);

static inline struct vd_swapchain *vd_swapchain_of(struct vd_device *dev, VkSwapchainKHR handle)
{
	return handle ? lowlat_map_find(&dev->swapchains, (uint64_t)handle) : NULL;
}

static inline void vd_abs_timespec(int64_t t_ns, struct timespec *ts)
{
	ts->tv_sec = t_ns / 1000000000;
	ts->tv_nsec = t_ns % 1000000000;
}

#endif
