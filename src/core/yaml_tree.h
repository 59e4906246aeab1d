/* SPDX-License-Identifier: MIT */
#ifndef SBX_CORE_YAML_TREE_H
#define SBX_CORE_YAML_TREE_H

/*
 * A small, capped YAML tree built from libyaml's events, for the profile and policy loaders.
 * Internal to src/core. Anchors, aliases and tags are refused at the first event that carries
 * one, so an alias bomb is never expanded; depth and node count are capped; the input is
 * checked first for size, NUL bytes, tabs and invalid UTF-8, each reported at its line and
 * column.
 */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"

#define SBX_YAML_MAX_BYTES (1024 * 1024)
#define SBX_YAML_MAX_DEPTH 16
#define SBX_YAML_MAX_NODES 20000

enum sbx_ynode_kind {
	SBX_Y_SCALAR = 0,
	SBX_Y_SEQ,
	SBX_Y_MAP,
};

struct sbx_ynode {
	enum sbx_ynode_kind kind;
	int line, column; /* 1-based, in characters, as libyaml counts */
	char *value;      /* SBX_Y_SCALAR: NUL-terminated */
	size_t len;
	bool plain; /* an unquoted scalar (only those can be booleans or numbers) */
	/* SBX_Y_SEQ: items; SBX_Y_MAP: key, value, key, value... */
	struct sbx_ynode **kids;
	size_t n_kids;
};

void sbx_ynode_free(struct sbx_ynode *n);

/* Parse one YAML document from memory. `file` names it in errors. */
int sbx_yaml_parse(const char *data, size_t len, const char *file, struct sbx_ynode **out,
                   struct sbx_error *err);

/* A short name of a node's type for messages: "a string", "a list", "a mapping". */
const char *sbx_ynode_type_name(const struct sbx_ynode *n);

#endif
