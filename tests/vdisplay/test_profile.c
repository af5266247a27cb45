/* test_profile.c — the driver profiles' arithmetic (vd_profile.c) without a device: stage clocks and
 * their inverse, the drift the spec profile's clocks show, Mesa X11's refresh estimate and its
 * counter, the profile table itself. With arguments PROFILE:FACT=true|false..., also that what the
 * tests' expectations assume of each profile (tests/meson.build vdisplay_profile_facts) is what
 * vd_profile.c implements. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scanout.h"
#include "vd_profile.h"

#include "vd_check.h"

static void clocks(void)
{
	const struct vd_profile *spec = vd_profile_named("spec");
	const int64_t epoch = 5000000000000ll; /* 5000 s of uptime */

	for (uint32_t s = 0; s < VD_STAGES; s++) {
		const struct vd_clock *c = &spec->clock[s];
		for (int64_t t = epoch - 3000000000ll; t < epoch + 7200000000000ll; t += 987654321987ll) {
			int64_t stage = vd_clock_from_monotonic(c, epoch, t);
			/* The inverse is exact for times the clock produced, and monotonic around them. */
			CHECK(vd_clock_to_monotonic(c, epoch, stage) == t);
			CHECK(vd_clock_to_monotonic(c, epoch, stage + 1) >= t);
		}
	}
	/* Ten seconds on CLOCK_MONOTONIC are ten seconds and 600 µs on the spec profile's pixel clock
	 * (+60 ppm), 10 s less 250 µs on its dequeue clock (-25 ppm). */
	const struct vd_clock *out = &spec->clock[VD_STAGE_PIXEL_OUT], *deq = &spec->clock[VD_STAGE_DEQUEUED];
	CHECK(vd_clock_from_monotonic(out, epoch, epoch + 10000000000ll) -
	              vd_clock_from_monotonic(out, epoch, epoch) ==
	      10000600000ll);
	CHECK(vd_clock_from_monotonic(deq, epoch, epoch + 10000000000ll) -
	              vd_clock_from_monotonic(deq, epoch, epoch) ==
	      9999750000ll);
	/* The monotonic profile's clocks are CLOCK_MONOTONIC. */
	const struct vd_profile *mono = vd_profile_named("monotonic");
	CHECK(vd_clock_from_monotonic(&mono->clock[VD_STAGE_PIXEL_OUT], epoch, 123456789) == 123456789);
}

/* n COMPLETE events of a 120 Hz display, every `skip`-th refresh, UST noise of +-jitter ns. */
static struct vd_refresh_props x11_run(int n, uint64_t skip, int64_t jitter)
{
	const uint64_t period = 8333333, randr = 8333333;
	struct vd_x11_estimate e = {0};
	struct vd_refresh_props props = {0};
	uint64_t noise = 42;

	vd_refresh_update(&props, randr, 0, 0); /* x11_poll_early_refresh, at creation */
	for (int i = 1; i <= n; i++) {
		uint64_t msc = 1000 + (uint64_t)i * skip;
		int64_t t = (int64_t)(msc * period) + vd_noise(&noise, jitter);
		vd_x11_estimate_complete(&e, &props, msc, (uint64_t)t / 1000, randr);
	}
	return props;
}

static void x11_estimate(void)
{
	/* Exact timestamps: RANDR's rate at creation (counter 1), then one stable estimate that
	 * says fixed-rate (interval = duration, counter 2), and no more. */
	struct vd_refresh_props p = x11_run(600, 1, 0);
	CHECK(p.counter == 2);
	CHECK(p.interval == p.duration && p.duration >= 8333000 && p.duration <= 8334000);
	/* Noisy UST (the profile's +-8 µs): the estimate moves by more than 1 µs now and then and
	 * the counter with it, while it stays within a few µs of the truth. */
	p = x11_run(600, 1, 8000);
	printf("x11 estimate, +-8 us UST noise, 600 presents: counter %" PRIu64 ", duration %" PRIu64 "\n",
	       p.counter, p.duration);
	CHECK(p.counter > 10);
	CHECK(p.duration >= 8330000 && p.duration <= 8337000);
	/* Every second refresh (60 fps on 120 Hz): the estimate is over more refreshes, steadier. */
	struct vd_refresh_props half = x11_run(600, 2, 8000);
	CHECK(half.counter >= 2 && half.counter < p.counter);
}

static void refresh_update(void)
{
	struct vd_refresh_props p = {0};

	/* Mesa Wayland: the first feedback sets the counter even with the value unchanged ... */
	vd_refresh_update(&p, 0, 0, 0);
	CHECK(p.counter == 1);
	vd_refresh_update(&p, 8333333, 0, 0);
	CHECK(p.counter == 2 && p.duration == 8333333 && p.interval == 0);
	/* ... and the same refresh again leaves it. */
	vd_refresh_update(&p, 8333333, 0, 0);
	CHECK(p.counter == 2);
	/* X11's estimates move it only past 1 µs. */
	vd_refresh_update(&p, 8334333, 0, 1000);
	CHECK(p.counter == 2);
	vd_refresh_update(&p, 8334334, 0, 1000);
	CHECK(p.counter == 3);
}

static void table(void)
{
	const char *names[] = {"spec",   "mesa-x11",        "mesa-wayland", "mesa-wayland-basic", "xwayland",
	                       "nvidia", "nvidia-xwayland", "nvidia-x11",   "monotonic"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct vd_profile *p = vd_profile_named(names[i]);
		CHECK(p && !strcmp(p->name, names[i]) && strstr(vd_profile_names(), names[i]));
		/* Every profile reports at least one stage and lists FIFO, which every surface has. */
		CHECK(p && p->stages && (p->modes & VD_MODE_BIT(VD_MODE_FIFO)));
		/* FIFO_LATEST_READY is listed exactly where its extension is offered. */
		CHECK(p && !(p->modes & VD_MODE_BIT(VD_MODE_FIFO_LATEST_READY)) == !p->fifo_latest_ready);
	}
	/* NVIDIA's XWayland and X11 surfaces take no present timing; its Wayland ones do. */
	CHECK(vd_profile_named("nvidia-xwayland")->no_surface_timing &&
	      vd_profile_named("nvidia-x11")->no_surface_timing &&
	      !vd_profile_named("nvidia")->no_surface_timing);
	CHECK(!(vd_profile_named("nvidia-xwayland")->modes & VD_MODE_BIT(VD_MODE_FIFO_RELAXED)));
	CHECK(!vd_profile_named("mesa") && !vd_profile_named(NULL));
	/* The conformant default. */
	unsetenv("LOWLAT_VDISPLAY_PROFILE");
	CHECK(!strcmp(vd_profile()->name, "spec"));
	uint64_t noise = 1;
	for (int i = 0; i < 1000; i++) {
		int64_t v = vd_noise(&noise, 8000);
		CHECK(v >= -8000 && v <= 8000);
	}
}

/* One "PROFILE:FACT=VALUE" claim from tests/meson.build against the table. */
static void fact(const char *claim)
{
	char name[64], key[32], value[8];
	if (sscanf(claim, "%63[^:]:%31[^=]=%7s", name, key, value) != 3) {
		fprintf(stderr, "bad fact '%s' (want PROFILE:FACT=true|false)\n", claim);
		failures++;
		return;
	}
	const struct vd_profile *p = vd_profile_named(name);
	bool want = !strcmp(value, "true"), have;
	if (!p) {
		fprintf(stderr, "fact '%s': no profile '%s'\n", claim, name);
		failures++;
		return;
	}
	if (!strcmp(key, "first_pixel"))
		have = p->stages & (VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT |
		                    VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT);
	else if (!strcmp(key, "latest_ready"))
		have = p->fifo_latest_ready;
	else if (!strcmp(key, "partial"))
		have = p->partial;
	else if (!strcmp(key, "absolute"))
		have = p->absolute;
	else if (!strcmp(key, "relative"))
		have = p->relative;
	else if (!strcmp(key, "estimated_refresh"))
		have = p->refresh == VD_REFRESH_X11;
	else if (!strcmp(key, "relative_floor"))
		have = p->relative_floor;
	else if (!strcmp(key, "relaxed"))
		have = p->modes & VD_MODE_BIT(VD_MODE_FIFO_RELAXED);
	else {
		fprintf(stderr, "fact '%s': unknown fact '%s'\n", claim, key);
		failures++;
		return;
	}
	if (have != want) {
		fprintf(stderr, "tests/meson.build says %s has %s=%s; vd_profile.c says %s\n", name, key,
		        value, have ? "true" : "false");
		failures++;
	}
}

int main(int argc, char **argv)
{
	clocks();
	x11_estimate();
	refresh_update();
	table();
	for (int i = 1; i < argc; i++)
		fact(argv[i]);
	return vd_check_done("profile");
}
