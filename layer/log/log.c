/* log.c — the present log: per-log SPSC rings, one writer thread, the CSV files. See log.h.
 *
 * One writer thread for the process, not one per log: a game has one to a few swapchains but some
 * recreate theirs on every resize, and a thread per log would be created and joined on the app's
 * thread at each recreate, making vkDestroySwapchainKHR wait for disk I/O. With one writer, close
 * only sets a flag; the writer finishes the file. Its cost is one thread per process, started by
 * the first log that opens, never in a process that does not log.
 *
 * The registry (every log the writer serves) is a list under registry.lock. The writer holds that
 * lock while it writes, so lowlat_log_open may wait for one pass of writes (it does file I/O
 * itself anyway); the present path and lowlat_log_close never take it.
 *
 * Ring protocol (per log): head is written only by the producer, tail only by the writer. The
 * producer fills ring[head & mask] and then publishes head with release; the writer reads head with
 * acquire, writes out the records, and gives the slots back by publishing tail with release, which
 * the producer reads with acquire before reusing a slot. Counters are 64-bit and never wrap in
 * practice (2^64 presents). Close hands over with `closing` (release after the producer's last
 * push); `dead` tells the producer logging is off, so it stops copying.
 */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "message.h"
#include "vk_compat.h"

/* Writer output buffer. A row is at most 17 fields of 20 digits and a separator (~360 bytes), so
 * one write(2) carries ~180 rows at worst and ~600 typically: one or two writes per 60 fps flush. */
#define WRITE_BUFFER_BYTES 65536u
#define ROW_MAX_BYTES      512u

/* Next free name: `-1` ... `-999`. More sessions than that in one second from one pid is a loop
 * gone wrong, not a game. */
#define NAME_SUFFIX_MAX 999u

/* A cache line, so the producer's and the writer's counters do not share one. */
#define CACHE_LINE_BYTES 64

struct lowlat_log {
	/* Producer side: the thread presenting to the swapchain. */
	alignas(CACHE_LINE_BYTES) _Atomic uint64_t head;
	_Atomic uint64_t dropped; /* records dropped because the ring was full; the writer reads it */
	int64_t next_frame;
	uint32_t hold_first, held; /* the hold window: ring of LOWLAT_LOG_HOLD_FRAMES, producer only */
	struct lowlat_log_record hold[LOWLAT_LOG_HOLD_FRAMES];

	/* Writer side. */
	alignas(CACHE_LINE_BYTES) _Atomic uint64_t tail;
	uint64_t written;         /* rows written to the file */
	uint64_t dropped_written; /* the drop count the file last reported */
	int fd;
	struct lowlat_log *next; /* registry list, under registry.lock */

	/* Shared flags. */
	atomic_bool closing; /* producer -> writer: no more presents; finish and free */
	atomic_bool dead;    /* writer -> producer: logging is off; do not copy records */

	uint32_t mask;             /* ring size - 1 */
	char path[PATH_MAX + 168]; /* the directory, '/', a name of at most 160 bytes */
	struct lowlat_log_record ring[];
};

static struct {
	pthread_mutex_t lock; /* guards everything below */
	bool running, stop;
	pthread_t thread;
	struct lowlat_log *logs;
} registry = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Set by the first I/O failure; read without a lock by open and the writer. */
static atomic_bool disabled;
static atomic_bool paused;

/* The writer sleeps on this futex word; a kick bumps it and wakes the writer. A raw futex rather
 * than a condition variable: FUTEX_WAKE never waits for anything, while pthread_cond_signal takes
 * the condvar's internal lock, which a waiter timing out can hold; and the wait's timeout can vary
 * per wait (writer_main) without a clock read for an absolute deadline. */
static _Atomic uint32_t wake_seq;

static char write_buffer[WRITE_BUFFER_BYTES]; /* the writer's; used only under registry.lock */

/* Prints the failure once and turns logging off for the process. */
static void fail(const char *what, const char *path, int err)
{
	if (!atomic_exchange(&disabled, true))
		LOWLAT_WARN_LIMITED("log %s %s: %s; logging off", what, path, strerror(err));
}

/* Wakes the writer early (a log closed, shutdown, the test pause lifted); never on the present
 * path. One system call that never blocks; a kick while the writer is busy is not lost, since the
 * word no longer matches. */
static void kick_writer(void)
{
	atomic_fetch_add_explicit(&wake_seq, 1, memory_order_release);
	syscall(SYS_futex, &wake_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* ---- writer side ---- */

static bool write_all(struct lowlat_log *log, const char *data, size_t size)
{
	while (size) {
		ssize_t n = write(log->fd, data, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fail("write", log->path, n < 0 ? errno : EIO);
			return false;
		}
		data += n;
		size -= (size_t)n;
	}
	return true;
}

static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

/* Decimal int64 without snprintf: the writer formats ~60-1000 rows of 17 fields a second. */
static char *put_i64(char *p, int64_t v)
{
	char digits[24];
	int n = 0;
	/* Through uint64 so INT64_MIN's magnitude fits. */
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	do {
		digits[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*p++ = '-';
	while (n)
		*p++ = digits[--n];
	return p;
}

static const char *fallback_name(int64_t level)
{
	switch (level) {
	case LOWLAT_LOG_FALLBACK_TIMING: return "timing";
	case LOWLAT_LOG_FALLBACK_WAIT: return "wait";
	case LOWLAT_LOG_FALLBACK_CPU: return "cpu";
	case LOWLAT_LOG_FALLBACK_OFF: return "off";
	case LOWLAT_LOG_FALLBACK_DRM: return "drm";
	default: return NULL;
	}
}

/* Where each column lives in a record, in file order. */
static const size_t column_offset[] = {
#define LOWLAT_LOG_OFFSET_(name, description) offsetof(struct lowlat_log_record, name),
        LOWLAT_LOG_COLUMNS(LOWLAT_LOG_OFFSET_)
#undef LOWLAT_LOG_OFFSET_
};

static size_t format_row(char *out, const struct lowlat_log_record *r)
{
	char *p = out;

	for (size_t i = 0; i < sizeof(column_offset) / sizeof(column_offset[0]); i++) {
		int64_t v;
		const char *name = NULL;

		memcpy(&v, (const char *)r + column_offset[i], sizeof(v));
		if (i)
			*p++ = ',';
		if (v == LOWLAT_LOG_UNKNOWN)
			continue;
		if (column_offset[i] == offsetof(struct lowlat_log_record, present_mode))
			name = lowlat_vk_present_mode_name(v);
		else if (column_offset[i] == offsetof(struct lowlat_log_record, fallback))
			name = fallback_name(v);
		/* A value without a name (a newer present mode) is still written, as its number. */
		p = name ? put_str(p, name) : put_i64(p, v);
	}
	*p++ = '\n';
	return (size_t)(p - out);
}

/* Writes out what the ring holds. False on a write error (logging is then off). Sets *busy when
 * the ring was at least half full. */
static bool drain(struct lowlat_log *log, bool *busy)
{
	uint64_t tail = atomic_load_explicit(&log->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&log->head, memory_order_acquire);
	size_t used = 0;

	if (head - tail >= (log->mask + 1) / 2)
		*busy = true;

	for (; tail != head; tail++) {
		if (used > WRITE_BUFFER_BYTES - ROW_MAX_BYTES) {
			if (!write_all(log, write_buffer, used))
				return false;
			used = 0;
		}
		used += format_row(write_buffer + used, &log->ring[tail & log->mask]);
		log->written++;
		/* Give each slot back as soon as it is copied, so a producer racing a long drain sees
		 * room early. */
		atomic_store_explicit(&log->tail, tail + 1, memory_order_release);
	}
	uint64_t dropped = atomic_load_explicit(&log->dropped, memory_order_relaxed);
	if (dropped != log->dropped_written) {
		/* A running total, so a reader needs only the last such line. */
		char *p = put_str(write_buffer + used, "# dropped ");
		p = put_i64(p, (int64_t)dropped);
		p = put_str(p, " records\n");
		used = (size_t)(p - write_buffer);
		log->dropped_written = dropped;
	}
	return !used || write_all(log, write_buffer, used);
}

/* The last line of a cleanly closed file, then the file is closed. */
static void finish(struct lowlat_log *log)
{
	if (!atomic_load(&disabled)) {
		char *p = put_str(write_buffer, "# closed: ");
		p = put_i64(p, (int64_t)log->written);
		p = put_str(p, " records written, ");
		p = put_i64(p, (int64_t)atomic_load_explicit(&log->dropped, memory_order_relaxed));
		p = put_str(p, " dropped\n");
		write_all(log, write_buffer, (size_t)(p - write_buffer));
	}
	close(log->fd);
	log->fd = -1;
}

/* One pass over every log. With `final` (shutdown) every log is finished; logs the app never
 * closed are left allocated (a thread of the app may still present to them) but marked dead.
 * Returns true when some ring was half full: the writer should come back sooner. */
static bool writer_pass(bool final)
{
	struct lowlat_log **link = &registry.logs;
	bool busy = false;

	while (*link) {
		struct lowlat_log *log = *link;
		/* Read before draining: the producer's last push happens-before its closing store, so
		 * after this acquire the drain sees every record. */
		bool closing = atomic_load_explicit(&log->closing, memory_order_acquire);

		if (log->fd >= 0 && (atomic_load(&disabled) || !drain(log, &busy))) {
			/* Logging is off: this file gets nothing more, not even its closing line. */
			atomic_store(&log->dead, true);
			close(log->fd);
			log->fd = -1;
		}
		if (log->fd < 0)
			/* Hand every slot back so a producer that has not seen `dead` yet does not
			 * count drops. */
			atomic_store_explicit(&log->tail, atomic_load(&log->head), memory_order_release);
		if (!closing && !final) {
			/* A dead log stays listed until the app closes it, so the writer can free it. */
			link = &log->next;
			continue;
		}
		*link = log->next;
		if (log->fd >= 0)
			finish(log);
		atomic_store(&log->dead, true);
		if (closing)
			free(log);
	}
	return busy;
}

static void *writer_main(void *arg)
{
	/* FUTEX_WAIT's timeout is relative, on CLOCK_MONOTONIC: a wall-clock jump cannot stall it. */
	const struct timespec period = {.tv_sec = LOWLAT_LOG_FLUSH_PERIOD_NS / 1000000000,
	                                .tv_nsec = LOWLAT_LOG_FLUSH_PERIOD_NS % 1000000000};
	const struct timespec soon = {.tv_nsec = LOWLAT_LOG_BUSY_PERIOD_NS};

	(void)arg;
	pthread_mutex_lock(&registry.lock);
	while (!registry.stop) {
		/* Read before the pass: a kick during it changes the word and the wait returns at once. */
		uint32_t seen = atomic_load_explicit(&wake_seq, memory_order_acquire);
		bool busy = !atomic_load(&paused) && writer_pass(false);

		pthread_mutex_unlock(&registry.lock);
		syscall(SYS_futex, &wake_seq, FUTEX_WAIT_PRIVATE, seen, busy ? &soon : &period, NULL, 0);
		pthread_mutex_lock(&registry.lock);
	}
	writer_pass(true);
	pthread_mutex_unlock(&registry.lock);
	return NULL;
}

/* Under registry.lock. */
static bool start_writer(void)
{
	sigset_t all, old;
	int err;

	if (registry.running)
		return true;
	/* The writer must never run the game's signal handlers: block everything in it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&registry.thread, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		fail("writer", "thread", err);
		return false;
	}
	pthread_setname_np(registry.thread, "lowlat-log");
	registry.running = true;
	registry.stop = false;
	return true;
}

void lowlat_log_shutdown(void)
{
	pthread_mutex_lock(&registry.lock);
	if (!registry.running) {
		pthread_mutex_unlock(&registry.lock);
		atomic_store(&disabled, false);
		return;
	}
	registry.stop = true;
	atomic_store(&paused, false);
	pthread_mutex_unlock(&registry.lock);
	kick_writer();
	pthread_join(registry.thread, NULL);
	pthread_mutex_lock(&registry.lock);
	registry.running = false;
	registry.stop = false;
	pthread_mutex_unlock(&registry.lock);
	atomic_store(&disabled, false);
}

/* At exit() and at dlclose (the loader unloads layers when the instance is destroyed): the writer
 * must be gone before our code is unmapped, and what is in the rings belongs in the files. */
__attribute__((destructor)) static void log_unload(void)
{
	lowlat_log_shutdown();
}

void lowlat_log_writer_pause(bool pause)
{
	atomic_store(&paused, pause);
	if (!pause)
		kick_writer();
}

/* ---- open ---- */

/* The directory, from the params or the XDG base directory spec. False when there is none. */
static bool log_dir(const struct lowlat_log_params *params, char *dir, size_t size)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (params->dir && *params->dir)
		n = snprintf(dir, size, "%s", params->dir);
	else if (state && state[0] == '/') /* the spec says relative values are to be ignored */
		n = snprintf(dir, size, "%s/lowlat", state);
	else if (home && *home)
		n = snprintf(dir, size, "%s/.local/state/lowlat", home);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

/* mkdir -p; directories it creates are 0700 (the XDG spec asks that of the state directory, and a
 * log names the games a person plays). Returns 0 or an errno. */
static int make_dirs(char *dir)
{
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		int err = mkdir(dir, 0700) && errno != EEXIST ? errno : 0;
		*p = c;
		if (err)
			return err;
		if (!c)
			return 0;
	}
}

/* The game key as a file-name part: [A-Za-z0-9._-] only, never empty, never "." or "..". */
static void file_key(const char *key, char *out, size_t size)
{
	size_t n = 0;

	if (!key || !*key)
		key = program_invocation_short_name;
	for (; *key && n + 1 < size; key++) {
		char c = *key;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		          c == '.' || c == '_' || c == '-';
		out[n++] = ok ? c : '_';
	}
	out[n] = '\0';
	if (!n || !strcmp(out, ".") || !strcmp(out, ".."))
		snprintf(out, size, "game");
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool write_header(struct lowlat_log *log, const char *key, const struct tm *tm, pid_t pid)
{
	/* The column documentation is long; the buffer fits it with room to spare. */
	static const char doc[] = "# " LOWLAT_LOG_MAGIC "; one row per present; times: CLOCK_MONOTONIC ns; "
	                          "durations: ns; empty: unknown; columns:"
#define LOWLAT_LOG_DOC_(name, description) " " #name ": " description ";"
	        LOWLAT_LOG_COLUMNS(LOWLAT_LOG_DOC_)
#undef LOWLAT_LOG_DOC_
	                "\n";
	static const char names[] =
#define LOWLAT_LOG_NAME_(name, description) "," #name
	        LOWLAT_LOG_COLUMNS(LOWLAT_LOG_NAME_)
#undef LOWLAT_LOG_NAME_
	                "\n";
	char session[256];
	char stamp[32];
	int n;

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S%z", tm);
	n = snprintf(session, sizeof(session), "# game %s, pid %d, opened %s, monotonic %" PRId64 " ns\n",
	             key, (int)pid, stamp, monotonic_ns());
	if (n < 0 || (size_t)n >= sizeof(session))
		n = 0;
	/* names + 1 skips the leading comma the X-macro put before the first column. */
	return write_all(log, doc, sizeof(doc) - 1) && write_all(log, session, (size_t)n) &&
	       write_all(log, names + 1, sizeof(names) - 2);
}

/* Opens a new file in dirfd; returns the fd or -1 with errno. An existing entry at the name, a
 * symlink included (O_EXCL never follows one, O_NOFOLLOW says so twice), moves on to the next n. */
static int create_file(int dirfd, const char *stem, char *name, size_t size)
{
	for (unsigned n = 0; n <= NAME_SUFFIX_MAX; n++) {
		int len =
		        n ? snprintf(name, size, "%s-%u.csv", stem, n) : snprintf(name, size, "%s.csv", stem);
		if (len < 0 || (size_t)len >= size) {
			errno = ENAMETOOLONG;
			return -1;
		}
		/* 0600: private like the directory. */
		int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || (errno != EEXIST && errno != ELOOP))
			return fd;
	}
	errno = EEXIST;
	return -1;
}

struct lowlat_log *lowlat_log_open(const struct lowlat_log_params *params)
{
	static const struct lowlat_log_params defaults;
	char dir[PATH_MAX], key[64], stem[128], name[160];
	struct lowlat_log *log = NULL;
	uint32_t records = 1;
	struct tm tm;
	int dirfd = -1, err;

	if (!params)
		params = &defaults;
	if (atomic_load(&disabled))
		return NULL;
	if (!log_dir(params, dir, sizeof(dir))) {
		fail("directory", "unknown", ENOENT);
		return NULL;
	}
	if ((err = make_dirs(dir))) {
		fail("directory", dir, err);
		return NULL;
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		fail("directory", dir, errno);
		return NULL;
	}

	while (records < (params->ring_records ? params->ring_records : LOWLAT_LOG_RING_RECORDS))
		records <<= 1;
	size_t size = sizeof(*log) + (size_t)records * sizeof(log->ring[0]);
	/* The C heap, not the app's allocator: the writer frees a log after its swapchain, perhaps its
	 * device too, is gone, outside any allocation scope the app gave us. aligned_alloc wants a
	 * multiple of the alignment. */
	size = (size + CACHE_LINE_BYTES - 1) / CACHE_LINE_BYTES * CACHE_LINE_BYTES;
	log = aligned_alloc(CACHE_LINE_BYTES, size);
	if (!log) {
		fail("memory for", dir, ENOMEM);
		goto fail_dir;
	}
	/* All of it, ring included: the pages fault in here, not on the present path. */
	memset(log, 0, size);
	log->mask = records - 1;

	time_t wall = params->wall_time ? params->wall_time : time(NULL);
	pid_t pid = params->pid ? params->pid : getpid();
	localtime_r(&wall, &tm);
	file_key(params->game_key, key, sizeof(key));
	snprintf(stem, sizeof(stem), "%s-%04d%02d%02d-%02d%02d%02d-%d", key, tm.tm_year + 1900, tm.tm_mon + 1,
	         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)pid);
	log->fd = create_file(dirfd, stem, name, sizeof(name));
	if (log->fd < 0) {
		fail("file in", dir, errno);
		goto fail_log;
	}
	snprintf(log->path, sizeof(log->path), "%s/%s", dir, name);
	close(dirfd);
	dirfd = -1;
	if (!write_header(log, key, &tm, pid))
		goto fail_fd;

	pthread_mutex_lock(&registry.lock);
	if (!start_writer()) {
		pthread_mutex_unlock(&registry.lock);
		goto fail_fd;
	}
	log->next = registry.logs;
	registry.logs = log;
	pthread_mutex_unlock(&registry.lock);
	LOWLAT_INFO("logging presents to %s", log->path);
	return log;

fail_fd:
	close(log->fd);
fail_log:
	free(log);
fail_dir:
	if (dirfd >= 0)
		close(dirfd);
	return NULL;
}

const char *lowlat_log_path(const struct lowlat_log *log)
{
	return log ? log->path : "";
}

/* ---- producer side: the present path ---- */

static void ring_push(struct lowlat_log *log, const struct lowlat_log_record *record)
{
	uint64_t head = atomic_load_explicit(&log->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&log->tail, memory_order_acquire);

	if (head - tail > log->mask) {
		/* Full: the writer is behind. Drop this record rather than wait for it. */
		atomic_fetch_add_explicit(&log->dropped, 1, memory_order_relaxed);
		return;
	}
	log->ring[head & log->mask] = *record;
	/* No wake-up of the writer here, even when the ring fills: a futex wake that finds the writer
	 * asleep costs 10-200 us on these VMs (measured with bench_log_push), more than a thousand
	 * pushes. The writer notices a ring half full itself and comes back sooner (writer_main). */
	atomic_store_explicit(&log->head, head + 1, memory_order_release);
}

int64_t lowlat_log_present(struct lowlat_log *log, const struct lowlat_log_record *record)
{
	if (!log || atomic_load_explicit(&log->dead, memory_order_relaxed))
		return -1;
	if (log->held == LOWLAT_LOG_HOLD_FRAMES) {
		/* The oldest held present has waited long enough for its display times. */
		ring_push(log, &log->hold[log->hold_first]);
		log->hold_first = (log->hold_first + 1) % LOWLAT_LOG_HOLD_FRAMES;
		log->held--;
	}
	struct lowlat_log_record *slot = &log->hold[(log->hold_first + log->held) % LOWLAT_LOG_HOLD_FRAMES];
	*slot = *record;
	slot->frame = log->next_frame++;
	log->held++;
	return slot->frame;
}

/* The row's column a stage's time goes into. */
static bool set_stage(struct lowlat_log_record *r, enum lowlat_log_stage stage, int64_t time_ns)
{
	static const size_t column[] = {
	        [LOWLAT_LOG_STAGE_QUEUE_DONE] = offsetof(struct lowlat_log_record, queue_done_ns),
	        [LOWLAT_LOG_STAGE_LATCHED] = offsetof(struct lowlat_log_record, latched_ns),
	        [LOWLAT_LOG_STAGE_PIXEL_OUT] = offsetof(struct lowlat_log_record, pixel_out_ns),
	        [LOWLAT_LOG_STAGE_PIXEL_VISIBLE] = offsetof(struct lowlat_log_record, pixel_visible_ns),
	        [LOWLAT_LOG_STAGE_PRESENT_WAIT] = offsetof(struct lowlat_log_record, present_wait_ns),
	        [LOWLAT_LOG_STAGE_WAIT_BEGIN] = offsetof(struct lowlat_log_record, wait_begin_ns),
	        [LOWLAT_LOG_STAGE_WAIT_END] = offsetof(struct lowlat_log_record, wait_end_ns),
	};

	if ((size_t)stage >= sizeof(column) / sizeof(column[0]))
		return false;
	memcpy((char *)r + column[stage], &time_ns, sizeof(time_ns));
	return true;
}

/* A present still held back (not in the ring yet), by its present id or by its frame index. */
static struct lowlat_log_record *held(struct lowlat_log *log, bool by_frame, int64_t key)
{
	for (uint32_t i = 0; log && i < log->held; i++) {
		struct lowlat_log_record *r = &log->hold[(log->hold_first + i) % LOWLAT_LOG_HOLD_FRAMES];
		if ((by_frame ? r->frame : r->present_id) == key)
			return r;
	}
	return NULL;
}

bool lowlat_log_display(struct lowlat_log *log, int64_t present_id, enum lowlat_log_stage stage,
                        int64_t time_ns)
{
	struct lowlat_log_record *r = present_id == LOWLAT_LOG_UNKNOWN ? NULL : held(log, false, present_id);

	return r && set_stage(r, stage, time_ns);
}

bool lowlat_log_display_frame(struct lowlat_log *log, int64_t frame, enum lowlat_log_stage stage,
                              int64_t time_ns)
{
	struct lowlat_log_record *r = frame < 0 ? NULL : held(log, true, frame);

	return r && set_stage(r, stage, time_ns);
}

void lowlat_log_close(struct lowlat_log *log)
{
	if (!log)
		return;
	for (; log->held; log->held--) {
		ring_push(log, &log->hold[log->hold_first]);
		log->hold_first = (log->hold_first + 1) % LOWLAT_LOG_HOLD_FRAMES;
	}
	/* After this store the writer owns the log: it finishes the file and frees it. */
	atomic_store_explicit(&log->closing, true, memory_order_release);
	kick_writer();
}

const char *lowlat_vk_present_mode_name(int64_t mode)
{
	/* On an integer: with headers older than FIFO_LATEST_READY its value is not in the enum. */
	switch (mode) {
	case VK_PRESENT_MODE_IMMEDIATE_KHR: return "IMMEDIATE";
	case VK_PRESENT_MODE_MAILBOX_KHR: return "MAILBOX";
	case VK_PRESENT_MODE_FIFO_KHR: return "FIFO";
	case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return "FIFO_RELAXED";
	case VK_PRESENT_MODE_FIFO_LATEST_READY_KHR: return "FIFO_LATEST_READY";
	default: return NULL;
	}
}
