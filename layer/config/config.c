/* config.c — the config keys: checking a value against its key, the JSON parser, the environment.
 *
 * Owns the key table and every message about a bad value. Reads no file, no clock and no real
 * environment (config.h injects them), so every message is asserted by tests/unit/test_config.c.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fps_refresh.h"
#include "number.h"

struct key_info {
	const char *name; /* JSON key and layer-setting name */
	const char *env;  /* environment variable */
};

static const struct key_info keys[LOWLAT_KEY_COUNT] = {
        [LOWLAT_KEY_FPS] = {"fps", "LOWLAT_FPS"},
        [LOWLAT_KEY_METHOD] = {"method", "LOWLAT_METHOD"},
        [LOWLAT_KEY_PRESENT_MODE] = {"present_mode", "LOWLAT_PRESENT_MODE"},
        [LOWLAT_KEY_MAX_LATENCY_FRAMES] = {"max_latency_frames", "LOWLAT_MAX_LATENCY_FRAMES"},
        [LOWLAT_KEY_LOG] = {"log", "LOWLAT_LOG"},
        [LOWLAT_KEY_LOG_DIR] = {"log_dir", "LOWLAT_LOG_DIR"},
        [LOWLAT_KEY_ENABLED] = {"enabled", "LOWLAT_ENABLED"},
        [LOWLAT_KEY_STACK_LIMITERS] = {"stack_limiters", "LOWLAT_STACK_LIMITERS"},
};

static const char *const method_names[] = {
        [LOWLAT_METHOD_LATE] = "late",
        [LOWLAT_METHOD_EARLY] = "early",
};

static const char *const present_mode_names[] = {
        [LOWLAT_PRESENT_MODE_AUTO] = "auto",
        [LOWLAT_PRESENT_MODE_FIFO] = "fifo",
        [LOWLAT_PRESENT_MODE_FIFO_LATEST_READY] = "fifo_latest_ready",
        [LOWLAT_PRESENT_MODE_MAILBOX] = "mailbox",
        [LOWLAT_PRESENT_MODE_IMMEDIATE] = "immediate",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A value longer than this is cut in messages: one line must stay readable (lowlat_msg's line is
 * 512 bytes, and a file path comes first). */
#define SHOWN_MAX 48 /* bytes */

void lowlat_config_defaults(struct lowlat_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->fps = 0;
	cfg->fps_base = LOWLAT_FPS_ABSOLUTE;
	cfg->fps_n = 0;
	cfg->method = LOWLAT_METHOD_LATE;
	cfg->present_mode = LOWLAT_PRESENT_MODE_AUTO;
	cfg->max_latency_frames = 1;
	cfg->log = false;
	cfg->log_dir[0] = '\0';
	cfg->enabled = true;
	cfg->stack_limiters = false;
}

bool lowlat_config_capping(const struct lowlat_config *cfg)
{
	return cfg->enabled && (cfg->fps > 0 || cfg->fps_base != LOWLAT_FPS_ABSOLUTE);
}

const char *lowlat_config_key_name(enum lowlat_config_key key)
{
	return (unsigned)key < LOWLAT_KEY_COUNT ? keys[key].name : NULL;
}

const char *lowlat_config_key_env(enum lowlat_config_key key)
{
	return (unsigned)key < LOWLAT_KEY_COUNT ? keys[key].env : NULL;
}

const char *lowlat_method_name(enum lowlat_method method)
{
	return (unsigned)method < COUNT(method_names) ? method_names[method] : NULL;
}

const char *lowlat_present_mode_name(enum lowlat_present_mode mode)
{
	return (unsigned)mode < COUNT(present_mode_names) ? present_mode_names[mode] : NULL;
}

int lowlat_config_key_lookup(const char *name)
{
	for (int i = 0; i < LOWLAT_KEY_COUNT; i++)
		if (!strcmp(keys[i].name, name))
			return i;
	return -1;
}

/* Copy `src` for a message: cut to SHOWN_MAX bytes (marked with "..."), control characters
 * replaced so the message stays one line. */
static void show(char *dst, size_t size, const char *src)
{
	size_t n = 0, max = size - 1;
	/* Up to SHOWN_MAX + 3 bytes pass whole, so showing a shown text again changes nothing. */
	bool cut = strlen(src) > SHOWN_MAX + 3 && size >= SHOWN_MAX + 4;

	if (cut) {
		max = SHOWN_MAX;
		/* Cut before a UTF-8 character, not inside it. */
		while (max > 0 && ((unsigned char)src[max] & 0xc0) == 0x80)
			max--;
	}
	for (; src[n] && n < max; n++)
		dst[n] = (unsigned char)src[n] < 0x20 || src[n] == 0x7f ? '?' : src[n];
	dst[n] = '\0';
	if (cut)
		memcpy(dst + n, "...", 4);
}

/* Room for two full paths (PATH_MAX-sized log_dir values are cut to fit before this). */
#define EMIT_MAX 2048 /* bytes */

void lowlat_config_emit(const struct lowlat_config_sink *sink, const char *fmt, ...)
{
	char text[EMIT_MAX];
	va_list ap;

	if (!sink || !sink->line)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	sink->line(sink->user, text);
}

void lowlat_config_emit_info(const struct lowlat_config_sink *sink, const char *fmt, ...)
{
	void (*to)(void *, const char *) = sink ? (sink->info ? sink->info : sink->line) : NULL;
	char text[EMIT_MAX];
	va_list ap;

	if (!to)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	to(sink->user, text);
}

/* "<where><value> <problem>; using <current>": where names the source and key. */
static void where(char *dst, size_t size, const struct lowlat_config_origin *o, enum lowlat_config_key key)
{
	switch (o->kind) {
	case LOWLAT_ORIGIN_FILE: snprintf(dst, size, "%s: \"%s\": ", o->file, keys[key].name); break;
	case LOWLAT_ORIGIN_ENV: snprintf(dst, size, "%s=", keys[key].env); break;
	case LOWLAT_ORIGIN_SETTINGS:
		snprintf(dst, size, "VK_EXT_layer_settings: \"%s\": ", keys[key].name);
		break;
	case LOWLAT_ORIGIN_CONTROL: snprintf(dst, size, "%s ", keys[key].name); break;
	}
}

/* The value a key keeps when a new one is rejected, as messages show it. */
static void current(char *dst, size_t size, const struct lowlat_config *cfg, enum lowlat_config_key key)
{
	switch (key) {
	case LOWLAT_KEY_FPS: lowlat_fps_describe(cfg, true, dst, size); break;
	case LOWLAT_KEY_METHOD: snprintf(dst, size, "%s", lowlat_method_name(cfg->method)); break;
	case LOWLAT_KEY_PRESENT_MODE:
		snprintf(dst, size, "%s", lowlat_present_mode_name(cfg->present_mode));
		break;
	case LOWLAT_KEY_MAX_LATENCY_FRAMES:
		snprintf(dst, size, cfg->max_latency_frames ? "%u" : "%u (the app's own)",
		         cfg->max_latency_frames);
		break;
	case LOWLAT_KEY_LOG: snprintf(dst, size, "%s", cfg->log ? "true" : "false"); break;
	case LOWLAT_KEY_LOG_DIR:
		if (cfg->log_dir[0])
			snprintf(dst, size, "\"%s\"", cfg->log_dir);
		else
			snprintf(dst, size, "the default");
		break;
	case LOWLAT_KEY_ENABLED: snprintf(dst, size, "%s", cfg->enabled ? "true" : "false"); break;
	case LOWLAT_KEY_STACK_LIMITERS:
		snprintf(dst, size, "%s", cfg->stack_limiters ? "true" : "false");
		break;
	case LOWLAT_KEY_COUNT: dst[0] = '\0'; break;
	}
}

static bool reject(const struct lowlat_config_origin *o, enum lowlat_config_key key,
                   const struct lowlat_config_value *v, const struct lowlat_config *cfg, const char *problem)
{
	char w[LOWLAT_CONFIG_PATH_MAX + 64], shown[SHOWN_MAX + 4], cur[LOWLAT_CONFIG_PATH_MAX + 32];

	where(w, sizeof(w), o, key);
	show(shown, sizeof(shown), v->shown ? v->shown : "");
	current(cur, sizeof(cur), cfg, key);
	lowlat_config_emit(o->sink, "%s%s %s; using %s", w, shown, problem, cur);
	return false;
}

/* The index of `v` in `names`, or -1 when v is not a string or not one of them. */
static int choice(const struct lowlat_config_value *v, const char *const *names, size_t count)
{
	if (v->type != LOWLAT_VALUE_STRING)
		return -1;
	for (size_t i = 0; i < count; i++)
		if (!strcmp(v->string, names[i]))
			return (int)i;
	return -1;
}

bool lowlat_config_set(const struct lowlat_config_origin *o, enum lowlat_config_key key,
                       const struct lowlat_config_value *v, struct lowlat_config *cfg, uint32_t *set)
{
	int i;

	switch (key) {
	case LOWLAT_KEY_FPS: {
		enum lowlat_fps_base base;
		double n;
		const char *problem;

		/* A share of the refresh rate, resolved per swapchain (fps_refresh.h). */
		if (v->type == LOWLAT_VALUE_STRING) {
			if ((problem = lowlat_fps_refresh_parse(v->string, &base, &n)))
				return reject(o, key, v, cfg, problem);
			cfg->fps = 0;
			cfg->fps_base = base;
			cfg->fps_n = n;
			break;
		}
		if (v->type != LOWLAT_VALUE_NUMBER)
			return reject(o, key, v, cfg,
			              "is not a number, \"refresh\", \"refresh/N\" or \"refresh-N\"");
		/* !(a || b) rather than a range test on its own so NaN and infinities fail too. */
		if (!(v->number == 0 || (v->number >= LOWLAT_FPS_MIN && v->number <= LOWLAT_FPS_MAX)))
			return reject(o, key, v, cfg, "is out of range (0 = off, or 1 to 10000)");
		cfg->fps = v->number;
		cfg->fps_base = LOWLAT_FPS_ABSOLUTE;
		cfg->fps_n = 0;
		break;
	}
	case LOWLAT_KEY_METHOD:
		if ((i = choice(v, method_names, COUNT(method_names))) < 0)
			return reject(o, key, v, cfg, "is not \"late\" or \"early\"");
		cfg->method = (enum lowlat_method)i;
		break;
	case LOWLAT_KEY_PRESENT_MODE:
		if ((i = choice(v, present_mode_names, COUNT(present_mode_names))) < 0)
			return reject(o, key, v, cfg,
			              "is not \"auto\", \"fifo\", \"fifo_latest_ready\", \"mailbox\" or "
			              "\"immediate\"");
		cfg->present_mode = (enum lowlat_present_mode)i;
		break;
	case LOWLAT_KEY_MAX_LATENCY_FRAMES:
		if (v->type != LOWLAT_VALUE_NUMBER)
			return reject(o, key, v, cfg, "is not a number");
		if (!(v->number == floor(v->number)))
			return reject(o, key, v, cfg, "is not a whole number");
		if (!(v->number >= 0 && v->number <= LOWLAT_MAX_LATENCY_FRAMES_MAX))
			return reject(o, key, v, cfg, "is out of range (0 = the app's own, or 1 to 16)");
		cfg->max_latency_frames = (uint32_t)v->number;
		break;
	case LOWLAT_KEY_LOG:
	case LOWLAT_KEY_ENABLED:
	case LOWLAT_KEY_STACK_LIMITERS:
		if (v->type != LOWLAT_VALUE_BOOL)
			return reject(o, key, v, cfg, "is not true or false");
		*(key == LOWLAT_KEY_LOG       ? &cfg->log
		  : key == LOWLAT_KEY_ENABLED ? &cfg->enabled
		                              : &cfg->stack_limiters) = v->boolean;
		break;
	case LOWLAT_KEY_LOG_DIR:
		if (v->type != LOWLAT_VALUE_STRING)
			return reject(o, key, v, cfg, "is not a string");
		if (v->string[0] && v->string[0] != '/')
			return reject(o, key, v, cfg, "is not an absolute path");
		if (strlen(v->string) >= sizeof(cfg->log_dir))
			return reject(o, key, v, cfg, "is longer than 1023 bytes");
		strcpy(cfg->log_dir, v->string);
		break;
	case LOWLAT_KEY_COUNT: return false;
	}
	if (set)
		*set |= LOWLAT_KEY_BIT(key);
	return true;
}

static bool parse_bool(const char *text, bool *out)
{
	static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no",
	                                                                            "off"};

	for (size_t i = 0; i < COUNT(yes); i++) {
		if (!strcmp(text, yes[i]))
			return *out = true, true;
		if (!strcmp(text, no[i]))
			return *out = false, true;
	}
	return false;
}

void lowlat_config_value_from_text(enum lowlat_config_key key, const char *text,
                                   struct lowlat_config_value *out)
{
	*out = (struct lowlat_config_value){.type = LOWLAT_VALUE_STRING, .string = text, .shown = text};
	switch (key) {
	case LOWLAT_KEY_FPS:
	case LOWLAT_KEY_MAX_LATENCY_FRAMES: {
		char *end;
		double d;

		errno = 0;
		d = lowlat_strtod_c(text, &end);
		/* The whole text must be the number: "60fps" is a typo to report, not 60. */
		if (end != text && !*end && errno != ERANGE) {
			out->type = LOWLAT_VALUE_NUMBER;
			out->number = d;
		}
		break;
	}
	case LOWLAT_KEY_LOG:
	case LOWLAT_KEY_ENABLED:
	case LOWLAT_KEY_STACK_LIMITERS:
		if (parse_bool(text, &out->boolean))
			out->type = LOWLAT_VALUE_BOOL;
		break;
	default: break;
	}
}

void lowlat_config_apply_env(const struct lowlat_env *env, struct lowlat_config *inout,
                             const struct lowlat_config_sink *sink)
{
	const struct lowlat_config_origin origin = {.kind = LOWLAT_ORIGIN_ENV, .sink = sink};

	for (int key = 0; key < LOWLAT_KEY_COUNT; key++) {
		const char *text = env->get(env->user, keys[key].env);
		struct lowlat_config_value v;

		if (!text || !*text)
			continue;
		lowlat_config_value_from_text(key, text, &v);
		lowlat_config_set(&origin, key, &v, inout, NULL);
	}
}

void lowlat_config_apply_mask(struct lowlat_config *dst, const struct lowlat_config *src, uint32_t set)
{
	if (set & LOWLAT_KEY_BIT(LOWLAT_KEY_FPS)) {
		dst->fps = src->fps;
		dst->fps_base = src->fps_base;
		dst->fps_n = src->fps_n;
	}
	if (set & LOWLAT_KEY_BIT(LOWLAT_KEY_METHOD))
		dst->method = src->method;
	if (set & LOWLAT_KEY_BIT(LOWLAT_KEY_PRESENT_MODE))
		dst->present_mode = src->present_mode;
	if (set & LOWLAT_KEY_BIT(LOWLAT_KEY_MAX_LATENCY_FRAMES))
		dst->max_latency_frames = src->max_latency_frames;
	if (set & LOWLAT_KEY_BIT(LOWLAT_KEY_LOG))
		dst->log = src->log;
	if (set & LOWLAT_KEY_BIT(LOWLAT_KEY_LOG_DIR))
		memcpy(dst->log_dir, src->log_dir, sizeof(dst->log_dir));
	if (set & LOWLAT_KEY_BIT(LOWLAT_KEY_ENABLED))
		dst->enabled = src->enabled;
	if (set & LOWLAT_KEY_BIT(LOWLAT_KEY_STACK_LIMITERS))
		dst->stack_limiters = src->stack_limiters;
}

/* 1-based line and column of `at` in `text`; the column counts characters (UTF-8 continuation
 * bytes are not counted), as editors show it. */
static void line_column(const char *text, const char *at, unsigned *line, unsigned *column)
{
	*line = 1;
	*column = 1;
	for (const char *p = text; p < at && *p; p++) {
		if (*p == '\n') {
			++*line;
			*column = 1;
		} else if (((unsigned char)*p & 0xc0) != 0x80) {
			++*column;
		}
	}
}

/* A JSON value as messages show it: its compact JSON text. */
static void json_shown(const cJSON *item, char *dst, size_t size)
{
	char *text = cJSON_PrintUnformatted(item);

	show(dst, size, text ? text : "?");
	cJSON_free(text);
}

bool lowlat_config_parse(const char *json_text, const char *filename, struct lowlat_config *inout,
                         const struct lowlat_config_sink *sink)
{
	const struct lowlat_config_origin origin = {
	        .kind = LOWLAT_ORIGIN_FILE, .file = filename, .sink = sink};
	const char *end = NULL;
	cJSON *root;

	/* require_null_terminated: text after the object is an error too, not silently ignored. */
	root = cJSON_ParseWithOpts(json_text, &end, 1);
	if (!root) {
		unsigned line, column;

		if (!end)
			end = json_text;
		line_column(json_text, end, &line, &column);
		lowlat_config_emit(sink, "%s:%u:%u: JSON syntax error; ignoring this file", filename, line,
		                   column);
		return false;
	}
	if (!cJSON_IsObject(root)) {
		lowlat_config_emit(sink, "%s: not a JSON object ({ ... }); ignoring this file", filename);
		cJSON_Delete(root);
		return false;
	}

	for (const cJSON *item = root->child; item; item = item->next) {
		char shown[SHOWN_MAX + 4], name[SHOWN_MAX + 4];
		struct lowlat_config_value v = {.shown = shown};
		int key = lowlat_config_key_lookup(item->string);

		json_shown(item, shown, sizeof(shown));
		if (key < 0) {
			/* Editors put "$schema" in a file to find its schema; it is not a setting. */
			if (!strcmp(item->string, "$schema"))
				continue;
			show(name, sizeof(name), item->string);
			lowlat_config_emit(sink, "%s: unknown key \"%s\" (value %s); ignored", filename, name,
			                   shown);
			continue;
		}
		if (cJSON_IsNumber(item)) {
			v.type = LOWLAT_VALUE_NUMBER;
			v.number = item->valuedouble;
		} else if (cJSON_IsBool(item)) {
			v.type = LOWLAT_VALUE_BOOL;
			v.boolean = cJSON_IsTrue(item);
		} else if (cJSON_IsString(item)) {
			v.type = LOWLAT_VALUE_STRING;
			v.string = item->valuestring;
		} else {
			v.type = LOWLAT_VALUE_OTHER;
		}
		lowlat_config_set(&origin, key, &v, inout, NULL);
	}
	cJSON_Delete(root);
	return true;
}
