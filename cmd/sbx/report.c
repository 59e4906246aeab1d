/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli.h"

void sbx_cli_report(FILE *f, const struct sbx_error *err)
{
	if (err->file[0] && err->line > 0)
		fprintf(f, "sbx: %s:%d:%d: %s", err->file, err->line, err->column, err->msg);
	else
		fprintf(f, "sbx: %s", err->msg);
	if (err->hint[0])
		fprintf(f, "; %s", err->hint);
	fputc('\n', f);
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
