/* host.c — the simulator's host: traces of a machine's scheduling, recorded here and replayed by
 * runs, and the quiet model; see sim.h. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

/* ---- replay ---- */

static uint64_t splitmix(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void sim_host_init(struct sim_host *h, const struct sim_trace *trace, uint64_t seed)
{
	*h = (struct sim_host){.trace = trace, .rng = seed * 0x2545f4914f6cdd1dull + 1};
	if (trace && trace->wakes)
		h->next_wake = (size_t)(splitmix(&h->rng) % trace->wakes);
	if (trace && trace->span_ns > 0)
		h->stall_origin_ns = (int64_t)(splitmix(&h->rng) % (uint64_t)trace->span_ns);
}

int64_t sim_host_wake_late(struct sim_host *h)
{
	if (h->trace && h->trace->wakes) {
		int64_t late = h->trace->wake_ns[h->next_wake];
		h->next_wake = (h->next_wake + 1) % h->trace->wakes;
		return late;
	}
	/* The quiet model: u in (0, 1], an exponential tail over a floor. */
	double u = (double)((splitmix(&h->rng) >> 11) + 1) / 9007199254740992.0;
	return SIM_QUIET_WAKE_BASE_NS + (int64_t)(-log(u) * SIM_QUIET_WAKE_MEAN_NS);
}

/* The first stall at or after trace time tt (in [0, span)), as an index. */
static size_t first_stall(const struct sim_trace *t, int64_t tt)
{
	size_t lo = 0, hi = t->stalls;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->stall_at_ns[mid] < tt)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t sim_host_run(const struct sim_host *h, int64_t t_ns, int64_t work_ns)
{
	const struct sim_trace *t = h->trace;
	int64_t end = t_ns + work_ns;

	if (!t || !t->stalls || t->span_ns <= 0)
		return end;
	/* Walk the trace from t_ns, period by period, adding each stall that starts before the work
	 * (so far extended) ends. */
	int64_t base = t_ns + h->stall_origin_ns;
	int64_t period_start = base - base % t->span_ns;
	size_t i = first_stall(t, base - period_start);
	for (;;) {
		if (i == t->stalls) {
			period_start += t->span_ns;
			i = 0;
			continue;
		}
		int64_t at = period_start + t->stall_at_ns[i] - h->stall_origin_ns;
		if (at >= end)
			return end;
		end += t->stall_ns[i];
		i++;
	}
}

/* ---- traces on disk ---- */

void sim_trace_free(struct sim_trace *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->wake_ns);
	free(t->stall_at_ns);
	free(t->stall_ns);
	free(t);
}

static bool push(int64_t **v, size_t *n, size_t *cap, int64_t x)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 1024;
		int64_t *nv = realloc(*v, c * sizeof(*nv));
		if (!nv)
			return false;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return true;
}

struct sim_trace *sim_trace_load(const char *path)
{
	FILE *f = fopen(path, "r");
	struct sim_trace *t = calloc(1, sizeof(*t));
	size_t wake_cap = 0, stall_cap = 0, at_cap = 0, line_no = 0;
	char line[256];

	if (!f || !t) {
		fprintf(stderr, "lowlat-sim: cannot read the host trace %s: %s\n", path, strerror(errno));
		goto fail;
	}
	const char *slash = strrchr(path, '/');
	t->name = strdup(slash ? slash + 1 : path);
	while (fgets(line, sizeof(line), f)) {
		long long a, b;
		line_no++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "wake %lld", &a) == 1 && a >= 0) {
			if (!push(&t->wake_ns, &t->wakes, &wake_cap, a))
				goto oom;
		} else if (sscanf(line, "stall %lld %lld", &a, &b) == 2 && a >= 0 && b > 0) {
			size_t n = t->stalls;
			if (n && a < t->stall_at_ns[n - 1]) {
				fprintf(stderr, "lowlat-sim: %s:%zu: stalls out of order\n", path, line_no);
				goto fail;
			}
			if (!push(&t->stall_at_ns, &n, &at_cap, a) ||
			    !push(&t->stall_ns, &t->stalls, &stall_cap, b))
				goto oom;
		} else if (sscanf(line, "span %lld", &a) == 1 && a > 0) {
			t->span_ns = a;
		} else {
			fprintf(stderr,
			        "lowlat-sim: %s:%zu: not a trace line (wake NS, stall AT_NS NS, span NS): %s",
			        path, line_no, line);
			goto fail;
		}
	}
	if (!t->wakes || t->span_ns <= 0) {
		fprintf(stderr, "lowlat-sim: %s has no wake lines or no span line\n", path);
		goto fail;
	}
	fclose(f);
	return t;
oom:
	fprintf(stderr, "lowlat-sim: out of memory reading %s\n", path);
fail:
	if (f)
		fclose(f);
	sim_trace_free(t);
	return NULL;
}

/* ---- recording ---- */

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* A gap in a spinning thread's view of the clock longer than this is a stall: it was held off. */
#define STALL_MIN_NS 50000ll
/* The sleeps' spacing. */
#define RECORD_PERIOD_NS 1000000ll

struct spinner {
	atomic_bool stop;
	int64_t start_ns;
	int64_t *at, *len;
	size_t n, at_cap, len_cap;
	bool oom;
};

static void *spin(void *arg)
{
	struct spinner *sp = arg;
	int64_t last = mono_ns();

	while (!atomic_load_explicit(&sp->stop, memory_order_relaxed)) {
		int64_t now = mono_ns();
		if (now - last > STALL_MIN_NS && !sp->oom) {
			size_t n = sp->n;
			sp->oom = !push(&sp->at, &n, &sp->at_cap, last - sp->start_ns) ||
			          !push(&sp->len, &sp->n, &sp->len_cap, now - last);
		}
		last = now;
	}
	return NULL;
}

int sim_host_record(const char *path, double seconds)
{
	struct spinner sp = {.start_ns = mono_ns()};
	pthread_t thread;
	int64_t *wakes = NULL;
	size_t n = 0, cap = 0;
	FILE *f = fopen(path, "w");
	char host[128] = "?";

	if (!f) {
		fprintf(stderr, "lowlat-sim: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	prctl(PR_SET_TIMERSLACK, 1ul, 0, 0, 0);
	if (pthread_create(&thread, NULL, spin, &sp)) {
		fprintf(stderr, "lowlat-sim: cannot start the spinning thread\n");
		fclose(f);
		return 1;
	}
	int64_t end = sp.start_ns + (int64_t)(seconds * 1e9);
	for (int64_t deadline = sp.start_ns + RECORD_PERIOD_NS; deadline < end;
	     deadline += RECORD_PERIOD_NS) {
		struct timespec ts = {.tv_sec = deadline / 1000000000ll, .tv_nsec = deadline % 1000000000ll};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		int64_t late = mono_ns() - deadline;
		if (!push(&wakes, &n, &cap, late))
			break;
		/* A wake-up later than a period skips the deadlines it passed. */
		if (late > RECORD_PERIOD_NS)
			deadline += late / RECORD_PERIOD_NS * RECORD_PERIOD_NS;
	}
	int64_t span = mono_ns() - sp.start_ns;
	atomic_store(&sp.stop, true);
	pthread_join(thread, NULL);
	gethostname(host, sizeof(host) - 1);
	fprintf(f,
	        "# lowlat-sim host trace: %ld CPUs, %.1f s, sleeps 1 ms apart (timer slack 1 ns) and a\n"
	        "# spinning thread's gaps over %lld us; recorded by tools/lowlat-sim --record-host\n",
	        sysconf(_SC_NPROCESSORS_ONLN), (double)span * 1e-9, STALL_MIN_NS / 1000);
	fprintf(f, "span %lld\n", (long long)span);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "wake %lld\n", (long long)wakes[i]);
	for (size_t i = 0; i < sp.n; i++)
		fprintf(f, "stall %lld %lld\n", (long long)sp.at[i], (long long)sp.len[i]);
	free(wakes);
	free(sp.at);
	free(sp.len);
	if (fclose(f)) {
		fprintf(stderr, "lowlat-sim: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	fprintf(stderr, "lowlat-sim: %zu sleeps and %zu stalls in %.1f s written to %s\n", n, sp.n,
	        (double)span * 1e-9, path);
	return 0;
}
