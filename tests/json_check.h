/* SPDX-License-Identifier: MIT */
/*
 * A small, strict JSON checker for the tests of what sbx writes as JSON (the broker's request,
 * the audit log's records): RFC 8259 text, one value, well-formed UTF-8, no raw control byte in
 * a string, no key twice in an object, nesting at most 32 deep. json_get decodes one member of
 * a top-level object: a string's text, or the raw text of any other value. Written apart from
 * sbx's own parser, so that the two do not share a mistake.
 */
#ifndef SBX_TEST_JSON_CHECK_H
#define SBX_TEST_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct jc {
	const unsigned char *p;
	int depth;
};

static void jc_ws(struct jc *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static bool jc_value(struct jc *j, char *out, size_t size);

static int jc_hex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void jc_put(char *out, size_t size, size_t *n, unsigned long cp)
{
	unsigned char u[4];
	size_t k;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		k = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | cp >> 6);
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | cp >> 12);
		u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | cp >> 18);
		u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 4;
	}
	for (size_t i = 0; i < k; i++)
		if (out && *n + 1 < size)
			out[(*n)++] = (char)u[i];
}

/* The length of a well-formed UTF-8 sequence (RFC 3629), or 0. */
static size_t jc_utf8(const unsigned char *s)
{
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	if (s[0] == 0xed)
		hi = 0x9f;
	if (s[0] == 0xf0)
		lo = 0x90;
	if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static bool jc_string(struct jc *j, char *out, size_t size)
{
	size_t n = 0;

	if (*j->p != '"')
		return false;
	j->p++;
	while (*j->p != '"') {
		unsigned char c = *j->p;

		if (c == 0 || c < 0x20)
			return false;
		if (c >= 0x80) {
			size_t k = jc_utf8(j->p);

			if (!k)
				return false;
			for (size_t i = 0; i < k; i++)
				if (out && n + 1 < size)
					out[n++] = (char)j->p[i];
			j->p += k;
			continue;
		}
		j->p++;
		if (c != '\\') {
			if (out && n + 1 < size)
				out[n++] = (char)c;
			continue;
		}
		c = *j->p++;
		if (c == 'u') {
			unsigned long cp = 0;

			for (int i = 0; i < 4; i++) {
				int h = jc_hex(*j->p++);

				if (h < 0)
					return false;
				cp = cp << 4 | (unsigned long)h;
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				unsigned long lo = 0;

				if (j->p[0] != '\\' || j->p[1] != 'u')
					return false;
				j->p += 2;
				for (int i = 0; i < 4; i++) {
					int h = jc_hex(*j->p++);

					if (h < 0)
						return false;
					lo = lo << 4 | (unsigned long)h;
				}
				if (lo < 0xdc00 || lo > 0xdfff)
					return false;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				return false;
			}
			jc_put(out, size, &n, cp);
			continue;
		}
		switch (c) {
		case '"':
		case '\\':
		case '/':
			break;
		case 'b':
			c = '\b';
			break;
		case 'f':
			c = '\f';
			break;
		case 'n':
			c = '\n';
			break;
		case 'r':
			c = '\r';
			break;
		case 't':
			c = '\t';
			break;
		default:
			return false;
		}
		if (out && n + 1 < size)
			out[n++] = (char)c;
	}
	j->p++;
	if (out && size)
		out[n] = '\0';
	return true;
}

static bool jc_digits(struct jc *j)
{
	if (*j->p < '0' || *j->p > '9')
		return false;
	while (*j->p >= '0' && *j->p <= '9')
		j->p++;
	return true;
}

static bool jc_number(struct jc *j)
{
	if (*j->p == '-')
		j->p++;
	if (*j->p == '0')
		j->p++;
	else if (!jc_digits(j))
		return false;
	if (*j->p == '.') {
		j->p++;
		if (!jc_digits(j))
			return false;
	}
	if (*j->p == 'e' || *j->p == 'E') {
		j->p++;
		if (*j->p == '+' || *j->p == '-')
			j->p++;
		if (!jc_digits(j))
			return false;
	}
	return true;
}

#define JC_KEYS_MAX 64

static bool jc_object(struct jc *j)
{
	char keys[JC_KEYS_MAX][64];
	size_t n = 0;

	j->p++;
	jc_ws(j);
	if (*j->p == '}') {
		j->p++;
		return true;
	}
	for (;;) {
		char key[64];

		jc_ws(j);
		if (!jc_string(j, key, sizeof(key)))
			return false;
		for (size_t i = 0; i < n; i++)
			if (strcmp(keys[i], key) == 0)
				return false;
		if (n < JC_KEYS_MAX)
			memcpy(keys[n++], key, sizeof(key));
		jc_ws(j);
		if (*j->p++ != ':')
			return false;
		if (!jc_value(j, NULL, 0))
			return false;
		jc_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p++ != '}')
			return false;
		return true;
	}
}

static bool jc_array(struct jc *j)
{
	j->p++;
	jc_ws(j);
	if (*j->p == ']') {
		j->p++;
		return true;
	}
	for (;;) {
		if (!jc_value(j, NULL, 0))
			return false;
		jc_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		return *j->p++ == ']';
	}
}

static bool jc_value(struct jc *j, char *out, size_t size)
{
	bool ok;

	jc_ws(j);
	if (++j->depth > 32)
		return false;
	switch (*j->p) {
	case '{':
		ok = jc_object(j);
		break;
	case '[':
		ok = jc_array(j);
		break;
	case '"':
		ok = jc_string(j, out, size);
		break;
	case 't':
		ok = strncmp((const char *)j->p, "true", 4) == 0;
		j->p += ok ? 4 : 0;
		break;
	case 'f':
		ok = strncmp((const char *)j->p, "false", 5) == 0;
		j->p += ok ? 5 : 0;
		break;
	case 'n':
		ok = strncmp((const char *)j->p, "null", 4) == 0;
		j->p += ok ? 4 : 0;
		break;
	default:
		ok = jc_number(j);
	}
	j->depth--;
	return ok;
}

/* Is text exactly one JSON value (whitespace around it allowed)? */
static inline bool json_valid(const char *text)
{
	struct jc j = {(const unsigned char *)text, 0};

	if (!jc_value(&j, NULL, 0))
		return false;
	jc_ws(&j);
	return *j.p == '\0';
}

/*
 * The member `key` of the top-level object in text: a string's decoded text, or the raw text
 * of another value ("null", "12", "[...]"). false if text is not valid or has no such key.
 */
static inline bool json_get(const char *text, const char *key, char *out, size_t size)
{
	struct jc j = {(const unsigned char *)text, 0};

	if (!json_valid(text))
		return false;
	jc_ws(&j);
	if (*j.p != '{')
		return false;
	j.p++;
	for (;;) {
		char k[64];
		const unsigned char *start;

		jc_ws(&j);
		if (*j.p == '}' || !jc_string(&j, k, sizeof(k)))
			return false;
		jc_ws(&j);
		j.p++; /* ':' */
		jc_ws(&j);
		start = j.p;
		if (strcmp(k, key) == 0) {
			if (*start == '"')
				return jc_string(&j, out, size);
			if (!jc_value(&j, NULL, 0))
				return false;
			if (size) {
				size_t n = (size_t)(j.p - start) < size - 1 ? (size_t)(j.p - start)
				                                            : size - 1;

				memcpy(out, start, n);
				out[n] = '\0';
			}
			return true;
		}
		if (!jc_value(&j, NULL, 0))
			return false;
		jc_ws(&j);
		if (*j.p++ != ',')
			return false;
	}
}

#endif
