/* SPDX-License-Identifier: MIT */
#include "yaml_tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "sbx/cleanup.h"

void sbx_ynode_free(struct sbx_ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_kids; i++)
		sbx_ynode_free(n->kids[i]);
	free(n->kids);
	free(n->value);
	free(n);
}

const char *sbx_ynode_type_name(const struct sbx_ynode *n)
{
	switch (n->kind) {
	case SBX_Y_SCALAR:
		return n->plain && n->len == 0 ? "empty" : "a single value";
	case SBX_Y_SEQ:
		return "a list";
	case SBX_Y_MAP:
		return "a mapping";
	}
	return "?";
}

static int located(struct sbx_error *err, const char *file, int line, int col, int errnum,
                   const char *msg, const char *hint)
{
	int r = sbx_error_set(err, SBX_ERR_PROFILE, errnum, "%s", msg);

	if (hint)
		sbx_error_hint(err, "%s", hint);
	sbx_error_at(err, file, line, col);
	return r;
}

/* Length of the UTF-8 sequence at s (strict: no overlong forms, surrogates or values above
 * U+10FFFF), or 0 if it is invalid. */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* Refuse what libyaml would accept or report only by byte offset: NUL, tabs, bad UTF-8. */
static int prescan(const char *data, size_t len, const char *file, struct sbx_error *err)
{
	const unsigned char *s = (const unsigned char *)data;
	int line = 1, col = 1;
	size_t i = 0;

	while (i < len) {
		size_t n;

		if (s[i] == '\t')
			return located(
			    err, file, line, col, EINVAL,
			    "a tab character; profiles are indented with spaces",
			    "replace the tab with spaces (YAML forbids tabs in indentation, "
			    "and sbx refuses them everywhere)");
		if (s[i] == '\0')
			return located(err, file, line, col, EINVAL,
			               "a NUL byte; this is not a "
			               "text file",
			               NULL);
		if (s[i] == '\n' || s[i] == '\r') {
			if (s[i] == '\r' && i + 1 < len && s[i + 1] == '\n')
				i++;
			i++;
			line++;
			col = 1;
			continue;
		}
		n = utf8_len(s + i, len - i);
		if (!n)
			return located(err, file, line, col, EILSEQ,
			               "invalid UTF-8; profiles are UTF-8 text",
			               "convert the file to UTF-8 (iconv -t UTF-8)");
		i += n;
		col++;
	}
	return 0;
}

struct builder {
	const char *file;
	struct sbx_ynode *stack[SBX_YAML_MAX_DEPTH + 1];
	int depth;
	size_t nodes;
	struct sbx_ynode *root;
	int documents;
};

static int add_kid(struct sbx_ynode *parent, struct sbx_ynode *kid, struct sbx_error *err)
{
	struct sbx_ynode **grown = realloc(parent->kids, (parent->n_kids + 1) * sizeof(*grown));

	if (!grown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	parent->kids = grown;
	parent->kids[parent->n_kids++] = kid;
	return 0;
}

static int new_node(struct builder *b, const yaml_event_t *ev, enum sbx_ynode_kind kind,
                    struct sbx_ynode **out, struct sbx_error *err)
{
	const yaml_char_t *anchor = NULL, *tag = NULL;
	int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
	struct sbx_ynode *n;
	int r;

	if (ev->type == YAML_SCALAR_EVENT) {
		anchor = ev->data.scalar.anchor;
		tag = ev->data.scalar.tag;
	} else if (ev->type == YAML_SEQUENCE_START_EVENT) {
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
	} else {
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
	}
	if (anchor)
		return located(err, b->file, line, col, EINVAL,
		               "YAML anchors ('&') and aliases ('*') are not allowed in profiles",
		               "write each value out; sbx refuses aliases so that no file can "
		               "expand into more than it shows");
	if (tag)
		return located(err, b->file, line, col, EINVAL,
		               "YAML tags ('!') are not allowed in profiles", "drop the tag");
	if (++b->nodes > SBX_YAML_MAX_NODES)
		return located(err, b->file, line, col, E2BIG, "too many YAML nodes", NULL);
	n = calloc(1, sizeof(*n));
	if (!n)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	n->kind = kind;
	n->line = line;
	n->column = col;
	if (kind == SBX_Y_SCALAR) {
		n->len = ev->data.scalar.length;
		n->value = malloc(n->len + 1);
		if (!n->value) {
			free(n);
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		}
		memcpy(n->value, ev->data.scalar.value, n->len);
		n->value[n->len] = '\0';
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		if (strlen(n->value) != n->len) {
			sbx_ynode_free(n);
			return located(err, b->file, line, col, EINVAL,
			               "a value contains a NUL character", NULL);
		}
	}
	if (b->depth == 0) {
		b->root = n;
	} else {
		r = add_kid(b->stack[b->depth - 1], n, err);
		if (r < 0) {
			sbx_ynode_free(n);
			return r;
		}
	}
	*out = n;
	return 0;
}

static int on_event(struct builder *b, const yaml_event_t *ev, struct sbx_error *err)
{
	int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
	struct sbx_ynode *n;
	int r;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++b->documents > 1)
			return located(err, b->file, line, col, EINVAL,
			               "more than one YAML document; a profile is one document",
			               "remove the second '---'");
		return 0;
	case YAML_ALIAS_EVENT:
		return located(err, b->file, line, col, EINVAL,
		               "YAML anchors ('&') and aliases ('*') are not allowed in profiles",
		               "write each value out; sbx refuses aliases so that no file can "
		               "expand into more than it shows");
	case YAML_SCALAR_EVENT:
		return new_node(b, ev, SBX_Y_SCALAR, &n, err);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (b->depth >= SBX_YAML_MAX_DEPTH)
			return located(err, b->file, line, col, E2BIG,
			               "YAML nested too deeply (at most 16 levels)", NULL);
		r = new_node(b, ev, ev->type == YAML_SEQUENCE_START_EVENT ? SBX_Y_SEQ : SBX_Y_MAP,
		             &n, err);
		if (r < 0)
			return r;
		b->stack[b->depth++] = n;
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth > 0)
			b->depth--;
		return 0;
	default:
		return 0;
	}
}

int sbx_yaml_parse(const char *data, size_t len, const char *file, struct sbx_ynode **out,
                   struct sbx_error *err)
{
	struct builder b = {.file = file};
	yaml_parser_t parser;
	bool done = false;
	int r = 0;

	*out = NULL;
	if (len > SBX_YAML_MAX_BYTES)
		return located(err, file, 1, 1, EFBIG, "the file is larger than 1 MiB",
		               "profiles are small; split it or drop what it does not need");
	r = prescan(data, len, file, err);
	if (r < 0)
		return r;
	if (!yaml_parser_initialize(&parser))
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	while (!done) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&parser, &ev)) {
			char msg[SBX_ERROR_MSG_MAX];

			snprintf(msg, sizeof(msg), "YAML syntax error: %s%s%s",
			         parser.problem ? parser.problem : "unknown problem",
			         parser.context ? " " : "", parser.context ? parser.context : "");
			r = located(err, file, (int)parser.problem_mark.line + 1,
			            (int)parser.problem_mark.column + 1, EINVAL, msg, NULL);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		r = on_event(&b, &ev, err);
		yaml_event_delete(&ev);
		if (r < 0)
			break;
	}
	yaml_parser_delete(&parser);
	if (r >= 0 && !b.root)
		r = located(err, file, 1, 1, ENODATA, "the file is empty",
		            "a profile needs at least 'version: 1'");
	if (r < 0) {
		sbx_ynode_free(b.root);
		return r;
	}
	*out = b.root;
	return 0;
}
