#!/usr/bin/env python3
"""Checks a trace.json against the Trace Event Format (the JSON object form) as Perfetto's JSON importer
reads it: the documented fields per phase, numeric microsecond timestamps, and complete ("X") slices
that nest on each thread (Perfetto drops a slice that overlaps its parent without containing it, and
reports it as an import error). Usage: check-trace-json.py TRACE.json; exit 0 valid, 1 not."""
import json
import sys
from collections import defaultdict

PHASES = set("XBEiIbneCMsftPONDcR")
METADATA = {"process_name", "process_sort_index", "thread_name", "thread_sort_index", "process_labels"}
TOLERANCE_US = 1e-3  # timestamps are written with three decimals (nanoseconds)


def fail(problems, message):
    problems.append(message)
    return False


def check_event(i, e, problems):
    where = f"traceEvents[{i}]"
    if not isinstance(e, dict):
        return fail(problems, f"{where}: not an object")
    ph = e.get("ph")
    if ph not in PHASES:
        return fail(problems, f"{where}: unknown phase {ph!r}")
    for key in ("pid", "tid"):
        if key in e and not isinstance(e[key], int):
            return fail(problems, f"{where}: {key} must be an integer, got {e[key]!r}")
    if not isinstance(e.get("name"), str):
        return fail(problems, f"{where}: name must be a string")
    if ph == "M":
        if e["name"] not in METADATA:
            return fail(problems, f"{where}: unknown metadata event {e['name']!r}")
        args = e.get("args")
        if not isinstance(args, dict) or not args:
            return fail(problems, f"{where}: metadata without args")
        return True
    ts = e.get("ts")
    if not isinstance(ts, (int, float)) or ts < 0:
        return fail(problems, f"{where}: ts must be a non-negative number of microseconds, got {ts!r}")
    if ph == "X":
        dur = e.get("dur")
        if not isinstance(dur, (int, float)) or dur < 0:
            return fail(problems, f"{where}: a complete event needs dur >= 0, got {dur!r}")
    if ph in "iI" and e.get("s", "t") not in ("g", "p", "t"):
        return fail(problems, f"{where}: instant scope must be g, p or t, got {e.get('s')!r}")
    if ph == "C":
        args = e.get("args")
        if not isinstance(args, dict) or not args:
            return fail(problems, f"{where}: a counter needs args")
        for k, v in args.items():
            if not isinstance(v, (int, float)):
                return fail(problems, f"{where}: counter series {k!r} is not a number")
    if "args" in e and not isinstance(e["args"], dict):
        return fail(problems, f"{where}: args must be an object")
    return True


def check_nesting(slices, problems):
    """Slices of one thread must nest: sorted by start (longest first), each one that starts inside the
    enclosing one must end inside it too."""
    for (pid, tid), items in slices.items():
        items.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for start, dur, index in items:
            end = start + dur
            while stack and stack[-1][0] <= start + TOLERANCE_US:
                stack.pop()
            if stack and end > stack[-1][0] + TOLERANCE_US:
                problems.append(
                    f"traceEvents[{index}]: slice on pid {pid} tid {tid} [{start}, {end}] overlaps the slice "
                    f"traceEvents[{stack[-1][1]}] ending at {stack[-1][0]} without nesting in it")
                if len(problems) > 20:
                    return
                continue
            stack.append((end, index))


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    problems = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print(f"{sys.argv[1]}: the top level must be an object with a traceEvents array")
        return 1
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        problems.append("displayTimeUnit must be ms or ns")
    slices = defaultdict(list)
    named_processes, named_threads, used_threads = set(), set(), set()
    for i, e in enumerate(doc["traceEvents"]):
        if not check_event(i, e, problems):
            if len(problems) > 20:
                break
            continue
        key = (e.get("pid"), e.get("tid"))
        if e["ph"] == "M":
            if e["name"] == "process_name":
                named_processes.add(e.get("pid"))
            if e["name"] == "thread_name":
                named_threads.add(key)
            continue
        if e["ph"] == "X":
            slices[key].append((float(e["ts"]), float(e["dur"]), i))
        if e["ph"] != "C":
            used_threads.add(key)
    check_nesting(slices, problems)
    for pid in sorted({k[0] for k in used_threads} - named_processes):
        problems.append(f"pid {pid} has events but no process_name")
    for key in sorted(used_threads - named_threads):
        problems.append(f"pid {key[0]} tid {key[1]} has events but no thread_name")
    for p in problems[:20]:
        print(f"{sys.argv[1]}: {p}")
    if problems:
        return 1
    print(f"{sys.argv[1]}: {len(doc['traceEvents'])} events, {sum(len(v) for v in slices.values())} slices on "
          f"{len(slices)} threads: valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
