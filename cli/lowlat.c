/* lowlat.c — the `lowlat` command. `lowlat ctl` talks to a running game's control socket
 * ($XDG_RUNTIME_DIR/lowlat/<game-key>-<pid>.sock, made by the layer):
 *
 *   lowlat ctl --list                     the games running with lowlat (key, pid, socket)
 *   lowlat ctl [TARGET] COMMAND [ARG...]  send one command, print the reply
 *
 * TARGET is a pid, a game key or a socket path; it may be left out when one game runs. COMMAND
 * is `status`, `reset` or a config key and its value (`fps 60`, `method early`). Exit status 0
 * when the reply is "ok ...", 1 for an error reply, 2 when no game could be reached.
 *
 *   lowlat [--fps N] [--log] [--] COMMAND [ARG...]
 *
 * runs COMMAND with lowlat on (`lowlat %command%` in Steam's launch options): ENABLE_LOWLAT_LAYER=1,
 * LOWLAT_FPS / LOWLAT_LOG from the options, and the engine settings that let lowlat's late wait
 * reach a Proton game's own thread: DXVK's latency sleep on the game thread with one frame in
 * flight (appended to DXVK_CONFIG, never over a key the user set there) and vkd3d-proton's one
 * frame of swapchain latency (VKD3D_SWAPCHAIN_LATENCY_FRAMES=1 unless set). Then execs COMMAND.
 * Exit status 2 for bad arguments, 127 when COMMAND cannot be run.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_GAMES 64

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
static int find_games(struct game *games, char *dir, size_t dir_size)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	struct dirent *e;
	int n = 0;
	DIR *d;

	if (!runtime || !*runtime)
		return 0;
	snprintf(dir, dir_size, "%s/lowlat", runtime);
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

static bool is_command(const char *word)
{
	static const char *const words[] = {
	        "status", "reset",   "fps",     "method",        "present_mode", "max_latency_frames",
	        "log",    "log_dir", "enabled", "stack_limiters"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(word, words[i]))
			return true;
	return false;
}

static int usage(void)
{
	fprintf(stderr, "usage: lowlat ctl --list\n"
	                "       lowlat ctl [PID|GAME-KEY|SOCKET] status|reset|KEY VALUE\n");
	return 2;
}

static int ctl(int argc, char **argv)
{
	struct game games[MAX_GAMES];
	char dir[256], line[2048] = "", reply[4096];
	const char *path = NULL, *target = NULL;
	int n, fd, first = 0;
	size_t len = 0;
	ssize_t got;

	if (argc == 1 && !strcmp(argv[0], "--list")) {
		n = find_games(games, dir, sizeof(dir));
		for (int i = 0; i < n; i++)
			printf("%s\t%ld\t%s\n", games[i].key, games[i].pid, games[i].path);
		return 0;
	}
	if (argc < 1)
		return usage();
	if (!is_command(argv[0])) {
		target = argv[0];
		first = 1;
	}
	if (first >= argc)
		return usage();

	if (target && strchr(target, '/')) {
		path = target;
	} else {
		n = find_games(games, dir, sizeof(dir));
		for (int i = 0; i < n; i++) {
			bool pid_match = target && isdigit((unsigned char)target[0]) &&
			                 strtol(target, NULL, 10) == games[i].pid;
			if (!target || pid_match || !strcmp(target, games[i].key)) {
				if (path) {
					fprintf(stderr,
					        "lowlat ctl: more than one game matches%s%s; name one by "
					        "pid:\n",
					        target ? " " : "", target ? target : "");
					for (int j = 0; j < n; j++)
						fprintf(stderr, "  %s\t%ld\n", games[j].key, games[j].pid);
					return 2;
				}
				path = games[i].path;
			}
		}
		if (!path) {
			fprintf(stderr, "lowlat ctl: no running game with lowlat%s%s\n",
			        target ? " matches " : "", target ? target : "");
			return 2;
		}
	}

	for (int i = first; i < argc; i++) {
		int w = snprintf(line + len, sizeof(line) - len, "%s%s", i > first ? " " : "", argv[i]);
		if (w < 0 || (size_t)w >= sizeof(line) - len - 1) {
			fprintf(stderr, "lowlat ctl: command too long\n");
			return 2;
		}
		len += (size_t)w;
	}
	line[len++] = '\n';

	if ((fd = connect_to(path)) < 0) {
		fprintf(stderr, "lowlat ctl: cannot connect to %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (write(fd, line, len) != (ssize_t)len) {
		fprintf(stderr, "lowlat ctl: cannot send to %s: %s\n", path, strerror(errno));
		close(fd);
		return 2;
	}
	shutdown(fd, SHUT_WR);
	len = 0;
	while (len < sizeof(reply) - 1 && (got = read(fd, reply + len, sizeof(reply) - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	reply[len] = '\0';
	if (!len) {
		fprintf(stderr, "lowlat ctl: no reply from %s\n", path);
		return 2;
	}
	fputs(reply, stdout);
	return strncmp(reply, "ok", 2) ? 1 : 0;
}

/* The DXVK settings the wrapper adds. dxvk.latencySleep makes DXVK sleep on the game thread (through
 * VK_NV_low_latency2, which lowlat provides, where lowlat then waits); one frame of latency so the
 * game thread is not let run frames ahead of the presents (D3D8/9 read d3d9.*, D3D10/11 dxgi.*). */
static const char *const dxvk_settings[][2] = {
        {"dxvk.latencySleep", "True"},
        {"dxgi.maxFrameLatency", "1"},
        {"d3d9.maxFrameLatency", "1"},
};

/* Whether DXVK_CONFIG-style text ("key = value; key = value") sets key. */
static bool config_sets(const char *config, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = config; p && *p;) {
		while (*p == ' ' || *p == '\t' || *p == ';')
			p++;
		if (!strncmp(p, key, n)) {
			const char *q = p + n;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '=')
				return true;
		}
		p = strchr(p, ';');
	}
	return false;
}

/* DXVK_CONFIG with the wrapper's settings the user did not set appended; NULL when out of memory. */
static char *merged_dxvk_config(const char *user)
{
	size_t size = (user ? strlen(user) : 0) + 256;
	char *out = malloc(size);
	size_t len;

	if (!out)
		return NULL;
	snprintf(out, size, "%s", user ? user : "");
	/* Drop trailing separators and spaces so the join is one "; ". */
	len = strlen(out);
	while (len && (out[len - 1] == ' ' || out[len - 1] == ';' || out[len - 1] == '\t'))
		out[--len] = '\0';
	for (size_t i = 0; i < sizeof(dxvk_settings) / sizeof(dxvk_settings[0]); i++) {
		if (user && config_sets(user, dxvk_settings[i][0]))
			continue;
		len += (size_t)snprintf(out + len, size - len, "%s%s = %s", len ? "; " : "",
		                        dxvk_settings[i][0], dxvk_settings[i][1]);
	}
	return out;
}

static int wrapper_usage(const char *problem)
{
	if (problem)
		fprintf(stderr, "lowlat: %s\n", problem);
	fprintf(stderr, "usage: lowlat [--fps N] [--log] [--] COMMAND [ARG...]   run COMMAND with lowlat on\n"
	                "       lowlat ctl ...                                   talk to a running game\n"
	                "In Steam's launch options: lowlat %%command%%  (or: lowlat --fps 60 %%command%%)\n");
	return 2;
}

static int wrap(int argc, char **argv)
{
	const char *fps = NULL;
	bool log = false;
	int i = 1;

	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--fps") || !strncmp(argv[i], "--fps=", 6)) {
			fps = argv[i][5] == '=' ? argv[i] + 6 : (i + 1 < argc ? argv[++i] : NULL);
			char *end;
			double v;
			if (!fps || !*fps)
				return wrapper_usage("--fps needs a number of frames per second");
			v = strtod(fps, &end);
			/* The layer's own range (lowlat_config.h): 0 = off, or 1 to 10000. */
			if (*end || end == fps || !(v == 0 || (v >= 1 && v <= 10000))) {
				fprintf(stderr,
				        "lowlat: --fps %s is not a frame rate (0 = off, or 1 to 10000)\n",
				        fps);
				return 2;
			}
			continue;
		}
		if (!strcmp(argv[i], "--log")) {
			log = true;
			continue;
		}
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return wrapper_usage(NULL), 0;
		if (argv[i][0] == '-') {
			fprintf(stderr, "lowlat: unknown option %s\n", argv[i]);
			return wrapper_usage(NULL);
		}
		break;
	}
	if (i >= argc)
		return wrapper_usage("no command to run");

	char *dxvk = merged_dxvk_config(getenv("DXVK_CONFIG"));
	if (!dxvk || setenv("ENABLE_LOWLAT_LAYER", "1", 1) || setenv("DXVK_CONFIG", dxvk, 1) ||
	    (fps && setenv("LOWLAT_FPS", fps, 1)) || (log && setenv("LOWLAT_LOG", "1", 1)) ||
	    setenv("VKD3D_SWAPCHAIN_LATENCY_FRAMES", "1", 0)) {
		fprintf(stderr, "lowlat: out of memory setting up the environment\n");
		return 2;
	}
	free(dxvk);
	execvp(argv[i], argv + i);
	fprintf(stderr, "lowlat: cannot run %s: %s\n", argv[i], strerror(errno));
	return 127;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "ctl"))
		return ctl(argc - 2, argv + 2);
	return wrap(argc, argv);
}
