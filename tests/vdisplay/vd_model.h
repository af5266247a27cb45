/* vd_model.h — what a driver profile (vd_profile.h) makes of one swapchain's presents, as pure
 * arithmetic: the times the platform reports for them, the refresh properties it reports as images
 * reach the screen, and how a present's target becomes a request of the presentation engine
 * (scanout.h). No Vulkan calls, no clock, no threads: the virtual display (vd_swapchain.c,
 * vd_present.c) and the simulator (tools/sim) run the same rules. README.md cites the source of
 * each profile's behaviour.
 */
#ifndef VD_MODEL_H
#define VD_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "scanout.h"
#include "vd_profile.h"

struct vd_model {
	const struct vd_profile *profile;
	int64_t rate_mhz, vrr_min_mhz;   /* the display's, as its engine has them */
	bool timing_enabled;             /* created with VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT */
	struct vd_refresh_props refresh; /* what vkGetSwapchainTimingPropertiesEXT reports */
	struct vd_x11_estimate x11;      /* Mesa X11's refresh estimate */
	uint64_t noise;                  /* state of the reported times' noise */
	bool shown_any;                  /* an image reached the screen */
};

/* The profile's starting state for a swapchain on a display of rate_mhz (vrr_min_mhz: 0, or the
 * bottom of its variable range): the refresh it reports before any feedback. */
void vd_model_init(struct vd_model *m, const struct vd_profile *p, int64_t rate_mhz, int64_t vrr_min_mhz,
                   bool timing_enabled, uint64_t noise_seed);

/* The nominal refresh period, rounded to the ns (RANDR's mode, wp_presentation's refresh). */
uint64_t vd_model_period_ns(const struct vd_model *m);

/* The time the platform reports for an event at t: X11's UST is whole µs, read with some noise. */
int64_t vd_model_reported_time(struct vd_model *m, int64_t t);

/* An image reached the screen at refresh index `refresh`, reported at reported_ns: what that does to
 * the refresh properties, per profile. */
void vd_model_shown(struct vd_model *m, int64_t refresh, int64_t reported_ns);

/* The refresh properties as the app reads them: refreshDuration and refreshInterval, 0 where the
 * profile does not know them yet (the spec profile before the first image). */
void vd_model_refresh(const struct vd_model *m, uint64_t *duration, uint64_t *interval);

enum vd_target_use {
	VD_TARGET_TAKEN,     /* req has it */
	VD_TARGET_UNOFFERED, /* the profile offers no such target kind (invalid usage): ignored */
	VD_TARGET_TO_FIFO,   /* the profile leaves it to FIFO (Mesa on XWayland, short relative ones) */
};

/* A present's target as the profile takes it into req: target is an absolute time on
 * CLOCK_MONOTONIC (the caller converted it from its stage's clock), or a relative duration. */
enum vd_target_use vd_model_target(const struct vd_model *m, bool relative, bool nearest, int64_t target,
                                   struct vd_request *req);

#endif
