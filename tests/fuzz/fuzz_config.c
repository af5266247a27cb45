/* fuzz_config.c — libFuzzer target for everything lowlat reads that someone else wrote: config files
 * (JSON), the game-key sources (command line, executable, VkApplicationInfo names, Steam variables),
 * environment values, and the control socket's command lines.
 *
 * The first input byte picks the target; the rest is its input. Beyond "no crash, no UB, no leak"
 * (ASan, UBSan, LSan), each target checks what must hold whatever the input:
 *   - a parsed config is always within range, whatever the file said;
 *   - a game key can never name a path outside games/;
 *   - a control reply is a terminated string within its buffer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_control.h"
#include "config_game.h"

static void ignore_line(void *user, const char *text)
{
	(void)user;
	(void)text;
}

static const struct lowlat_config_sink sink = {ignore_line, NULL, NULL};

#define REQUIRE(cond)                                                                                        \
	do {                                                                                                 \
		if (!(cond)) {                                                                               \
			fprintf(stderr, "fuzz_config: %s does not hold\n", #cond);                           \
			abort();                                                                             \
		}                                                                                            \
	} while (0)

static void check_config(const struct lowlat_config *c)
{
	REQUIRE(c->fps == 0 || (c->fps >= LOWLAT_FPS_MIN && c->fps <= LOWLAT_FPS_MAX));
	/* A share of the refresh rate: a whole divisor 1..100, or 0..10000 fps under it; fps 0. */
	REQUIRE(c->fps_base == LOWLAT_FPS_ABSOLUTE ||
	        (c->fps == 0 && c->fps_base == LOWLAT_FPS_REFRESH_DIV && c->fps_n >= 1 && c->fps_n <= 100 &&
	         c->fps_n == (double)(int)c->fps_n) ||
	        (c->fps == 0 && c->fps_base == LOWLAT_FPS_REFRESH_MINUS && c->fps_n >= 0 &&
	         c->fps_n <= LOWLAT_FPS_MAX));
	REQUIRE(c->method == LOWLAT_METHOD_LATE || c->method == LOWLAT_METHOD_EARLY);
	REQUIRE(c->present_mode >= LOWLAT_PRESENT_MODE_AUTO &&
	        c->present_mode <= LOWLAT_PRESENT_MODE_IMMEDIATE);
	REQUIRE(c->max_latency_frames <= LOWLAT_MAX_LATENCY_FRAMES_MAX);
	REQUIRE(memchr(c->log_dir, '\0', sizeof(c->log_dir)));
	REQUIRE(!c->log_dir[0] || c->log_dir[0] == '/');
}

/* Fields of one input, separated by 0x01: the game-detection inputs. */
struct fields {
	const char *field[6];
	size_t len[6];
};

static void split(const char *data, size_t size, struct fields *f)
{
	size_t n = 0, start = 0;

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i <= size && n < 6; i++) {
		if (i == size || data[i] == '\x01') {
			f->field[n] = data + start;
			f->len[n++] = i - start;
			start = i + 1;
		}
	}
}

static char *dup_field(const struct fields *f, int i)
{
	char *s = malloc(f->len[i] + 1);
	if (!s)
		abort();
	memcpy(s, f->field[i] ? f->field[i] : "", f->len[i]);
	s[f->len[i]] = '\0';
	return s;
}

struct fake_env {
	const char *app_id, *game_id;
};

static const char *fake_getenv(void *user, const char *name)
{
	const struct fake_env *env = user;
	if (!strcmp(name, "SteamAppId"))
		return env->app_id;
	if (!strcmp(name, "SteamGameId"))
		return env->game_id;
	return NULL;
}

static void fuzz_game(const char *data, size_t size)
{
	struct fields f;
	struct lowlat_game game;

	split(data, size, &f);
	char *exe = dup_field(&f, 1), *app = dup_field(&f, 2), *engine = dup_field(&f, 3);
	char *app_id = dup_field(&f, 4), *game_id = dup_field(&f, 5);
	struct fake_env env = {app_id, game_id};
	/* The command line keeps its NULs: arguments are NUL-separated in /proc/self/cmdline. */
	struct lowlat_process proc = {
	        .env = {fake_getenv, &env},
	        .cmdline = f.field[0] ? f.field[0] : "",
	        .cmdline_size = f.len[0],
	        .exe = exe,
	        .app_name = app,
	        .engine_name = engine,
	};

	if (lowlat_game_detect(&proc, &game)) {
		size_t len = strnlen(game.key, sizeof(game.key));
		REQUIRE(len < sizeof(game.key));
		REQUIRE(len > 0);
		REQUIRE(!strchr(game.key, '/'));
		REQUIRE(strcmp(game.key, ".") && strcmp(game.key, ".."));
		for (size_t i = 0; i < len; i++)
			REQUIRE((unsigned char)game.key[i] >= 0x20 && game.key[i] != 0x7f);
	}
	free(exe);
	free(app);
	free(engine);
	free(app_id);
	free(game_id);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lowlat_config c;
	char *text;

	if (!size)
		return 0;
	/* Every target but game detection takes a NUL-terminated string, as it would from a file, the
	 * environment or a socket line. */
	text = malloc(size);
	if (!text)
		abort();
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';

	switch (data[0] % 4) {
	case 0:
		lowlat_config_defaults(&c);
		lowlat_config_parse(text, "fuzz.json", &c, &sink);
		check_config(&c);
		break;
	case 1: fuzz_game((const char *)data + 1, size - 1); break;
	case 2: {
		struct lowlat_config_state st;
		char reply[256];

		memset(&st, 0, sizeof(st));
		lowlat_config_defaults(&st.config);
		st.base = st.config;
		memset(reply, 'x', sizeof(reply));
		lowlat_config_control(&st, text, reply, sizeof(reply));
		REQUIRE(memchr(reply, '\0', sizeof(reply)));
		check_config(&st.config);
		break;
	}
	case 3:
		/* An environment value for each key, as LOWLAT_<KEY>=text would give. */
		for (int key = 0; key < LOWLAT_KEY_COUNT; key++) {
			struct lowlat_config_value v;
			lowlat_config_value_from_text((enum lowlat_config_key)key, text, &v);
		}
		break;
	}
	free(text);
	return 0;
}
