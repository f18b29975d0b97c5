/*
 * md: text from a benchmark, a budget or a file shown in GitHub's
 * Markdown as written, for the verdict and the budget's changes that a
 * pull request shows.
 */
#ifndef PERFGATE_MD_H
#define PERFGATE_MD_H

#include <stdio.h>

/*
 * s as text: HTML's characters as entities, so that no tag is ever a tag;
 * the characters that start emphasis, code, links, tables or
 * strikethrough escaped; a control byte (a newline would begin a heading)
 * as \u00XX.
 */
void md_text(FILE *fp, const char *s);

/*
 * s as code: between fences of one backtick more than its longest run of
 * them (CommonMark), control bytes as \u00XX; inside code no tag or
 * emphasis is read.
 */
void md_code(FILE *fp, const char *s);

#endif
