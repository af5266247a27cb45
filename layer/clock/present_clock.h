/* present_clock.h — a swapchain's present-timing clocks against CLOCK_MONOTONIC.
 *
 * VK_EXT_present_timing reports stage times, and takes absolute targets, in a time domain of the
 * swapchain's. Every implementation offers PRESENT_STAGE_LOCAL (the spec requires it; Mesa and
 * Arm's layer offer nothing else), where each stage may run on a clock of its own: Mesa's
 * QUEUE_OPERATIONS_END is the GPU's, its pixel stages the compositor's. lowlat keeps one offset per
 * stage, calibrated with vkGetCalibratedTimestampsKHR against CLOCK_MONOTONIC (present_timing.c),
 * and converts each reported time to CLOCK_MONOTONIC and each target back. A clock may drift (tens
 * of ppm is ordinary for a crystal), so the offsets are calibrated again every
 * LOWLAT_CLOCK_CALIBRATE_NS and whenever the swapchain's time domains change, and each stage's
 * rate against CLOCK_MONOTONIC is taken from its last two calibrations: between them a time is
 * converted to within a microsecond, where an offset alone would be off by the drift since the
 * last one. Pure C, no Vulkan calls: unit-tested in tests/unit/test_present_clock.c.
 */
#ifndef LOWLAT_PRESENT_CLOCK_H
#define LOWLAT_PRESENT_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* The four present stages (VkPresentStageFlagBitsEXT, bits 0-3). */
#define LOWLAT_STAGES 4

/* How often the offsets are calibrated again: a clock 100 ppm off CLOCK_MONOTONIC drifts 25 us in
 * that time, a few percent of the release margin at 540 Hz; a calibration costs one driver call. */
#define LOWLAT_CLOCK_CALIBRATE_NS 250000000ll /* 250 ms */

/* The most a stage clock's rate may differ from CLOCK_MONOTONIC's, in parts per billion: a rate
 * measured beyond it (a calibration off by a stall) is not used. 1000 ppm. */
#define LOWLAT_CLOCK_DRIFT_MAX_PPB 1000000ll

/* A calibration whose readings lay further apart than this (the call was preempted between them)
 * is taken again: its offset would be off by as much. */
#define LOWLAT_CLOCK_DEVIATION_MAX_NS 100000ll /* 100 us */

struct lowlat_stage_clocks {
	bool monotonic;                   /* the domain is CLOCK_MONOTONIC itself: nothing to convert */
	uint32_t calibrated;              /* VkPresentStageFlagsEXT with a known offset */
	int64_t offset_ns[LOWLAT_STAGES]; /* stage clock minus CLOCK_MONOTONIC at at_ns */
	int64_t at_ns[LOWLAT_STAGES];     /* CLOCK_MONOTONIC of that stage's latest calibration */
	int64_t drift_ppb[LOWLAT_STAGES]; /* its rate against CLOCK_MONOTONIC, less one, in ppb */
	int64_t calibrated_ns;            /* CLOCK_MONOTONIC of the latest calibration, 0: none */
};

/* The stage's index (0-3) for one VkPresentStageFlagBitsEXT bit, -1 for anything else. */
int lowlat_stage_index(uint32_t stage);

/* A stage clock reading and a CLOCK_MONOTONIC reading taken together: the stage's offset. */
void lowlat_clock_note(struct lowlat_stage_clocks *c, uint32_t stage, int64_t stage_ns, int64_t monotonic_ns);

/* A reported time of the stage on CLOCK_MONOTONIC, and a CLOCK_MONOTONIC time on the stage's clock;
 * 0 where the stage has no offset yet (the report is then not used). */
int64_t lowlat_clock_to_monotonic(const struct lowlat_stage_clocks *c, uint32_t stage, int64_t stage_ns);
int64_t lowlat_clock_from_monotonic(const struct lowlat_stage_clocks *c, uint32_t stage,
                                    int64_t monotonic_ns);

/* Whether the offsets are due for calibration at now_ns. */
bool lowlat_clock_due(const struct lowlat_stage_clocks *c, int64_t now_ns);

#endif
