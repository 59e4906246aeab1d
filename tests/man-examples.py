#!/usr/bin/env python3
"""sbx-profile(5)'s EXAMPLES run as written: each YAML block is written where the page says
(a profile in the profile folder, a policy in its policies/), `sbx profiles validate` loads
every profile, and each `$ sbx ...` line runs and gives the verdicts the page shows.
Usage: man-examples.py SBX SOURCE_DIR"""
import os
import re
import subprocess
import sys
import tempfile


def unescape(line):
    line = re.sub(r"\\f[BIRP]", "", line)
    return line.replace("\\-", "-").replace("\\(dq", '"').replace("\\e", "\\")


def main():
    sbx, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    page = open(os.path.join(src, "man", "sbx-profile.5"), encoding="utf-8").read()
    ex = page[page.index(".SH EXAMPLES"):page.index(".SH FILES")]
    blocks = [[unescape(l) for l in b.split("\n")]
              for b in re.findall(r"^\.nf\n(.*?)\n\.fi$", ex, re.S | re.M)]
    # not under /tmp: every sandbox has a private /tmp over it, which the page's answers
    # do not show
    tmp = tempfile.mkdtemp(prefix="sbx-man-", dir=os.getcwd())
    home = os.path.join(tmp, "home", "me")
    proj = os.path.join(home, "proj")
    prof = os.path.join(home, ".config", "sbx", "profiles")
    for d in (os.path.join(home, ".claude", "projects"), os.path.join(proj, "src"),
              os.path.join(prof, "policies")):
        os.makedirs(d, mode=0o755, exist_ok=True)
    open(os.path.join(proj, "src", "main.c"), "w").write("int main(void){return 0;}\n")
    os.chmod(tmp, 0o755)
    env = dict(os.environ, HOME=home, USER="me", SBX_PROFILE_PATH=os.path.join(src, "profiles"))
    env.pop("XDG_CONFIG_HOME", None)
    names, commands, fail = [], [], 0
    # profiles without a "# NAME.yaml" first line, in the page's order
    unnamed = iter(["my-agent", "datasets"])
    for b in blocks:
        if b[0].startswith("$ ") or b[0].startswith("sbx "):
            commands += [l[2:] if l.startswith("$ ") else l for l in b
                         if l.startswith("$ sbx") or l.startswith("sbx ")]
            continue
        m = re.match(r"# (\S+\.yaml)$", b[0])
        if m and m.group(1).startswith("policies/"):
            open(os.path.join(prof, m.group(1)), "w").write("\n".join(b[1:]) + "\n")
            continue
        name = m.group(1)[:-5] if m else next(unnamed)
        open(os.path.join(prof, name + ".yaml"), "w").write("\n".join(b[1:] if m else b) + "\n")
        names.append(name)
    # every profile the page shows loads
    r = subprocess.run([sbx, "profiles", "validate"] + names, env=env, cwd=proj,
                       capture_output=True, text=True)
    print(r.stdout + r.stderr, end="")
    if r.returncode != 0 or r.stdout.count(": ok") != len(names):
        print("FAIL: sbx profiles validate", *names)
        fail = 1
    # each command, run as written (a run as a dry run), gives the verdicts shown
    shown = "\n".join(l for b in blocks for l in b if not l.startswith("$ "))
    for c in commands:
        argv = [a.strip('"').replace("/home/me", home).replace("$PWD", proj)
                for a in re.findall(r'"[^"]*"|\S+', c)]
        argv = [home + a[1:] if a.startswith("~") else a for a in argv]
        if argv[1] == "run":
            argv.insert(2, "--dry-run")
        r = subprocess.run([sbx] + argv[1:], env=env, cwd=proj, capture_output=True, text=True)
        print("$", " ".join(argv), "->", r.returncode)
        print(r.stderr + ("" if argv[1] == "run" else r.stdout), end="")
        if r.returncode == 125:
            print("FAIL: refused")
            fail = 1
            continue
        if argv[1] == "resolve" and " -> " not in r.stdout:
            print("FAIL: nothing resolved")
            fail = 1
        for line in r.stdout.splitlines():
            verdict = re.match(r"(allow|deny|ask)\s+(\w+)\s+(\S+)", line)
            if verdict:
                want = "%s %s %s" % (verdict.group(1), verdict.group(2),
                                     verdict.group(3).replace(home, "/home/me"))
                if want not in re.sub(r"\s+", " ", shown):
                    print("FAIL: the page does not show:", want)
                    fail = 1
    if not commands:
        print("FAIL: no command found in EXAMPLES")
        fail = 1
    subprocess.run(["rm", "-rf", tmp])
    return fail


if __name__ == "__main__":
    sys.exit(main())
