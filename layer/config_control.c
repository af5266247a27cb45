/* config_control.c — one-line control commands (`fps 60`, `method early`, `status`, `reset`) as
 * the control socket receives them: a pure function of the state and the line, so every reply is
 * tested without a socket.
 *
 * A command sets a runtime override, the top of the precedence chain, which survives file reloads
 * until `reset`: a tool that lowers the cap while the mouse is idle must not be undone by an
 * unrelated edit of default.json.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"

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
		st->config = st->base;
		lowlat_config_describe(&st->config, desc, sizeof(desc));
		snprintf(reply, size, "ok %s", desc);
		return changed;
	}

	if (!strcmp(word, "status") || !strcmp(word, "reset")) {
		snprintf(reply, size, "error: %s takes no value; nothing changed", word);
		return false;
	}

	key = lowlat_config_key_lookup(word);
	if (key < 0) {
		char shown[64];

		snprintf(shown, sizeof(shown), "%.48s%s", word, strlen(word) > 48 ? "..." : "");
		snprintf(reply, size,
		         "error: unknown command \"%s\" (commands: status, reset, or a key and its value: "
		         "fps, "
		         "method, present_mode, max_latency_frames, log, log_dir, enabled, stack_limiters)",
		         shown);
		return false;
	}
	if (!*value) {
		snprintf(reply, size, "error: %s needs a value", word);
		return false;
	}

	struct reply_sink rs = {reply, size};
	const struct lowlat_config_sink sink = {to_reply, &rs};
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
