#!/usr/bin/env python3
"""Mutation sweep of shipped scenarios: every scalar of each scenario replaced, one at a time, by hostile
values (0, -1, 1e308, 1ns, nan, empty, a list, a mapping, control characters, a path that escapes ...),
then `gputwin validate` and, when valid, `gputwin run` with a short duration under a memory limit.

A mutation passes when the command exits 0 (valid and ran), 1 or 2 (refused with a message) within the
time limit. Anything else is a finding: a signal (crash, abort), a timeout (hang), exit 3 (an internal
error for a user's mistake), or exit 2 without a located message.

    scripts/hostile-mutations.py build/sim/apps/cli/gputwin scenarios/examples/*.yaml [--limit-s 10] [--mem-mb 1024]

Prints one line per finding and a summary `N passed, M failed`; exits 1 when there is a finding.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile

import yaml

HOSTILE = ["0", "-1", "1e308", "-1e308", "1e-300", "nan", ".inf", "99999999999999999999", "", "[]", "{}",
           "x", "1ns", "1e308s", "1e308/s", "1e308GiB", "0s", "0/s", "0B", "\"\\x01\"", "\"   \"", "\"../../x\"",
           "\"a\\0b\""]


def scalar_paths(node, prefix=()):
    """Yields (path tuple) of every scalar in a YAML tree."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from scalar_paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from scalar_paths(v, prefix + (i,))
    else:
        yield prefix


def set_path(tree, path, value):
    node = tree
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


class Raw(str):
    """A value written verbatim into the YAML text."""


def raw_representer(dumper, data):
    return dumper.represent_scalar("tag:yaml.org,2002:str", "RAW" + data + "RAW")


def limit_memory(mb):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
    return apply


def run(cmd, limit_s, mem_mb, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=limit_s, preexec_fn=limit_memory(mem_mb),
                           text=True, errors="replace", env=dict(os.environ, CI="1"))
        return p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gputwin")
    ap.add_argument("scenarios", nargs="+")
    ap.add_argument("--limit-s", type=float, default=10)
    ap.add_argument("--mem-mb", type=int, default=4096)
    ap.add_argument("--duration", default="5s", help="spec.duration of the mutated runs (--set)")
    args = ap.parse_args()
    yaml.add_representer(Raw, raw_representer)
    gputwin = os.path.abspath(args.gputwin)
    passed = failed = 0
    for scenario in args.scenarios:
        folder = os.path.dirname(os.path.abspath(scenario))
        tree = yaml.safe_load(open(scenario))
        for path in scalar_paths(tree):
            for value in HOSTILE:
                mutated = yaml.safe_load(open(scenario))
                set_path(mutated, path, Raw(value))
                text = yaml.dump(mutated, sort_keys=False).replace("'RAW", "").replace("RAW'", "")
                text = text.replace("RAW", "")
                fd, name = tempfile.mkstemp(suffix=".yaml", dir=folder, prefix=".mutant-")
                with os.fdopen(fd, "w") as f:
                    f.write(text)
                with tempfile.TemporaryDirectory() as out:
                    try:
                        rc, err = run([gputwin, "validate", name], args.limit_s, args.mem_mb, out)
                        if rc == 0 and "duration" not in path:
                            rc, err = run([gputwin, "run", name, "-o", out + "/o", "--progress", "none",
                                           "--format", "json", "--set", "spec.duration=" + args.duration],
                                          args.limit_s, args.mem_mb, out)
                    finally:
                        os.unlink(name)
                where = ".".join(str(p) for p in path)
                bad = rc not in (0, 1, 2) or (rc == 2 and "error:" not in err)
                if bad:
                    failed += 1
                    last = err.strip().splitlines()[-1] if err.strip() else ""
                    print(f"FINDING {os.path.basename(scenario)} {where}={value!r}: {rc} {last[:200]}")
                else:
                    passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
