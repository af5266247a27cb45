/* level_drm.h — the "drm" pacing level: a swapchain without VK_EXT_present_timing paced on the
 * screen's refresh clock from a refresh source (refresh.h), planned with pace_grid.h.
 *
 * The rule is the "timing" level's (pace_display.h) without display targets: a cap at or near
 * refresh/n releases the app every n refreshes, a lead before the refresh its frame is meant for,
 * so the frame is presented just before that vblank and latches on it with no queue; other caps
 * keep the time grid, each release moved to the lead before the first refresh at or after its
 * time-grid point. The lead is a high percentile of measured release-to-ready times
 * (lowlat_display_lead_ns, the same window as "timing") plus LOWLAT_REFRESH_MARGIN_DIVISOR of a
 * refresh. A frame is ready at its present's entry or, where the present is the wait point, when
 * its GPU work is done if that is later (ready_fence.h: the present's wait waits on a fence
 * first). Only the late method, and only in FIFO, FIFO_RELAXED, FIFO_LATEST_READY and MAILBOX
 * presents (an IMMEDIATE present is shown at once, whatever the phase).
 *
 * Where the app's wait point is away from the present (its present wait on another thread, its
 * latency sleep or anti-lag input call on the game thread), each present plans the releases of
 * the next two frames, as on the "timing" level, and the wait point's claims give each frame the
 * release of its own vblank (pace_display.h); the lead is then measured from the claim's end.
 */
#ifndef LOWLAT_LEVEL_DRM_H
#define LOWLAT_LEVEL_DRM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "level_drm_state.h"

/* The margin over the predicted release-to-ready time: a third of a refresh (2.78 ms at 120 Hz).
 * Besides the wake-up error it covers what this level cannot measure: the compositor's latch, and
 * the frame's GPU work after its present where no fence could be read (a wait point away from the
 * present); there a quarter refresh let 11-21% of vkcube's frames at 60 fps miss their vblank on
 * the virtual display. */
#define LOWLAT_REFRESH_MARGIN_DIVISOR 3

/* How often the grid's phase is read again from the source: each second (one non-blocking ioctl).
 * A screen's pixel clock runs off CLOCK_MONOTONIC by up to ~100 ppm, so the phase drifts up to
 * 0.1 ms a second against the mode's period, under a tenth of the margin at 120 Hz. */
#define LOWLAT_REFRESH_RESAMPLE_NS 1000000000ll /* 1 s */

/* Retry interval while the grid is unknown (the source did not answer, or its latest vblank was
 * off the grid): a tenth of a second, so a mode change is followed quickly. */
#define LOWLAT_REFRESH_RETRY_NS 100000000ll /* 100 ms */

struct lowlat_swapchain;

/* At swapchain creation, when it has no present timing: opens the refresh source that
 * LOWLAT_REFRESH_SOURCE names (the DRM CRTC by default) and reads a first vblank. true: the
 * swapchain is on level "drm", named in name; false: why not, in why. */
bool lowlat_refresh_swapchain_init(struct lowlat_swapchain *sc, char *why, size_t why_size);

void lowlat_refresh_swapchain_fini(struct lowlat_swapchain *sc);

#endif
