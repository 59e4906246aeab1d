/* SPDX-License-Identifier: MIT */
#ifndef SBX_REGISTRY_H
#define SBX_REGISTRY_H

/*
 * The sandboxes a caller can see (sbx ps, sbx inspect, sbx kill; sbx(1), SANDBOXES YOU CAN
 * SEE): one record a running sandbox, written by the sbx that started it into the caller's
 * runtime directory (src/os/registry.c chooses and checks it) and removed when it ends. Pure:
 * the record's text and its parser only.
 *
 * A record is text, one "KEY VALUE" a line, first line "sbx-sandbox 1" (the version). Values
 * are numbers, hex digits or words, or %-escaped text (every byte below 0x21, 0x7f and '%'
 * as %XX). The parser trusts nothing: a file anyone could have planted or cut short is
 * refused whole (-EBADMSG) when a line is not one it knows, a key comes twice, a number
 * overflows, a required key is missing or any size passes its cap; the caller skips it.
 *
 * Ownership: a struct sbx_reg owns its strings and arrays (sbx_reg_clear frees them and
 * accepts a zeroed struct); sbx_reg_format's *out is the caller's to free.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx/error.h"

#define SBX_REG_VERSION    1u
#define SBX_REG_FILE_MAX   (1u << 20)   /* bytes of one record (the spec's hex included) */
#define SBX_REG_ARGS_MAX   256u         /* arguments of the command kept (more: cut, marked) */
#define SBX_REG_ARG_MAX    4096u        /* bytes of one argument kept (longer: cut, marked) */
#define SBX_REG_TEXT_MAX   4096u        /* bytes of any other text value, unescaped */
#define SBX_REG_SPEC_MAX   (384u << 10) /* bytes of the encoded effective spec kept */
#define SBX_REG_ID_LEN     32u          /* a sandbox id: lower-case hex digits */
#define SBX_REG_DIGEST_LEN 64u          /* sha256, lower-case hex */

struct sbx_reg {
	char id[SBX_REG_ID_LEN + 1];         /* the sandbox's id (the audit log's "sandbox") */
	char parent[SBX_REG_ID_LEN + 1];     /* "" : none */
	char digest[SBX_REG_DIGEST_LEN + 1]; /* "" : none (no effective spec) */
	int64_t sbx_pid;                     /* the sbx that started it */
	uint64_t sbx_start;                  /* its start time: /proc/PID/stat field 22, ticks */
	int64_t pid;                         /* sbx's child: the sandbox's init, or the worker */
	uint64_t pid_start;
	uint64_t uid;      /* the caller's */
	uint64_t start_ms; /* CLOCK_REALTIME, ms */
	uint64_t depth;    /* 1: started from outside any sandbox sbx knows */
	unsigned backend;  /* enum sbx_backend (nest.h) */
	char *profile;     /* owned; "" when none */
	char **argv;       /* owned, n_argv entries */
	size_t n_argv;
	bool argv_cut;       /* more arguments, or longer ones, than were kept */
	unsigned char *spec; /* owned: the encoded effective spec (nest.h), NULL when not kept */
	size_t spec_len;
};

void sbx_reg_clear(struct sbx_reg *r);

/* The record's text (*out allocated, *len bytes, NUL-terminated). Arguments beyond the caps
 * are cut and the record says so; a spec beyond SBX_REG_SPEC_MAX is left out. */
int sbx_reg_format(const struct sbx_reg *r, char **out, size_t *len, struct sbx_error *err);

/* Parse len bytes (need not be NUL-terminated) into *out (cleared first; on failure left
 * cleared). -EBADMSG, with the line in err, for anything malformed (see above). */
int sbx_reg_parse(const char *buf, size_t len, struct sbx_reg *out, struct sbx_error *err);

/* Is s a sandbox id (SBX_REG_ID_LEN lower-case hex digits)? Also a record's file name. */
bool sbx_reg_id_valid(const char *s);

#endif
