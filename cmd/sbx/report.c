/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sbx/cleanup.h"

/*
 * The source line an error points at, and a caret under its column, as netplan and compilers
 * print them. The loader keeps only file, line and column (the error is flat); the line is
 * read again here. Columns count characters, as libyaml does; a tab in the line is kept in
 * the caret's indentation so that the caret lines up.
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
			int col = 1;

			buf[strcspn(buf, "\r\n")] = '\0';
			fprintf(f, "%s\n", buf);
			for (const unsigned char *p = (const unsigned char *)buf;
			     *p && col < column; p++) {
				if ((*p & 0xc0) == 0x80)
					continue; /* a UTF-8 continuation byte */
				fputc(*p == '\t' ? '\t' : ' ', f);
				col++;
			}
			for (; col < column; col++)
				fputc(' ', f);
			fputs("^\n", f);
			return;
		}
		if (whole)
			n++;
	}
}

void sbx_cli_report(FILE *f, const struct sbx_error *err)
{
	bool located = err->file[0] && err->line > 0;

	/* FILE:LINE:COL: first, as compilers do, so that editors can jump to it. */
	if (located)
		fprintf(f, "%s:%d:%d: %s", err->file, err->line, err->column, err->msg);
	else
		fprintf(f, "sbx: %s", err->msg);
	if (err->hint[0])
		fprintf(f, "; %s", err->hint);
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
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}
