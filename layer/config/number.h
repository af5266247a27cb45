/* number.h — numbers from text the same way whatever the game's locale. */
#ifndef LOWLAT_NUMBER_H
#define LOWLAT_NUMBER_H

/* strtod in the "C" locale: a game that called setlocale() (a decimal comma in de_DE) must not turn
 * "59.94" into 59 or an error. */
double lowlat_strtod_c(const char *text, char **end);

#endif
