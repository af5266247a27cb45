/* number.c — locale-independent number parsing; see number.h. */
#include "number.h"

#include <locale.h>
#include <stdlib.h>

double lowlat_strtod_c(const char *text, char **end)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	double v;

	/* Without a C locale object (out of memory) the process locale is the best there is. */
	if (!c)
		return strtod(text, end);
	v = strtod_l(text, end, c);
	freelocale(c);
	return v;
}
