/* live.c — the swapchains `lowlat status` shows; see live.h. */
#include "live.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fps_refresh.h"

static struct lowlat_live slots[LOWLAT_LIVE_SLOTS];

struct lowlat_live *lowlat_live_claim(uint32_t width, uint32_t height)
{
	for (unsigned i = 0; i < LOWLAT_LIVE_SLOTS; i++) {
		struct lowlat_live *l = &slots[i];
		bool expected = false;

		if (!atomic_compare_exchange_strong(&l->used, &expected, true))
			continue;
		atomic_store(&l->width, width);
		atomic_store(&l->height, height);
		atomic_store(&l->mfps, 0);
		atomic_store(&l->level, (const char *)NULL);
		atomic_store(&l->window_mhz, 0);
		atomic_store(&l->last_present_ns, 0);
		atomic_store(&l->presents, 0);
		atomic_store(&l->latency_count, 0);
		atomic_store(&l->latency_next, 0);
		l->window_start_ns = 0;
		l->window_presents = 0;
		return l;
	}
	return NULL;
}

void lowlat_live_release(struct lowlat_live *live)
{
	if (live)
		atomic_store(&live->used, false);
}

static uint32_t milli(double v)
{
	return v > 0 && v < 4e6 ? (uint32_t)(v * 1000 + 0.5) : 0;
}

void lowlat_live_cap(struct lowlat_live *live, uint32_t mfps, const struct lowlat_config *cfg,
                     const char *level)
{
	if (!live)
		return;
	atomic_store_explicit(&live->mfps, mfps, memory_order_relaxed);
	atomic_store_explicit(&live->fps_base, (int)cfg->fps_base, memory_order_relaxed);
	atomic_store_explicit(&live->fps_milli, milli(cfg->fps), memory_order_relaxed);
	atomic_store_explicit(&live->n_milli, milli(cfg->fps_n), memory_order_relaxed);
	atomic_store_explicit(&live->level, level, memory_order_relaxed);
}

void lowlat_live_present(struct lowlat_live *live, int64_t t_ns)
{
	if (!live)
		return;
	atomic_store_explicit(&live->last_present_ns, t_ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&live->presents, 1, memory_order_relaxed);
	if (!live->window_start_ns) {
		live->window_start_ns = t_ns;
		live->window_presents = 0;
		return;
	}
	live->window_presents++;
	if (t_ns - live->window_start_ns < LOWLAT_LIVE_WINDOW_NS)
		return;
	/* n presents after the window's first span n intervals. */
	atomic_store_explicit(
	        &live->window_mhz,
	        (uint32_t)((double)live->window_presents * 1e12 / (double)(t_ns - live->window_start_ns) +
	                   0.5),
	        memory_order_relaxed);
	live->window_start_ns = t_ns;
	live->window_presents = 0;
}

void lowlat_live_latency(struct lowlat_live *live, const int64_t parts_ns[LOWLAT_LIVE_PARTS],
                         const char *display_until)
{
	if (!live || parts_ns[LOWLAT_LIVE_TOTAL] <= 0)
		return;
	/* One writer (the presenting thread, which reads the display's reports): no race on next. */
	uint32_t next = atomic_load_explicit(&live->latency_next, memory_order_relaxed);
	for (int p = 0; p < LOWLAT_LIVE_PARTS; p++)
		atomic_store_explicit(&live->latency_ns[p][next], parts_ns[p], memory_order_relaxed);
	atomic_store_explicit(&live->display_until, display_until, memory_order_relaxed);
	atomic_store_explicit(&live->latency_next, (next + 1) % LOWLAT_LIVE_LATENCIES, memory_order_relaxed);
	if (atomic_load_explicit(&live->latency_count, memory_order_relaxed) < LOWLAT_LIVE_LATENCIES)
		atomic_fetch_add_explicit(&live->latency_count, 1, memory_order_relaxed);
}

static int compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The p50 and p99 of one part over the kept samples where it is known (nearest rank); false for none. */
static bool part_percentiles(struct lowlat_live *l, int part, double *p50_ms, double *p99_ms)
{
	int64_t sorted[LOWLAT_LIVE_LATENCIES];
	uint32_t n = atomic_load_explicit(&l->latency_count, memory_order_relaxed), known = 0;

	if (n > LOWLAT_LIVE_LATENCIES)
		n = LOWLAT_LIVE_LATENCIES;
	for (uint32_t i = 0; i < n; i++) {
		int64_t v = atomic_load_explicit(&l->latency_ns[part][i], memory_order_relaxed);
		if (v >= 0)
			sorted[known++] = v;
	}
	if (!known)
		return false;
	qsort(sorted, known, sizeof(sorted[0]), compare_i64);
	*p50_ms = (double)sorted[(known - 1) / 2] * 1e-6;
	*p99_ms = (double)sorted[(uint32_t)ceil(known * 0.99) - 1] * 1e-6;
	return true;
}

/* "p50_ms=3.40 p99_ms=5.21 game_ms=0.80/1.10 gpu_ms=-/- display_ms=2.20/3.50 until=out" from the
 * kept samples, "-" where unknown. */
static void latency_text(struct lowlat_live *l, char *dst, size_t size)
{
	static const char *const names[LOWLAT_LIVE_PARTS] = {"", "game", "gpu", "display"};
	const char *until = atomic_load_explicit(&l->display_until, memory_order_relaxed);
	double p50, p99;
	size_t len;

	if (part_percentiles(l, LOWLAT_LIVE_TOTAL, &p50, &p99))
		len = (size_t)snprintf(dst, size, "p50_ms=%.2f p99_ms=%.2f", p50, p99);
	else
		len = (size_t)snprintf(dst, size, "p50_ms=- p99_ms=-");
	for (int p = LOWLAT_LIVE_GAME; p < LOWLAT_LIVE_PARTS && len < size; p++) {
		if (part_percentiles(l, p, &p50, &p99))
			len += (size_t)snprintf(dst + len, size - len, " %s_ms=%.2f/%.2f", names[p], p50,
			                        p99);
		else
			len += (size_t)snprintf(dst + len, size - len, " %s_ms=-/-", names[p]);
	}
	if (len < size)
		snprintf(dst + len, size - len, " until=%s", until ? until : "-");
}

void lowlat_live_describe(char *dst, size_t size, int64_t now_ns)
{
	int64_t last = 0;
	size_t len;

	for (unsigned i = 0; i < LOWLAT_LIVE_SLOTS; i++) {
		int64_t t = atomic_load_explicit(&slots[i].last_present_ns, memory_order_relaxed);
		if (atomic_load(&slots[i].used) && t > last)
			last = t;
	}
	len = (size_t)snprintf(dst, size, "ok stats now_ns=%lld last_present_ns=%lld", (long long)now_ns,
	                       (long long)last);
	for (unsigned i = 0; i < LOWLAT_LIVE_SLOTS && len < size; i++) {
		struct lowlat_live *l = &slots[i];
		struct lowlat_config cfg;
		char spec[48], latency[160];
		const char *level;
		int64_t t;
		int n;

		if (!atomic_load(&l->used))
			continue;
		lowlat_config_defaults(&cfg);
		cfg.fps_base = (enum lowlat_fps_base)atomic_load_explicit(&l->fps_base, memory_order_relaxed);
		cfg.fps = atomic_load_explicit(&l->fps_milli, memory_order_relaxed) / 1000.0;
		cfg.fps_n = atomic_load_explicit(&l->n_milli, memory_order_relaxed) / 1000.0;
		lowlat_fps_describe(&cfg, false, spec, sizeof(spec));
		latency_text(l, latency, sizeof(latency));
		level = atomic_load_explicit(&l->level, memory_order_relaxed);
		t = atomic_load_explicit(&l->last_present_ns, memory_order_relaxed);
		n = snprintf(dst + len, size - len,
		             "; %ux%u cap=%.3f spec=%s level=%s fps=%.2f %s presents=%llu",
		             atomic_load_explicit(&l->width, memory_order_relaxed),
		             atomic_load_explicit(&l->height, memory_order_relaxed),
		             atomic_load_explicit(&l->mfps, memory_order_relaxed) / 1000.0, spec,
		             level ? level : "-",
		             t && now_ns - t < LOWLAT_LIVE_IDLE_NS
		                     ? atomic_load_explicit(&l->window_mhz, memory_order_relaxed) / 1000.0
		                     : 0.0,
		             latency,
		             (unsigned long long)atomic_load_explicit(&l->presents, memory_order_relaxed));
		if (n < 0 || (size_t)n >= size - len) {
			/* Cut at a whole swapchain. */
			dst[len] = '\0';
			break;
		}
		len += (size_t)n;
	}
}
