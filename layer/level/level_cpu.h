/* level_cpu.h — the "cpu" pacing level and the CPU grid every level falls back to (level_cpu.c). */
#ifndef LOWLAT_LEVEL_CPU_H
#define LOWLAT_LEVEL_CPU_H

#include <stdint.h>

struct lowlat_frame;
struct lowlat_swapchain;

/* The CPU grid: the present's release on it (f->grid false), and, after the call's wait, a release
 * that woke late (begin_ns: when the wait began) moves that grid (pace.h, lowlat_pacer_released). */
void lowlat_cpu_plan(struct lowlat_frame *f, int64_t now_ns);
void lowlat_cpu_woke(struct lowlat_swapchain *sc, int64_t deadline_ns, int64_t begin_ns, int64_t end_ns);

#endif
