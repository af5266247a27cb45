/* test_game.c — game-key detection from each source, in order, with faked environment, command
 * line, executable and application info; and the key sanitiser. */
#include "check.h"
#include "config.h"
#include "config_game.h"

static const char *fake_getenv(void *user, const char *name)
{
	for (const char *const *e = user; e && *e; e += 2)
		if (!strcmp(e[0], name))
			return e[1];
	return NULL;
}

/* A process: env pairs, cmdline with its NULs (size given), exe, app and engine names. */
static struct lowlat_game detect(const char *const *env, const char *cmdline, size_t cmdline_size,
                                 const char *exe, const char *app, const char *engine)
{
	struct lowlat_process p = {
	        .env = {fake_getenv, (void *)env},
	        .cmdline = cmdline,
	        .cmdline_size = cmdline_size,
	        .exe = exe,
	        .app_name = app,
	        .engine_name = engine,
	};
	struct lowlat_game g;

	lowlat_game_detect(&p, &g);
	return g;
}

#define CMDLINE(s) s, sizeof(s) /* a literal's own NUL ends its last argument */

static void test_steam(void)
{
	const char *both[] = {"SteamAppId", "397540", "SteamGameId", "12", NULL};
	struct lowlat_game g = detect(both, CMDLINE("Z:\\g\\Game.exe"), "wine", "Game.exe", "DXVK");
	CHECK_STR(g.key, "397540");
	CHECK(g.source == LOWLAT_GAME_STEAM_APP_ID);
	CHECK_STR(lowlat_game_source_name(g.source), "SteamAppId");

	/* 0 counts as absent; SteamGameId is next. */
	const char *zero[] = {"SteamAppId", "0", "SteamGameId", "12345678901234567890", NULL};
	g = detect(zero, NULL, 0, "game", NULL, NULL);
	CHECK_STR(g.key, "12345678901234567890");
	CHECK(g.source == LOWLAT_GAME_STEAM_GAME_ID);

	const char *zeros[] = {"SteamAppId", "0", "SteamGameId", "0", NULL};
	g = detect(zeros, NULL, 0, "game", NULL, NULL);
	CHECK_STR(g.key, "game");
	CHECK(g.source == LOWLAT_GAME_EXECUTABLE);

	/* Even an app id cannot climb out of games/. */
	const char *evil[] = {"SteamAppId", "../../.bashrc", NULL};
	g = detect(evil, NULL, 0, "game", NULL, NULL);
	CHECK_STR(g.key, "___.__.bashrc");
}

static void test_translated(void)
{
	/* DXVK and vkd3d name the .exe in pApplicationName; it beats the command line. */
	struct lowlat_game g =
	        detect(NULL, CMDLINE("C:\\x\\launcher.exe"), "wine", "Borderlands3.exe", "DXVK");
	CHECK_STR(g.key, "Borderlands3.exe");
	CHECK(g.source == LOWLAT_GAME_TRANSLATED);
	g = detect(NULL, NULL, 0, "wine64-preloader", "Game.exe", "vkd3d");
	CHECK_STR(g.key, "Game.exe");
	CHECK(g.source == LOWLAT_GAME_TRANSLATED);
	/* Another engine's application name is not an .exe name: the command line comes first. */
	g = detect(NULL, CMDLINE("Z:\\games\\Game.exe"), "wine", "Unreal", "UnrealEngine");
	CHECK_STR(g.key, "Game.exe");
	CHECK(g.source == LOWLAT_GAME_WINE_CMDLINE);
	/* An empty name from DXVK falls through. */
	g = detect(NULL, NULL, 0, "native", "", "DXVK");
	CHECK_STR(g.key, "native");
}

static void test_cmdline(void)
{
	/* Wine 10: the process is `wine`, cmdline `Game.exe args`; the path may use '\' or '/'. */
	struct lowlat_game g =
	        detect(NULL, CMDLINE("Z:\\games\\Game.exe\0-dx12\0-windowed"), "wine", NULL, NULL);
	CHECK_STR(g.key, "Game.exe");
	CHECK(g.source == LOWLAT_GAME_WINE_CMDLINE);
	CHECK_STR(lowlat_game_source_name(g.source), "the .exe in the command line");
	g = detect(NULL, CMDLINE("/usr/bin/wine\0/home/u/Games/Some Game/SomeGame.EXE\0arg.exe"), "wine",
	           NULL, NULL);
	CHECK_STR(g.key, "SomeGame.EXE");
	/* The first .exe, not a later argument. */
	g = detect(NULL, CMDLINE("Game.exe\0other.exe"), "wine", NULL, NULL);
	CHECK_STR(g.key, "Game.exe");
	/* ".exe" alone is no name; an argument merely containing .exe is not one either. */
	g = detect(NULL, CMDLINE("C:\\.exe\0x.exe.txt"), "mygame", NULL, NULL);
	CHECK_STR(g.key, "mygame");
	CHECK(g.source == LOWLAT_GAME_EXECUTABLE);
	/* A command line without a final NUL is still read within its size. */
	static const char unterminated[] = {'G', '.', 'e', 'x', 'e'};
	g = detect(NULL, unterminated, sizeof(unterminated), "wine", NULL, NULL);
	CHECK_STR(g.key, "G.exe");
}

static void test_executable_and_app_name(void)
{
	struct lowlat_game g = detect(NULL, CMDLINE("./vkcube\0--c\0100"), "vkcube", "vkcube", "vkcube");
	CHECK_STR(g.key, "vkcube");
	CHECK(g.source == LOWLAT_GAME_EXECUTABLE);
	/* Wine's loader names no game: fall to the application name. */
	g = detect(NULL, CMDLINE("wine\0--help"), "wine", "Some App", NULL);
	CHECK_STR(g.key, "Some App");
	CHECK(g.source == LOWLAT_GAME_APP_NAME);
	g = detect(NULL, NULL, 0, "wine64-preloader", "x/y", NULL);
	CHECK_STR(g.key, "x_y");
	/* Nothing at all. */
	g = detect(NULL, NULL, 0, NULL, NULL, NULL);
	CHECK_STR(g.key, "");
	CHECK(g.source == LOWLAT_GAME_NONE);
	g = detect(NULL, NULL, 0, "wine", "", NULL);
	CHECK(g.source == LOWLAT_GAME_NONE);
}

static const char *sanitize(const char *in)
{
	static char out[LOWLAT_GAME_KEY_MAX + 1];
	if (!lowlat_game_key_sanitize(in, strlen(in), out))
		return "(none)";
	return out;
}

static void test_sanitize(void)
{
	CHECK_STR(sanitize("Game.exe"), "Game.exe");
	CHECK_STR(sanitize("a/b\\c"), "a_b_c");
	CHECK_STR(sanitize(".."), "__");
	CHECK_STR(sanitize("."), "_");
	CHECK_STR(sanitize(".hidden"), "_hidden");
	CHECK_STR(sanitize("a..b"), "a._b");
	CHECK_STR(sanitize("tab\there\x7f"), "tab_here_");
	CHECK_STR(sanitize("Spiel für alle"), "Spiel für alle");
	CHECK_STR(sanitize(""), "(none)");

	/* Cut at the limit, and never inside a UTF-8 character: 199 'a' then "é" (2 bytes) would end
	 * at byte 201, so the é goes. */
	char long_name[260];
	memset(long_name, 'a', 199);
	strcpy(long_name + 199, "\xc3\xa9tail");
	const char *s = sanitize(long_name);
	CHECK(strlen(s) == 199);
	memset(long_name, 'b', 250);
	long_name[250] = '\0';
	CHECK(strlen(sanitize(long_name)) == LOWLAT_GAME_KEY_MAX);
}

int main(void)
{
	RUN(test_steam);
	RUN(test_translated);
	RUN(test_cmdline);
	RUN(test_executable_and_app_name);
	RUN(test_sanitize);
	return check_result();
}
