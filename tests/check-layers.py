#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layers the build keeps (docs/design.md, The layers).

- include/sbx/*.h declares core's API only: every function or variable declared there is
  defined in the core library.
- src/os/*.h declares the os modules' (and the executor's): each is defined in the os
  library. Only what links sbx_os has src/ as an include directory, so core and its unit
  tests cannot include them.
- No function or variable is declared in two headers.
- Core references nothing the os library defines (core never depends on os).

Usage: check-layers.py SOURCE_DIR LIBSBX_CORE LIBSBX_OS LIBSBX_CLI
"""
import glob
import os
import re
import subprocess
import sys


def strip(text):
    """The header's code: comments, preprocessor lines and string literals removed."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    text = re.sub(r"^[ \t]*#(.*\\\n)*.*$", " ", text, flags=re.M)
    return text


def declarations(path):
    """Names of the functions and variables a header declares (not defines) at file scope."""
    code = strip(open(path, encoding="utf-8").read())
    names = []
    depth, stmt = 0, ""
    for ch in code:
        if ch == "{":
            if depth == 0 and ")" in stmt and "=" not in stmt:
                stmt = "\0body"  # a function defined here (static inline): not a declaration
            depth += 1
            continue
        if ch == "}":
            depth -= 1
            if depth == 0 and stmt.startswith("\0body"):
                stmt = ""  # a function's body ends without a ';'
            continue
        if depth > 0:
            continue
        if ch != ";":
            stmt += ch
            continue
        s, stmt = " ".join(stmt.split()), ""
        if s.startswith("\0body") or s.startswith("typedef") or not s:
            continue
        m = re.match(r"^(?:extern\s+)?[^()]*?\b([A-Za-z_]\w*)\s*\(", s)
        if m and not re.match(r"^(struct|enum|union)\s+\w+\s*$", s):
            names.append(m.group(1))  # a prototype: the name before the first '('
            continue
        if s.startswith("extern "):
            m = re.search(r"\b([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*$", s)
            if m:
                names.append(m.group(1))
    return names


def defined(lib):
    out = subprocess.run(["nm", "-g", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    return {f[2] for f in (l.split() for l in out.splitlines()) if len(f) == 3}


def undefined(lib):
    out = subprocess.run(["nm", "-u", lib], capture_output=True, text=True, check=True).stdout
    return {l.split()[-1].split("@")[0] for l in out.splitlines() if l.strip() and ":" not in l}


def main():
    src, core_lib, os_lib, cli_lib = sys.argv[1:5]
    headers = sorted(glob.glob(os.path.join(src, "include/sbx/*.h")) +
                     glob.glob(os.path.join(src, "src/os/*.h")) +
                     glob.glob(os.path.join(src, "src/core/*.h")) +
                     glob.glob(os.path.join(src, "cmd/sbx/*.h")))
    core, osd, cli = defined(core_lib), defined(os_lib), defined(cli_lib)
    where = {}
    bad = []
    for h in headers:
        rel = os.path.relpath(h, src)
        for name in declarations(h):
            if name in where and where[name] != rel:
                bad.append(f"{name} is declared in {where[name]} and in {rel}: declare it once")
            where.setdefault(name, rel)
            if rel.startswith("include/sbx/") and name not in core:
                lib = "the os library" if name in osd else "the CLI" if name in cli else "nowhere"
                bad.append(f"{rel} declares {name}, defined in {lib}: public headers are "
                           "core's; declare it in its module's src/os/*.h")
            if rel.startswith("src/os/") and name not in osd:
                lib = "core" if name in core else "nowhere"
                bad.append(f"{rel} declares {name}, defined in {lib}, not in the os library")
    for name in sorted(undefined(core_lib) & osd):
        bad.append(f"core references {name}, which the os library defines: core never "
                   "depends on os")
    if bad:
        print("\n".join(bad), file=sys.stderr)
        return 1
    print(f"layers hold: {len(where)} declarations in {len(headers)} headers, each once and "
          "in its layer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
