/*
 * jsonl: JSON-line records, all of it: the grammar and the writer
 * (json.h), the layout fast path (jsonlayout.h) and the line reader
 * (jsonreader.h). Number conversion is jsonnum.h, UTF-8 utf8.h.
 */
#ifndef PERFGATE_JSONL_H
#define PERFGATE_JSONL_H

#include "json.h"
#include "jsonlayout.h"
#include "jsonreader.h"

#endif
