/* vd_model.c — a driver profile's rules for one swapchain; see vd_model.h. */
#include "vd_model.h"

#include <string.h>

uint64_t vd_model_period_ns(const struct vd_model *m)
{
	return (uint64_t)((1000000000000ll + m->rate_mhz / 2) / m->rate_mhz);
}

void vd_model_init(struct vd_model *m, const struct vd_profile *p, int64_t rate_mhz, int64_t vrr_min_mhz,
                   bool timing_enabled, uint64_t noise_seed)
{
	memset(m, 0, sizeof(*m));
	m->profile = p;
	m->rate_mhz = rate_mhz;
	m->vrr_min_mhz = vrr_min_mhz;
	m->timing_enabled = timing_enabled;
	m->noise = noise_seed;
	switch (p->refresh) {
	case VD_REFRESH_X11:
	case VD_REFRESH_XWAYLAND:
		/* Mesa asks RANDR at creation (x11_poll_early_refresh): the mode's rate, VRR unknown. */
		vd_refresh_update(&m->refresh, vd_model_period_ns(m), 0, 0);
		break;
	case VD_REFRESH_WAYLAND: break; /* nothing until the compositor's first feedback */
	default:
		/* Known from the start; the spec profile tells it only after the first image (counter 0
		 * until then). */
		m->refresh.counter = p->refresh == VD_REFRESH_NOT_READY ? 0 : 1;
		m->refresh.duration = vd_model_period_ns(m);
		m->refresh.interval = vrr_min_mhz ? UINT64_MAX : m->refresh.duration;
		break;
	}
}

int64_t vd_model_reported_time(struct vd_model *m, int64_t t)
{
	const struct vd_profile *p = m->profile;

	if (t <= 0)
		return t;
	t += vd_noise(&m->noise, p->report_jitter_ns);
	return t - t % p->report_quantum_ns;
}

void vd_model_shown(struct vd_model *m, int64_t refresh, int64_t reported_ns)
{
	uint64_t nominal = vd_model_period_ns(m);

	m->shown_any = true;
	switch (m->profile->refresh) {
	case VD_REFRESH_X11:
		/* Mesa estimates only for swapchains with present timing (present_timing.active). */
		if (m->timing_enabled && refresh > 0)
			vd_x11_estimate_complete(&m->x11, &m->refresh, (uint64_t)refresh,
			                         (uint64_t)reported_ns / 1000, nominal);
		break;
	case VD_REFRESH_WAYLAND: vd_refresh_update(&m->refresh, nominal, 0, 0); break;
	case VD_REFRESH_XWAYLAND: vd_refresh_update(&m->refresh, nominal, 0, 0); break;
	case VD_REFRESH_NOT_READY:
		if (!m->refresh.counter)
			m->refresh.counter = 1;
		break;
	default: break;
	}
}

void vd_model_refresh(const struct vd_model *m, uint64_t *duration, uint64_t *interval)
{
	*duration = m->refresh.duration;
	*interval = m->refresh.interval;
	/* The spec profile: VK_NOT_READY, or zeros, until the first image reached the screen. */
	if (m->profile->refresh == VD_REFRESH_NOT_READY && !m->refresh.counter)
		*duration = *interval = 0;
}

enum vd_target_use vd_model_target(const struct vd_model *m, bool relative, bool nearest, int64_t target,
                                   struct vd_request *req)
{
	const struct vd_profile *p = m->profile;
	int64_t period = (int64_t)vd_model_period_ns(m);

	if (relative ? !p->relative : !p->absolute)
		return VD_TARGET_UNOFFERED;
	/* Mesa's XWayland path leaves a relative target of up to a refresh (1.5 with NEAREST) to FIFO
	 * (x11_present_compute_target_msc without a reliable MSC). */
	if (relative && p->relative_floor && target <= (nearest ? 3 * period / 2 : period))
		return VD_TARGET_TO_FIFO;
	if (!relative && p->target_msc && !m->vrr_min_mhz) {
		/* Mesa on native X11 with a steady refresh estimate: the target is the MSC of the first
		 * refresh at or after it (after it less half a refresh with NEAREST), and the X server
		 * presents at that refresh, in FIFO_RELAXED and IMMEDIATE too (README, [M11]). */
		int64_t at = nearest ? target - period / 2 : target;
		int64_t k = vd_refresh_at(m->rate_mhz, at);
		if (vd_refresh_start_ns(m->rate_mhz, k) < at)
			k++;
		target = vd_refresh_start_ns(m->rate_mhz, k);
		nearest = false;
	}
	req->target_kind = relative ? VD_TARGET_RELATIVE : VD_TARGET_ABSOLUTE;
	req->target_ns = target;
	req->nearest = nearest;
	if (p->eager_max_ns && !nearest)
		req->early_ns = period / 4 < p->eager_max_ns ? period / 4 : p->eager_max_ns;
	return VD_TARGET_TAKEN;
}
