/* config_files.c — the config files of a process, the whole precedence chain, and live reload.
 *
 * Owns struct lowlat_config_state. Reload is a stat(2) of the (at most two) files in use, at most
 * once a second, on lowlat's control thread (config_global.c): no inotify descriptor, and it works
 * on any filesystem, including the network and FUSE ones inotify cannot watch. The rate limit uses
 * the caller's now_ns; nothing here reads a clock or the real environment.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config_files.h"
#include "config_game.h"
#include "fps_refresh.h"

void lowlat_config_describe(const struct lowlat_config *c, char *dst, size_t size)
{
	char fps[48];

	lowlat_fps_describe(c, false, fps, sizeof(fps));
	snprintf(dst, size,
	         "fps %s, method %s, present_mode %s, max_latency_frames %u, log %s, log_dir %s, enabled %s, "
	         "stack_limiters %s",
	         fps, lowlat_method_name(c->method), lowlat_present_mode_name(c->present_mode),
	         c->max_latency_frames, c->log ? "true" : "false", c->log_dir[0] ? c->log_dir : "default",
	         c->enabled ? "true" : "false", c->stack_limiters ? "true" : "false");
}

bool lowlat_config_equal(const struct lowlat_config *a, const struct lowlat_config *b)
{
	return lowlat_fps_equal(a, b) && a->method == b->method && a->present_mode == b->present_mode &&
	       a->max_latency_frames == b->max_latency_frames && a->log == b->log &&
	       !strcmp(a->log_dir, b->log_dir) && a->enabled == b->enabled &&
	       a->stack_limiters == b->stack_limiters;
}

/* Fill the identity of f->path from stat(2). */
static void identify(struct lowlat_config_file *f)
{
	struct stat st;

	f->exists = stat(f->path, &st) == 0;
	if (!f->exists) {
		f->dev = 0;
		f->ino = 0;
		f->size = 0;
		f->mtime_ns = 0;
		return;
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

static bool same_identity(const struct lowlat_config_file *a, const struct lowlat_config_file *b)
{
	return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns;
}

/* What happened to a file, for the start line. */
enum file_outcome { FILE_UNUSED, FILE_READ, FILE_NOT_FOUND, FILE_IGNORED };

/* Read f->path (identity taken first, so a write racing the read is seen at the next check) and
 * apply it onto *cfg. A missing file is silent unless `missing_is_error` (LOWLAT_CONFIG named it). */
static enum file_outcome apply_file(struct lowlat_config_file *f, struct lowlat_config *cfg,
                                    bool missing_is_error, const struct lowlat_config_sink *sink)
{
	enum file_outcome outcome = FILE_IGNORED;
	char *text = NULL;
	struct stat st;
	ssize_t got;
	size_t len = 0;
	int fd;

	if (!f->path[0])
		return FILE_UNUSED;
	identify(f);
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && !missing_is_error)
			return FILE_NOT_FOUND;
		lowlat_config_emit(sink, "%s: cannot open (%s); ignoring this file", f->path,
		                   strerror(errno));
		return errno == ENOENT ? FILE_NOT_FOUND : FILE_IGNORED;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		lowlat_config_emit(sink, "%s: not a regular file; ignoring this file", f->path);
		goto out_close;
	}
	/* One byte more than the limit, to tell "exactly at the limit" from "over it". */
	text = malloc(LOWLAT_CONFIG_FILE_SIZE_MAX + 2);
	if (!text) {
		lowlat_config_emit(sink, "%s: out of memory reading it; ignoring this file", f->path);
		goto out_close;
	}
	while (len <= LOWLAT_CONFIG_FILE_SIZE_MAX &&
	       (got = read(fd, text + len, LOWLAT_CONFIG_FILE_SIZE_MAX + 1 - len)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			lowlat_config_emit(sink, "%s: cannot read (%s); ignoring this file", f->path,
			                   strerror(errno));
			goto out_free;
		}
		len += (size_t)got;
	}
	if (len > LOWLAT_CONFIG_FILE_SIZE_MAX) {
		lowlat_config_emit(sink, "%s: larger than 64 KiB, so not a lowlat config; ignoring this file",
		                   f->path);
		goto out_free;
	}
	text[len] = '\0';
	outcome = lowlat_config_parse(text, f->path, cfg, sink) ? FILE_READ : FILE_IGNORED;
out_free:
	free(text);
out_close:
	close(fd);
	return outcome;
}

/* $XDG_CONFIG_HOME/lowlat, or ~/.config/lowlat. The XDG base-directory spec says a relative
 * XDG_CONFIG_HOME is invalid and to be ignored. */
static bool config_dir(const struct lowlat_env *env, char *dst, size_t size)
{
	const char *xdg = env->get(env->user, "XDG_CONFIG_HOME");
	const char *home = env->get(env->user, "HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(dst, size, "%s/lowlat", xdg);
	else if (home && home[0] == '/')
		n = snprintf(dst, size, "%s/.config/lowlat", home);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

static const char *outcome_name(enum file_outcome o)
{
	switch (o) {
	case FILE_READ: return "read";
	case FILE_NOT_FOUND: return "not found";
	case FILE_IGNORED: return "ignored";
	case FILE_UNUSED: break;
	}
	return "unused";
}

/* Apply the chain but the control overrides from the built-in defaults into *cfg; `report[i]`
 * says whether file i's messages go to the sink. The captured source and the environment are
 * only reported at load. */
static void apply_chain(struct lowlat_config_state *st, struct lowlat_config *cfg, const bool *report,
                        enum file_outcome *outcome, const struct lowlat_config_sink *sink)
{
	lowlat_config_defaults(cfg);
	for (int i = 0; i < LOWLAT_CONFIG_FILE_COUNT; i++)
		outcome[i] =
		        apply_file(&st->files[i], cfg, i == LOWLAT_CONFIG_FILE_GAME && st->game_file_from_env,
		                   report[i] ? sink : NULL);
	lowlat_config_apply_mask(cfg, &st->settings, st->settings_set);
	lowlat_config_apply_env(&st->env, cfg, NULL);
}

void lowlat_config_load(struct lowlat_config_state *st, const struct lowlat_process *proc,
                        const struct lowlat_config_source *settings, int64_t now_ns,
                        const struct lowlat_config_sink *sink)
{
	enum file_outcome outcome[LOWLAT_CONFIG_FILE_COUNT];
	char dir[LOWLAT_CONFIG_FILE_PATH_MAX - 64], files[2 * LOWLAT_CONFIG_FILE_PATH_MAX + 64], result[1200];
	const char *explicit_file;
	struct lowlat_config cfg;
	bool have_dir;

	memset(st, 0, sizeof(*st));
	st->env = proc->env;
	lowlat_game_detect(proc, &st->game);

	have_dir = config_dir(&st->env, dir, sizeof(dir));
	if (have_dir)
		snprintf(st->files[LOWLAT_CONFIG_FILE_DEFAULT].path, LOWLAT_CONFIG_FILE_PATH_MAX,
		         "%s/default.json", dir);
	explicit_file = st->env.get(st->env.user, "LOWLAT_CONFIG");
	if (explicit_file && *explicit_file) {
		/* LOWLAT_CONFIG replaces the game's file: default.json still applies beneath it, so a
		 * shared default keeps working when one file is tried out. */
		if (strlen(explicit_file) < LOWLAT_CONFIG_FILE_PATH_MAX) {
			strcpy(st->files[LOWLAT_CONFIG_FILE_GAME].path, explicit_file);
			st->game_file_from_env = true;
		} else {
			lowlat_config_emit(sink, "LOWLAT_CONFIG is longer than %d bytes; ignoring it",
			                   LOWLAT_CONFIG_FILE_PATH_MAX - 1);
		}
	}
	if (!st->game_file_from_env && have_dir && st->game.key[0])
		snprintf(st->files[LOWLAT_CONFIG_FILE_GAME].path, LOWLAT_CONFIG_FILE_PATH_MAX,
		         "%s/games/%s.json", dir, st->game.key);

	/* Load is apply_chain with the captured source filled in between, and every message. */
	lowlat_config_defaults(&cfg);
	for (int i = 0; i < LOWLAT_CONFIG_FILE_COUNT; i++)
		outcome[i] = apply_file(&st->files[i], &cfg,
		                        i == LOWLAT_CONFIG_FILE_GAME && st->game_file_from_env, sink);
	st->settings = cfg;
	if (settings && settings->apply)
		settings->apply(settings->user, &st->settings, &st->settings_set, sink);
	lowlat_config_apply_mask(&cfg, &st->settings, st->settings_set);
	lowlat_config_apply_env(&st->env, &cfg, sink);
	st->config = cfg;
	st->base = cfg; /* no control overrides yet */
	st->next_check_ns = now_ns + LOWLAT_CONFIG_CHECK_INTERVAL_NS;

	if (!have_dir) {
		snprintf(files, sizeof(files),
		         "no config directory (neither XDG_CONFIG_HOME nor HOME is set)");
		if (st->game_file_from_env)
			snprintf(files + strlen(files), sizeof(files) - strlen(files),
			         ", %s (%s, LOWLAT_CONFIG)", st->files[LOWLAT_CONFIG_FILE_GAME].path,
			         outcome_name(outcome[LOWLAT_CONFIG_FILE_GAME]));
	} else {
		snprintf(files, sizeof(files), "%s (%s), %s (%s%s)",
		         st->files[LOWLAT_CONFIG_FILE_DEFAULT].path,
		         outcome_name(outcome[LOWLAT_CONFIG_FILE_DEFAULT]),
		         st->files[LOWLAT_CONFIG_FILE_GAME].path[0] ? st->files[LOWLAT_CONFIG_FILE_GAME].path
		                                                    : "no game file",
		         outcome_name(outcome[LOWLAT_CONFIG_FILE_GAME]),
		         st->game_file_from_env ? ", LOWLAT_CONFIG" : "");
	}
	if (st->game.source == LOWLAT_GAME_NONE)
		lowlat_config_emit_info(sink, "config: no game key found; files: %s", files);
	else
		lowlat_config_emit_info(sink, "config: game \"%s\" from %s; files: %s", st->game.key,
		                        lowlat_game_source_name(st->game.source), files);
	lowlat_config_describe(&st->config, result, sizeof(result));
	lowlat_config_emit_info(sink, "config: %s", result);
}

/* The part of a reload check that runs once a second, kept out of line: its 8 KiB of zeroed
 * buffers would otherwise be set up on every tick that finds nothing due. */
static __attribute__((noinline)) bool check_files(struct lowlat_config_state *st,
                                                  const struct lowlat_config_sink *sink)
{
	enum file_outcome outcome[LOWLAT_CONFIG_FILE_COUNT];
	bool report[LOWLAT_CONFIG_FILE_COUNT] = {false}, any = false, changed;
	char names[2 * LOWLAT_CONFIG_FILE_PATH_MAX + 8] = "", result[1200];
	struct lowlat_config cfg;

	for (int i = 0; i < LOWLAT_CONFIG_FILE_COUNT; i++) {
		struct lowlat_config_file now = st->files[i];

		if (!now.path[0])
			continue;
		identify(&now);
		report[i] = !same_identity(&now, &st->files[i]);
		if (report[i])
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			         any ? ", " : "", now.path);
		any |= report[i];
	}
	if (!any)
		return false;

	apply_chain(st, &cfg, report, outcome, sink);
	st->base = cfg;
	lowlat_config_apply_mask(&cfg, &st->control, st->control_set);
	changed = !lowlat_config_equal(&cfg, &st->config);
	st->config = cfg;
	lowlat_config_describe(&cfg, result, sizeof(result));
	lowlat_config_emit_info(sink, "config: reloaded %s; %s%s", names, result,
	                        changed ? "" : " (unchanged)");
	return changed;
}

bool lowlat_config_reload(struct lowlat_config_state *st, int64_t now_ns,
                          const struct lowlat_config_sink *sink)
{
	if (now_ns < st->next_check_ns)
		return false;
	st->next_check_ns = now_ns + LOWLAT_CONFIG_CHECK_INTERVAL_NS;
	return check_files(st, sink);
}
