/* lowlat_config.h — the config format: its keys, their types, ranges and defaults, and the parser.
 *
 * A config is a JSON object; every key is optional. A source (built-in defaults, default.json, the
 * game's file, VK_EXT_layer_settings, LOWLAT_* environment variables) applies only its valid keys
 * over the values the sources below it left, so the precedence chain is the order of application.
 * An invalid key is reported in one line and skipped; the rest of the source still applies.
 *
 * Nothing here reads files, the environment or the clock: the parser is a pure function of its
 * arguments, so tests assert every message it can produce.
 */
#ifndef LOWLAT_CONFIG_PUBLIC_H
#define LOWLAT_CONFIG_PUBLIC_H

#include <stdbool.h>
#include <stdint.h>

/* The keys, in the order they are documented. The JSON key and the VK_EXT_layer_settings name are
 * the same; the environment variable is LOWLAT_ and the key in capitals. */
enum lowlat_config_key {
	LOWLAT_KEY_FPS,                /* number, frames per second; 0 = limiter off; or "refresh[/N|-N]" */
	LOWLAT_KEY_METHOD,             /* "late" | "early" */
	LOWLAT_KEY_PRESENT_MODE,       /* "auto" | "fifo" | "fifo_latest_ready" | "mailbox" | "immediate" */
	LOWLAT_KEY_MAX_LATENCY_FRAMES, /* integer; while capping, frames unshown; 0 = the app's own */
	LOWLAT_KEY_LOG,                /* bool */
	LOWLAT_KEY_LOG_DIR,            /* string, absolute path; "" = the log module's default */
	LOWLAT_KEY_ENABLED,            /* bool; false = lowlat passes everything through */
	LOWLAT_KEY_STACK_LIMITERS,     /* bool; true = lowlat's cap also over the app's own limiter */
	LOWLAT_KEY_COUNT
};

/* Where the limiter waits; the pacing core (layer/brain/pace.h) defines what each means. "late" is the
 * default because it samples input as late as the cap allows. */
enum lowlat_method {
	LOWLAT_METHOD_LATE,
	LOWLAT_METHOD_EARLY,
};

enum lowlat_present_mode {
	LOWLAT_PRESENT_MODE_AUTO, /* keep what the app asked for */
	LOWLAT_PRESENT_MODE_FIFO,
	LOWLAT_PRESENT_MODE_FIFO_LATEST_READY,
	LOWLAT_PRESENT_MODE_MAILBOX,
	LOWLAT_PRESENT_MODE_IMMEDIATE,
};

/* Range of `fps`: 0 (off) or 1..10000 frames per second. Below 1 fps a frame would wait longer
 * than lowlat's 1 s limit on any single wait (which keeps a hung game quittable), so the cap could
 * not be held. Above 10000 fps the interval (100 us) is the size of a sleep's own wake-up error and
 * of a present call, so a cap means nothing; no display refreshes that fast, and such a value is a
 * typo (1e9, an extra digit). */
#define LOWLAT_FPS_MIN 1.0     /* frames per second */
#define LOWLAT_FPS_MAX 10000.0 /* frames per second */

/* `max_latency_frames` = k: while lowlat caps, the app may start frame N only once frame N-k was
 * shown (1: no frame queued behind another); without a cap lowlat leaves the app alone, since an
 * uncapped game held to a short queue leaves the GPU idle and clocking down (vkd3d-proton's
 * finding). Range: 0 (leave the app's own, also while capping) or 1..16 frames, the range DXGI's
 * SetMaximumFrameLatency accepts (DXGI_MAX_SWAP_CHAIN_BUFFERS), which DXVK follows. */
#define LOWLAT_MAX_LATENCY_FRAMES_MAX 16 /* frames */

/* `log_dir` holds a path of at most this many bytes, terminating NUL included. */
#define LOWLAT_CONFIG_PATH_MAX 1024 /* bytes */

/* What `fps` is measured against. A cap may be a share of the display's refresh rate ("refresh",
 * "refresh/N", "refresh-N"): each swapchain resolves it once lowlat knows its display's rate
 * (layer/config/fps_refresh.h). */
enum lowlat_fps_base {
	LOWLAT_FPS_ABSOLUTE,      /* `fps` frames per second (0: off) */
	LOWLAT_FPS_REFRESH_DIV,   /* the refresh rate divided by `fps_n` (whole, 1 to 100; "refresh" is 1) */
	LOWLAT_FPS_REFRESH_MINUS, /* the refresh rate less `fps_n` frames per second (0 to 10000) */
};

struct lowlat_config {
	double fps; /* frames per second; 0 = off; 0 too when fps_base is not ABSOLUTE */
	enum lowlat_fps_base fps_base;
	double fps_n; /* the N of "refresh/N" or "refresh-N" */
	enum lowlat_method method;
	enum lowlat_present_mode present_mode;
	uint32_t max_latency_frames; /* frames; applies while capping; 0 = leave the app's own */
	bool log;
	char log_dir[LOWLAT_CONFIG_PATH_MAX]; /* "" = default */
	bool enabled;
	/* When the app or MangoHud limits the frame rate (the app's own present-timing targets,
	 * minimumIntervalUs in VK_NV_low_latency2, dxgi/d3d9.maxFrameRate in DXVK_CONFIG,
	 * VKD3D_FRAME_RATE, MangoHud's fps_limit), lowlat adds no cap of its own unless this is true: two
	 * limiters on one frame fight over its start. */
	bool stack_limiters;
};

/* The built-in defaults: limiter off, late, auto, 1, no log, default log dir, enabled, no stacking. */
void lowlat_config_defaults(struct lowlat_config *cfg);

/* Whether the config asks for a cap: enabled, and a frame rate or a share of the refresh rate. */
bool lowlat_config_capping(const struct lowlat_config *cfg);

/* Where messages go: one call per message, `text` without the `lowlat: ` prefix or a newline. The
 * layer sends them to lowlat_msg(); tests collect them. A NULL sink (or NULL `line`) drops them.
 * `line` takes the problems (a bad value, an unreadable file); `info`, when set, takes what is only
 * news (which files were read, the settings in force), which the layer says at LOWLAT_VERBOSE=1
 * alone. Without `info` those go to `line` too. */
struct lowlat_config_sink {
	void (*line)(void *user, const char *text);
	void *user;
	void (*info)(void *user, const char *text);
};

/* Parse `json_text` (NUL-terminated) and apply its valid keys onto *inout. `filename` only names
 * the source in messages. A syntax error names filename:line:column and ignores the whole file;
 * an unknown key, a wrong type or an out-of-range value names the file, key and value and says
 * which value is used instead. Returns false when the whole file was ignored. */
bool lowlat_config_parse(const char *json_text, const char *filename, struct lowlat_config *inout,
                         const struct lowlat_config_sink *sink);

/* Names for messages and tools; NULL for an out-of-range argument. */
const char *lowlat_config_key_name(enum lowlat_config_key key);
const char *lowlat_method_name(enum lowlat_method method);
const char *lowlat_present_mode_name(enum lowlat_present_mode mode);

#endif
