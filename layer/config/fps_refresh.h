/* fps_refresh.h — a cap given as a share of the display's refresh rate: "refresh", "refresh/N"
 * (every Nth refresh) and "refresh-N" (N frames per second under it, so a variable-refresh display
 * stays inside its range). The text as the config takes it, and the cap it comes to once a
 * swapchain knows its display's rate. Pure: no Vulkan, no clock (tests/unit/test_fps_refresh.c).
 */
#ifndef LOWLAT_FPS_REFRESH_H
#define LOWLAT_FPS_REFRESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lowlat_config.h"

/* "refresh/N" takes whole N only: those are the caps whose frames each stay N refreshes on a
 * fixed-rate display. 100 is far past any use (540 Hz / 100 = 5.4 fps). */
#define LOWLAT_FPS_DIVISOR_MAX 100
/* "refresh-N": N from 0 to the largest cap, in frames per second (decimals allowed). */
#define LOWLAT_FPS_MINUS_MAX LOWLAT_FPS_MAX

/* The rate taken when a swapchain's display never says its own (the "cpu" pacing level): 60 Hz,
 * the slowest common display, so a share of it never caps above what the player asked for on a
 * faster one. In ns, rounded. */
#define LOWLAT_FPS_ASSUMED_REFRESH_NS 16666667ll /* 60 Hz */

/* Whether `text` is meant as a refresh form: it starts with "refresh" (any case). */
bool lowlat_fps_refresh_form(const char *text);

/* Reads a refresh form into *base and *n. Returns NULL when valid, else what is wrong with it, to
 * follow the value in a message ("is not \"refresh\", \"refresh/N\" or ..."). */
const char *lowlat_fps_refresh_parse(const char *text, enum lowlat_fps_base *base, double *n);

/* The cap as the config holds it, for messages and `status`: "60", "0 (off)" when `off_note`,
 * "refresh", "refresh/2", "refresh-3", "refresh-2.5". */
void lowlat_fps_describe(const struct lowlat_config *cfg, bool off_note, char *dst, size_t size);

/* Whether two configs ask for the same cap. */
bool lowlat_fps_equal(const struct lowlat_config *a, const struct lowlat_config *b);

/* The cap in frames per second that cfg's fps comes to on a display refreshing every refresh_ns
 * (the shortest refresh of a variable-rate one); 0 = off, also when a share of the refresh comes
 * under 1 fps; at most LOWLAT_FPS_MAX. refresh_ns <= 0 for a display whose rate is unknown: the
 * cap is then taken from LOWLAT_FPS_ASSUMED_REFRESH_NS. An absolute cap ignores the display. */
double lowlat_fps_resolve(const struct lowlat_config *cfg, int64_t refresh_ns);

/* The rate of a refresh in Hz, for messages: 120, 59.94, 143.912 (to 0.001 Hz). */
double lowlat_refresh_hz(int64_t refresh_ns);

#endif
