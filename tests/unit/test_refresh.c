/* test_refresh — the refresh sources' pure part (layer/display/refresh.c): a mode's period, the ideal
 * display's grid, which lit screen the DRM source follows, the grid kept from vblank samples, and
 * which source LOWLAT_REFRESH_SOURCE names.
 * Built twice: without libdrm (the DRM source compiled out), and with refresh_drm.c (argv[1] =
 * "drm"), where it checks the DRM source's answers on machines without a screen. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "refresh.h"

#define US 1000ll    /* ns */
#define MS 1000000ll /* ns */

static void mode_period(void)
{
	/* CEA 1080p60: 148.5 MHz, 2200 x 1125: 16.666667 ms, not the rounded vrefresh's. */
	CHECK_EQ_I64(lowlat_mode_period_ns(148500, 2200, 1125, false, false, 0), 16666667);
	/* 1080p59.94 (148.352 MHz): 59.94 Hz, which drm_mode_vrefresh reports as 60. */
	CHECK_EQ_I64(lowlat_mode_period_ns(148352, 2200, 1125, false, false, 0), 16683294);
	/* 1080i: a vblank per field, half the frame's pixels. */
	CHECK_EQ_I64(lowlat_mode_period_ns(74250, 2200, 1125, true, false, 0), 16666667);
	/* 640x480 double-scanned: twice the lines. */
	CHECK_EQ_I64(lowlat_mode_period_ns(25175, 800, 525, false, true, 0), 33366435);
	/* vscan 2 counts like double scan; 1 and 0 do nothing. */
	CHECK_EQ_I64(lowlat_mode_period_ns(25175, 800, 525, false, false, 2), 33366435);
	CHECK_EQ_I64(lowlat_mode_period_ns(25175, 800, 525, false, false, 1),
	             lowlat_mode_period_ns(25175, 800, 525, false, false, 0));
	/* A 144 Hz panel mode (592 MHz, 2720 x 1525). */
	CHECK_EQ_I64(lowlat_mode_period_ns(592000, 2720, 1525, false, false, 0), 7006757);
	/* No timings, no period. */
	CHECK_EQ_I64(lowlat_mode_period_ns(0, 2200, 1125, false, false, 0), 0);
	CHECK_EQ_I64(lowlat_mode_period_ns(148500, 0, 1125, false, false, 0), 0);
	/* The largest timings DRM can carry do not overflow: 65535^2 pixels, double scan, vscan 255. */
	CHECK(lowlat_mode_period_ns(1, 65535, 65535, false, true, 255) > 0);
}

static void fixed_grid(void)
{
	uint64_t k;

	/* The virtual display's grid, floor(k * 1e12 / rate), against Python's exact integers. */
	CHECK_EQ_I64(lowlat_fixed_vblank_ns(120000, 1000000000012345ll, &k), 1000000000000000ll);
	CHECK_EQ_I64((int64_t)k, 120000000);
	CHECK_EQ_I64(lowlat_fixed_vblank_ns(59940, 123456789012345ll, &k), 123456773440106ll);
	CHECK_EQ_I64((int64_t)k, 7399999);
	CHECK_EQ_I64(lowlat_fixed_vblank_ns(1000000, 500000000000000000ll, &k), 500000000000000000ll);
	CHECK_EQ_I64((int64_t)k, 500000000000ll);
	/* At a refresh's start that refresh, a ns before it the one before. */
	int64_t start = lowlat_fixed_vblank_ns(144000, 3600 * 1000 * MS, &k);
	CHECK_EQ_I64(lowlat_fixed_vblank_ns(144000, start, NULL), start);
	uint64_t k2;
	int64_t before = lowlat_fixed_vblank_ns(144000, start - 1, &k2);
	CHECK_EQ_I64((int64_t)(k - k2), 1);
	CHECK(start - before >= 6944444 && start - before <= 6944445);
	CHECK_EQ_I64(lowlat_fixed_vblank_ns(60000, 0, &k), 0);
	CHECK_EQ_I64((int64_t)k, 0);
}

static void choose(void)
{
	/* One screen: that one. Two: the faster (144 Hz beside 60 Hz), in either order; equals: the
	 * first; a variable-refresh one never; none fixed: none. */
	CHECK_EQ_I64(lowlat_refresh_choose((int64_t[]){16666667}, (bool[]){false}, 1), 0);
	CHECK_EQ_I64(lowlat_refresh_choose((int64_t[]){16666667, 6944444}, (bool[]){false, false}, 2), 1);
	CHECK_EQ_I64(lowlat_refresh_choose((int64_t[]){6944444, 16666667}, (bool[]){false, false}, 2), 0);
	CHECK_EQ_I64(lowlat_refresh_choose((int64_t[]){8333333, 8333333}, (bool[]){false, false}, 2), 0);
	CHECK_EQ_I64(lowlat_refresh_choose((int64_t[]){6944444, 16666667}, (bool[]){true, false}, 2), 1);
	CHECK_EQ_I64(lowlat_refresh_choose((int64_t[]){6944444}, (bool[]){true}, 1), -1);
	CHECK_EQ_I64(lowlat_refresh_choose(NULL, NULL, 0), -1);
}

static struct lowlat_refresh_sample sample(int64_t period, int64_t vblank, uint64_t seq)
{
	return (struct lowlat_refresh_sample){.period_ns = period, .vblank_ns = vblank, .sequence = seq};
}

static void grid_samples(void)
{
	const int64_t p = 8333333; /* 120 Hz */
	struct lowlat_refresh_grid g = {0};
	struct lowlat_refresh_sample s;

	s = sample(p, 1000 * MS, 500);
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &s), LOWLAT_REFRESH_UPDATE_FIRST);
	CHECK(g.known);
	CHECK_EQ_I64(g.vblank_ns, 1000 * MS);
	/* 120 refreshes later, 40 us of drift (a clock 5 ppm off): on the grid, the phase moves. */
	s = sample(p, 1000 * MS + 120 * p + 40 * US, 620);
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &s), LOWLAT_REFRESH_UPDATE_OK);
	CHECK(g.known);
	CHECK_EQ_I64(g.vblank_ns, 1000 * MS + 120 * p + 40 * US);
	/* The same vblank read twice. */
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &s), LOWLAT_REFRESH_UPDATE_OK);
	/* Variable refresh: the vblanks follow a 60 fps game, 120 of them take 2 s: off the grid. */
	int64_t t = g.vblank_ns;
	s = sample(p, t + 2000 * MS, 740);
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &s), LOWLAT_REFRESH_UPDATE_MOVED);
	CHECK(!g.known);
	/* Two readings in a row that agree: the grid again, from the newest. */
	s = sample(p, t + 2000 * MS + 60 * p, 800);
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &s), LOWLAT_REFRESH_UPDATE_OK);
	CHECK(g.known);
	/* A phase jump of 2 ms within a second (a mode set to the same mode): off the grid. */
	t = g.vblank_ns;
	s = sample(p, t + 120 * p + 2 * MS, 920);
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &s), LOWLAT_REFRESH_UPDATE_MOVED);
	/* A new mode (60 Hz): off the grid at first, then its own. */
	t = g.vblank_ns;
	s = sample(16666667, t + 5 * MS, 921);
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &s), LOWLAT_REFRESH_UPDATE_MOVED);
	s = sample(16666667, t + 5 * MS + 60 * 16666667ll, 981);
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &s), LOWLAT_REFRESH_UPDATE_OK);
	CHECK_EQ_I64(g.period_ns, 16666667);
	/* A counter that went backwards: off the grid. */
	s = sample(16666667, g.vblank_ns + 16666667, 10);
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &s), LOWLAT_REFRESH_UPDATE_MOVED);
	/* No period (a source that cannot tell): nothing known, and the next sample starts afresh. */
	s = sample(0, g.vblank_ns, 11);
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &s), LOWLAT_REFRESH_UPDATE_NONE);
	CHECK(!g.known && !g.sampled);
	s = sample(p, 5000 * MS, 1);
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &s), LOWLAT_REFRESH_UPDATE_FIRST);
}

static void fixed_source(void)
{
	struct lowlat_refresh_source s;
	struct lowlat_refresh_sample a, b;
	struct lowlat_refresh_grid g = {0};
	char why[192];

	CHECK(lowlat_refresh_open(&s, "fixed:120", why, sizeof(why)));
	CHECK_EQ_I64(s.kind, LOWLAT_REFRESH_FIXED);
	CHECK_STR(s.name, "LOWLAT_REFRESH_SOURCE fixed, 120.000 Hz from time 0");
	CHECK(lowlat_refresh_read(&s, 7 * 1000 * MS + 3 * MS, &a));
	CHECK_EQ_I64(a.period_ns, 8333333);
	CHECK_EQ_I64(a.vblank_ns, 7 * 1000 * MS);
	CHECK_EQ_I64((int64_t)a.sequence, 840);
	/* Read again a second later, as the level does: on the grid, the rounded period's drift
	 * (1/3 ns a refresh) well inside it. */
	CHECK(lowlat_refresh_read(&s, 8 * 1000 * MS + 3 * MS, &b));
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &a), LOWLAT_REFRESH_UPDATE_FIRST);
	CHECK_EQ_I64(lowlat_refresh_grid_note(&g, &b), LOWLAT_REFRESH_UPDATE_OK);
	lowlat_refresh_close(&s);
	CHECK(lowlat_refresh_open(&s, "fixed:59.94", why, sizeof(why)));
	CHECK_EQ_I64(s.rate_mhz, 59940);
	lowlat_refresh_close(&s);

	/* What it refuses, and says why. */
	CHECK(!lowlat_refresh_open(&s, "fixed:0", why, sizeof(why)));
	CHECK_STR(why, "LOWLAT_REFRESH_SOURCE=fixed:0 is not a rate of 1 to 1000 Hz");
	CHECK(!lowlat_refresh_open(&s, "fixed:120Hz", why, sizeof(why)));
	CHECK(!lowlat_refresh_open(&s, "fixed:", why, sizeof(why)));
	CHECK(!lowlat_refresh_open(&s, "none", why, sizeof(why)));
	CHECK_STR(why, "LOWLAT_REFRESH_SOURCE=none");
	CHECK(!lowlat_refresh_open(&s, "vblank", why, sizeof(why)));
	CHECK_STR(why, "LOWLAT_REFRESH_SOURCE=vblank is none of drm, drm:DIR, fixed:HZ, none");
	CHECK_EQ_I64(s.kind, LOWLAT_REFRESH_NONE);
	CHECK(!lowlat_refresh_read(&s, 1000 * MS, &a));
}

/* The DRM source, built in or not, on directories without a screen. */
static void drm_source(bool built)
{
	struct lowlat_refresh_source s;
	char why[192], dir[] = "/tmp/lowlat-refresh-XXXXXX", path[64];

	CHECK(mkdtemp(dir) != NULL);
	if (!built) {
		CHECK(!lowlat_refresh_open(&s, "drm", why, sizeof(why)));
		CHECK_STR(why, "lowlat was built without libdrm");
		rmdir(dir);
		return;
	}
	char want[256];
	CHECK(!lowlat_refresh_open(&s, "drm:/nonexistent/dri", why, sizeof(why)));
	CHECK_STR(why, "no /nonexistent/dri (No such file or directory)");
	/* An empty directory, then one whose only primary-node name is no DRM device (a plain file)
	 * beside a render node's name, which is not looked at. */
	snprintf(path, sizeof(path), "drm:%s", dir);
	CHECK(!lowlat_refresh_open(&s, path, why, sizeof(why)));
	snprintf(want, sizeof(want), "no DRM primary node (card*) in %s", dir);
	CHECK_STR(why, want);
	snprintf(path, sizeof(path), "%s/renderD128", dir);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "drm:%s", dir);
	CHECK(!lowlat_refresh_open(&s, path, why, sizeof(why)));
	CHECK_STR(why, want);
	snprintf(path, sizeof(path), "%s/card0", dir);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "drm:%s", dir);
	CHECK(!lowlat_refresh_open(&s, path, why, sizeof(why)));
	CHECK_STR(why, "card0 answers no DRM ioctl (Inappropriate ioctl for device)");
	CHECK_EQ_I64(s.kind, LOWLAT_REFRESH_NONE);
	snprintf(path, sizeof(path), "%s/card0", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/renderD128", dir);
	unlink(path);
	rmdir(dir);
}

static void drm_source_out(void)
{
	drm_source(false);
}

static void drm_source_built(void)
{
	drm_source(true);
}

int main(int argc, char **argv)
{
	bool built = argc > 1 && !strcmp(argv[1], "drm");

	RUN(mode_period);
	RUN(fixed_grid);
	RUN(choose);
	RUN(grid_samples);
	RUN(fixed_source);
	if (built)
		RUN(drm_source_built);
	else
		RUN(drm_source_out);
	return check_result();
}
