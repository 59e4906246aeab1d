/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sbx/cleanup.h"
#include "sbx/escape.h"

/*
 * The source line an error points at, and a caret under its column, as netplan and compilers
 * print them. The loader keeps only file, line and column (the error is flat); the line is
 * read again here. The line is escaped as everything sbx prints (a profile may hold any
 * byte, and the error may be about exactly that byte); columns count characters, as libyaml
 * does, and the caret stands under the escaped form of the character the column names.
 */
static void print_source_line(FILE *f, const char *file, int line, int column)
{
	_cleanup_fclose_ FILE *in = fopen(file, "re");
	char buf[1024];
	int n = 1;

	if (!in)
		return;
	while (fgets(buf, sizeof(buf), in)) {
		size_t len = strlen(buf);
		bool whole = len > 0 && buf[len - 1] == '\n';

		if (n == line) {
			size_t at = 0, width;
			int col = 1;

			buf[strcspn(buf, "\r\n")] = '\0';
			fprintf(f, "%s\n", sbx_cli_esc(buf));
			/* the byte where the column's character starts */
			for (; buf[at] && col < column; col++)
				do
					at++;
				while ((buf[at] & 0xc0) == 0x80); /* UTF-8 continuation bytes */
			buf[at] = '\0';
			width = strlen(sbx_cli_esc(buf)) + (size_t)(column - col);
			fprintf(f, "%*s^\n", (int)(width < 1024 ? width : 1024), "");
			return;
		}
		if (whole)
			n++;
	}
}

enum sbx_cli_notes sbx_cli_notes = SBX_NOTES_SHORT;

void sbx_cli_report(FILE *f, const struct sbx_error *err)
{
	bool located = err->file[0] && err->line > 0;

	/* FILE:LINE:COL: first, as compilers do, so that editors can jump to it. Paths and
	 * arguments that the message quotes are escaped with it. */
	if (located)
		fprintf(f, "%s:%d:%d: %s", sbx_cli_esc(err->file), err->line, err->column,
		        sbx_cli_esc(err->msg));
	else
		fprintf(f, "sbx: %s", sbx_cli_esc(err->msg));
	if (err->hint[0])
		fprintf(f, "; %s", sbx_cli_esc(err->hint));
	else if (err->errnum == EMFILE || err->errnum == ENFILE)
		/* whichever step ran out, the remedy is the same */
		fputs("; sbx needs a few file descriptors of its own: raise the open-file limit "
		      "(ulimit -n) or close descriptors first",
		      f);
	fputc('\n', f);
	if (located)
		print_source_line(f, err->file, err->line, err->column);
}

void sbx_json_string(FILE *f, const char *s)
{
	char small[512];
	size_t n = sbx_escape(small, sizeof(small), s, SBX_ESCAPE_JSON);
	_cleanup_free_ char *big = NULL;

	if (n >= sizeof(small)) {
		big = malloc(n + 1);
		if (big)
			sbx_escape(big, n + 1, s, SBX_ESCAPE_JSON);
	}
	fputc('"', f);
	fputs(big ? big : small, f); /* on ENOMEM, what fitted: still escaped */
	fputc('"', f);
}

/* A ring of buffers, so that one printf may escape several arguments. */
#define ESC_RING 8

const char *sbx_cli_esc(const char *s)
{
	static char *ring[ESC_RING];
	static unsigned next;
	char **slot;
	size_t n;

	if (!s)
		return "(null)";
	n = sbx_escape(NULL, 0, s, SBX_ESCAPE_TEXT);
	/* Text escapes only ever grow a string: the same length means nothing to escape. */
	if (n == strlen(s))
		return s;
	slot = &ring[next++ % ESC_RING];
	free(*slot);
	*slot = malloc(n + 1);
	if (!*slot)
		return "(a name that cannot be shown: out of memory)";
	sbx_escape(*slot, n + 1, s, SBX_ESCAPE_TEXT);
	return *slot;
}
