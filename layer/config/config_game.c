/* config_game.c — which game is this? The key that names its file in games/.
 *
 * Under Proton the process is Wine's loader (`wine`, or `wine64-preloader` in older builds) with
 * `Game.exe` in its command line, so the native executable's name says nothing; the sources are
 * tried from the most to the least specific. A pure function of struct lowlat_process.
 */
#include <string.h>
#include <strings.h>

#include "config.h"
#include "config_game.h"

const char *lowlat_game_source_name(enum lowlat_game_source source)
{
	switch (source) {
	case LOWLAT_GAME_NONE: return "nothing";
	case LOWLAT_GAME_STEAM_APP_ID: return "SteamAppId";
	case LOWLAT_GAME_STEAM_GAME_ID: return "SteamGameId";
	case LOWLAT_GAME_TRANSLATED: return "the DXVK/vkd3d application name";
	case LOWLAT_GAME_WINE_CMDLINE: return "the .exe in the command line";
	case LOWLAT_GAME_EXECUTABLE: return "the executable's name";
	case LOWLAT_GAME_APP_NAME: return "the Vulkan application name";
	}
	return "?";
}

bool lowlat_game_key_sanitize(const char *in, size_t len, char out[LOWLAT_GAME_KEY_MAX + 1])
{
	size_t n = 0;

	if (len > LOWLAT_GAME_KEY_MAX) {
		len = LOWLAT_GAME_KEY_MAX;
		/* Back off to the start of the UTF-8 character that the cut would split. */
		while (len > 0 && ((unsigned char)in[len] & 0xc0) == 0x80)
			len--;
	}
	for (; n < len && in[n]; n++) {
		unsigned char c = (unsigned char)in[n];
		bool dot_run = c == '.' && (n == 0 || in[n - 1] == '.');

		out[n] = c == '/' || c == '\\' || c < 0x20 || c == 0x7f || dot_run ? '_' : (char)c;
	}
	out[n] = '\0';
	return n > 0;
}

/* The part of `arg` after its last '/' or '\\': Wine paths (Z:\games\Game.exe) use either. */
static const char *basename_any(const char *arg, size_t len, size_t *out_len)
{
	size_t start = 0;

	for (size_t i = 0; i < len; i++)
		if (arg[i] == '/' || arg[i] == '\\')
			start = i + 1;
	*out_len = len - start;
	return arg + start;
}

static bool ends_with_exe(const char *name, size_t len)
{
	return len > 4 && !strncasecmp(name + len - 4, ".exe", 4);
}

/* Names Wine's loader runs under: when it has no .exe in its command line, its own name would
 * put every Wine program in one file. */
static bool is_wine_loader(const char *exe)
{
	static const char *const names[] = {"wine", "wine64", "wine-preloader", "wine64-preloader"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(exe, names[i]))
			return true;
	return false;
}

static bool take(struct lowlat_game *out, enum lowlat_game_source source, const char *text, size_t len)
{
	if (!text || !lowlat_game_key_sanitize(text, len, out->key))
		return false;
	out->source = source;
	return true;
}

static bool take_string(struct lowlat_game *out, enum lowlat_game_source source, const char *text)
{
	return text && take(out, source, text, strlen(text));
}

static bool steam_id(const struct lowlat_process *p, const char *name, enum lowlat_game_source source,
                     struct lowlat_game *out)
{
	const char *id = p->env.get ? p->env.get(p->env.user, name) : NULL;

	/* Steam sets 0 outside a game (e.g. for its own helper processes). */
	return id && *id && strcmp(id, "0") && take_string(out, source, id);
}

bool lowlat_game_detect(const struct lowlat_process *p, struct lowlat_game *out)
{
	out->key[0] = '\0';
	out->source = LOWLAT_GAME_NONE;

	if (steam_id(p, "SteamAppId", LOWLAT_GAME_STEAM_APP_ID, out) ||
	    steam_id(p, "SteamGameId", LOWLAT_GAME_STEAM_GAME_ID, out))
		return true;

	/* DXVK and vkd3d-proton set pApplicationName to the game's .exe name. */
	if (p->engine_name && (!strcmp(p->engine_name, "DXVK") || !strcmp(p->engine_name, "vkd3d")) &&
	    p->app_name && *p->app_name && take_string(out, LOWLAT_GAME_TRANSLATED, p->app_name))
		return true;

	for (size_t at = 0; p->cmdline && at < p->cmdline_size;) {
		const char *arg = p->cmdline + at;
		size_t len = strnlen(arg, p->cmdline_size - at), base_len;
		const char *base = basename_any(arg, len, &base_len);

		if (ends_with_exe(base, base_len) && take(out, LOWLAT_GAME_WINE_CMDLINE, base, base_len))
			return true;
		at += len + 1;
	}

	if (p->exe && *p->exe && !is_wine_loader(p->exe) && take_string(out, LOWLAT_GAME_EXECUTABLE, p->exe))
		return true;

	if (p->app_name && *p->app_name && take_string(out, LOWLAT_GAME_APP_NAME, p->app_name))
		return true;

	out->key[0] = '\0';
	out->source = LOWLAT_GAME_NONE;
	return false;
}
