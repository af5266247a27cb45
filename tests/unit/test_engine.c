/* test_engine.c — what other frame limiters do by themselves (engine.c): DXVK's and vkd3d-proton's
 * own limiters and latency hint, and MangoHud 0.8's fps_limit as its Vulkan layer reads it (the
 * environment variables, which config file, the file's and the variable's syntax, which wins). */
#include "check.h"
#include "engine.h"

static void test_engine(void)
{
	struct lowlat_engine_env env = {0};
	char s[400];

	CHECK(lowlat_dxvk_config_get("a = 1; dxgi.maxFrameRate = 60 ;b=2", "dxgi.maxFrameRate", s,
	                             sizeof(s)));
	CHECK_STR(s, "60");
	CHECK(lowlat_dxvk_config_get("x = 1; x = 2", "x", s, sizeof(s)));
	CHECK_STR(s, "2"); /* the last one, as DXVK applies them */
	CHECK(!lowlat_dxvk_config_get("xx = 1", "x", s, sizeof(s)));
	CHECK(!lowlat_dxvk_config_get(NULL, "x", s, sizeof(s)));

	CHECK(!lowlat_engine_limiter("DXVK", &env, s, sizeof(s)));
	env.dxvk_config = "dxgi.maxFrameRate = 0";
	CHECK(!lowlat_engine_limiter("DXVK", &env, s, sizeof(s)));
	env.dxvk_config = "dxvk.latencySleep = True; d3d9.maxFrameRate = 72";
	CHECK(lowlat_engine_limiter("DXVK", &env, s, sizeof(s)));
	CHECK_STR(s, "DXVK limits its own frame rate (d3d9.maxFrameRate = 72 in DXVK_CONFIG)");
	/* Another engine's settings do not count. */
	CHECK(!lowlat_engine_limiter("vkd3d", &env, s, sizeof(s)));
	CHECK(!lowlat_engine_limiter("Unity", &env, s, sizeof(s)));
	env.vkd3d_frame_rate = "50";
	CHECK(lowlat_engine_limiter("vkd3d", &env, s, sizeof(s)));
	CHECK_STR(s, "vkd3d limits its own frame rate (VKD3D_FRAME_RATE=50)");

	/* The hint: said for default settings, not once the wrapper's are there. */
	env = (struct lowlat_engine_env){0};
	CHECK(lowlat_engine_latency_hint("DXVK", &env, s, sizeof(s)));
	CHECK(strstr(s, "lowlat %command%") && strstr(s, "dxvk.latencySleep = True"));
	env.dxvk_config = "dxvk.latencySleep = True; dxgi.maxFrameLatency = 1";
	CHECK(!lowlat_engine_latency_hint("DXVK", &env, s, sizeof(s)));
	CHECK(lowlat_engine_latency_hint("vkd3d", &env, s, sizeof(s)));
	CHECK(strstr(s, "VKD3D_SWAPCHAIN_LATENCY_FRAMES=1"));
	env.vkd3d_latency = "1";
	CHECK(!lowlat_engine_latency_hint("vkd3d", &env, s, sizeof(s)));
	CHECK(!lowlat_engine_latency_hint("", &env, s, sizeof(s)));
}

static bool mangohud(const char *config, const char *fps_limit, const char *file_text, char *s, size_t size)
{
	const struct lowlat_mangohud_env env = {
	        .config = config,
	        .fps_limit = fps_limit,
	        .file = file_text ? "/h/.config/MangoHud/MangoHud.conf" : NULL,
	        .file_text = file_text,
	};
	s[0] = '\0';
	return lowlat_mangohud_limiter(&env, s, size);
}

static void test_mangohud_limiter(void)
{
	char s[400];

	CHECK(!mangohud(NULL, NULL, NULL, s, sizeof(s)));
	/* MANGOHUD_CONFIG: options separated by ',', ':' or ';', a list's entries by '+'. */
	CHECK(mangohud("fps_limit=60", NULL, NULL, s, sizeof(s)));
	CHECK_STR(s, "MangoHud limits the frame rate (fps_limit=60 in MANGOHUD_CONFIG)");
	CHECK(mangohud("no_display,fps_limit=30+60:fps_limit_method=early", NULL, NULL, s, sizeof(s)));
	CHECK_STR(s, "MangoHud limits the frame rate (fps_limit=30+60 in MANGOHUD_CONFIG)");
	CHECK(mangohud(" fps_limit = 50 ;position=top-left", NULL, NULL, s, sizeof(s)));
	CHECK_STR(s, "MangoHud limits the frame rate (fps_limit=50 in MANGOHUD_CONFIG)");
	CHECK(mangohud("fps_limit=60,fps_limit=45", NULL, NULL, s, sizeof(s)));
	CHECK_STR(s, "MangoHud limits the frame rate (fps_limit=45 in MANGOHUD_CONFIG)"); /* the last */
	/* The first entry is the limit in force; 0 is none, one that is no number is skipped. */
	CHECK(!mangohud("fps_limit=0+60", NULL, NULL, s, sizeof(s)));
	CHECK(mangohud("fps_limit=abc+45", NULL, NULL, s, sizeof(s)));
	CHECK(!mangohud("fps_limit=abc", NULL, NULL, s, sizeof(s)));
	CHECK(!mangohud("fps_limit=", NULL, NULL, s, sizeof(s)));

	/* With the variable set, the file counts only with read_cfg, and the variable's options win. */
	CHECK(!mangohud("no_display", NULL, "fps_limit=60\n", s, sizeof(s)));
	CHECK(!mangohud("", NULL, "fps_limit=60\n", s, sizeof(s)));
	CHECK(!mangohud("read_cfg=0", NULL, "fps_limit=60\n", s, sizeof(s)));
	CHECK(mangohud("read_cfg,no_display", NULL, "fps_limit = 48 # the laptop\n", s, sizeof(s)));
	CHECK_STR(s, "MangoHud limits the frame rate (fps_limit=48 in /h/.config/MangoHud/MangoHud.conf)");
	CHECK(!mangohud("read_cfg:fps_limit=0", NULL, "fps_limit=60\n", s, sizeof(s)));

	/* The file alone: `key=value` lines, '#' comments, the last assignment. */
	CHECK(mangohud(NULL, NULL, "# MangoHud.conf\nfps_limit=72\r\nlegacy_layout=0\nfps_limit=90,60\n", s,
	               sizeof(s)));
	CHECK_STR(s, "MangoHud limits the frame rate (fps_limit=90,60 in /h/.config/MangoHud/MangoHud.conf)");
	CHECK(!mangohud(NULL, NULL, "#fps_limit=60\nno_display\n", s, sizeof(s)));
	CHECK(!mangohud(NULL, NULL, "", s, sizeof(s)));

	/* MANGOHUD_FPS_LIMIT goes in front, as an integer: 0 turns the limit off whatever the list. */
	CHECK(mangohud("fps_limit=60", "30", NULL, s, sizeof(s)));
	CHECK_STR(s, "MangoHud limits the frame rate (MANGOHUD_FPS_LIMIT=30)");
	CHECK(!mangohud("fps_limit=60", "0", NULL, s, sizeof(s)));
	CHECK(!mangohud("fps_limit=60", "0.5", NULL, s, sizeof(s)));
	CHECK(mangohud("fps_limit=60", "x", NULL, s, sizeof(s))); /* not a number: ignored */
	CHECK_STR(s, "MangoHud limits the frame rate (fps_limit=60 in MANGOHUD_CONFIG)");
}

static void test_mangohud_paths(void)
{
	static char p[LOWLAT_MANGOHUD_PATHS_MAX][LOWLAT_MANGOHUD_PATH_MAX];
	struct lowlat_mangohud_where w = {
	        .config_dir = "/h/.config", .exe = "/usr/bin/vkcube", .comm = "vkcube"};

	/* Most specific first; MangoHud reads the first that opens. */
	CHECK_EQ_I64(lowlat_mangohud_config_paths(&w, p), 4);
	CHECK_STR(p[0], "/usr/bin/MangoHud.conf");
	CHECK_STR(p[1], "/h/.config/MangoHud/vkcube.conf");
	CHECK_STR(p[2], "/etc/MangoHud.conf");
	CHECK_STR(p[3], "/h/.config/MangoHud/MangoHud.conf");

	/* MANGOHUD_CONFIGFILE alone; no home, no file. */
	w.config_file = "/tmp/m.conf";
	CHECK_EQ_I64(lowlat_mangohud_config_paths(&w, p), 1);
	CHECK_STR(p[0], "/tmp/m.conf");
	w.config_file = NULL;
	w.config_dir = "";
	CHECK_EQ_I64(lowlat_mangohud_config_paths(&w, p), 0);
	w.config_dir = "/h/.config";

	/* Under Wine's preloader: wine-<game>.conf, the game's name from comm when it is an .exe... */
	w.exe = "/opt/proton/files/bin/wine64-preloader";
	w.comm = "Game.exe";
	CHECK_EQ_I64(lowlat_mangohud_config_paths(&w, p), 5);
	CHECK_STR(p[0], "/h/.config/MangoHud/wine-Game.conf");
	CHECK_STR(p[1], "/opt/proton/files/bin/MangoHud.conf");
	CHECK_STR(p[2], "/h/.config/MangoHud/wine64-preloader.conf");
	/* ...else from the first argument with a path (Wine paths use '\\'), else the first .exe. */
	static const char cmd1[] = "C:\\Games\\My.Game.exe\0-windowed\0";
	w.comm = "My.Game.exe-pre"; /* comm is cut at 15 characters */
	w.cmdline = cmd1;
	w.cmdline_size = sizeof(cmd1) - 1;
	lowlat_mangohud_config_paths(&w, p);
	CHECK_STR(p[0], "/h/.config/MangoHud/wine-My.Game.conf");
	static const char cmd2[] = "game.exe\0";
	w.cmdline = cmd2;
	w.cmdline_size = sizeof(cmd2) - 1;
	lowlat_mangohud_config_paths(&w, p);
	CHECK_STR(p[0], "/h/.config/MangoHud/wine-game.conf");

	/* Wine 10's own loader is `wine`, no preloader: MangoHud then takes no wine- file. */
	w.exe = "/usr/lib/wine/wine";
	CHECK_EQ_I64(lowlat_mangohud_config_paths(&w, p), 4);
	CHECK_STR(p[1], "/h/.config/MangoHud/wine.conf");

	/* No executable: "unknown.conf", and no folder of its own. */
	w.exe = NULL;
	CHECK_EQ_I64(lowlat_mangohud_config_paths(&w, p), 3);
	CHECK_STR(p[0], "/h/.config/MangoHud/unknown.conf");
}

int main(void)
{
	RUN(test_engine);
	RUN(test_mangohud_limiter);
	RUN(test_mangohud_paths);
	return check_result();
}
