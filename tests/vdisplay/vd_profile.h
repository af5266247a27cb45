/* vd_profile.h — the driver profiles of the virtual display (LOWLAT_VDISPLAY_PROFILE): what each
 * modelled presentation engine offers through VK_EXT_present_timing (time domains and their clocks,
 * stages, target kinds, partial results, refresh reporting, FIFO_LATEST_READY, what a failed present
 * does to its results slot), and the pure arithmetic that goes with it: stage clocks against
 * CLOCK_MONOTONIC and Mesa X11's refresh estimate. No Vulkan calls, no clock reads: unit-tested by
 * test_profile.c. README.md names, per profile and behaviour, the source each one was read from.
 */
#ifndef VD_PROFILE_H
#define VD_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

/* Stage indices: the bit index of each VkPresentStageFlagBitsEXT. */
enum { VD_STAGE_QUEUE_END, VD_STAGE_DEQUEUED, VD_STAGE_PIXEL_OUT, VD_STAGE_PIXEL_VISIBLE, VD_STAGES };

enum vd_domain_set {
	VD_DOMAINS_MONOTONIC,           /* one domain: CLOCK_MONOTONIC (the display before profiles) */
	VD_DOMAINS_STAGE_LOCAL,         /* one domain: PRESENT_STAGE_LOCAL */
	VD_DOMAINS_STAGE_AND_SWAPCHAIN, /* PRESENT_STAGE_LOCAL and SWAPCHAIN_LOCAL, on one clock */
};

enum vd_refresh_report {
	VD_REFRESH_EXACT,     /* duration = interval = the period (UINT64_MAX interval with VRR), always */
	VD_REFRESH_NOT_READY, /* VK_NOT_READY until the first image reached the screen, then exact */
	VD_REFRESH_X11,       /* Mesa X11: RANDR's rate, interval 0, then the MSC/UST estimate */
	VD_REFRESH_WAYLAND,   /* Mesa Wayland: 0 and counter 0 until the first feedback, interval 0 */
	VD_REFRESH_XWAYLAND,  /* Mesa on XWayland: RANDR's rate, interval 0, from creation on */
};

/* A stage's clock: stage time = t + offset + (t - epoch) * drift, t on CLOCK_MONOTONIC. */
struct vd_clock {
	int64_t offset_ns;
	int64_t drift_ppb; /* parts per billion; 1000 = 1 ppm */
};

struct vd_profile {
	const char *name;
	enum vd_domain_set domains;
	uint64_t stage_domain_id, swapchain_domain_id;
	VkPresentStageFlagsEXT stages; /* the stages it reports (presentStageQueries) */
	bool absolute, relative;       /* presentAt{Absolute,Relative}TimeSupported of its surfaces */
	bool partial;                  /* honours VK_PAST_PRESENTATION_TIMING_ALLOW_PARTIAL_RESULTS */
	enum vd_refresh_report refresh;
	bool fifo_latest_ready; /* offers the mode and its extensions */
	bool low_latency2;      /* offers VK_NV_low_latency2 (vd_latency.h) */
	bool no_surface_timing; /* the device lists VK_EXT_present_timing, its surfaces do not support it */
	uint32_t modes;         /* the present modes its surfaces list: 1 << vd_mode */
	bool leak_failed_slot;  /* a present that fails keeps a results slot that never completes */
	bool fail_retired;      /* a present to a retired swapchain fails with OUT_OF_DATE */
	bool per_swapchain_clocks; /* each swapchain's stage clocks are offset by its number */
	int64_t report_quantum_ns; /* reported dequeue and pixel times are truncated to this */
	int64_t report_jitter_ns;  /* ... after noise of +- this (X11's UST); 0: none */
	bool relative_floor;       /* relative targets up to a refresh (1.5 with NEAREST) ignored */
	int64_t eager_max_ns;      /* a target latches up to min(period / 4, this) early */
	bool target_msc;           /* an absolute target becomes the first refresh at or after it */
	struct vd_clock clock[VD_STAGES];
};

/* The profile in force (LOWLAT_VDISPLAY_PROFILE, default `spec`); a name it does not know is said
 * once on stderr and `spec` used. */
const struct vd_profile *vd_profile(void);
/* A profile by name, NULL when there is none. */
const struct vd_profile *vd_profile_named(const char *name);
/* The profiles' names, comma-separated. */
const char *vd_profile_names(void);

/* The present-mode bit of enum vd_mode m (scanout.h). */
#define VD_MODE_BIT(m) (1u << (m))

/* A stage clock's reading at CLOCK_MONOTONIC time t, and its inverse (to the ns). */
int64_t vd_clock_from_monotonic(const struct vd_clock *c, int64_t epoch_ns, int64_t t_ns);
int64_t vd_clock_to_monotonic(const struct vd_clock *c, int64_t epoch_ns, int64_t stage_ns);

/* Mesa X11's refresh estimate (wsi_common_x11.c, x11_present_update_refresh_cycle_estimate), fed
 * one COMPLETE event (msc = the refresh, ust in µs) per image shown. */
#define VD_X11_WINDOW 16
struct vd_x11_estimate {
	struct {
		uint64_t msc, ust_us;
	} window[VD_X11_WINDOW];
	uint32_t index;
	bool stable;
};

/* The refresh properties a swapchain reports and their counter. */
struct vd_refresh_props {
	uint64_t duration, interval, counter;
};

/* wsi_swapchain_present_timing_update_refresh_rate: the counter moves when either value moves by
 * more than min_delta_ns, or on the first report. */
void vd_refresh_update(struct vd_refresh_props *p, uint64_t duration, uint64_t interval,
                       int64_t min_delta_ns);

/* One COMPLETE event: updates *props as Mesa's X11 WSI does (randr_ns: the mode's nominal period). */
void vd_x11_estimate_complete(struct vd_x11_estimate *e, struct vd_refresh_props *props, uint64_t msc,
                              uint64_t ust_us, uint64_t randr_ns);

/* Deterministic noise in [-amplitude, amplitude] from a per-swapchain state (xorshift64). */
int64_t vd_noise(uint64_t *state, int64_t amplitude);

#endif
