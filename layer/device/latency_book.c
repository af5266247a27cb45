/* latency_book.c — owed semaphore signals and the release-time choice; see latency_book.h. */
#include "latency_book.h"

bool lowlat_owed_add(struct lowlat_owed_book *book, const struct lowlat_owed *owed)
{
	if (book->count == LOWLAT_OWED_MAX)
		return false;
	book->items[book->count] = *owed;
	book->items[book->count].claimed = false;
	book->count++;
	return true;
}

int lowlat_owed_for_wait(const struct lowlat_owed_book *book, uint64_t semaphore, uint64_t value)
{
	int best = -1;

	for (uint32_t i = 0; i < book->count; i++) {
		const struct lowlat_owed *o = &book->items[i];
		if (o->semaphore != semaphore || o->value < value)
			continue;
		if (best < 0 || o->value < book->items[best].value)
			best = (int)i;
	}
	/* The first value that ends the wait is already someone else's to send: leave it to them. */
	return best >= 0 && !book->items[best].claimed ? best : -1;
}

int lowlat_owed_earliest(const struct lowlat_owed_book *book)
{
	int best = -1;

	for (uint32_t i = 0; i < book->count; i++)
		if (!book->items[i].claimed &&
		    (best < 0 || book->items[i].release_ns < book->items[best].release_ns))
			best = (int)i;
	return best;
}

bool lowlat_owed_lower_claimed(const struct lowlat_owed_book *book, int i)
{
	const struct lowlat_owed *me = &book->items[i];

	for (uint32_t j = 0; j < book->count; j++)
		if ((int)j != i && book->items[j].claimed && book->items[j].semaphore == me->semaphore &&
		    book->items[j].value < me->value)
			return true;
	return false;
}

static void remove_at(struct lowlat_owed_book *book, uint32_t i)
{
	book->items[i] = book->items[--book->count];
}

uint32_t lowlat_owed_done(struct lowlat_owed_book *book, int i)
{
	uint64_t semaphore = book->items[i].semaphore, value = book->items[i].value;
	uint32_t removed = 1;

	remove_at(book, (uint32_t)i);
	for (uint32_t j = 0; j < book->count;) {
		struct lowlat_owed *o = &book->items[j];
		if (!o->claimed && o->semaphore == semaphore && o->value <= value) {
			remove_at(book, j);
			removed++;
		} else {
			j++;
		}
	}
	return removed;
}

int lowlat_owed_find(const struct lowlat_owed_book *book, uint64_t semaphore, uint64_t value)
{
	for (uint32_t i = 0; i < book->count; i++)
		if (book->items[i].semaphore == semaphore && book->items[i].value == value)
			return (int)i;
	return -1;
}

uint32_t lowlat_owed_drop_lower(struct lowlat_owed_book *book, uint64_t semaphore, uint64_t value)
{
	uint32_t n = 0;

	for (uint32_t j = 0; j < book->count;) {
		const struct lowlat_owed *o = &book->items[j];
		if (!o->claimed && o->semaphore == semaphore && o->value < value) {
			remove_at(book, j);
			n++;
		} else {
			j++;
		}
	}
	return n;
}

uint32_t lowlat_owed_release_swapchain(struct lowlat_owed_book *book, uint64_t swapchain, int64_t release_ns)
{
	uint32_t n = 0;

	for (uint32_t j = 0; j < book->count; j++) {
		struct lowlat_owed *o = &book->items[j];
		if (!o->claimed && o->swapchain == swapchain) {
			o->release_ns = release_ns;
			o->swapchain = 0;
			n++;
		}
	}
	return n;
}

uint32_t lowlat_owed_take_swapchain(struct lowlat_owed_book *book, uint64_t swapchain,
                                    struct lowlat_owed *out)
{
	uint32_t n = 0;

	for (uint32_t j = 0; j < book->count;) {
		if (!book->items[j].claimed && book->items[j].swapchain == swapchain) {
			out[n++] = book->items[j];
			remove_at(book, j);
		} else {
			j++;
		}
	}
	return n;
}

void lowlat_latency_grids(uint32_t own_mfps, uint32_t app_mfps, bool stack, bool *use_own, bool *use_app)
{
	*use_own = own_mfps != 0;
	*use_app = app_mfps != 0;
	if (*use_own && *use_app && !stack) {
		if (own_mfps <= app_mfps)
			*use_app = false;
		else
			*use_own = false;
	}
}

int64_t lowlat_latency_release_ns(bool have_own, int64_t own_ns, bool have_app, int64_t app_ns, bool stack,
                                  int64_t now_ns, bool *paced)
{
	/* Never two limiters on one frame unless asked: the app's own interval is its cap. */
	if (have_own && have_app && !stack)
		have_own = false;
	*paced = have_own || have_app;
	if (have_own && have_app)
		return own_ns > app_ns ? own_ns : app_ns;
	if (have_own)
		return own_ns;
	if (have_app)
		return app_ns;
	return now_ns;
}

uint32_t lowlat_interval_us_to_mfps(uint32_t interval_us)
{
	/* fps = 1e6 / interval_us, so millihertz = 1e9 / interval_us, rounded to nearest. */
	const uint64_t mhz_us = 1000000000ull;

	if (!interval_us)
		return 0;
	if (interval_us > 1000000u)
		return 1000; /* 1 fps */
	if (interval_us < 100u)
		return 10000000; /* 10000 fps, LOWLAT_FPS_MAX: a shorter interval is below a sleep's own error
		                  */
	return (uint32_t)((mhz_us + interval_us / 2) / interval_us);
}
