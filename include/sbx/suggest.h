/* SPDX-License-Identifier: MIT */
#ifndef SBX_SUGGEST_H
#define SBX_SUGGEST_H

/*
 * "Did you mean": the candidate nearest a mistyped word (a flag, a command, a profile name),
 * by edit distance (insertions, deletions, substitutions and swaps of two neighbours, each
 * 1), or NULL where none is near enough to be a likely typo: at most 1 for words of up to 4
 * characters, 2 up to 8, 3 beyond. A candidate that starts with the word (an unfinished
 * one) is near too. Ties go to the first candidate. Words longer than SBX_SUGGEST_MAX are
 * never matched.
 */

#include <stddef.h>

#define SBX_SUGGEST_MAX 128

/* The distance between a and b, or SIZE_MAX where either is longer than SBX_SUGGEST_MAX. */
size_t sbx_edit_distance(const char *a, const char *b);

const char *sbx_suggest(const char *word, const char *const *candidates, size_t n);

#endif
