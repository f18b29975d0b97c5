/*
 * md: text shown in GitHub's Markdown as written (md.h).
 */
#include <stdio.h>
#include <string.h>

#include "md.h"

void
md_text(FILE *fp, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '<')
			fputs("&lt;", fp);
		else if (c == '>')
			fputs("&gt;", fp);
		else if (c == '&')
			fputs("&amp;", fp);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\u%04x", c);
		else {
			if (strchr("\\|`*[]~", c) != NULL)
				fputc('\\', fp);
			fputc(c, fp);
		}
	}
}

void
md_code(FILE *fp, const char *s)
{
	size_t run = 0, most = 0, i;
	const char *p;

	for (p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > most)
			most = run;
	}
	for (i = 0; i <= most; i++)
		fputc('`', fp);
	if (most)
		fputc(' ', fp);
	for (p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	if (most)
		fputc(' ', fp);
	for (i = 0; i <= most; i++)
		fputc('`', fp);
}
