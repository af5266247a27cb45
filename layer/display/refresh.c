/* refresh.c — the refresh sources: choosing one from LOWLAT_REFRESH_SOURCE, and the fixed (ideal)
 * source; see refresh.h. The DRM source itself is refresh_drm.c, the pure part brain/grid.c. */
#include "refresh.h"

#include <stdio.h>
#include <string.h>

#include "number.h"
#include "refresh_drm.h"

/* Rates the fixed source takes, in mHz: the virtual display's range (1 to 1000 Hz). */
#define FIXED_RATE_MIN_MHZ 1000ll
#define FIXED_RATE_MAX_MHZ 1000000ll

/* "fixed:HZ": the ideal display. */
static bool fixed_open(struct lowlat_refresh_source *s, const char *hz_text, char *why, size_t why_size)
{
	char *end;
	double hz = lowlat_strtod_c(hz_text, &end);
	int64_t rate_mhz = (int64_t)(hz * 1000 + 0.5);

	if (end == hz_text || *end || !(hz == hz) || rate_mhz < FIXED_RATE_MIN_MHZ ||
	    rate_mhz > FIXED_RATE_MAX_MHZ) {
		snprintf(why, why_size, "LOWLAT_REFRESH_SOURCE=fixed:%s is not a rate of 1 to 1000 Hz",
		         hz_text);
		return false;
	}
	s->kind = LOWLAT_REFRESH_FIXED;
	s->rate_mhz = rate_mhz;
	snprintf(s->name, sizeof(s->name), "LOWLAT_REFRESH_SOURCE fixed, %.3f Hz from time 0",
	         (double)rate_mhz / 1000);
	return true;
}

bool lowlat_refresh_open(struct lowlat_refresh_source *s, const char *spec, char *why, size_t why_size)
{
	*s = (struct lowlat_refresh_source){.kind = LOWLAT_REFRESH_NONE, .drm.fd = -1};
	if (!spec || !*spec || !strcmp(spec, "drm") || (!strncmp(spec, "drm:", 4) && spec[4])) {
		const char *dir = spec && !strncmp(spec, "drm:", 4) ? spec + 4 : "/dev/dri";
		if (!lowlat_drm_open(&s->drm, dir, s->name, sizeof(s->name), why, why_size))
			return false;
		s->kind = LOWLAT_REFRESH_DRM;
		return true;
	}
	if (!strncmp(spec, "fixed:", 6))
		return fixed_open(s, spec + 6, why, why_size);
	if (!strcmp(spec, "none"))
		snprintf(why, why_size, "LOWLAT_REFRESH_SOURCE=none");
	else
		snprintf(why, why_size, "LOWLAT_REFRESH_SOURCE=%s is none of drm, drm:DIR, fixed:HZ, none",
		         spec);
	return false;
}

bool lowlat_refresh_read(struct lowlat_refresh_source *s, int64_t now_ns, struct lowlat_refresh_sample *out)
{
	switch (s->kind) {
	case LOWLAT_REFRESH_DRM: return lowlat_drm_read(&s->drm, out);
	case LOWLAT_REFRESH_FIXED:
		if (now_ns < 0)
			return false;
		out->period_ns = lowlat_rate_period_ns(s->rate_mhz);
		out->vblank_ns = lowlat_fixed_vblank_ns(s->rate_mhz, now_ns, &out->sequence);
		return true;
	case LOWLAT_REFRESH_NONE: break;
	}
	return false;
}

void lowlat_refresh_close(struct lowlat_refresh_source *s)
{
	if (s->kind == LOWLAT_REFRESH_DRM)
		lowlat_drm_close(&s->drm);
	s->kind = LOWLAT_REFRESH_NONE;
}
