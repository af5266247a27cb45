/* vd_profile.c — the driver profiles and their clock arithmetic; see vd_profile.h. Where a value
 * below was not read from a source (NVIDIA's driver is closed) README.md says what was assumed. */
#include "vd_profile.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "scanout.h"
#include "vd_layer.h"

#define ALL_STAGES                                                                                           \
	(VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT | VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT |         \
	 VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT |                                                    \
	 VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT)
#define ALL_MODES                                                                                            \
	(VD_MODE_BIT(VD_MODE_IMMEDIATE) | VD_MODE_BIT(VD_MODE_MAILBOX) | VD_MODE_BIT(VD_MODE_FIFO) |         \
	 VD_MODE_BIT(VD_MODE_FIFO_RELAXED) | VD_MODE_BIT(VD_MODE_FIFO_LATEST_READY))
/* Mesa's X11 list (wsi_common_x11.c, present_modes[]), also what XWayland gets. */
#define X11_MODES                                                                                            \
	(VD_MODE_BIT(VD_MODE_IMMEDIATE) | VD_MODE_BIT(VD_MODE_MAILBOX) | VD_MODE_BIT(VD_MODE_FIFO) |         \
	 VD_MODE_BIT(VD_MODE_FIFO_RELAXED))
/* Mesa's Wayland list with tearing-control (wsi_wl_surface_get_present_modes). */
#define WAYLAND_MODES                                                                                        \
	(VD_MODE_BIT(VD_MODE_MAILBOX) | VD_MODE_BIT(VD_MODE_FIFO) | VD_MODE_BIT(VD_MODE_IMMEDIATE))

/* Mesa reports QUEUE_OPERATIONS_END on the GPU's counter in ns (wsi_common.c,
 * wsi_swapchain_present_timing_sample_query_pool): another oscillator, another epoch. */
#define GPU_OFFSET_NS 123456789012ll /* 123.46 s */
#define GPU_DRIFT_PPB 3000           /* 3 ppm */

/* Mesa's stages: the queue's work done and the first pixel out. */
#define MESA_STAGES                                                                                          \
	(VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT | VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT)

/* Mesa's Wayland WSI, with or without the protocols for absolute targets. */
#define MESA_WAYLAND                                                                                         \
	.domains = VD_DOMAINS_STAGE_LOCAL, .stages = MESA_STAGES, .refresh = VD_REFRESH_WAYLAND,             \
	.modes = WAYLAND_MODES, .leak_failed_slot = true, .fail_retired = true, .report_quantum_ns = 1,      \
	.clock = {{GPU_OFFSET_NS, GPU_DRIFT_PPB}}

/* Mostly assumed (README): one swapchain clock for every stage (5 h, +10 ppm), offered as a
 * swapchain-local and a stage-local domain; absolute targets only, as vkd3d-proton's logs show on
 * NVIDIA's Wayland WSI; VK_NV_low_latency2 from driver 545.23.06 on (NVIDIA's note in dxvk-nvapi
 * PR #147, 2023-10-17). Where a profile's surfaces take no present timing, .stages is what one
 * with it would report. */
#define NVIDIA                                                                                               \
	.domains = VD_DOMAINS_STAGE_AND_SWAPCHAIN, .stage_domain_id = 0, .swapchain_domain_id = 1,           \
	.stages = VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT |                                            \
	          VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT |                                                \
	          VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT,                                            \
	.absolute = true, .refresh = VD_REFRESH_EXACT, .fifo_latest_ready = true, .low_latency2 = true,      \
	.report_quantum_ns = 1,                                                                              \
	.clock = {                                                                                           \
	        {18000567891234ll, 10000},                                                                   \
	        {18000567891234ll, 10000},                                                                   \
	        {18000567891234ll, 10000},                                                                   \
	        {18000567891234ll, 10000},                                                                   \
	}
#define NVIDIA_MODES                                                                                         \
	(VD_MODE_BIT(VD_MODE_MAILBOX) | VD_MODE_BIT(VD_MODE_FIFO_LATEST_READY) | VD_MODE_BIT(VD_MODE_FIFO) | \
	 VD_MODE_BIT(VD_MODE_IMMEDIATE))

static const struct vd_profile profiles[] = {
        {
                /* Conformant, and as unlike CLOCK_MONOTONIC as the spec allows: every stage on
                 * its own clock, hours away and drifting by tens of ppm, an id that is not 0. */
                .name = "spec",
                .domains = VD_DOMAINS_STAGE_LOCAL,
                .stage_domain_id = 0x5d1,
                .stages = ALL_STAGES,
                .absolute = true,
                .relative = true,
                .partial = true,
                .refresh = VD_REFRESH_NOT_READY,
                .fifo_latest_ready = true,
                .modes = ALL_MODES,
                .per_swapchain_clocks = true,
                .report_quantum_ns = 1,
                .clock =
                        {
                                {3600123456789ll, 40000},   /* 1 h, +40 ppm */
                                {7200234567891ll, -25000},  /* 2 h, -25 ppm */
                                {10800345678912ll, 60000},  /* 3 h, +60 ppm */
                                {14400456789123ll, -15000}, /* 4 h, -15 ppm */
                        },
        },
        {
                .name = "mesa-x11",
                .domains = VD_DOMAINS_STAGE_LOCAL,
                .stages = MESA_STAGES,
                .absolute = true,
                .relative = true,
                .refresh = VD_REFRESH_X11,
                .modes = X11_MODES,
                .leak_failed_slot = true,
                .target_msc = true,
                /* The X server's UST is in µs; the noise makes Mesa's estimate move (README). */
                .report_quantum_ns = 1000,
                .report_jitter_ns = 8000,
                .clock = {{GPU_OFFSET_NS, GPU_DRIFT_PPB}},
        },
        /* With commit-timing-v1 and fifo-v1: absolute targets. */
        {.name = "mesa-wayland", MESA_WAYLAND, .absolute = true},
        {.name = "mesa-wayland-basic", MESA_WAYLAND},
        {
                .name = "xwayland",
                .domains = VD_DOMAINS_STAGE_LOCAL,
                .stages = VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT |
                          VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT,
                .relative = true,
                .refresh = VD_REFRESH_XWAYLAND,
                .modes = X11_MODES,
                .leak_failed_slot = true,
                .report_quantum_ns = 1000,
                .report_jitter_ns = 8000,
                .relative_floor = true,
                .eager_max_ns = 3000000, /* 3 ms */
                .clock = {{GPU_OFFSET_NS, GPU_DRIFT_PPB}},
        },
        {.name = "nvidia", NVIDIA, .modes = NVIDIA_MODES},
        /* NVIDIA on XWayland (README.md [N6]): the device lists VK_EXT_present_timing but no
         * surface supports it ("NVIDIA does not support present timing on Xwayland at all"); no
         * FIFO_RELAXED; present wait and VK_NV_low_latency2 as on Wayland. */
        {.name = "nvidia-xwayland", NVIDIA, .no_surface_timing = true, .modes = NVIDIA_MODES},
        /* NVIDIA on native X11 (README.md [N7]): present timing there is not confirmed by any
         * source, so its surfaces take none; FIFO_RELAXED assumed listed. */
        {.name = "nvidia-x11", NVIDIA, .no_surface_timing = true, .modes = ALL_MODES},
        {
                /* The display before profiles: CLOCK_MONOTONIC for everything. */
                .name = "monotonic",
                .domains = VD_DOMAINS_MONOTONIC,
                .stages = ALL_STAGES,
                .absolute = true,
                .relative = true,
                .partial = true,
                .refresh = VD_REFRESH_EXACT,
                .fifo_latest_ready = true,
                .modes = ALL_MODES,
                .report_quantum_ns = 1,
        },
};
#define PROFILE_COUNT (sizeof(profiles) / sizeof(profiles[0]))

const struct vd_profile *vd_profile_named(const char *name)
{
	for (size_t i = 0; name && i < PROFILE_COUNT; i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

const char *vd_profile_names(void)
{
	return "spec, mesa-x11, mesa-wayland, mesa-wayland-basic, xwayland, nvidia, nvidia-xwayland, "
	       "nvidia-x11, "
	       "monotonic";
}

static const struct vd_profile *chosen;

static void choose(void)
{
	const char *name = getenv("LOWLAT_VDISPLAY_PROFILE");

	chosen = &profiles[0];
	if (!name || !*name)
		return;
	if (vd_profile_named(name))
		chosen = vd_profile_named(name);
	else
		vd_msg("LOWLAT_VDISPLAY_PROFILE=%s is not a profile (%s); using spec", name,
		       vd_profile_names());
}

const struct vd_profile *vd_profile(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, choose);
	return chosen;
}

#define NS_PER_S 1000000000ll

int64_t vd_clock_from_monotonic(const struct vd_clock *c, int64_t epoch_ns, int64_t t_ns)
{
	__int128 drift = (__int128)(t_ns - epoch_ns) * c->drift_ppb;

	return t_ns + c->offset_ns + (int64_t)(drift / NS_PER_S);
}

int64_t vd_clock_to_monotonic(const struct vd_clock *c, int64_t epoch_ns, int64_t stage_ns)
{
	/* stage - offset - epoch = (t - epoch) * (1e9 + drift) / 1e9, rounded to the nearest ns; the
	 * forward conversion truncates, so search the ns around it for the exact preimage. */
	__int128 u = (__int128)(stage_ns - c->offset_ns - epoch_ns) * NS_PER_S;
	int64_t t = epoch_ns + (int64_t)(u / (NS_PER_S + c->drift_ppb));

	for (int64_t d = -2; d <= 2; d++)
		if (vd_clock_from_monotonic(c, epoch_ns, t + d) >= stage_ns)
			return t + d;
	return t;
}

void vd_refresh_update(struct vd_refresh_props *p, uint64_t duration, uint64_t interval, int64_t min_delta_ns)
{
	int64_t dd = (int64_t)duration - (int64_t)p->duration;
	int64_t di = (int64_t)interval - (int64_t)p->interval;

	if (dd < 0)
		dd = -dd;
	if (di < 0)
		di = -di;
	if (dd > min_delta_ns || di > min_delta_ns || p->counter == 0) {
		p->counter++;
		p->duration = duration;
		p->interval = interval;
	}
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Mesa accepts an estimate only when every neighbouring pair of the window agrees with it within
 * 20 µs (x11_refresh_rate_estimate_is_stable). */
static bool stable(const struct vd_x11_estimate *e, uint64_t rate_ns)
{
	for (uint32_t i = 0; i < VD_X11_WINDOW; i++) {
		uint32_t j = (i + 1) % VD_X11_WINDOW;
		uint64_t dm = absdiff(e->window[i].msc, e->window[j].msc);

		if (!e->window[i].msc || !e->window[j].msc || !dm)
			continue;
		if (absdiff(rate_ns, 1000 * absdiff(e->window[i].ust_us, e->window[j].ust_us) / dm) > 20000)
			return false;
	}
	return true;
}

void vd_x11_estimate_complete(struct vd_x11_estimate *e, struct vd_refresh_props *props, uint64_t msc,
                              uint64_t ust_us, uint64_t randr_ns)
{
	uint32_t oldest;

	e->index = (e->index + 1) % VD_X11_WINDOW;
	/* Until the window has wrapped, estimate from the first entry. */
	oldest = e->window[e->index].msc ? e->index : 1;
	if (e->window[oldest].msc && msc != e->window[oldest].msc) {
		uint64_t rate_ns = 1000 * (ust_us - e->window[oldest].ust_us) / (msc - e->window[oldest].msc);

		e->stable = stable(e, rate_ns);
		/* A stable estimate is fixed-rate; an unstable one falls back to RANDR's mode (a flipping,
		 * adaptive-sync swapchain would report VRR instead: not modelled). */
		if (e->stable)
			vd_refresh_update(props, rate_ns, rate_ns, 1000);
		else
			vd_refresh_update(props, randr_ns, randr_ns, 0);
	}
	e->window[e->index].msc = msc;
	e->window[e->index].ust_us = ust_us;
}

int64_t vd_noise(uint64_t *state, int64_t amplitude)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	if (amplitude <= 0)
		return 0;
	return (int64_t)((x * 0x2545f4914f6cdd1dull) % (uint64_t)(2 * amplitude + 1)) - amplitude;
}
