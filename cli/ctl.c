/* ctl.c — `lowlat ctl` and `lowlat status`: clients of the control sockets the layer opens in each
 * running game ($XDG_RUNTIME_DIR/lowlat/<game-key>-<pid>.sock, layer/config/control.c).
 *
 *   lowlat ctl --list                        the games running with lowlat (key, pid, socket)
 *   lowlat ctl [--all|TARGET] COMMAND [ARG]  send one command, print the reply
 *   lowlat status [--once]                   each game's swapchains: cap, level, fps, latency
 *
 * TARGET is a pid, a game key or a socket path. Without one the command goes to the game in the
 * foreground: the only game running; else the one whose X11 window has the focus (foreground.c);
 * else, where that says nothing (Wayland windows, no window manager, a sandbox's pid namespace),
 * the game that presented a frame most recently. --all sends it to every game. COMMAND is `status`,
 * `reset`, `toggle`, `cycle 60,90,0` or a config key and its value (`fps 60`, `fps refresh/2`).
 * Exit status 0 when every reply is "ok ...", 1 for an error reply, 2 when no game could be reached.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define MAX_GAMES 64
/* A reply is one line; `stats` with 16 swapchains is about 2.5 KB. */
#define REPLY_MAX 8192
/* How long a game has to answer: its socket's thread answers at once unless the game is stopped. */
#define REPLY_TIMEOUT_S 2
/* How often `lowlat status` redraws: the layer counts frame rates over half-second windows. */
#define STATUS_PERIOD_NS 1000000000ll /* 1 s */

struct game {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char key[256];
	long pid;
};

static int connect_to(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -1;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* The live sockets in the runtime directory; a socket nobody answers (its game was killed) is left
 * out. */
static int find_games(struct game *games)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	char dir[256];
	struct dirent *e;
	int n = 0;
	DIR *d;

	if (!runtime || !*runtime)
		return 0;
	snprintf(dir, sizeof(dir), "%s/lowlat", runtime);
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d)) && n < MAX_GAMES) {
		size_t len = strlen(e->d_name);
		char *dash, *end;
		struct game *g = &games[n];
		int fd;

		if (len < 6 || strcmp(e->d_name + len - 5, ".sock"))
			continue;
		if (snprintf(g->path, sizeof(g->path), "%s/%s", dir, e->d_name) >= (int)sizeof(g->path))
			continue;
		snprintf(g->key, sizeof(g->key), "%.*s", (int)(len - 5), e->d_name);
		if (!(dash = strrchr(g->key, '-')))
			continue;
		*dash = '\0';
		g->pid = strtol(dash + 1, &end, 10);
		if (*end || (fd = connect_to(g->path)) < 0)
			continue;
		close(fd);
		n++;
	}
	closedir(d);
	return n;
}

/* Sends `line` (a newline is added) to the socket and reads the one-line reply into reply; false,
 * with a message, when the game cannot be reached. */
static bool exchange(const char *path, const char *line, char *reply, size_t size)
{
	size_t len = 0, n = strlen(line);
	ssize_t got;
	int fd;

	if ((fd = connect_to(path)) < 0) {
		fprintf(stderr, "lowlat: cannot connect to %s: %s\n", path, strerror(errno));
		return false;
	}
	/* A game that hangs (or is stopped) must not hang a key binding: its reply is waited for so long. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){.tv_sec = REPLY_TIMEOUT_S},
	           sizeof(struct timeval));
	if (write(fd, line, n) != (ssize_t)n || write(fd, "\n", 1) != 1) {
		fprintf(stderr, "lowlat: cannot send to %s: %s\n", path, strerror(errno));
		close(fd);
		return false;
	}
	shutdown(fd, SHUT_WR);
	while (len < size - 1 && (got = read(fd, reply + len, size - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	reply[len] = '\0';
	if (!len) {
		fprintf(stderr, "lowlat: no reply from %s\n", path);
		return false;
	}
	return true;
}

/* A field "name=value" of a `stats` reply's part, copied into dst ("" when absent). */
static void field(const char *part, const char *name, char *dst, size_t size)
{
	size_t n = strlen(name);
	const char *p = part;

	dst[0] = '\0';
	while ((p = strstr(p, name))) {
		if ((p == part || p[-1] == ' ') && p[n] == '=') {
			p += n + 1;
			snprintf(dst, size, "%.*s", (int)strcspn(p, " ;\n"), p);
			return;
		}
		p += n;
	}
}

/* When the game last presented (CLOCK_MONOTONIC ns, from its `stats`), 0 when unknown. */
static long long last_present(const struct game *g)
{
	char reply[REPLY_MAX], value[32];

	if (!exchange(g->path, "stats", reply, sizeof(reply)) || strncmp(reply, "ok stats", 8))
		return 0;
	field(reply, "last_present_ns", value, sizeof(value));
	return atoll(value);
}

/* The game in the foreground (see the file's comment), and why it, for the message. */
static const struct game *foreground(const struct game *games, int n, const char **why)
{
	const struct game *best = NULL;
	long long best_t = -1;
	pid_t pid;

	if (n == 1) {
		*why = "the only game running with lowlat";
		return &games[0];
	}
	if ((pid = lowlat_x11_active_pid()) > 0) {
		for (int i = 0; i < n; i++) {
			if (games[i].pid == pid) {
				*why = "its X11 window has the focus";
				return &games[i];
			}
		}
	}
	for (int i = 0; i < n; i++) {
		long long t = last_present(&games[i]);
		if (t > best_t) {
			best_t = t;
			best = &games[i];
		}
	}
	*why = "no game's X11 window has the focus; it presented most recently";
	return best;
}

static bool is_command(const char *word)
{
	static const char *const words[] = {"status", "reset",   "toggle",       "cycle",
	                                    "fps",    "method",  "present_mode", "max_latency_frames",
	                                    "log",    "log_dir", "enabled",      "stack_limiters"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(word, words[i]))
			return true;
	return false;
}

static int usage(void)
{
	fprintf(stderr, "usage: lowlat ctl --list\n"
	                "       lowlat ctl [--all | PID | GAME-KEY | SOCKET] COMMAND\n"
	                "COMMAND: status | reset | toggle | cycle CAP,CAP,... | KEY VALUE (fps 60, fps "
	                "refresh/2, ...)\n"
	                "Without a game named: the game in the foreground; --all: every running game.\n");
	return 2;
}

/* Sends line to g; prints the reply (after "KEY PID: " when `named`). 0 ok, 1 error reply, 2 none. */
static int send_to(const struct game *g, const char *path, const char *line, bool named)
{
	char reply[REPLY_MAX];

	if (!exchange(path, line, reply, sizeof(reply)))
		return 2;
	if (named)
		printf("%s %ld: ", g->key, g->pid);
	fputs(reply, stdout);
	return strncmp(reply, "ok", 2) ? 1 : 0;
}

int lowlat_ctl(int argc, char **argv)
{
	struct game games[MAX_GAMES];
	char line[2048];
	const char *target = NULL, *why = NULL;
	const struct game *g = NULL;
	bool all = false;
	int n, first = 0;
	size_t len = 0;

	if (argc == 1 && !strcmp(argv[0], "--list")) {
		n = find_games(games);
		for (int i = 0; i < n; i++)
			printf("%s\t%ld\t%s\n", games[i].key, games[i].pid, games[i].path);
		return 0;
	}
	if (argc >= 1 && !strcmp(argv[0], "--all")) {
		all = true;
		first = 1;
	} else if (argc >= 1 && !is_command(argv[0])) {
		target = argv[0];
		first = 1;
	}
	if (first >= argc)
		return usage();
	for (int i = first; i < argc; i++) {
		int w = snprintf(line + len, sizeof(line) - len, "%s%s", i > first ? " " : "", argv[i]);
		if (w < 0 || (size_t)w >= sizeof(line) - len) {
			fprintf(stderr, "lowlat ctl: command too long\n");
			return 2;
		}
		len += (size_t)w;
	}

	if (target && strchr(target, '/'))
		return send_to(NULL, target, line, false);
	n = find_games(games);
	if (all) {
		int rc = n ? 0 : 2;
		if (!n)
			fprintf(stderr, "lowlat ctl: no running game with lowlat\n");
		for (int i = 0; i < n; i++) {
			int r = send_to(&games[i], games[i].path, line, true);
			rc = r > rc ? r : rc;
		}
		return rc;
	}
	for (int i = 0; target && i < n; i++) {
		bool pid_match =
		        isdigit((unsigned char)target[0]) && strtol(target, NULL, 10) == games[i].pid;
		if (!pid_match && strcmp(target, games[i].key))
			continue;
		if (g) {
			fprintf(stderr, "lowlat ctl: more than one game matches %s; name one by pid:\n",
			        target);
			for (int j = 0; j < n; j++)
				fprintf(stderr, "  %s\t%ld\n", games[j].key, games[j].pid);
			return 2;
		}
		g = &games[i];
	}
	if (!target && n)
		g = foreground(games, n, &why);
	if (!g) {
		fprintf(stderr, "lowlat ctl: no running game with lowlat%s%s\n", target ? " matches " : "",
		        target ? target : "");
		return 2;
	}
	if (why && n > 1)
		fprintf(stderr, "lowlat ctl: to %s (pid %ld): %s\n", g->key, g->pid, why);
	return send_to(g, g->path, line, false);
}

/* "60.000" -> "60", "59.940" -> "59.94". */
static void trim_number(char *s)
{
	size_t len = strlen(s);

	if (!strchr(s, '.'))
		return;
	while (len && s[len - 1] == '0')
		s[--len] = '\0';
	if (len && s[len - 1] == '.')
		s[--len] = '\0';
}

/* Under a swapchain's row, where its latency is measured: the latency in three parts, each p50 /
 * p99 (lowlat-stats' "latency parts"), and where the display part ends. */
static void parts_row(const char *part)
{
	static const struct {
		const char *key, *words;
	} until_words[] = {{"out", "the first pixel out"},
	                   {"visible", "the first pixel visible"},
	                   {"dequeued", "taken by the compositor"}};
	char game[32], gpu[32], display[32], until[24];
	const char *until_text = "-";

	field(part, "game_ms", game, sizeof(game));
	field(part, "gpu_ms", gpu, sizeof(gpu));
	field(part, "display_ms", display, sizeof(display));
	field(part, "until", until, sizeof(until));
	if (!display[0] || !strcmp(display, "-/-"))
		return;
	for (size_t i = 0; i < sizeof(until_words) / sizeof(until_words[0]); i++)
		if (!strcmp(until, until_words[i].key))
			until_text = until_words[i].words;
	printf("%-20s %-8s   game %s  GPU %s  display %s ms (until %s)\n", "", "", game, gpu, display,
	       until_text);
}

/* One table row per swapchain of a `stats` reply. */
static void status_rows(const struct game *g, const char *reply)
{
	const char *part = strchr(reply, ';');
	int shown = 0;

	for (; part; part = strchr(part + 1, ';')) {
		char size[24], cap[24], spec[32], level[24], fps[24], p50[24], p99[24], capcol[96],
		        latency[64];
		const char *p = part + 2;

		snprintf(size, sizeof(size), "%.*s", (int)strcspn(p, " ;"), p);
		field(p, "cap", cap, sizeof(cap));
		field(p, "spec", spec, sizeof(spec));
		field(p, "level", level, sizeof(level));
		field(p, "fps", fps, sizeof(fps));
		field(p, "p50_ms", p50, sizeof(p50));
		field(p, "p99_ms", p99, sizeof(p99));
		bool absolute = isdigit((unsigned char)spec[0]);
		trim_number(cap);
		/* A share of the refresh shows what it came to; one at 0 waits for the display's rate. */
		if (atof(cap) > 0)
			snprintf(capcol, sizeof(capcol), "%s%s%s%s", cap, absolute ? "" : " (",
			         absolute ? "" : spec, absolute ? "" : ")");
		else
			snprintf(capcol, sizeof(capcol), "%s", absolute ? "off" : spec);
		if (strcmp(p50, "-"))
			snprintf(latency, sizeof(latency), "%s / %s ms", p50, p99);
		else
			snprintf(latency, sizeof(latency), "-");
		printf("%-20.20s %-8ld %-11s %-18s %-13s %7.1f  %s\n", g->key, g->pid, size, capcol, level,
		       atof(fps), latency);
		parts_row(p);
		shown++;
	}
	if (!shown)
		printf("%-20.20s %-8ld (no swapchain now)\n", g->key, g->pid);
}

static void status_once(void)
{
	struct game games[MAX_GAMES];
	char reply[REPLY_MAX];
	int n = find_games(games);

	if (!n) {
		printf("no running game with lowlat\n");
		return;
	}
	printf("%-20s %-8s %-11s %-18s %-13s %7s  %s\n", "GAME", "PID", "SWAPCHAIN", "CAP", "LEVEL", "FPS",
	       "LATENCY p50 / p99");
	for (int i = 0; i < n; i++) {
		if (exchange(games[i].path, "stats", reply, sizeof(reply)) && !strncmp(reply, "ok stats", 8))
			status_rows(&games[i], reply);
		else
			printf("%-20.20s %-8ld (no answer)\n", games[i].key, games[i].pid);
	}
}

int lowlat_status(int argc, char **argv)
{
	bool once = !isatty(STDOUT_FILENO);

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--once")) {
			once = true;
		} else {
			fprintf(stderr,
			        "usage: lowlat status [--once]\n"
			        "Each running game's swapchains: cap, pacing level, frame rate and, "
			        "where the\n"
			        "level measures it, latency (frame start to first pixel) and its parts "
			        "(game, GPU,\n"
			        "display, each p50/p99). Redrawn "
			        "every second\n"
			        "on a terminal until interrupted; --once (or output to a pipe) "
			        "prints it once.\n");
			return 2;
		}
	}
	if (once) {
		status_once();
		return 0;
	}
	for (;;) {
		/* Home and clear, so the table redraws in place. */
		fputs("\033[H\033[2J", stdout);
		status_once();
		fflush(stdout);
		nanosleep(&(struct timespec){.tv_sec = STATUS_PERIOD_NS / 1000000000ll}, NULL);
	}
}
