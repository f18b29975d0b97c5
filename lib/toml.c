/*
 * toml: the tokens of the budget file's small strict subset of TOML
 * (toml.h); what the keys mean is budget.c's.
 */
#include <stddef.h>

#include "toml.h"

int
toml_isbare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static int
isdigitc(int c)
{
	return c >= '0' && c <= '9';
}

char *
toml_skipws(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

int
toml_atend(const char *p)
{
	return *p == '\0' || *p == '#';
}

/*
 * A TOML decimal number: an optional sign, an integer part without leading
 * zeros, an optional fraction and exponent, each with at least one digit.
 * strtod alone would also take hex, "inf" and "nan", which TOML spells apart.
 */
int
toml_isnumber(const char *s, size_t n)
{
	size_t i = 0, d;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	d = i;
	while (i < n && isdigitc(s[i]))
		i++;
	if (i == d || (s[d] == '0' && i - d > 1))
		return 0;
	if (i < n && s[i] == '.') {
		d = ++i;
		while (i < n && isdigitc(s[i]))
			i++;
		if (i == d)
			return 0;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		d = i;
		while (i < n && isdigitc(s[i]))
			i++;
		if (i == d)
			return 0;
	}
	return i == n;
}

/* Skip a basic string that starts after its opening quote; NULL if it is bad, with *why set. */
char *
toml_skipstring(char *p, const char **why)
{
	int k, digits;

	for (;;) {
		unsigned char c = (unsigned char)*p;

		if (c == '\0') {
			*why = "unterminated string";
			return NULL;
		}
		if (c == '"')
			return p + 1;
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			*why = "control character in string";
			return NULL;
		}
		if (c != '\\') {
			p++;
			continue;
		}
		p++;
		switch (*p) {
		case 'b': case 't': case 'n': case 'f': case 'r': case '"': case '\\':
			p++;
			continue;
		case 'u':
			digits = 4;
			break;
		case 'U':
			digits = 8;
			break;
		default:
			*why = "unknown escape in string";
			return NULL;
		}
		for (k = 1; k <= digits; k++) {
			c = (unsigned char)p[k];
			if (!isdigitc(c) && !((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
				*why = "bad \\u escape in string";
				return NULL;
			}
		}
		p += digits + 1;
	}
}
