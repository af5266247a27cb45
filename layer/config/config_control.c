/* config_control.c — one-line control commands (`fps 60`, `method early`, `toggle`,
 * `cycle 60,90,0`, `status`, `reset`) as the control socket receives them: a pure function of the
 * state and the line, so every reply is tested without a socket.
 *
 * A command sets a runtime override, the top of the precedence chain, which survives file reloads
 * until `reset`: a tool that lowers the cap while the mouse is idle must not be undone by an
 * unrelated edit of default.json.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "config_control.h"
#include "config_files.h"
#include "fps_refresh.h"

struct reply_sink {
	char *reply;
	size_t size;
};

static void to_reply(void *user, const char *text)
{
	struct reply_sink *r = user;
	snprintf(r->reply, r->size, "error: %s", text);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Caps one `cycle` takes: far more than a key binding goes through. */
#define CYCLE_MAX 16

/* Set the runtime override of fps to `from`'s cap; true when the config changed. */
static bool set_fps(struct lowlat_config_state *st, const struct lowlat_config *from)
{
	struct lowlat_config cfg = st->config;

	lowlat_config_apply_mask(&cfg, from, LOWLAT_KEY_BIT(LOWLAT_KEY_FPS));
	lowlat_config_apply_mask(&st->control, from, LOWLAT_KEY_BIT(LOWLAT_KEY_FPS));
	st->control_set |= LOWLAT_KEY_BIT(LOWLAT_KEY_FPS);
	bool changed = !lowlat_config_equal(&cfg, &st->config);
	st->config = cfg;
	return changed;
}

static bool reply_fps(struct lowlat_config_state *st, bool changed, char *reply, size_t size)
{
	char fps[48];

	lowlat_fps_describe(&st->config, false, fps, sizeof(fps));
	snprintf(reply, size, "ok fps %s", fps);
	return changed;
}

/* `toggle`: a cap in force goes off and is kept; with none in force, the kept one comes back. */
static bool toggle(struct lowlat_config_state *st, char *reply, size_t size)
{
	const struct lowlat_config *c = &st->config;
	struct lowlat_config off;

	if (c->fps > 0 || c->fps_base != LOWLAT_FPS_ABSOLUTE) {
		st->toggled = *c;
		st->toggled_off = true;
		lowlat_config_defaults(&off);
		return reply_fps(st, set_fps(st, &off), reply, size);
	}
	if (!st->toggled_off) {
		snprintf(reply, size,
		         "error: toggle: no cap is in force and none was turned off; nothing "
		         "changed (set one first, e.g. fps 60)");
		return false;
	}
	st->toggled_off = false;
	return reply_fps(st, set_fps(st, &st->toggled), reply, size);
}

/* `cycle A,B,C`: each value read as `fps` is (numbers, "refresh/2", ...), all before any is used. */
static bool cycle(struct lowlat_config_state *st, char *list, char *reply, size_t size)
{
	struct lowlat_config caps[CYCLE_MAX];
	struct reply_sink rs = {reply, size};
	const struct lowlat_config_sink sink = {to_reply, &rs, NULL};
	const struct lowlat_config_origin origin = {.kind = LOWLAT_ORIGIN_CONTROL, .sink = &sink};
	unsigned n = 0, next = 0;

	for (char *item = list, *end; item; item = end) {
		struct lowlat_config_value v;

		if ((end = strchr(item, ',')))
			*end++ = '\0';
		while (is_space(*item))
			item++;
		for (size_t len = strlen(item); len && is_space(item[len - 1]);)
			item[--len] = '\0';
		if (!*item || n == CYCLE_MAX) {
			snprintf(reply, size,
			         !*item ? "error: cycle takes caps separated by commas, e.g. cycle 60,90,0; "
			                  "nothing changed"
			                : "error: cycle takes at most 16 caps; nothing changed");
			return false;
		}
		caps[n] = st->config;
		lowlat_config_value_from_text(LOWLAT_KEY_FPS, item, &v);
		/* The sink says "error: fps <value> <problem>; using <the cap in force>". */
		if (!lowlat_config_set(&origin, LOWLAT_KEY_FPS, &v, &caps[n], NULL))
			return false;
		n++;
	}
	for (unsigned i = 0; i < n; i++) {
		if (lowlat_fps_equal(&caps[i], &st->config)) {
			next = (i + 1) % n;
			break;
		}
	}
	st->toggled_off = false;
	return reply_fps(st, set_fps(st, &caps[next]), reply, size);
}

bool lowlat_config_control(struct lowlat_config_state *st, const char *line, char *reply, size_t size)
{
	char buf[LOWLAT_CONTROL_LINE_MAX + 1], desc[1200];
	size_t len = strnlen(line, sizeof(buf));
	char *word, *value;
	int key;

	if (len >= sizeof(buf)) {
		snprintf(reply, size, "error: command longer than %d bytes; nothing changed",
		         LOWLAT_CONTROL_LINE_MAX);
		return false;
	}
	memcpy(buf, line, len + 1);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || is_space(buf[len - 1])))
		buf[--len] = '\0';
	for (word = buf; is_space(*word); word++)
		;
	for (value = word; *value && !is_space(*value); value++)
		;
	if (*value)
		*value++ = '\0';
	while (is_space(*value))
		value++;
	for (char *p = word; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(reply, size, "error: control characters in the command; nothing changed");
			return false;
		}
	}

	if (!strcmp(word, "status") && !*value) {
		lowlat_config_describe(&st->config, desc, sizeof(desc));
		snprintf(reply, size, "ok game \"%s\"; %s", st->game.key, desc);
		return false;
	}
	if (!strcmp(word, "reset") && !*value) {
		bool changed = !lowlat_config_equal(&st->base, &st->config);

		st->control_set = 0;
		st->toggled_off = false;
		st->config = st->base;
		lowlat_config_describe(&st->config, desc, sizeof(desc));
		snprintf(reply, size, "ok %s", desc);
		return changed;
	}

	if (!strcmp(word, "toggle") && !*value)
		return toggle(st, reply, size);
	if (!strcmp(word, "cycle")) {
		if (!*value) {
			snprintf(reply, size,
			         "error: cycle needs caps separated by commas, e.g. cycle 60,90,0; "
			         "nothing changed");
			return false;
		}
		return cycle(st, value, reply, size);
	}

	if (!strcmp(word, "status") || !strcmp(word, "reset") || !strcmp(word, "toggle")) {
		snprintf(reply, size, "error: %s takes no value; nothing changed", word);
		return false;
	}

	key = lowlat_config_key_lookup(word);
	if (key < 0) {
		char shown[64];

		snprintf(shown, sizeof(shown), "%.48s%s", word, strlen(word) > 48 ? "..." : "");
		snprintf(
		        reply, size,
		        "error: unknown command \"%s\" (commands: status, reset, toggle, cycle, or a key and "
		        "its value: fps, method, present_mode, max_latency_frames, log, log_dir, enabled, "
		        "stack_limiters)",
		        shown);
		return false;
	}
	if (!*value) {
		snprintf(reply, size, "error: %s needs a value", word);
		return false;
	}

	struct reply_sink rs = {reply, size};
	const struct lowlat_config_sink sink = {to_reply, &rs, NULL};
	const struct lowlat_config_origin origin = {.kind = LOWLAT_ORIGIN_CONTROL, .sink = &sink};
	struct lowlat_config_value v;
	struct lowlat_config cfg = st->config;
	bool changed;

	lowlat_config_value_from_text(key, value, &v);
	if (!lowlat_config_set(&origin, key, &v, &cfg, NULL))
		return false;
	lowlat_config_apply_mask(&st->control, &cfg, LOWLAT_KEY_BIT(key));
	st->control_set |= LOWLAT_KEY_BIT(key);
	changed = !lowlat_config_equal(&cfg, &st->config);
	st->config = cfg;
	snprintf(reply, size, "ok %s %s", word, value);
	return changed;
}
