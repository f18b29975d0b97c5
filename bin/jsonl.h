/*
 * jsonl: JSON-line records, all of it: the grammar and the writer
 * (json.h), the layout fast path (jlayout.h) and the line reader
 * (jreader.h). Number conversion is jnum.h, UTF-8 utf8.h.
 */
#ifndef PERFGATE_JSONL_H
#define PERFGATE_JSONL_H

#include "json.h"
#include "jlayout.h"
#include "jreader.h"

#endif
