/* test_files.c — the files of the chain in a temporary XDG_CONFIG_HOME: what load reads and says,
 * LOWLAT_CONFIG, the captured layer-settings source, and reload (rate limit by injected now_ns,
 * edits, a file appearing and going, a rename over it, messages only for the changed file). */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "config_files.h"
#include "sink.h"

#define SECOND_NS 1000000000ll

static struct collected out;
static char dir[256], cfgdir[300], default_path[400], game_path[400];
static const char *env_vars[16];

static const char *fake_getenv(void *user, const char *name)
{
	(void)user;
	for (const char *const *e = env_vars; *e; e += 2)
		if (!strcmp(e[0], name))
			return e[1];
	return NULL;
}

/* Give a file an mtime of our choosing, so an edit is seen whatever the filesystem's timestamp
 * granularity, and a same-size rewrite can be made to look untouched. */
static void set_mtime(const char *path, long sec)
{
	struct timespec times[2] = {{sec, 0}, {sec, 0}};
	CHECK(utimensat(AT_FDCWD, path, times, 0) == 0);
}

static struct lowlat_process process(void)
{
	static const char cmdline[] = "Z:\\games\\Game.exe\0-windowed";
	return (struct lowlat_process){
	        .env = {fake_getenv, NULL},
	        .cmdline = cmdline,
	        .cmdline_size = sizeof(cmdline),
	        .exe = "wine",
	};
}

static void load(struct lowlat_config_state *st, const struct lowlat_config_source *settings, int64_t now_ns)
{
	struct lowlat_process p = process();
	struct lowlat_config_sink sink = collect_sink(&out);
	lowlat_config_load(st, &p, settings, now_ns, &sink);
}

static bool reload(struct lowlat_config_state *st, int64_t now_ns)
{
	struct lowlat_config_sink sink = collect_sink(&out);
	return lowlat_config_reload(st, now_ns, &sink);
}

static void test_load(void)
{
	struct lowlat_config_state st;
	char want[2048];

	/* No files yet: built-in defaults, and the start lines say where they were looked for. */
	load(&st, NULL, 0);
	snprintf(
	        want, sizeof(want),
	        "config: game \"Game.exe\" from the .exe in the command line; files: %s (not found), %s (not "
	        "found)\nconfig: fps 0, method late, present_mode auto, max_latency_frames 1, log false, "
	        "log_dir "
	        "default, enabled true, stack_limiters false",
	        default_path, game_path);
	CHECK_STR(out.text, want);

	check_write_file(default_path, "{\"fps\": 60, \"method\": \"early\", \"log\": true}");
	check_write_file(game_path, "{\"fps\": 141, \"present_mode\": \"mailbox\"}");
	load(&st, NULL, 0);
	snprintf(want, sizeof(want),
	         "config: game \"Game.exe\" from the .exe in the command line; files: %s (read), %s (read)\n"
	         "config: fps 141, method early, present_mode mailbox, max_latency_frames 1, log true, "
	         "log_dir "
	         "default, enabled true, stack_limiters false",
	         default_path, game_path);
	CHECK_STR(out.text, want);
	CHECK(st.config.fps == 141 && st.config.method == LOWLAT_METHOD_EARLY && st.config.log);
	CHECK(st.game.source == LOWLAT_GAME_WINE_CMDLINE);
}

static void test_lowlat_config_env(void)
{
	struct lowlat_config_state st;
	char explicit_path[420], want[2048];

	/* LOWLAT_CONFIG replaces the game file; default.json still applies beneath it. */
	snprintf(explicit_path, sizeof(explicit_path), "%s/mine.json", dir);
	check_write_file(explicit_path, "{\"fps\": 30}");
	env_vars[4] = "LOWLAT_CONFIG";
	env_vars[5] = explicit_path;
	env_vars[6] = NULL;
	load(&st, NULL, 0);
	snprintf(want, sizeof(want),
	         "config: game \"Game.exe\" from the .exe in the command line; files: %s (read), %s (read, "
	         "LOWLAT_CONFIG)\nconfig: fps 30, method early, present_mode auto, max_latency_frames 1, log "
	         "true, log_dir default, enabled true, stack_limiters false",
	         default_path, explicit_path);
	CHECK_STR(out.text, want);

	/* A LOWLAT_CONFIG that names no file is worth a warning (a game file missing is not). */
	unlink(explicit_path);
	load(&st, NULL, 0);
	snprintf(want, sizeof(want), "%s: cannot open (No such file or directory); ignoring this file",
	         explicit_path);
	CHECK(strstr(out.text, want) == out.text);
	CHECK(st.config.fps == 60);

	/* The environment beats every file. */
	env_vars[4] = "LOWLAT_FPS";
	env_vars[5] = "90";
	load(&st, NULL, 0);
	CHECK(st.config.fps == 90);
	env_vars[4] = NULL;
}

/* A fake VK_EXT_layer_settings: sets fps 75 and rejects a method, through the real setter. */
static void fake_settings(const void *user, struct lowlat_config *cfg, uint32_t *set,
                          const struct lowlat_config_sink *sink)
{
	const struct lowlat_config_origin o = {.kind = LOWLAT_ORIGIN_SETTINGS, .sink = sink};
	struct lowlat_config_value fps = {.type = LOWLAT_VALUE_NUMBER, .number = 75, .shown = "75"};
	struct lowlat_config_value method = {
	        .type = LOWLAT_VALUE_STRING, .string = "soon", .shown = "\"soon\""};

	(void)user;
	lowlat_config_set(&o, LOWLAT_KEY_FPS, &fps, cfg, set);
	lowlat_config_set(&o, LOWLAT_KEY_METHOD, &method, cfg, set);
}

static void test_settings_source(void)
{
	struct lowlat_config_state st;
	struct lowlat_config_source src = {fake_settings, NULL};

	/* Above the game file (141), below the environment; the bad value names the file chain's. */
	load(&st, &src, 0);
	CHECK(strstr(out.text,
	             "VK_EXT_layer_settings: \"method\": \"soon\" is not \"late\" or \"early\"; using "
	             "early\n") == out.text);
	CHECK(st.config.fps == 75);
	CHECK(st.settings_set == LOWLAT_KEY_BIT(LOWLAT_KEY_FPS));
	env_vars[4] = "LOWLAT_FPS";
	env_vars[5] = "90";
	load(&st, &src, 0);
	CHECK(st.config.fps == 90);
	env_vars[4] = NULL;

	/* A reload keeps the captured settings without repeating their message. */
	load(&st, &src, 0);
	check_write_file(game_path, "{\"fps\": 142, \"present_mode\": \"fifo\"}");
	set_mtime(game_path, 1000);
	CHECK(reload(&st, SECOND_NS));
	CHECK(st.config.fps == 75 && st.config.present_mode == LOWLAT_PRESENT_MODE_FIFO);
	CHECK(!strstr(out.text, "VK_EXT_layer_settings"));
}

static void test_reload(void)
{
	struct lowlat_config_state st;
	char want[2048];

	check_write_file(default_path, "{\"fps\": 60, \"bogus\": 1}");
	check_write_file(game_path, "{\"fps\": 141}");
	set_mtime(game_path, 2000);
	load(&st, NULL, 5 * SECOND_NS);
	CHECK(st.config.fps == 141);

	/* Edited, but within the second after load: not looked at yet. */
	check_write_file(game_path, "{\"fps\": 100}");
	set_mtime(game_path, 2001);
	CHECK(!reload(&st, 5 * SECOND_NS + SECOND_NS - 1));
	CHECK_STR(out.text, "");
	CHECK(st.config.fps == 141);
	/* A second later it is, and only the changed file speaks (default.json's bad key is not
	 * reported again). */
	CHECK(reload(&st, 6 * SECOND_NS));
	snprintf(want, sizeof(want),
	         "config: reloaded %s; fps 100, method late, present_mode auto, max_latency_frames 1, log "
	         "false, "
	         "log_dir default, enabled true, stack_limiters false",
	         game_path);
	CHECK_STR(out.text, want);
	CHECK(st.config.fps == 100);
	/* Nothing changed since: no reload, no message, and the next check is a second later again. */
	CHECK(!reload(&st, 7 * SECOND_NS));
	CHECK_STR(out.text, "");

	/* A bad value in the edit: its message, and the file's other keys still apply. */
	check_write_file(game_path, "{\"fps\": -1, \"method\": \"early\"}");
	set_mtime(game_path, 2002);
	CHECK(reload(&st, 8 * SECOND_NS));
	snprintf(want, sizeof(want),
	         "%s: \"fps\": -1 is out of range (0 = off, or 1 to 10000); using 60\n"
	         "config: reloaded %s; fps 60, method early, present_mode auto, max_latency_frames 1, log "
	         "false, "
	         "log_dir default, enabled true, stack_limiters false",
	         game_path, game_path);
	CHECK_STR(out.text, want);

	/* A syntax error ignores the whole game file: default.json's values are left. */
	check_write_file(game_path, "{\"fps\": 50,,}");
	set_mtime(game_path, 2003);
	CHECK(reload(&st, 9 * SECOND_NS));
	/* cJSON points just past the second comma, as it does for any missing key. */
	snprintf(want, sizeof(want), "%s:1:13: JSON syntax error; ignoring this file\n", game_path);
	CHECK(strstr(out.text, want) == out.text);
	CHECK(st.config.fps == 60 && st.config.method == LOWLAT_METHOD_LATE);

	/* The file goes, then comes back. */
	unlink(game_path);
	CHECK(!reload(&st, 10 * SECOND_NS)); /* still default.json's 60: reloaded but unchanged */
	CHECK(strstr(out.text, "(unchanged)") != NULL);
	check_write_file(game_path, "{\"fps\": 45}");
	CHECK(reload(&st, 11 * SECOND_NS));
	CHECK(st.config.fps == 45);

	/* An editor's save: a new file renamed over the old, same size and mtime, new inode. */
	char tmp_path[420];
	snprintf(tmp_path, sizeof(tmp_path), "%s.tmp", game_path);
	set_mtime(game_path, 3000);
	CHECK(!reload(&st, 12 * SECOND_NS) || st.config.fps == 45); /* pick up the mtime change */
	check_write_file(tmp_path, "{\"fps\": 46}");
	set_mtime(tmp_path, 3000);
	CHECK(rename(tmp_path, game_path) == 0);
	CHECK(reload(&st, 13 * SECOND_NS));
	CHECK(st.config.fps == 46);

	/* default.json changing matters too. */
	check_write_file(default_path, "{\"method\": \"early\"}");
	set_mtime(default_path, 4000);
	CHECK(reload(&st, 14 * SECOND_NS));
	CHECK(st.config.method == LOWLAT_METHOD_EARLY && st.config.fps == 46);
}

static void test_no_dir(void)
{
	struct lowlat_config_state st;
	const char *saved[16];

	memcpy(saved, env_vars, sizeof(saved));
	env_vars[0] = "HOME";
	env_vars[1] = "relative/home"; /* not absolute: ignored, like a relative XDG_CONFIG_HOME */
	env_vars[2] = NULL;
	load(&st, NULL, 0);
	CHECK_STR(out.text, "config: game \"Game.exe\" from the .exe in the command line; files: no config "
	                    "directory (neither XDG_CONFIG_HOME nor HOME is set)\n"
	                    "config: fps 0, method late, present_mode auto, max_latency_frames 1, log false, "
	                    "log_dir default, enabled true, stack_limiters false");
	CHECK(!reload(&st, 10 * SECOND_NS));

	/* HOME alone gives ~/.config/lowlat. */
	env_vars[1] = dir;
	load(&st, NULL, 0);
	char want[600];
	snprintf(want, sizeof(want), "%s/.config/lowlat/default.json (not found)", dir);
	CHECK(strstr(out.text, want) != NULL);
	memcpy(env_vars, saved, sizeof(saved));
}

int main(void)
{
	strcpy(dir, "/tmp/lowlat-test-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(cfgdir, sizeof(cfgdir), "%s/lowlat", dir);
	snprintf(default_path, sizeof(default_path), "%s/default.json", cfgdir);
	snprintf(game_path, sizeof(game_path), "%s/games/Game.exe.json", cfgdir);
	mkdir(cfgdir, 0700);
	snprintf(game_path, sizeof(game_path), "%s/games", cfgdir);
	mkdir(game_path, 0700);
	snprintf(game_path, sizeof(game_path), "%s/games/Game.exe.json", cfgdir);
	env_vars[0] = "XDG_CONFIG_HOME";
	env_vars[1] = dir;
	env_vars[2] = "HOME";
	env_vars[3] = "/nonexistent";

	RUN(test_load);
	RUN(test_lowlat_config_env);
	RUN(test_settings_source);
	RUN(test_reload);
	RUN(test_no_dir);

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_result();
}
