/* sink.h — a config message sink for tests: collects the messages into one string, one per line. */
#ifndef LOWLAT_TEST_SINK_H
#define LOWLAT_TEST_SINK_H

#include <stdio.h>
#include <string.h>

#include "lowlat_config.h"

struct collected {
	char text[8192];
	size_t len;
	int lines;
};

static void collect_line(void *user, const char *line)
{
	struct collected *c = user;
	int n = snprintf(c->text + c->len, sizeof(c->text) - c->len, "%s%s", c->lines ? "\n" : "", line);

	if (n > 0 && c->len + (size_t)n < sizeof(c->text))
		c->len += (size_t)n;
	c->lines++;
}

/* A sink into *c, emptied first. */
static inline struct lowlat_config_sink collect_sink(struct collected *c)
{
	c->text[0] = '\0';
	c->len = 0;
	c->lines = 0;
	return (struct lowlat_config_sink){collect_line, c, NULL};
}

#endif
