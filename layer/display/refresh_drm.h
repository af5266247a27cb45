/* refresh_drm.h — the DRM refresh source (refresh_drm.c), behind refresh.h's lowlat_refresh_open.
 *
 * Built only with libdrm's headers (meson option `drm`, auto: on when found); without them these are
 * static-inline stubs saying so, so the "drm" pacing level is compiled out with that reason and
 * callers carry no #ifdef.
 */
#ifndef LOWLAT_REFRESH_DRM_H
#define LOWLAT_REFRESH_DRM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "brain/grid.h"

/* The DRM source: the open primary node, the CRTC chosen, its mode's period, and how long before
 * the kernel's vblank timestamp (the end of vertical blanking, the first line's scan-out) a flip
 * latches (at its start): the vertical blanking, (vtotal - vdisplay) lines. */
struct lowlat_drm_source {
	int fd;
	uint32_t crtc_id, crtc_index;
	int64_t mode_period_ns, blanking_ns;
};

#if LOWLAT_HAVE_DRM

/* Opens the primary nodes dir/card*, picks the active CRTC to follow (refresh_drm.c says which
 * when there are several) and keeps that node open in d, naming it in name. false, with why, when
 * none answers. */
bool lowlat_drm_open(struct lowlat_drm_source *d, const char *dir, char *name, size_t name_size, char *why,
                     size_t why_size);

/* The CRTC's latest vblank: one non-blocking ioctl. false when the CRTC is off or gone. */
bool lowlat_drm_read(struct lowlat_drm_source *d, struct lowlat_refresh_sample *out);

void lowlat_drm_close(struct lowlat_drm_source *d);

#else

static inline bool lowlat_drm_open(struct lowlat_drm_source *d, const char *dir, char *name, size_t name_size,
                                   char *why, size_t why_size)
{
	(void)d;
	(void)dir;
	(void)name;
	(void)name_size;
	snprintf(why, why_size, "lowlat was built without libdrm");
	return false;
}
static inline bool lowlat_drm_read(struct lowlat_drm_source *d, struct lowlat_refresh_sample *out)
{
	(void)d;
	(void)out;
	return false;
}
static inline void lowlat_drm_close(struct lowlat_drm_source *d)
{
	(void)d;
}

#endif

#endif
