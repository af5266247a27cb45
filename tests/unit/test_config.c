/* test_config.c — the config format: every key, valid and each kind of invalid value with the exact
 * message, syntax errors with line and column, the environment, and the precedence chain. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "config.h"
#include "config_files.h"
#include "sink.h"

static struct collected out;

/* Parse `json` over `cfg` as file "f.json" and return the messages, one per line. */
static const char *parse(const char *json, struct lowlat_config *cfg)
{
	struct lowlat_config_sink sink = collect_sink(&out);
	lowlat_config_parse(json, "f.json", cfg, &sink);
	return out.text;
}

static const char *parse_default(const char *json, struct lowlat_config *cfg)
{
	lowlat_config_defaults(cfg);
	return parse(json, cfg);
}

/* A JSON text and the messages parsing it must give. */
struct expectation {
	const char *json, *want;
};

/* Parses each of COUNT EXPECTATIONS into C (reset to the defaults first with DEFAULTS). */
static void check_each(const struct expectation *expectations, size_t count, bool defaults,
                       struct lowlat_config *c)
{
	for (size_t i = 0; i < count; i++)
		CHECK_STR(defaults ? parse_default(expectations[i].json, c) : parse(expectations[i].json, c),
		          expectations[i].want);
}

static void test_defaults(void)
{
	struct lowlat_config c;

	lowlat_config_defaults(&c);
	CHECK(c.fps == 0);
	CHECK(c.method == LOWLAT_METHOD_LATE);
	CHECK(c.present_mode == LOWLAT_PRESENT_MODE_AUTO);
	CHECK(c.max_latency_frames == 1);
	CHECK(!c.log);
	CHECK_STR(c.log_dir, "");
	CHECK(c.enabled);
}

static void test_valid_keys(void)
{
	struct lowlat_config c;

	CHECK_STR(parse_default("{\"fps\": 59.94, \"method\": \"early\", \"present_mode\": \"mailbox\","
	                        " \"max_latency_frames\": 2, \"log\": true, \"log_dir\": \"/tmp/l\","
	                        " \"enabled\": false}",
	                        &c),
	          "");
	CHECK(c.fps == 59.94);
	CHECK(c.method == LOWLAT_METHOD_EARLY);
	CHECK(c.present_mode == LOWLAT_PRESENT_MODE_MAILBOX);
	CHECK(c.max_latency_frames == 2);
	CHECK(c.log);
	CHECK_STR(c.log_dir, "/tmp/l");
	CHECK(!c.enabled);

	/* Every choice of each enum, and the range ends. */
	const char *modes[] = {"auto", "fifo", "fifo_latest_ready", "mailbox", "immediate"};
	for (int i = 0; i < 5; i++) {
		char json[64];
		snprintf(json, sizeof(json), "{\"present_mode\": \"%s\"}", modes[i]);
		CHECK_STR(parse_default(json, &c), "");
		CHECK(c.present_mode == (enum lowlat_present_mode)i);
		CHECK_STR(lowlat_present_mode_name(c.present_mode), modes[i]);
	}
	CHECK_STR(parse_default("{\"method\": \"late\", \"fps\": 1, \"max_latency_frames\": 16}", &c), "");
	CHECK(c.method == LOWLAT_METHOD_LATE && c.fps == 1 && c.max_latency_frames == 16);
	CHECK_STR(parse_default("{\"fps\": 1000, \"max_latency_frames\": 0, \"log_dir\": \"\"}", &c), "");
	CHECK(c.fps == 1000 && c.max_latency_frames == 0);
	CHECK_STR(parse_default("{\"fps\": 144}", &c), "");
	CHECK_STR(parse("{\"fps\": 0}", &c), "");
	CHECK(c.fps == 0);
	/* Editors' "$schema" is accepted silently; an empty object changes nothing. */
	CHECK_STR(parse_default("{\"$schema\": \"x\"}", &c), "");
	CHECK_STR(parse_default("{}", &c), "");
	/* A later duplicate wins, as each key is applied in order. */
	CHECK_STR(parse_default("{\"fps\": 30, \"fps\": 40}", &c), "");
	CHECK(c.fps == 40);
}

static void test_invalid_values(void)
{
	struct lowlat_config c;

	/* fps: wrong type, out of range either side, each message naming what is kept. */
	CHECK_STR(parse_default("{\"fps\": \"60\"}", &c),
	          "f.json: \"fps\": \"60\" is not a number, \"refresh\", \"refresh/N\" or \"refresh-N\"; "
	          "using 0 (off)");
	lowlat_config_defaults(&c);
	c.fps = 60;
	static const struct expectation kept[] = {
	        {"{\"fps\": -1}", "f.json: \"fps\": -1 is out of range (0 = off, or 1 to 10000); using 60"},
	        {"{\"fps\": 0.5}", "f.json: \"fps\": 0.5 is out of range (0 = off, or 1 to 10000); using 60"},
	        {"{\"fps\": 10000.5}",
	         "f.json: \"fps\": 10000.5 is out of range (0 = off, or 1 to 10000); using 60"},
	        {"{\"fps\": null}", "f.json: \"fps\": null is not a number, \"refresh\", \"refresh/N\" or "
	                            "\"refresh-N\"; using 60"},
	        {"{\"fps\": [60]}", "f.json: \"fps\": [60] is not a number, \"refresh\", \"refresh/N\" or "
	                            "\"refresh-N\"; using 60"},
	        {"{\"fps\": true}", "f.json: \"fps\": true is not a number, \"refresh\", \"refresh/N\" or "
	                            "\"refresh-N\"; using 60"},
	};
	check_each(kept, sizeof(kept) / sizeof(kept[0]), false, &c);
	CHECK(c.fps == 60);

	static const struct expectation refused[] = {
	        {"{\"method\": \"Late\"}",
	         "f.json: \"method\": \"Late\" is not \"late\" or \"early\"; using late"},
	        {"{\"method\": 1}", "f.json: \"method\": 1 is not \"late\" or \"early\"; using late"},
	        {"{\"present_mode\": \"vsync\"}",
	         "f.json: \"present_mode\": \"vsync\" is not \"auto\", \"fifo\", \"fifo_latest_ready\", "
	         "\"mailbox\" or \"immediate\"; using auto"},
	        {"{\"max_latency_frames\": 2.5}",
	         "f.json: \"max_latency_frames\": 2.5 is not a whole number; using 1"},
	        {"{\"max_latency_frames\": 17}", "f.json: \"max_latency_frames\": 17 is out of range (0 = "
	                                         "the app's own, or 1 to 16); using 1"},
	        {"{\"max_latency_frames\": -1}", "f.json: \"max_latency_frames\": -1 is out of range (0 = "
	                                         "the app's own, or 1 to 16); using 1"},
	        {"{\"max_latency_frames\": \"2\"}",
	         "f.json: \"max_latency_frames\": \"2\" is not a number; using 1"},
	        {"{\"log\": 1}", "f.json: \"log\": 1 is not true or false; using false"},
	        {"{\"enabled\": \"no\"}", "f.json: \"enabled\": \"no\" is not true or false; using true"},
	        {"{\"log_dir\": \"logs\"}",
	         "f.json: \"log_dir\": \"logs\" is not an absolute path; using the default"},
	};
	check_each(refused, sizeof(refused) / sizeof(refused[0]), true, &c);
	CHECK_STR(parse_default("{\"log_dir\": \"/a\"}", &c), "");
	CHECK_STR(parse("{\"log_dir\": false}", &c),
	          "f.json: \"log_dir\": false is not a string; using \"/a\"");
	{
		/* Longer than log_dir holds: refused whole, never cut into another directory. */
		char *json = malloc(LOWLAT_CONFIG_PATH_MAX + 32);
		char want[256];
		if (!json)
			abort();
		int n = sprintf(json, "{\"log_dir\": \"/");
		memset(json + n, 'x', LOWLAT_CONFIG_PATH_MAX);
		strcpy(json + n + LOWLAT_CONFIG_PATH_MAX, "\"}");
		snprintf(want, sizeof(want),
		         "f.json: \"log_dir\": \"/%.46s... is longer than 1023 bytes; using \"/a\"",
		         json + n + 1);
		CHECK_STR(parse(json, &c), want);
		free(json);
	}
	CHECK_STR(c.log_dir, "/a");

	/* Unknown keys are named with their value; long values are cut, control characters replaced. */
	CHECK_STR(parse_default("{\"fsp\": 60}", &c), "f.json: unknown key \"fsp\" (value 60); ignored");
	CHECK_STR(parse_default("{\"a\\nb\": {\"x\": [1, 2]}}", &c),
	          "f.json: unknown key \"a?b\" (value {\"x\":[1,2]}); ignored");
	CHECK_STR(parse_default("{\"fps\": \"0123456789012345678901234567890123456789012345678901234567\"}",
	                        &c),
	          "f.json: \"fps\": \"01234567890123456789012345678901234567890123456... is not a number, "
	          "\"refresh\", \"refresh/N\" or \"refresh-N\"; "
	          "using 0 (off)");

	/* A cut never splits a UTF-8 character: 46 ASCII bytes, then "é" would straddle byte 48. */
	CHECK_STR(
	        parse_default("{\"fps\": \"0123456789012345678901234567890123456789012345\u00e9xxxxx\"}", &c),
	        "f.json: \"fps\": \"0123456789012345678901234567890123456789012345... is not a number, "
	        "\"refresh\", \"refresh/N\" or \"refresh-N\"; "
	        "using 0 (off)");

	/* The rest of the file still applies around each bad key, one line per bad key. */
	CHECK_STR(parse_default("{\"fps\": \"x\", \"method\": \"early\", \"bogus\": 1, \"log\": true}", &c),
	          "f.json: \"fps\": \"x\" is not a number, \"refresh\", \"refresh/N\" or \"refresh-N\"; "
	          "using 0 (off)\n"
	          "f.json: unknown key \"bogus\" (value 1); ignored");
	CHECK(c.method == LOWLAT_METHOD_EARLY && c.log);
}

static void test_syntax_errors(void)
{
	struct lowlat_config c;

	/* A missing comma on line 3: the error is where the next key starts. */
	lowlat_config_defaults(&c);
	c.fps = 30;
	CHECK_STR(parse("{\n  \"fps\": 60\n  \"method\": \"early\"\n}\n", &c),
	          "f.json:3:3: JSON syntax error; ignoring this file");
	/* The whole file is ignored, even the keys before the error. */
	CHECK(c.fps == 30 && c.method == LOWLAT_METHOD_LATE);
	/* cJSON points just past the "}" that should have been a key. */
	CHECK_STR(parse("{\"fps\": 60,}", &c), "f.json:1:13: JSON syntax error; ignoring this file");
	CHECK_STR(parse("{\"fps\": 60} x", &c), "f.json:1:13: JSON syntax error; ignoring this file");
	CHECK_STR(parse("", &c), "f.json:1:1: JSON syntax error; ignoring this file");
	/* Columns count characters, not bytes: "é" is two bytes. */
	CHECK_STR(parse("{\"log_dir\": \"/é\" \"fps\": 1}", &c),
	          "f.json:1:18: JSON syntax error; ignoring this file");
	CHECK_STR(parse("[1, 2]", &c), "f.json: not a JSON object ({ ... }); ignoring this file");
	CHECK_STR(parse("60", &c), "f.json: not a JSON object ({ ... }); ignoring this file");
	CHECK(c.fps == 30);
	/* A UTF-8 byte order mark, as some Windows editors write, is fine. */
	CHECK_STR(parse("\xef\xbb\xbf{\"fps\": 50}", &c), "");
	CHECK(c.fps == 50);
}

/* A fake environment: NAME=VALUE pairs. */
static const char *fake_getenv(void *user, const char *name)
{
	for (const char *const *e = user; *e; e += 2)
		if (!strcmp(e[0], name))
			return e[1];
	return NULL;
}

static const char *apply_env(const char *const *vars, struct lowlat_config *cfg)
{
	struct lowlat_config_sink sink = collect_sink(&out);
	struct lowlat_env env = {fake_getenv, (void *)vars};
	lowlat_config_apply_env(&env, cfg, &sink);
	return out.text;
}

static void test_env(void)
{
	struct lowlat_config c;

	lowlat_config_defaults(&c);
	const char *good[] = {"LOWLAT_FPS",
	                      "72.5",
	                      "LOWLAT_METHOD",
	                      "early",
	                      "LOWLAT_PRESENT_MODE",
	                      "immediate",
	                      "LOWLAT_MAX_LATENCY_FRAMES",
	                      "1",
	                      "LOWLAT_LOG",
	                      "yes",
	                      "LOWLAT_LOG_DIR",
	                      "/var/log/x",
	                      "LOWLAT_ENABLED",
	                      "0",
	                      NULL};
	CHECK_STR(apply_env(good, &c), "");
	CHECK(c.fps == 72.5 && c.method == LOWLAT_METHOD_EARLY &&
	      c.present_mode == LOWLAT_PRESENT_MODE_IMMEDIATE);
	CHECK(c.max_latency_frames == 1 && c.log && !c.enabled);
	CHECK_STR(c.log_dir, "/var/log/x");

	/* Bad values name the variable and keep the value from below; empty means unset. */
	lowlat_config_defaults(&c);
	c.fps = 90;
	const char *bad[] = {"LOWLAT_FPS",
	                     "60fps",
	                     "LOWLAT_METHOD",
	                     "",
	                     "LOWLAT_MAX_LATENCY_FRAMES",
	                     "1.5",
	                     "LOWLAT_LOG",
	                     "maybe",
	                     "LOWLAT_ENABLED",
	                     "nan",
	                     NULL};
	CHECK_STR(apply_env(bad, &c),
	          "LOWLAT_FPS=60fps is not a number, \"refresh\", \"refresh/N\" or \"refresh-N\"; using 90\n"
	          "LOWLAT_MAX_LATENCY_FRAMES=1.5 is not a whole number; using 1\n"
	          "LOWLAT_LOG=maybe is not true or false; using false\n"
	          "LOWLAT_ENABLED=nan is not true or false; using true");
	CHECK(c.fps == 90 && c.method == LOWLAT_METHOD_LATE);
	const char *inf[] = {"LOWLAT_FPS", "inf", "LOWLAT_PRESENT_MODE", "FIFO", NULL};
	CHECK_STR(apply_env(inf, &c),
	          "LOWLAT_FPS=inf is out of range (0 = off, or 1 to 10000); using 90\n"
	          "LOWLAT_PRESENT_MODE=FIFO is not \"auto\", \"fifo\", \"fifo_latest_ready\", \"mailbox\" or "
	          "\"immediate\"; using auto");
}

/* fps as a share of the refresh rate: each form from a file and the environment, and each bad one
 * with its exact message, naming what is kept. */
static void test_refresh_values(void)
{
	struct lowlat_config c;
	char desc[1200];

	CHECK_STR(parse_default("{\"fps\": \"refresh\"}", &c), "");
	CHECK(c.fps_base == LOWLAT_FPS_REFRESH_DIV && c.fps_n == 1 && c.fps == 0 &&
	      lowlat_config_capping(&c));
	CHECK_STR(parse_default("{\"fps\": \"refresh/2\"}", &c), "");
	CHECK(c.fps_base == LOWLAT_FPS_REFRESH_DIV && c.fps_n == 2);
	lowlat_config_describe(&c, desc, sizeof(desc));
	CHECK(!strncmp(desc, "fps refresh/2, method late,", 27));
	CHECK_STR(parse_default("{\"fps\": \"Refresh-3\"}", &c), "");
	CHECK(c.fps_base == LOWLAT_FPS_REFRESH_MINUS && c.fps_n == 3);
	CHECK_STR(parse_default("{\"fps\": \"refresh-2.5\"}", &c), "");
	CHECK(c.fps_base == LOWLAT_FPS_REFRESH_MINUS && c.fps_n == 2.5);
	lowlat_config_describe(&c, desc, sizeof(desc));
	CHECK(!strncmp(desc, "fps refresh-2.5, method", 23));
	/* A number after a share of the refresh is absolute again. */
	CHECK_STR(parse("{\"fps\": 90}", &c), "");
	CHECK(c.fps_base == LOWLAT_FPS_ABSOLUTE && c.fps == 90);
	c.enabled = false;
	CHECK(!lowlat_config_capping(&c));

	/* Bad forms keep what was there, said as the config would say it. */
	lowlat_config_defaults(&c);
	CHECK_STR(parse("{\"fps\": \"refresh/2\"}", &c), "");
	static const struct expectation refused[] = {
	        {"{\"fps\": \"refresh/0\"}", "f.json: \"fps\": \"refresh/0\" is not \"refresh/N\" with N a "
	                                     "whole number from 1 to 100; using refresh/2"},
	        {"{\"fps\": \"refresh/2.5\"}", "f.json: \"fps\": \"refresh/2.5\" is not \"refresh/N\" with N "
	                                       "a whole number from 1 to 100; using refresh/2"},
	        {"{\"fps\": \"refresh/101\"}", "f.json: \"fps\": \"refresh/101\" is not \"refresh/N\" with N "
	                                       "a whole number from 1 to 100; using refresh/2"},
	        {"{\"fps\": \"refresh-\"}", "f.json: \"fps\": \"refresh-\" is not \"refresh-N\" with N a "
	                                    "number from 0 to 10000; using refresh/2"},
	        {"{\"fps\": \"refresh--3\"}", "f.json: \"fps\": \"refresh--3\" is not \"refresh-N\" with N a "
	                                      "number from 0 to 10000; using refresh/2"},
	        {"{\"fps\": \"refresh-10001\"}", "f.json: \"fps\": \"refresh-10001\" is not \"refresh-N\" "
	                                         "with N a number from 0 to 10000; using refresh/2"},
	        {"{\"fps\": \"refresh*2\"}", "f.json: \"fps\": \"refresh*2\" is not \"refresh\", "
	                                     "\"refresh/N\" or \"refresh-N\"; using refresh/2"},
	        {"{\"fps\": \"refresh / 2\"}", "f.json: \"fps\": \"refresh / 2\" is not \"refresh\", "
	                                       "\"refresh/N\" or \"refresh-N\"; using refresh/2"},
	};
	check_each(refused, sizeof(refused) / sizeof(refused[0]), false, &c);
	CHECK(c.fps_base == LOWLAT_FPS_REFRESH_DIV && c.fps_n == 2);

	/* The environment takes the same text. */
	const char *good[] = {"LOWLAT_FPS", "refresh-3", NULL};
	lowlat_config_defaults(&c);
	CHECK_STR(apply_env(good, &c), "");
	CHECK(c.fps_base == LOWLAT_FPS_REFRESH_MINUS && c.fps_n == 3);
	const char *bad[] = {"LOWLAT_FPS", "refresh/x", NULL};
	CHECK_STR(apply_env(bad, &c),
	          "LOWLAT_FPS=refresh/x is not \"refresh/N\" with N a whole number from 1 to 100; using "
	          "refresh-3");
}

static void test_precedence(void)
{
	struct lowlat_config c;

	/* defaults < default.json < game file < environment: each applies only what it sets. */
	lowlat_config_defaults(&c);
	CHECK_STR(parse("{\"fps\": 60, \"method\": \"early\", \"log\": true}", &c), "");
	CHECK_STR(parse("{\"fps\": 120, \"present_mode\": \"mailbox\"}", &c), "");
	const char *env[] = {"LOWLAT_FPS", "141", NULL};
	CHECK_STR(apply_env(env, &c), "");
	CHECK(c.fps == 141);
	CHECK(c.method == LOWLAT_METHOD_EARLY);
	CHECK(c.present_mode == LOWLAT_PRESENT_MODE_MAILBOX);
	CHECK(c.log);
	CHECK(c.max_latency_frames == 1 && c.enabled);

	/* A bad value higher up keeps the value from below, and says which. */
	CHECK_STR(parse("{\"fps\": -3}", &c),
	          "f.json: \"fps\": -3 is out of range (0 = off, or 1 to 10000); using 141");

	/* apply_mask copies exactly the keys a source set. */
	struct lowlat_config src, dst;
	lowlat_config_defaults(&src);
	lowlat_config_defaults(&dst);
	src.fps = 30;
	src.log = true;
	strcpy(src.log_dir, "/x");
	lowlat_config_apply_mask(&dst, &src,
	                         LOWLAT_KEY_BIT(LOWLAT_KEY_FPS) | LOWLAT_KEY_BIT(LOWLAT_KEY_LOG_DIR));
	CHECK(dst.fps == 30 && !dst.log);
	CHECK_STR(dst.log_dir, "/x");
}

static void test_names(void)
{
	for (int k = 0; k < LOWLAT_KEY_COUNT; k++)
		CHECK(lowlat_config_key_lookup(lowlat_config_key_name(k)) == k);
	CHECK(lowlat_config_key_lookup("FPS") == -1);
	CHECK_STR(lowlat_config_key_env(LOWLAT_KEY_MAX_LATENCY_FRAMES), "LOWLAT_MAX_LATENCY_FRAMES");
	CHECK(lowlat_config_key_name(LOWLAT_KEY_COUNT) == NULL);
	CHECK_STR(lowlat_method_name(LOWLAT_METHOD_EARLY), "early");
	CHECK(lowlat_method_name((enum lowlat_method)7) == NULL);
}

int main(void)
{
	RUN(test_defaults);
	RUN(test_valid_keys);
	RUN(test_invalid_values);
	RUN(test_syntax_errors);
	RUN(test_env);
	RUN(test_refresh_values);
	RUN(test_precedence);
	RUN(test_names);
	return check_result();
}
