/* engine.c — DXVK's, vkd3d-proton's and MangoHud's own frame limiters, and the engines' latency
 * settings; see engine.h. */
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
				snprintf(dst, size, "%s limits its own frame rate (%s = %s in DXVK_CONFIG)",
				         engine_name, dxvk_keys[i], value);
				return true;
			}
		return false;
	}
	if (positive(env->vkd3d_frame_rate)) {
		snprintf(dst, size, "%s limits its own frame rate (VKD3D_FRAME_RATE=%s)", engine_name,
		         env->vkd3d_frame_rate);
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

/* --- MangoHud ---------------------------------------------------------------------------------- */

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* [begin, end) without the white space around it, into dst (MangoHud trims keys and values so). */
static void trim_space(const char *begin, const char *end, char *dst, size_t size)
{
	while (begin < end && space(*begin))
		begin++;
	while (end > begin && space(end[-1]))
		end--;
	snprintf(dst, size, "%.*s", (int)(end - begin), begin);
}

/* MANGOHUD_CONFIG's separators (MangoHud's parse_string): `key=value` or `key` (value 1). */
static bool env_delimiter(char c)
{
	return c == '\0' || c == ',' || c == ':' || c == ';' || c == '=';
}

/* The value MANGOHUD_CONFIG gives `key` (the last one, as MangoHud keeps), trimmed; false when it
 * gives none. A backslash takes the separator after it into the value. */
static bool env_option(const char *text, const char *key, char *dst, size_t size)
{
	bool found = false;

	for (const char *p = text; p && *p;) {
		char raw[256], name[128];
		const char *begin = p;
		size_t v = 0;

		while (!env_delimiter(*p))
			p++;
		trim_space(begin, p, name, sizeof(name));
		if (*p == '=') {
			for (p++; !env_delimiter(*p); p++) {
				if (*p == '\\' && p[1] && env_delimiter(p[1]))
					p++;
				if (v + 1 < sizeof(raw))
					raw[v++] = *p;
			}
		} else {
			raw[v++] = '1';
		}
		if (*p)
			p++;
		if (!strcmp(name, key)) {
			trim_space(raw, raw + v, dst, size);
			found = true;
		}
	}
	return found;
}

/* The value a MangoHud config file gives `key`: one `key=value` or `key` (value 1) per line, '#'
 * starting a comment, spaces around either trimmed; the last one counts. */
static bool file_option(const char *text, const char *key, char *dst, size_t size)
{
	bool found = false;

	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n'), *hash, *eq;
		char name[128];

		if (!end)
			end = line + strlen(line);
		if ((hash = memchr(line, '#', (size_t)(end - line))))
			end = hash;
		eq = memchr(line, '=', (size_t)(end - line));
		trim_space(line, eq ? eq : end, name, sizeof(name));
		if (*name && !strcmp(name, key)) {
			if (eq)
				trim_space(eq + 1, end, dst, size);
			else
				snprintf(dst, size, "1");
			found = true;
		}
		end = strchr(line, '\n');
		line = end ? end + 1 : NULL;
	}
	return found;
}

/* The limit in force from an fps_limit value: its first entry that reads as a number (entries are
 * separated by ',', ':' or '+', which the MangoHud hotkey cycles through). */
static bool first_limit(const char *value, double *fps)
{
	for (const char *p = value; *p;) {
		size_t n = strcspn(p, ",:+");
		char entry[64], *end;

		trim_space(p, p + n, entry, sizeof(entry));
		*fps = strtod(entry, &end);
		if (end != entry)
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

bool lowlat_mangohud_limiter(const struct lowlat_mangohud_env *env, char *dst, size_t size)
{
	char value[256], where[LOWLAT_MANGOHUD_PATH_MAX + 32];
	bool found = false;
	double fps = 0;

	/* MANGOHUD_FPS_LIMIT goes in front of the list, as an integer. */
	if (env->fps_limit && *env->fps_limit) {
		char *end;
		double d = strtod(env->fps_limit, &end);
		if (end != env->fps_limit) {
			if ((long)d <= 0)
				return false;
			snprintf(dst, size, "MangoHud limits the frame rate (MANGOHUD_FPS_LIMIT=%s)",
			         env->fps_limit);
			return true;
		}
	}
	if (env->config && env_option(env->config, "fps_limit", value, sizeof(value))) {
		snprintf(where, sizeof(where), "MANGOHUD_CONFIG");
		found = true;
	} else if (env->config && !(env_option(env->config, "read_cfg", value, sizeof(value)) &&
	                            strtol(value, NULL, 0) != 0)) {
		return false; /* the variable alone, without read_cfg: no file, the default (no limit) */
	}
	if (!found && env->file && env->file_text &&
	    file_option(env->file_text, "fps_limit", value, sizeof(value))) {
		snprintf(where, sizeof(where), "%s", env->file);
		found = true;
	}
	if (!found || !first_limit(value, &fps) || fps <= 0)
		return false;
	snprintf(dst, size, "MangoHud limits the frame rate (fps_limit=%s in %s)", value, where);
	return true;
}

static bool ends_with(const char *s, size_t len, const char *suffix, bool icase)
{
	size_t n = strlen(suffix);

	return len >= n && !(icase ? strncasecmp(s + len - n, suffix, n) : strncmp(s + len - n, suffix, n));
}

/* The game's name under Wine's preloader, as MangoHud takes it: /proc/self/comm when it is an
 * .exe, else the first argument with a path (its base name), else the first .exe argument; each
 * without its extension. False when there is none. */
static bool wine_name(const struct lowlat_mangohud_where *w, char *dst, size_t size)
{
	size_t len;

	if (w->comm && ends_with(w->comm, strlen(w->comm), ".exe", true)) {
		len = (size_t)(strrchr(w->comm, '.') - w->comm);
		snprintf(dst, size, "%.*s", (int)len, w->comm);
		return true;
	}
	for (size_t at = 0; w->cmdline && at < w->cmdline_size;) {
		const char *arg = w->cmdline + at;
		size_t n = strnlen(arg, w->cmdline_size - at);
		size_t sep = n;

		at += n + 1;
		for (size_t i = 0; i < n; i++)
			if (arg[i] == '/' || arg[i] == '\\')
				sep = i;
		if (sep < n && sep + 1 < n) {
			size_t dot = n;
			for (size_t i = sep + 1; i < n; i++)
				if (arg[i] == '.')
					dot = i;
			snprintf(dst, size, "%.*s", (int)(dot - sep - 1), arg + sep + 1);
			return true;
		}
		if (ends_with(arg, n, ".exe", true)) {
			size_t dot = n - 4;
			for (size_t i = 0; i < n; i++)
				if (arg[i] == '.')
					dot = i;
			snprintf(dst, size, "%.*s", (int)dot, arg);
			return true;
		}
	}
	return false;
}

unsigned lowlat_mangohud_config_paths(const struct lowlat_mangohud_where *w,
                                      char paths[LOWLAT_MANGOHUD_PATHS_MAX][LOWLAT_MANGOHUD_PATH_MAX])
{
	const char *dir = w->config_dir, *exe = w->exe, *slash = exe ? strrchr(exe, '/') : NULL;
	size_t exe_len = exe ? strlen(exe) : 0;
	char name[256];
	unsigned n = 0;

	if (w->config_file) {
		snprintf(paths[n++], LOWLAT_MANGOHUD_PATH_MAX, "%s", w->config_file);
		return n;
	}
	if (!dir || !*dir)
		return 0; /* MangoHud gives up without a home */
	if (exe &&
	    (ends_with(exe, exe_len, "wine-preloader", false) ||
	     ends_with(exe, exe_len, "wine64-preloader", false)) &&
	    wine_name(w, name, sizeof(name)))
		snprintf(paths[n++], LOWLAT_MANGOHUD_PATH_MAX, "%s/MangoHud/wine-%s.conf", dir, name);
	if (slash && slash > exe)
		snprintf(paths[n++], LOWLAT_MANGOHUD_PATH_MAX, "%.*s/MangoHud.conf", (int)(slash - exe), exe);
	snprintf(paths[n++], LOWLAT_MANGOHUD_PATH_MAX, "%s/MangoHud/%s.conf", dir,
	         slash && slash[1] ? slash + 1 : "unknown");
	snprintf(paths[n++], LOWLAT_MANGOHUD_PATH_MAX, "/etc/MangoHud.conf");
	snprintf(paths[n++], LOWLAT_MANGOHUD_PATH_MAX, "%s/MangoHud/MangoHud.conf", dir);
	return n;
}
