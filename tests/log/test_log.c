/* test_log.c — the present log writer (layer/log/log.c): file format, names, never overwriting, never
 * following a symlink, failures turning logging off with one message, and drops when the writer
 * falls behind. Each test ends with lowlat_log_shutdown(), which waits until the files are complete. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "log.h"

/* A fixed session, so the tests know the file name: 2026-11-30 06:30:00 UTC, pid 4242. */
#define WALL_TIME ((time_t)1796020200)
#define PID       4242

static char tmp[64];

static char *read_file(const char *path)
{
	static char data[1 << 20];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, data, sizeof(data) - 1);

	if (fd >= 0)
		close(fd);
	data[n > 0 ? n : 0] = '\0';
	return data;
}

/* Line i (from 0) of text, without its newline; "" past the end. */
static const char *line(const char *text, int i)
{
	static char out[4096];
	const char *end;

	for (; i > 0 && text; i--) {
		text = strchr(text, '\n');
		text = text ? text + 1 : NULL;
	}
	if (!text)
		return "";
	end = strchr(text, '\n');
	size_t n = end ? (size_t)(end - text) : strlen(text);
	n = n < sizeof(out) - 1 ? n : sizeof(out) - 1;
	memcpy(out, text, n);
	out[n] = '\0';
	return out;
}

static int count_lines(const char *text, const char *prefix)
{
	int n = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

/* The name the log must pick, computed independently of log.c. */
static void expected_path(char *out, size_t size, const char *dir, const char *key, const char *suffix)
{
	struct tm tm;
	char stamp[32];
	time_t t = WALL_TIME;

	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(out, size, "%s/%s-%s-%d%s.csv", dir, key, stamp, PID, suffix);
}

static struct lowlat_log *open_in(const char *dir, const char *key)
{
	struct lowlat_log_params params = {.dir = dir, .game_key = key, .wall_time = WALL_TIME, .pid = PID};
	return lowlat_log_open(&params);
}

/* Captures what the code under test writes to stderr (lowlat_msg writes to fd 2). */
static int saved_stderr = -1;
static char captured_path[128];

static void capture_begin(void)
{
	snprintf(captured_path, sizeof(captured_path), "%s/stderr", tmp);
	int fd = open(captured_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

static const char *capture_end(void)
{
	dup2(saved_stderr, 2);
	close(saved_stderr);
	return read_file(captured_path);
}

static void test_format(void)
{
	char dir[128], path[256];
	struct lowlat_log_record r;

	snprintf(dir, sizeof(dir), "%s/format/deeper", tmp); /* missing: made with mkdir -p */
	struct lowlat_log *log = open_in(dir, "My Game/../x");
	CHECK(log);
	if (!log)
		return;
	/* The key cannot make a path: '/' and ' ' become '_'. */
	expected_path(path, sizeof(path), dir, "My_Game_.._x", "");
	CHECK_STR(lowlat_log_path(log), path);

	struct stat st;
	CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);

	lowlat_log_record_init(&r);
	r.present_id = 7;
	r.frame_start_ns = 1000;
	r.present_ns = 2000;
	r.wait_begin_ns = 3000;
	r.wait_end_ns = 4000;
	r.driver_ns = 5000;
	r.target_ns = 4001;
	r.predicted_ready_ns = 600;
	r.present_mode = 2; /* VK_PRESENT_MODE_FIFO_KHR */
	r.refresh_ns = 16666667;
	r.fallback = LOWLAT_LOG_FALLBACK_CPU;
	r.frame = 99; /* ignored: the log numbers frames */
	CHECK_EQ_I64(lowlat_log_present(log, &r), 0);
	r.present_id = 8;
	r.present_mode = 1000361000; /* VK_PRESENT_MODE_FIFO_LATEST_READY_KHR */
	r.fallback = LOWLAT_LOG_FALLBACK_TIMING;
	r.frame_start_ns = -5; /* negative numbers survive */
	CHECK_EQ_I64(lowlat_log_present(log, &r), 1);
	lowlat_log_record_init(&r); /* all unknown: an all-empty row but for the frame */
	r.present_mode = 12345;     /* a mode without a name is written as its number */
	CHECK_EQ_I64(lowlat_log_present(log, &r), 2);

	/* Display times find their present by id while it is held back. */
	CHECK(lowlat_log_display(log, 7, LOWLAT_LOG_STAGE_PIXEL_VISIBLE, 40000));
	CHECK(lowlat_log_display(log, 7, LOWLAT_LOG_STAGE_PRESENT_WAIT, 41000));
	CHECK(lowlat_log_display(log, 8, LOWLAT_LOG_STAGE_LATCHED, 42000));
	CHECK(!lowlat_log_display(log, 9, LOWLAT_LOG_STAGE_LATCHED, 42000));
	CHECK(!lowlat_log_display(log, LOWLAT_LOG_UNKNOWN, LOWLAT_LOG_STAGE_LATCHED, 1));
	lowlat_log_close(log);
	lowlat_log_shutdown();

	const char *text = read_file(path);
	CHECK(!strncmp(line(text, 0), "# lowlat present log v1; ", 25));
	CHECK(strstr(line(text, 0), " pixel_visible_ns: display-reported: first pixel visible"));
	CHECK(!strncmp(line(text, 1), "# game My_Game_.._x, pid 4242, opened ", 38));
	CHECK_STR(line(text, 2),
	          "frame,present_id,frame_start_ns,present_ns,wait_begin_ns,wait_end_ns,driver_ns,"
	          "target_ns,predicted_ready_ns,queue_done_ns,latched_ns,pixel_out_ns,"
	          "pixel_visible_ns,present_wait_ns,present_mode,refresh_ns,fallback");
	CHECK_STR(line(text, 3), "0,7,1000,2000,3000,4000,5000,4001,600,,,,40000,41000,FIFO,16666667,cpu");
	CHECK_STR(line(text, 4),
	          "1,8,-5,2000,3000,4000,5000,4001,600,,42000,,,,FIFO_LATEST_READY,16666667,timing");
	CHECK_STR(line(text, 5), "2,,,,,,,,,,,,,,12345,,");
	CHECK_STR(line(text, 6), "# closed: 3 records written, 0 dropped");
	CHECK_STR(line(text, 7), "");
}

static void test_null_log(void)
{
	struct lowlat_log_record r;

	lowlat_log_record_init(&r);
	CHECK_EQ_I64(lowlat_log_present(NULL, &r), -1);
	CHECK(!lowlat_log_display(NULL, 1, LOWLAT_LOG_STAGE_LATCHED, 1));
	CHECK_STR(lowlat_log_path(NULL), "");
	lowlat_log_close(NULL);
}

/* Presents leave the hold window after LOWLAT_LOG_HOLD_FRAMES more; display times for them are
 * then too late and say so. */
static void test_display_too_late(void)
{
	char dir[128];
	struct lowlat_log_record r;

	snprintf(dir, sizeof(dir), "%s/late", tmp);
	struct lowlat_log *log = open_in(dir, "late");
	CHECK(log);
	lowlat_log_record_init(&r);
	for (int i = 0; i <= (int)LOWLAT_LOG_HOLD_FRAMES; i++) {
		r.present_id = 100 + i;
		lowlat_log_present(log, &r);
	}
	CHECK(!lowlat_log_display(log, 100, LOWLAT_LOG_STAGE_PRESENT_WAIT, 1));
	CHECK(lowlat_log_display(log, 101, LOWLAT_LOG_STAGE_PRESENT_WAIT, 1));
	lowlat_log_close(log);
	lowlat_log_shutdown();
}

static void test_never_overwrite(void)
{
	char dir[128], first[256], second[256], third[256];

	snprintf(dir, sizeof(dir), "%s/again", tmp);
	expected_path(first, sizeof(first), dir, "same", "");
	expected_path(second, sizeof(second), dir, "same", "-1");
	expected_path(third, sizeof(third), dir, "same", "-2");

	struct lowlat_log *a = open_in(dir, "same");
	struct lowlat_log *b = open_in(dir, "same");
	struct lowlat_log *c = open_in(dir, "same");
	CHECK_STR(lowlat_log_path(a), first);
	CHECK_STR(lowlat_log_path(b), second);
	CHECK_STR(lowlat_log_path(c), third);

	struct lowlat_log_record r;
	lowlat_log_record_init(&r);
	r.present_ns = 111;
	lowlat_log_present(a, &r);
	lowlat_log_close(a);
	lowlat_log_close(b);
	lowlat_log_close(c);
	lowlat_log_shutdown();
	/* The first session's file still has its row: nobody truncated it. */
	CHECK_STR(line(read_file(first), 3), "0,,,111,,,,,,,,,,,,,");
	CHECK_STR(line(read_file(second), 3), "# closed: 0 records written, 0 dropped");
}

/* Someone plants a symlink where the next log will be created, pointing at a file they want
 * overwritten (and one at a file they want created). Neither may be written through. */
static void test_symlink_not_followed(void)
{
	char dir[128], planted[256], planted_dangling[256], victim[256], absent[256], next[256];

	snprintf(dir, sizeof(dir), "%s/links", tmp);
	mkdir(dir, 0700);
	snprintf(victim, sizeof(victim), "%s/victim", tmp);
	snprintf(absent, sizeof(absent), "%s/absent", tmp);
	int fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(write(fd, "precious\n", 9) == 9);
	close(fd);

	expected_path(planted, sizeof(planted), dir, "sym", "");
	expected_path(planted_dangling, sizeof(planted_dangling), dir, "sym", "-1");
	expected_path(next, sizeof(next), dir, "sym", "-2");
	CHECK(symlink(victim, planted) == 0);
	CHECK(symlink(absent, planted_dangling) == 0);

	struct lowlat_log *log = open_in(dir, "sym");
	CHECK_STR(lowlat_log_path(log), next);
	struct lowlat_log_record r;
	lowlat_log_record_init(&r);
	lowlat_log_present(log, &r);
	lowlat_log_close(log);
	lowlat_log_shutdown();

	CHECK_STR(read_file(victim), "precious\n");
	CHECK(access(absent, F_OK) != 0);
	struct stat st;
	CHECK(lstat(planted, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(lstat(planted_dangling, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK_STR(line(read_file(next), 3), "0,,,,,,,,,,,,,,,,");
}

/* A directory that cannot be made: one message, and logging stays off for the process (until
 * shutdown, which tests use to start afresh). */
static void test_unwritable_directory(void)
{
	char file[128], dir[160], good[128];

	snprintf(file, sizeof(file), "%s/plainfile", tmp);
	close(open(file, O_WRONLY | O_CREAT, 0600));
	snprintf(dir, sizeof(dir), "%s/logs", file); /* a file as a parent: ENOTDIR even for root */
	snprintf(good, sizeof(good), "%s/good", tmp);

	capture_begin();
	struct lowlat_log *a = open_in(dir, "x");
	struct lowlat_log *b = open_in(dir, "x");
	struct lowlat_log *c = open_in(good, "x"); /* off now, even where it would work */
	const char *err = capture_end();
	CHECK(!a && !b && !c);
	CHECK_EQ_I64(count_lines(err, "lowlat: "), 1);
	CHECK(!strncmp(err, "lowlat: log directory ", 22));
	CHECK(strstr(err, "Not a directory; logging off\n"));
	CHECK(access(good, F_OK) != 0);

	lowlat_log_shutdown();
	c = open_in(good, "x");
	CHECK(c);
	lowlat_log_close(c);
	lowlat_log_shutdown();

	/* Without write permission; root ignores permissions, so only as a user. */
	if (geteuid() != 0) {
		char ro[128], sub[160];
		snprintf(ro, sizeof(ro), "%s/readonly", tmp);
		mkdir(ro, 0500);
		capture_begin();
		a = open_in(ro, "x");
		snprintf(sub, sizeof(sub), "%s/sub", ro);
		b = open_in(sub, "x");
		err = capture_end();
		CHECK(!a && !b);
		CHECK_EQ_I64(count_lines(err, "lowlat: "), 1);
		CHECK(strstr(err, "Permission denied; logging off\n"));
		lowlat_log_shutdown();
	}
}

/* A write that fails mid-session (here: the file-size limit, EFBIG): one message, logging off, the
 * presents go on returning at once. */
static void test_write_failure(void)
{
	char dir[128];
	struct rlimit old, small = {.rlim_cur = 4096, .rlim_max = RLIM_INFINITY};
	struct lowlat_log_record r;

	snprintf(dir, sizeof(dir), "%s/full", tmp);
	struct lowlat_log *log = open_in(dir, "full");
	CHECK(log);
	getrlimit(RLIMIT_FSIZE, &old);
	small.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of the signal */
	capture_begin();
	CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
	lowlat_log_record_init(&r);
	r.present_ns = 123456789;
	for (int i = 0; i < 1000; i++)
		lowlat_log_present(log, &r);
	lowlat_log_writer_pause(false); /* a kick: the writer drains now, not in 100 ms */
	for (int i = 0; i < 200 && lowlat_log_present(log, &r) >= 0; i++)
		usleep(10000);
	CHECK_EQ_I64(lowlat_log_present(log, &r), -1); /* off: nothing copied */
	lowlat_log_close(log);
	lowlat_log_shutdown();
	setrlimit(RLIMIT_FSIZE, &old);
	const char *err = capture_end();
	CHECK_EQ_I64(count_lines(err, "lowlat: "), 1);
	CHECK(!strncmp(err, "lowlat: log write ", 18));
	CHECK(strstr(err, "File too large; logging off\n"));
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The writer stalls (paused): presents keep returning at once, the overflow is dropped and counted,
 * and the file says how many. */
static void test_writer_falls_behind(void)
{
	enum { RING = 16, PRESENTS = 1000 };
	char dir[128];
	struct lowlat_log_record r;
	struct lowlat_log_params params = {
	        .game_key = "behind", .ring_records = RING, .wall_time = WALL_TIME, .pid = PID};
	int64_t slowest_ns = 0;

	snprintf(dir, sizeof(dir), "%s/behind", tmp);
	params.dir = dir;
	struct lowlat_log *log = lowlat_log_open(&params);
	CHECK(log);
	char path[256];
	snprintf(path, sizeof(path), "%s", lowlat_log_path(log));

	lowlat_log_writer_pause(true);
	lowlat_log_record_init(&r);
	for (int i = 0; i < PRESENTS; i++) {
		r.present_ns = i;
		int64_t t0 = now_ns();
		CHECK_EQ_I64(lowlat_log_present(log, &r), i);
		int64_t dt = now_ns() - t0;
		slowest_ns = dt > slowest_ns ? dt : slowest_ns;
	}
	/* The 8 held presents go into the still-full ring at close, and are dropped too. */
	lowlat_log_close(log);
	lowlat_log_writer_pause(false);
	lowlat_log_shutdown();

	/* Blocking would mean waiting for the writer's 100 ms period; 20 ms leaves room for a busy
	 * VM's scheduler without letting that through. */
	CHECK(slowest_ns < 20000000);
	fprintf(stderr, "  slowest of %d presents with the writer stalled: %" PRId64 " ns\n", PRESENTS,
	        slowest_ns);

	const char *text = read_file(path);
	CHECK_STR(line(text, 3), "0,,,0,,,,,,,,,,,,,");
	CHECK_STR(line(text, 3 + RING - 1), "15,,,15,,,,,,,,,,,,,");
	CHECK_STR(line(text, 3 + RING), "# dropped 984 records");
	CHECK_STR(line(text, 3 + RING + 1), "# closed: 16 records written, 984 dropped");
}

/* The writer writes on its own every 100 ms, without a close: a crash loses at most that much. */
static void test_periodic_flush(void)
{
	char dir[128];
	struct lowlat_log_record r;

	snprintf(dir, sizeof(dir), "%s/periodic", tmp);
	struct lowlat_log *log = open_in(dir, "periodic");
	char path[256];
	snprintf(path, sizeof(path), "%s", lowlat_log_path(log));
	/* Let the new writer make its first pass, so what follows waits for the period. */
	usleep(20000);
	lowlat_log_record_init(&r);
	for (int i = 0; i < 20; i++)
		lowlat_log_present(log, &r);
	/* 20 presents, 8 held back: 12 rows within a few flush periods. */
	int rows = 0, i_waited = 0;
	for (; i_waited < 100 && rows < 12; i_waited++) {
		usleep(10000);
		rows = count_lines(read_file(path), "") - 3;
	}
	CHECK_EQ_I64(rows, 12);
	fprintf(stderr, "  rows written after %d ms without a close\n", 10 * i_waited);
	lowlat_log_close(log);
	lowlat_log_shutdown();
	CHECK_STR(line(read_file(path), 3 + 20), "# closed: 20 records written, 0 dropped");
}

/* A process that exits without closing its log (a game that quits without destroying its
 * swapchain) still gets every record and the closing line: the library's destructor flushes. */
static void test_exit_flushes(void)
{
	char dir[128], path[256];

	snprintf(dir, sizeof(dir), "%s/exit", tmp);
	expected_path(path, sizeof(path), dir, "exit", "");
	fflush(NULL);
	pid_t child = fork();
	if (child == 0) {
		struct lowlat_log_record r;
		struct lowlat_log *log = open_in(dir, "exit");
		lowlat_log_record_init(&r);
		for (int i = 0; i < 20; i++)
			lowlat_log_present(log, &r);
		exit(0); /* no close, no shutdown */
	}
	int status = -1;
	CHECK(child > 0 && waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	const char *text = read_file(path);
	/* The 8 held presents are not in the ring at exit, so they are not written: 12 rows. */
	CHECK_STR(line(text, 3 + 11), "11,,,,,,,,,,,,,,,,");
	CHECK_STR(line(text, 3 + 12), "# closed: 12 records written, 0 dropped");
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/lowlat-test-log-XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	unsetenv("LOWLAT_VERBOSE");

	RUN(test_format);
	RUN(test_null_log);
	RUN(test_display_too_late);
	RUN(test_never_overwrite);
	RUN(test_symlink_not_followed);
	RUN(test_unwritable_directory);
	RUN(test_write_failure);
	RUN(test_writer_falls_behind);
	RUN(test_periodic_flush);
	RUN(test_exit_flushes);

	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (!check_failures && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp);
	return check_result();
}
