/* vd_log.h — the truth log: what the virtual display really showed, as CSV for the tests.
 *
 * Path from LOWLAT_VDISPLAY_LOG; no variable, no log. One file per process, every swapchain in it.
 * Columns (times in ns on CLOCK_MONOTONIC, 0 when not applicable):
 *   swapchain  the swapchain's number in this process, from 1
 *   event      shown | replaced | skipped | repeat | unshown
 *              shown:    the request latched; time = first pixel out (its refresh's start, or the
 *                        tear time for IMMEDIATE / late FIFO_RELAXED)
 *              replaced: MAILBOX, a newer request replaced it; time = when
 *              skipped:  FIFO_LATEST_READY, dequeued with a newer one and dropped; time = the vblank
 *              repeat:   refresh `refresh` scanned out the image already shown (`seq` is that request)
 *              unshown:  still queued when the swapchain was destroyed
 *   seq        the request's number in its swapchain, from 1, in queue order
 *   present_id the app's present id or 0
 *   image, mode, queued_ns, ready_ns, target_ns (resolved absolute target or 0)
 *   refresh    the refresh index (refresh k starts at k * 1e12 / rate_mhz ns)
 *   time_ns, by (seq of the request that replaced or outran it), rate_mhz (the maximum with VRR),
 *   vrr_min_mhz (0 on a fixed-rate display; with VRR refresh indices just count refreshes)
 */
#ifndef VD_LOG_H
#define VD_LOG_H

#include <stdint.h>

#include "scanout.h"

void vd_log_event(uint32_t swapchain, int64_t rate_mhz, int64_t vrr_min_mhz, const char *event,
                  const struct vd_event *ev);
void vd_log_flush(void);

#endif
