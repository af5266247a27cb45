/* engine.c — DXVK's and vkd3d-proton's own frame limiters and latency settings; see engine.h. */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *lowlat_engine_kind(const char *engine_name)
{
	if (!engine_name)
		return NULL;
	if (!strcmp(engine_name, "DXVK"))
		return "DXVK";
	if (!strncmp(engine_name, "vkd3d", 5))
		return "vkd3d";
	return NULL;
}

static void trim(const char *begin, const char *end, char *dst, size_t size)
{
	while (begin < end && (*begin == ' ' || *begin == '\t'))
		begin++;
	while (end > begin && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		end--;
	snprintf(dst, size, "%.*s", (int)(end - begin), begin);
}

bool lowlat_dxvk_config_get(const char *config, const char *key, char *dst, size_t size)
{
	bool found = false;

	for (const char *p = config; p && *p;) {
		const char *end = strchr(p, ';'), *eq;
		char name[128];

		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', (size_t)(end - p));
		if (eq) {
			trim(p, eq, name, sizeof(name));
			if (!strcmp(name, key)) {
				trim(eq + 1, end, dst, size);
				found = true; /* keep going: DXVK applies the last one */
			}
		}
		p = *end ? end + 1 : end;
	}
	return found;
}

/* A frame rate a setting gives: a number > 0. */
static bool positive(const char *value)
{
	char *end;
	double d;

	if (!value || !*value)
		return false;
	d = strtod(value, &end);
	return end != value && d > 0;
}

bool lowlat_engine_limiter(const char *engine_name, const struct lowlat_engine_env *env, char *dst,
                           size_t size)
{
	/* The frame rate limits DXVK 3.1.1 reads (its libraries name no other maxFrameRate). */
	static const char *const dxvk_keys[] = {"dxgi.maxFrameRate", "d3d9.maxFrameRate"};
	const char *kind = lowlat_engine_kind(engine_name);
	char value[64];

	if (!kind)
		return false;
	if (!strcmp(kind, "DXVK")) {
		for (size_t i = 0; i < sizeof(dxvk_keys) / sizeof(dxvk_keys[0]); i++)
			if (lowlat_dxvk_config_get(env->dxvk_config, dxvk_keys[i], value, sizeof(value)) &&
			    positive(value)) {
				snprintf(dst, size, "%s = %s in DXVK_CONFIG", dxvk_keys[i], value);
				return true;
			}
		return false;
	}
	if (positive(env->vkd3d_frame_rate)) {
		snprintf(dst, size, "VKD3D_FRAME_RATE=%s", env->vkd3d_frame_rate);
		return true;
	}
	return false;
}

bool lowlat_engine_latency_hint(const char *engine_name, const struct lowlat_engine_env *env, char *dst,
                                size_t size)
{
	const char *kind = lowlat_engine_kind(engine_name);
	char value[64];

	if (!kind)
		return false;
	if (!strcmp(kind, "DXVK")) {
		if (lowlat_dxvk_config_get(env->dxvk_config, "dxvk.latencySleep", value, sizeof(value)) &&
		    !strcasecmp(value, "True"))
			return false;
		snprintf(dst, size,
		         "DXVK runs at its default frame latency, so lowlat's wait reaches its game thread "
		         "only "
		         "frames later; run the game as `lowlat %%command%%`, or set "
		         "DXVK_CONFIG=\"dxvk.latencySleep "
		         "= True; dxgi.maxFrameLatency = 1; d3d9.maxFrameLatency = 1\"");
		return true;
	}
	if (env->vkd3d_latency && *env->vkd3d_latency)
		return false;
	snprintf(dst, size,
	         "vkd3d-proton runs at its default frame latency, so lowlat's wait reaches its game thread "
	         "only frames later; run the game as `lowlat %%command%%`, or set "
	         "VKD3D_SWAPCHAIN_LATENCY_FRAMES=1");
	return true;
}
