/* refresh_drm.h — the DRM refresh source (refresh_drm.c), behind refresh.h's lowlat_refresh_open.
 *
 * Built only with libdrm's headers (meson option `drm`, auto: on when found); without them these are
 * static-inline stubs saying so, so the "drm" pacing level is compiled out with that reason and
 * callers carry no #ifdef.
 */
#ifndef LOWLAT_REFRESH_DRM_H
#define LOWLAT_REFRESH_DRM_H

#include <stdio.h>

#include "refresh.h"

#if LOWLAT_HAVE_DRM

/* Opens the primary nodes dir/card*, picks the active CRTC to follow (refresh_drm.c says which
 * when there are several) and keeps that node open in s. false, with why, when none answers. */
bool lowlat_drm_open(struct lowlat_refresh_source *s, const char *dir, char *why, size_t why_size);

/* The CRTC's latest vblank: one non-blocking ioctl. false when the CRTC is off or gone. */
bool lowlat_drm_read(struct lowlat_refresh_source *s, struct lowlat_refresh_sample *out);

void lowlat_drm_close(struct lowlat_refresh_source *s);

#else

static inline bool lowlat_drm_open(struct lowlat_refresh_source *s, const char *dir, char *why,
                                   size_t why_size)
{
	(void)s;
	(void)dir;
	snprintf(why, why_size, "lowlat was built without libdrm");
	return false;
}
static inline bool lowlat_drm_read(struct lowlat_refresh_source *s, struct lowlat_refresh_sample *out)
{
	(void)s;
	(void)out;
	return false;
}
static inline void lowlat_drm_close(struct lowlat_refresh_source *s)
{
	(void)s;
}

#endif

#endif
