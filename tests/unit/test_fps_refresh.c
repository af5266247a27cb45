/* test_fps_refresh.c — caps as a share of the refresh rate (layer/config/fps_refresh.h): what each form
 * comes to on fixed and variable displays and on an unknown one, to the millihertz the pacer gets;
 * the forms read and written back; and the live table `lowlat status` reads (layer/config/live.h). */
#include <math.h>

#include "brain/pace.h"
#include "check.h"
#include "fps_refresh.h"
#include "live.h"

static struct lowlat_config cap(enum lowlat_fps_base base, double fps, double n)
{
	struct lowlat_config c;

	lowlat_config_defaults(&c);
	c.fps_base = base;
	c.fps = fps;
	c.fps_n = n;
	return c;
}

/* The millihertz the pacer gets for cfg at refresh_ns. */
static uint32_t mfps_at(enum lowlat_fps_base base, double n, int64_t refresh_ns)
{
	struct lowlat_config c = cap(base, 0, n);
	return lowlat_fps_to_mfps(lowlat_fps_resolve(&c, refresh_ns));
}

static void test_resolve(void)
{
	/* The virtual display's 120 Hz (8333333 ns, rounded) halves to exactly 60.000 fps. */
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_DIV, 2, 8333333), 60000);
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_DIV, 1, 8333333), 120000);
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_DIV, 3, 8333333), 40000);
	/* 119.88 Hz (a 1000/1001 mode): its half is 59.94, not 60. */
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_DIV, 2, 8341675), 59940);
	/* A 144 Hz variable-rate display reports its shortest refresh: 3 fps under it is 141. */
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_MINUS, 3, 6944444), 141000);
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_MINUS, 0, 6944444), 144000);
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_MINUS, 2.5, 6944444), 141500);
	/* A DRM mode's exact period: 143.912 Hz less 3. */
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_MINUS, 3, 6948691), 140912);
	/* Unknown: the assumed 60 Hz. */
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_DIV, 2, 0), 30000);
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_MINUS, 3, -1), 57000);
	/* Under 1 fps is no cap: off, never a cap that holds the game a second a frame. */
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_MINUS, 200, 6944444), 0);
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_MINUS, 143.5, 6944444), 0);
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_DIV, 100, 16666667), 0);
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_DIV, 100, 2777778), 3600); /* 360 Hz / 100 */
	/* A refresh shorter than the largest cap's interval is held to it. */
	CHECK_EQ_I64(mfps_at(LOWLAT_FPS_REFRESH_DIV, 1, 50000), (int64_t)(LOWLAT_FPS_MAX * 1000));
	/* An absolute cap ignores the display. */
	struct lowlat_config c = cap(LOWLAT_FPS_ABSOLUTE, 75, 0);
	CHECK(lowlat_fps_resolve(&c, 8333333) == 75 && lowlat_fps_resolve(&c, 0) == 75);
	CHECK(lowlat_refresh_hz(8333333) == 120 && lowlat_refresh_hz(6948691) == 143.912);
	CHECK(lowlat_refresh_hz(0) == 0);
}

static void test_forms(void)
{
	enum lowlat_fps_base base = LOWLAT_FPS_ABSOLUTE;
	double n = 0;
	char text[48];

	CHECK(lowlat_fps_refresh_form("refresh") && lowlat_fps_refresh_form("REFRESH/2"));
	CHECK(!lowlat_fps_refresh_form("60") && !lowlat_fps_refresh_form("refres") &&
	      !lowlat_fps_refresh_form(NULL));
	CHECK(!lowlat_fps_refresh_parse("refresh", &base, &n) && base == LOWLAT_FPS_REFRESH_DIV && n == 1);
	CHECK(!lowlat_fps_refresh_parse("refresh/4", &base, &n) && base == LOWLAT_FPS_REFRESH_DIV && n == 4);
	CHECK(!lowlat_fps_refresh_parse("refresh/100", &base, &n) && n == 100);
	CHECK(!lowlat_fps_refresh_parse("refresh-0", &base, &n) && base == LOWLAT_FPS_REFRESH_MINUS &&
	      n == 0);
	CHECK(!lowlat_fps_refresh_parse("refresh-10000", &base, &n) && n == 10000);
	/* What is wrong, in the words the config's messages use; nothing is changed. */
	base = LOWLAT_FPS_ABSOLUTE;
	n = 7;
	CHECK_STR(lowlat_fps_refresh_parse("refresh/", &base, &n),
	          "is not \"refresh/N\" with N a whole number from 1 to 100");
	CHECK_STR(lowlat_fps_refresh_parse("refresh/-2", &base, &n),
	          "is not \"refresh/N\" with N a whole number from 1 to 100");
	CHECK_STR(lowlat_fps_refresh_parse("refresh/nan", &base, &n),
	          "is not \"refresh/N\" with N a whole number from 1 to 100");
	CHECK_STR(lowlat_fps_refresh_parse("refresh-inf", &base, &n),
	          "is not \"refresh-N\" with N a number from 0 to 10000");
	CHECK_STR(lowlat_fps_refresh_parse("refresh- 3", &base, &n),
	          "is not \"refresh-N\" with N a number from 0 to 10000");
	CHECK_STR(lowlat_fps_refresh_parse("refreshing", &base, &n),
	          "is not \"refresh\", \"refresh/N\" or \"refresh-N\"");
	CHECK_STR(lowlat_fps_refresh_parse("sixty", &base, &n),
	          "is not a number, \"refresh\", \"refresh/N\" or \"refresh-N\"");
	CHECK(base == LOWLAT_FPS_ABSOLUTE && n == 7);

	struct lowlat_config c = cap(LOWLAT_FPS_REFRESH_DIV, 0, 1);
	lowlat_fps_describe(&c, true, text, sizeof(text));
	CHECK_STR(text, "refresh");
	c.fps_n = 2;
	lowlat_fps_describe(&c, true, text, sizeof(text));
	CHECK_STR(text, "refresh/2");
	c = cap(LOWLAT_FPS_REFRESH_MINUS, 0, 2.5);
	lowlat_fps_describe(&c, true, text, sizeof(text));
	CHECK_STR(text, "refresh-2.5");
	c = cap(LOWLAT_FPS_ABSOLUTE, 0, 0);
	lowlat_fps_describe(&c, true, text, sizeof(text));
	CHECK_STR(text, "0 (off)");
	lowlat_fps_describe(&c, false, text, sizeof(text));
	CHECK_STR(text, "0");
	c.fps = 59.94;
	lowlat_fps_describe(&c, true, text, sizeof(text));
	CHECK_STR(text, "59.94");

	struct lowlat_config a = cap(LOWLAT_FPS_REFRESH_DIV, 0, 2), b = cap(LOWLAT_FPS_REFRESH_DIV, 0, 2);
	CHECK(lowlat_fps_equal(&a, &b));
	b.fps_n = 3;
	CHECK(!lowlat_fps_equal(&a, &b));
	b = cap(LOWLAT_FPS_REFRESH_MINUS, 0, 2);
	CHECK(!lowlat_fps_equal(&a, &b));
	a = cap(LOWLAT_FPS_ABSOLUTE, 60, 5);
	b = cap(LOWLAT_FPS_ABSOLUTE, 60, 0);
	CHECK(lowlat_fps_equal(&a, &b));
}

/* The `stats` reply: cap, form, level, the frame rate over the latest window, latency percentiles. */
static void test_live(void)
{
	struct lowlat_config c = cap(LOWLAT_FPS_REFRESH_DIV, 0, 2);
	struct lowlat_live *l = lowlat_live_claim(500, 400), *other = lowlat_live_claim(64, 64);
	char reply[2048];
	int64_t t = 1000000000;

	CHECK(l && other && l != other);
	lowlat_live_release(other);
	lowlat_live_describe(reply, sizeof(reply), t);
	CHECK_STR(reply,
	          "ok stats now_ns=1000000000 last_present_ns=0; 500x400 cap=0.000 spec=0 level=- "
	          "fps=0.00 p50_ms=- p99_ms=- game_ms=-/- gpu_ms=-/- display_ms=-/- until=- presents=0");
	lowlat_live_cap(l, 60000, &c, "timing");
	/* 61 presents 1/60 s apart: two full windows of half a second. */
	for (int i = 0; i <= 60; i++)
		lowlat_live_present(l, t + i * 1000000000ll / 60);
	/* 0.1 .. 10 ms: a tenth the game's, the GPU's known on even frames only (3/10), the rest the
	 * display's. */
	for (int i = 1; i <= 100; i++) {
		const int64_t parts[LOWLAT_LIVE_PARTS] = {i * 100000ll, i * 10000ll, i % 2 ? -1 : i * 30000ll,
		                                          i * 60000ll};
		lowlat_live_latency(l, parts, "out");
	}
	t += 1000000000;
	lowlat_live_describe(reply, sizeof(reply), t);
	CHECK_STR(reply, "ok stats now_ns=2000000000 last_present_ns=2000000000; 500x400 cap=60.000 "
	                 "spec=refresh/2 level=timing fps=60.00 p50_ms=5.00 p99_ms=9.90 game_ms=0.50/0.99 "
	                 "gpu_ms=1.50/3.00 display_ms=3.00/5.94 until=out presents=61");
	/* Idle for longer than LOWLAT_LIVE_IDLE_NS: 0 fps. */
	lowlat_live_describe(reply, sizeof(reply), t + LOWLAT_LIVE_IDLE_NS);
	CHECK(strstr(reply, " fps=0.00 ") != NULL);
	/* Only the last LOWLAT_LIVE_LATENCIES samples count. */
	for (int i = 0; i < LOWLAT_LIVE_LATENCIES; i++)
		lowlat_live_latency(l, (const int64_t[LOWLAT_LIVE_PARTS]){20000000, 1, -1, 2}, "dequeued");
	lowlat_live_describe(reply, sizeof(reply), t);
	CHECK(strstr(reply, "p50_ms=20.00 p99_ms=20.00") != NULL);
	/* A reply too short for a swapchain ends before it. */
	lowlat_live_describe(reply, 80, t);
	CHECK_STR(reply, "ok stats now_ns=2000000000 last_present_ns=2000000000");
	lowlat_live_release(l);
	lowlat_live_describe(reply, sizeof(reply), t);
	CHECK_STR(reply, "ok stats now_ns=2000000000 last_present_ns=0");
	/* Every slot taken: the next swapchain is not shown, and nothing breaks. */
	struct lowlat_live *all[LOWLAT_LIVE_SLOTS];
	for (int i = 0; i < LOWLAT_LIVE_SLOTS; i++)
		CHECK((all[i] = lowlat_live_claim(1, 1)) != NULL);
	CHECK(lowlat_live_claim(1, 1) == NULL);
	lowlat_live_present(NULL, t);
	lowlat_live_latency(NULL, (const int64_t[LOWLAT_LIVE_PARTS]){1, 1, 1, 1}, "out");
	lowlat_live_cap(NULL, 1, &c, "cpu");
	for (int i = 0; i < LOWLAT_LIVE_SLOTS; i++)
		lowlat_live_release(all[i]);
}

int main(void)
{
	RUN(test_resolve);
	RUN(test_forms);
	RUN(test_live);
	return check_result();
}
