/* sleep_precision — how precisely can this machine wait until an absolute deadline, and at what CPU
 * cost? A measurement to choose clock.c's method from, not a test.
 *
 *   sleep_precision [--waits N] [--interval-us U] [--hog T]
 *   sleep_precision --grid-csv FILE --fps F [--waits N] [--method NAME]
 *   sleep_precision --short [--waits N]
 *
 * Methods, all through clock.c's lowlat_sleep_until_ns with a differently configured sleeper:
 *   plain       clock_nanosleep(TIMER_ABSTIME) to the deadline, the thread's timer slack untouched
 *   slack1ns    the same with the timer slack lowered to 1 ns for the sleep
 *   tail200us   slack 1 ns, sleep to deadline - 200 us, spin the rest (likewise 500, 1000)
 *   adaptive    clock.c's default: two sleeps, then a spin as long as the short sleep's overshoot
 *               needs (all but the 16 largest of the last 256 covered)
 *   escapesN    the same, all but the N largest covered (1, 4, 8)
 *   covered     clock.c's default with LOWLAT_WAIT_COVERED: one sleep, no spin
 * The methods take turns wait by wait, in a shuffled order, so noise on a shared machine hits them
 * all alike.
 *
 * Per method: wake-up error (return time - deadline) p50/p99/p99.9/max in us, how many returned
 * before the deadline (must be 0), and the thread CPU time per wait in us. --hog T runs T threads
 * spinning at the same priority, to see a loaded machine.
 *
 * --grid-csv is the machine's floor for tools/bench-limiter: one method (default adaptive) waits for
 * N deadlines of lowlat's own pacer (pace.c) at a cap of F, with no Vulkan and no app around it,
 * and each wake-up is written as a row of the bench probe's CSV (present,entry_ns,return_ns,cpu_ns,
 * result,swapchains,thread_entry_cpu_ns,thread_return_cpu_ns; entry = return = the wake-up, the
 * thread CPU times around the wait). The interval errors of those rows are what this
 * machine lets any waiter reach in that minute: what is left of a limiter's error above them is the
 * limiter's.
 *
 * --short: how late a short sleep wakes right after a long one, as clock.c's second sleep does: a
 * sleep to 16.6 ms, then one of 20 us to 800 us (1 ns slack, lengths taking turns), and a 16.6 ms
 * sleep alone for comparison. Per length: overshoot p10/p50/p90/p95/p99/max and thread CPU per
 * sleep in us.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "brain/pace.h"
#include "clock.h"

#define NS_PER_US 1000ll

struct method {
	const char *name;
	struct lowlat_sleeper sleeper;
	int64_t *error_ns;
	int64_t cpu_ns, tail_sum_ns, tolerance_ns;
	int early;
};

static atomic_bool hog_stop;

static void *hog(void *arg)
{
	uint64_t x = 0;

	(void)arg;
	while (!atomic_load_explicit(&hog_stop, memory_order_relaxed))
		x++;
	/* Returned so the loop is not optimised away. */
	return (void *)(uintptr_t)x;
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static double percentile_us(const int64_t *sorted, int n, double p)
{
	int i = (int)(p * (n - 1) + 0.5);
	return (double)sorted[i] / NS_PER_US;
}

/* --short (see the top of the file). */
static int short_sleeps(int waits)
{
	static const int64_t lengths_us[] = {20, 50, 100, 200, 400, 800, 16600};
	enum { N = sizeof(lengths_us) / sizeof(lengths_us[0]) };
	int64_t *over[N], cpu[N] = {0};
	struct lowlat_sleeper plain = {.tail_ns = 0};

	for (int k = 0; k < N; k++)
		if (!(over[k] = calloc((size_t)waits, sizeof(int64_t))))
			return 1;
	for (int i = 0; i < waits; i++) {
		for (int k = 0; k < N; k++) {
			int64_t length = lengths_us[k] * NS_PER_US;
			/* The long sleep first, so the short one starts on a CPU that just woke. */
			if (length < 16600 * NS_PER_US)
				lowlat_sleep_until_ns(&plain, lowlat_now_ns() + 16600 * NS_PER_US - length,
				                      LOWLAT_WAIT_PRECISE);
			int64_t cpu0 = thread_cpu_ns(), deadline = lowlat_now_ns() + length;
			lowlat_sleep_until_ns(&plain, deadline, LOWLAT_WAIT_PRECISE);
			over[k][i] = lowlat_now_ns() - deadline;
			cpu[k] += thread_cpu_ns() - cpu0;
		}
	}
	printf("%9s %8s %8s %8s %8s %8s %9s %11s\n", "length_us", "p10_us", "p50_us", "p90_us", "p95_us",
	       "p99_us", "max_us", "cpu_us/wait");
	for (int k = 0; k < N; k++) {
		qsort(over[k], (size_t)waits, sizeof(int64_t), cmp_i64);
		printf("%9" PRId64 " %8.1f %8.1f %8.1f %8.1f %8.1f %9.1f %11.1f\n", lengths_us[k],
		       percentile_us(over[k], waits, 0.10), percentile_us(over[k], waits, 0.50),
		       percentile_us(over[k], waits, 0.90), percentile_us(over[k], waits, 0.95),
		       percentile_us(over[k], waits, 0.99), (double)over[k][waits - 1] / NS_PER_US,
		       (double)cpu[k] / waits / NS_PER_US);
		free(over[k]);
	}
	return 0;
}

static void fixed(struct method *m, const char *name, int64_t tail_ns, bool keep_slack)
{
	m->name = name;
	m->sleeper = (struct lowlat_sleeper){.tail_ns = tail_ns, .keep_timer_slack = keep_slack};
}

static int64_t process_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* lowlat's own pacer (pace.c) on the cap, used as present.c uses it at the late wait point: the
 * frame's deadline, the wait, then the release reported back, so its re-anchors and late-release
 * rule apply here as they do in the layer. */
static int grid(struct method *m, const char *path, double fps, int waits)
{
	FILE *f = fopen(path, "w");
	struct lowlat_pacer pacer;

	if (!f) {
		perror(path);
		return 1;
	}
	lowlat_pacer_init(&pacer);
	lowlat_pacer_set_mfps(&pacer, lowlat_fps_to_mfps(fps));
	fprintf(f, "present,entry_ns,return_ns,cpu_ns,result,swapchains,thread_entry_cpu_ns,"
	           "thread_return_cpu_ns\n");
	for (int i = 0; i < waits; i++) {
		int64_t deadline = lowlat_pacer_next_deadline(&pacer, lowlat_now_ns());
		int64_t cpu0 = thread_cpu_ns();

		lowlat_sleep_until_ns(&m->sleeper, deadline, m->tolerance_ns);
		int64_t woke = lowlat_now_ns();
		int64_t cpu1 = thread_cpu_ns();

		lowlat_pacer_released(&pacer, deadline, woke);
		fprintf(f, "%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",0,1,%" PRId64 ",%" PRId64 "\n", i, woke,
		        woke, process_cpu_ns(), cpu0, cpu1);
	}
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	int waits = 1000, hogs = 0;
	int64_t interval_ns = 16600000; /* 16.6 ms: a 60 fps frame */
	struct method methods[10] = {0};
	int nmethods = 10;
	pthread_t hog_threads[64];
	const char *grid_csv = NULL, *only = "adaptive";
	double fps = 0;
	bool short_mode = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--waits") && i + 1 < argc)
			waits = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--interval-us") && i + 1 < argc)
			interval_ns = atoll(argv[++i]) * NS_PER_US;
		else if (!strcmp(argv[i], "--hog") && i + 1 < argc)
			hogs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--grid-csv") && i + 1 < argc)
			grid_csv = argv[++i];
		else if (!strcmp(argv[i], "--fps") && i + 1 < argc)
			fps = atof(argv[++i]);
		else if (!strcmp(argv[i], "--method") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--short"))
			short_mode = true;
		else {
			fprintf(stderr,
			        "usage: %s [--waits N] [--interval-us U] [--hog T]\n"
			        "       %s --grid-csv FILE --fps F [--waits N] [--method NAME]\n"
			        "       %s --short [--waits N]\n",
			        argv[0], argv[0], argv[0]);
			return 2;
		}
	}
	if (waits < 10 || interval_ns <= 0 || hogs < 0 || hogs > 64) {
		fprintf(stderr, "sleep_precision: need --waits >= 10, --interval-us > 0, --hog 0..64\n");
		return 2;
	}
	if (short_mode)
		return short_sleeps(waits);

	fixed(&methods[0], "plain", 0, true);
	fixed(&methods[1], "slack1ns", 0, false);
	fixed(&methods[2], "tail200us", 200 * NS_PER_US, false);
	fixed(&methods[3], "tail500us", 500 * NS_PER_US, false);
	fixed(&methods[4], "tail1000us", 1000 * NS_PER_US, false);
	static const char *const adaptive_names[] = {"adaptive", "escapes1", "escapes4", "escapes8",
	                                             "covered"};
	static const uint32_t escapes[] = {0, 1, 4, 8, 0};
	for (int a = 0; a < 5; a++) {
		methods[5 + a].name = adaptive_names[a];
		lowlat_sleeper_init(&methods[5 + a].sleeper);
		methods[5 + a].sleeper.escapes = escapes[a];
		methods[5 + a].tolerance_ns = a == 4 ? LOWLAT_WAIT_COVERED : LOWLAT_WAIT_PRECISE;
	}
	if (grid_csv) {
		if (!(fps > 0 && fps <= 10000)) {
			fprintf(stderr, "sleep_precision: --grid-csv needs --fps in (0, 10000]\n");
			return 2;
		}
		for (int m = 0; m < nmethods; m++)
			if (!strcmp(methods[m].name, only))
				return grid(&methods[m], grid_csv, fps, waits);
		fprintf(stderr, "sleep_precision: no method \"%s\"\n", only);
		return 2;
	}
	for (int m = 0; m < nmethods; m++) {
		methods[m].error_ns = calloc((size_t)waits, sizeof(int64_t));
		if (!methods[m].error_ns)
			return 1;
	}
	for (int t = 0; t < hogs; t++)
		pthread_create(&hog_threads[t], NULL, hog, NULL);

	printf("# %d waits of %.3f ms per method, interleaved; %d hog thread(s)\n", waits,
	       (double)interval_ns / 1e6, hogs);
	uint32_t seed = 1;
	for (int i = 0; i < waits; i++) {
		int order[10];

		/* A fresh order each round: a method that spins leaves the thread with less scheduler
		 * credit, which delays the next wake-up, so a fixed order would bias the method after
		 * the heaviest spinner (seen: adaptive, always after tail1000us, looked worst at p90). */
		for (int m = 0; m < nmethods; m++)
			order[m] = m;
		for (int m = nmethods - 1; m > 0; m--) {
			seed = seed * 1103515245u + 12345u;
			int j = (int)((seed >> 8) % (uint32_t)(m + 1)), t = order[m];
			order[m] = order[j];
			order[j] = t;
		}
		for (int k = 0; k < nmethods; k++) {
			int m = order[k];
			struct method *me = &methods[m];
			int64_t deadline = lowlat_now_ns() + interval_ns;
			int64_t tail = me->sleeper.tail_ns;
			int64_t cpu0 = thread_cpu_ns();

			lowlat_sleep_until_ns(&me->sleeper, deadline, me->tolerance_ns);
			int64_t woke = lowlat_now_ns();
			me->cpu_ns += thread_cpu_ns() - cpu0;
			me->error_ns[i] = woke - deadline;
			me->early += woke < deadline;
			me->tail_sum_ns += tail;
		}
	}
	atomic_store(&hog_stop, true);
	for (int t = 0; t < hogs; t++)
		pthread_join(hog_threads[t], NULL);

	printf("%-10s %8s %8s %8s %8s %9s %9s %6s %11s %12s\n", "method", "p50_us", "p90_us", "p95_us",
	       "p99_us", "p99.9_us", "max_us", "early", "cpu_us/wait", "mean_tail_us");
	for (int m = 0; m < nmethods; m++) {
		struct method *me = &methods[m];

		qsort(me->error_ns, (size_t)waits, sizeof(int64_t), cmp_i64);
		printf("%-10s %8.1f %8.1f %8.1f %8.1f %9.1f %9.1f %6d %11.1f %12.1f\n", me->name,
		       percentile_us(me->error_ns, waits, 0.50), percentile_us(me->error_ns, waits, 0.90),
		       percentile_us(me->error_ns, waits, 0.95), percentile_us(me->error_ns, waits, 0.99),
		       percentile_us(me->error_ns, waits, 0.999), (double)me->error_ns[waits - 1] / NS_PER_US,
		       me->early, (double)me->cpu_ns / waits / NS_PER_US,
		       (double)me->tail_sum_ns / waits / NS_PER_US);
		free(me->error_ns);
	}
	return 0;
}
