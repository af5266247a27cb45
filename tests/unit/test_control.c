/* test_control.c — control commands as the socket passes them: status, each key, reset, every
 * kind of malformed command (with the exact reply), and overrides surviving a file reload. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "config_control.h"
#include "config_files.h"

#define SECOND_NS 1000000000ll

static char dir[64] = "/tmp/lowlat-control-XXXXXX";

static const char *fake_getenv(void *user, const char *name)
{
	(void)user;
	return !strcmp(name, "XDG_CONFIG_HOME") ? dir : NULL;
}

static struct lowlat_config_state st;
static char reply[2048];
static bool changed;

static const char *control(const char *line)
{
	changed = lowlat_config_control(&st, line, reply, sizeof(reply));
	return reply;
}

static void test_commands(void)
{
	CHECK_STR(control("status"),
	          "ok game \"Game.exe\"; fps 60, method late, present_mode auto, "
	          "max_latency_frames 1, log false, log_dir default, enabled true, stack_limiters false");
	CHECK(!changed);
	CHECK_STR(control("fps 30\n"), "ok fps 30");
	CHECK(changed && st.config.fps == 30);
	CHECK_STR(control("fps 30\r\n"), "ok fps 30");
	CHECK(!changed);
	CHECK_STR(control("  method   early  "), "ok method early");
	CHECK(st.config.method == LOWLAT_METHOD_EARLY);
	CHECK_STR(control("enabled off"), "ok enabled off");
	CHECK(!st.config.enabled);
	CHECK_STR(control("present_mode mailbox"), "ok present_mode mailbox");
	CHECK_STR(control("max_latency_frames 2"), "ok max_latency_frames 2");
	CHECK_STR(control("log yes"), "ok log yes");
	CHECK_STR(control("log_dir /tmp/with space"), "ok log_dir /tmp/with space");
	CHECK_STR(st.config.log_dir, "/tmp/with space");
	CHECK_STR(control("status"), "ok game \"Game.exe\"; fps 30, method early, present_mode mailbox, "
	                             "max_latency_frames 2, log true, log_dir /tmp/with space, enabled "
	                             "false, stack_limiters false");
	/* reset: back to the files and the environment. */
	CHECK_STR(control("reset"),
	          "ok fps 60, method late, present_mode auto, max_latency_frames 1, log false, "
	          "log_dir default, enabled true, stack_limiters false");
	CHECK(changed && st.config.fps == 60 && st.control_set == 0);
}

static void test_malformed(void)
{
	struct lowlat_config before = st.config;

	CHECK_STR(control("fps sixty"),
	          "error: fps sixty is not a number, \"refresh\", \"refresh/N\" or \"refresh-N\"; using 60");
	CHECK_STR(control("fps 50000"),
	          "error: fps 50000 is out of range (0 = off, or 1 to 10000); using 60");
	CHECK_STR(control("fps"), "error: fps needs a value");
	CHECK_STR(control("method sideways"),
	          "error: method sideways is not \"late\" or \"early\"; using late");
	CHECK_STR(control("enabled maybe"), "error: enabled maybe is not true or false; using true");
	CHECK_STR(control("log_dir relative"),
	          "error: log_dir relative is not an absolute path; using the default");
	CHECK_STR(control("fly 60"),
	          "error: unknown command \"fly\" (commands: status, reset, toggle, cycle, or a key and "
	          "its value: fps, method, present_mode, max_latency_frames, log, log_dir, enabled, "
	          "stack_limiters)");
	CHECK_STR(control(""),
	          "error: unknown command \"\" (commands: status, reset, toggle, cycle, or a key and its "
	          "value: fps, method, present_mode, max_latency_frames, log, log_dir, enabled, "
	          "stack_limiters)");
	CHECK_STR(control("fps refresh/0"), "error: fps refresh/0 is not \"refresh/N\" with N a whole "
	                                    "number from 1 to 100; using 60");
	CHECK_STR(control("toggle now"), "error: toggle takes no value; nothing changed");
	CHECK_STR(control("cycle"),
	          "error: cycle needs caps separated by commas, e.g. cycle 60,90,0; nothing changed");
	CHECK_STR(control("cycle 60,,0"),
	          "error: cycle takes caps separated by commas, e.g. cycle 60,90,0; nothing changed");
	CHECK_STR(control("cycle 60,90,"),
	          "error: cycle takes caps separated by commas, e.g. cycle 60,90,0; nothing changed");
	CHECK_STR(control("cycle 60,9o,0"), "error: fps 9o is not a number, \"refresh\", \"refresh/N\" or "
	                                    "\"refresh-N\"; using 60");
	CHECK_STR(control("cycle 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"),
	          "error: cycle takes at most 16 caps; nothing changed");
	CHECK_STR(control("status now"), "error: status takes no value; nothing changed");
	CHECK_STR(control("reset all"), "error: reset takes no value; nothing changed");
	CHECK_STR(control("fp\x01s 1"), "error: control characters in the command; nothing changed");
	char *long_line = malloc(LOWLAT_CONTROL_LINE_MAX + 10);
	memset(long_line, 'a', LOWLAT_CONTROL_LINE_MAX + 9);
	long_line[LOWLAT_CONTROL_LINE_MAX + 9] = '\0';
	CHECK_STR(control(long_line), "error: command longer than 1088 bytes; nothing changed");
	free(long_line);
	CHECK(!changed);
	CHECK(lowlat_config_equal(&before, &st.config) && st.control_set == 0);
}

/* The commands a key is bound to: the cap toggled off and back, cycled through a list, set from
 * the refresh rate. */
static void test_keys(void)
{
	CHECK_STR(control("fps 60"), "ok fps 60");
	CHECK_STR(control("toggle"), "ok fps 0");
	CHECK(changed && st.config.fps == 0);
	CHECK_STR(control("toggle"), "ok fps 60");
	CHECK(changed && st.config.fps == 60);
	/* cycle: the one after the cap in force; from a cap not in the list, the first. */
	CHECK_STR(control("cycle 60,90,0"), "ok fps 90");
	CHECK(changed && st.config.fps == 90);
	CHECK_STR(control("cycle 60,90,0"), "ok fps 0");
	CHECK_STR(control("cycle 60,90,0"), "ok fps 60");
	CHECK_STR(control("cycle 60, 90, 0"), "ok fps 90");
	CHECK_STR(control("cycle 30,45"), "ok fps 30");
	/* Shares of the refresh rate, in the list and alone. */
	CHECK_STR(control("cycle refresh/2,refresh-3,0"), "ok fps refresh/2");
	CHECK(st.config.fps_base == LOWLAT_FPS_REFRESH_DIV && st.config.fps_n == 2 && st.config.fps == 0);
	CHECK_STR(control("cycle refresh/2,refresh-3,0"), "ok fps refresh-3");
	CHECK_STR(control("toggle"), "ok fps 0");
	CHECK_STR(control("toggle"), "ok fps refresh-3");
	CHECK(st.config.fps_base == LOWLAT_FPS_REFRESH_MINUS && st.config.fps_n == 3);
	CHECK_STR(control("fps refresh"), "ok fps refresh");
	CHECK(changed && st.config.fps_base == LOWLAT_FPS_REFRESH_DIV && st.config.fps_n == 1);
	/* Nothing to bring back: off, and never toggled off since. */
	CHECK_STR(control("fps 0"), "ok fps 0");
	CHECK_STR(control("reset"), "ok fps 60, method late, present_mode auto, max_latency_frames 1, "
	                            "log false, log_dir default, enabled true, stack_limiters false");
	CHECK_STR(control("fps 0"), "ok fps 0");
	CHECK_STR(control("toggle"), "error: toggle: no cap is in force and none was turned off; nothing "
	                             "changed (set one first, e.g. fps 60)");
	CHECK(!changed && st.config.fps == 0);
	control("reset");
}

static void test_survives_reload(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/lowlat/default.json", dir);
	CHECK_STR(control("fps 45"), "ok fps 45");
	check_write_file(path, "{\"fps\": 90, \"method\": \"early\"}");
	CHECK(lowlat_config_reload(&st, 100 * SECOND_NS, NULL));
	/* The file's method applies, the override's fps stays. */
	CHECK(st.config.fps == 45 && st.config.method == LOWLAT_METHOD_EARLY);
	CHECK(st.base.fps == 90);
	CHECK_STR(control("reset"),
	          "ok fps 90, method early, present_mode auto, max_latency_frames 1, log false, "
	          "log_dir default, enabled true, stack_limiters false");
	unlink(path);
}

int main(void)
{
	static const char cmdline[] = "Game.exe";
	char path[256];

	if (!check_config_home(dir, path, sizeof(path), "{\"fps\": 60}"))
		return 1;

	struct lowlat_process p = {
	        .env = {fake_getenv, NULL}, .cmdline = cmdline, .cmdline_size = sizeof(cmdline)};
	lowlat_config_load(&st, &p, NULL, 0, NULL);

	RUN(test_commands);
	RUN(test_malformed);
	RUN(test_keys);
	RUN(test_survives_reload);

	snprintf(path, sizeof(path), "%s/lowlat", dir);
	rmdir(path);
	rmdir(dir);
	return check_result();
}
