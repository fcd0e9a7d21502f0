#!/usr/bin/env python3
"""The layer rules of gputwin, checked over the sources (the `layering` test).

Every folder below is a layer with its own CMake target; a file may include headers of its own layer
and of the layers listed for it, nothing else. Project headers are included by file name
(`#include "Topology.hpp"`), file names are unique across the tree, and each third-party family is
allowed only where its layer says (SimGrid in the simulation layer, Qt in the GUI, CUDA in the kernels).
docs/ARCHITECTURE.md opens with the same table as a picture.

  scripts/check-layering.py [ROOT]          check; exit 1 and one line per violation
  scripts/check-layering.py --rules [ROOT]  print the rules as a markdown table
  scripts/check-layering.py --self-test     check that each kind of violation is caught (a test that can fail)
"""
import os
import re
import sys

# layer: (folders, layers it may include)
LAYERS = {
    'core': (['sim/core'], []),
    'scenario': (['sim/scenario'], ['core']),
    'hardware': (['models/hardware'], ['core', 'scenario']),
    'threat': (['models/threat'], ['core', 'scenario']),
    'serving': (['models/serving'], ['core', 'scenario', 'hardware']),
    'simulation': (['models/gpu', 'models/partition', 'models/workload', 'models/fabric', 'models/storage',
                    'models/attack'], ['core', 'scenario', 'hardware', 'threat', 'serving']),
    'runindex': (['sim/analysis/index'], ['core', 'scenario']),
    'placement': (['policies/placement'], ['core', 'scenario']),
    'packing': (['policies/packing'], ['core']),
    'compliance': (['policies/compliance'], ['core', 'scenario', 'runindex', 'placement', 'threat']),
    'engine': (['sim/engine'], ['core', 'scenario', 'hardware', 'threat', 'serving', 'simulation', 'runindex', 'placement',
                                'compliance']),
    'analysis': (['sim/analysis'], ['core', 'scenario', 'hardware', 'threat', 'serving', 'runindex', 'placement', 'compliance']),
    'report': (['sim/report'], ['core', 'scenario', 'hardware', 'threat', 'runindex', 'placement', 'compliance',
                                'analysis']),
    'calibration': (['calibration/fit'], ['core']),
    'regress': (['sim/apps/regress'], ['core']),
    'pack': (['sim/apps/pack'], ['core', 'packing']),
    'cli': (['sim/apps/cli'], ['core', 'scenario', 'hardware', 'threat', 'serving', 'simulation', 'runindex', 'placement', 'packing',
                               'compliance', 'engine', 'analysis', 'report', 'calibration', 'regress', 'pack']),
    'gui': (['gui', 'gui/charts'], ['core', 'scenario', 'hardware', 'placement']),
}
# Third-party headers that mark a layer: allowed only in the layers named (tests and benchmarks are free).
THIRD_PARTY = [
    (re.compile(r'^(simgrid/|xbt/)'), 'SimGrid', {'simulation', 'engine', 'cli'}),
    (re.compile(r'^Q[A-Za-z]+$|^Qt[A-Za-z]+/'), 'Qt', {'gui'}),
    (re.compile(r'^(cuda|cuda_runtime)'), 'CUDA', set()),
]
SOURCE = re.compile(r'\.(cpp|hpp|h|inc|cu|cuh)$')  # .inc: generated fragments (sim/report/EventSemantics.inc)
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SKIP_DIRS = {'.git', 'build', 'third_party'}


def sources(root):
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(('build', '.')))
        for f in sorted(files):
            if SOURCE.search(f):
                yield os.path.relpath(os.path.join(top, f), root)


def layer_of(path):
    folder = os.path.dirname(path)
    for name, (folders, _) in LAYERS.items():
        if folder in folders:
            return name
    return None


def check(root):
    files = list(sources(root))
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    problems = []
    for name, paths in sorted(by_name.items()):
        if len(paths) > 1:
            problems.append(f'{paths[0]}: file name {name} is not unique: also {", ".join(paths[1:])}')
    for f in files:
        layer = layer_of(f)
        if layer is None and f.split('/')[0] in ('sim', 'models', 'policies'):
            problems.append(f'{f}: in no layer (add its folder to scripts/check-layering.py LAYERS)')
        allowed = {layer} | set(LAYERS[layer][1]) if layer else None
        with open(os.path.join(root, f), encoding='utf-8') as text:
            for number, line in enumerate(text, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                kind, target = m.groups()
                where = f'{f}:{number}'
                if kind == '"':
                    if '/' in target:
                        problems.append(f'{where}: include "{target}" by its file name, not a path')
                        continue
                    found = by_name.get(target)
                    if not found:
                        problems.append(f'{where}: "{target}" is not a file of the project')
                        continue
                    if allowed is None:
                        continue
                    target_layer = layer_of(found[0])
                    if target_layer is not None and target_layer not in allowed:
                        problems.append(f'{where}: layer {layer} may not include {target} (layer {target_layer}); '
                                        f'{layer} may include {", ".join(sorted(allowed - {layer})) or "nothing"}')
                elif allowed is not None:
                    for pattern, family, layers in THIRD_PARTY:
                        if pattern.search(target) and layer not in layers:
                            problems.append(f'{where}: layer {layer} may not include {family} (<{target}>)')
    return problems


def print_rules():
    print('| layer | folders | may include |')
    print('|---|---|---|')
    for name, (folders, deps) in LAYERS.items():
        extra = [family for _, family, layers in THIRD_PARTY if name in layers]
        print(f'| {name} | {", ".join("`" + f + "`" for f in folders)} | {", ".join(deps + extra) or "-"} |')


def self_test():
    import tempfile
    cases = {
        'a lower layer including a higher one': {'sim/core/Low.hpp': '#include "Engine.hpp"\n',
                                                  'sim/engine/Engine.hpp': ''},
        'an include by path': {'sim/core/Low.hpp': '#include "sim/core/Other.hpp"\n', 'sim/core/Other.hpp': ''},
        'a file name twice': {'sim/core/Same.hpp': '', 'models/threat/Same.hpp': ''},
        'SimGrid in the analyses': {'sim/analysis/Stage.cpp': '#include <simgrid/s4u.hpp>\n'},
        'a header that is not in the project': {'sim/core/Low.cpp': '#include "Missing.hpp"\n'},
        'a folder in no layer': {'models/newfolder/Thing.cpp': ''},
    }
    failed = 0
    for what, files in cases.items():
        with tempfile.TemporaryDirectory() as root:
            for path, text in files.items():
                os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
                with open(os.path.join(root, path), 'w', encoding='utf-8') as f:
                    f.write(text)
            if not check(root):
                print(f'self-test: {what} was not caught')
                failed += 1
    with tempfile.TemporaryDirectory() as root:  # and a clean tree passes
        os.makedirs(os.path.join(root, 'sim/engine'))
        os.makedirs(os.path.join(root, 'sim/core'))
        with open(os.path.join(root, 'sim/engine/Engine.cpp'), 'w', encoding='utf-8') as f:
            f.write('#include <simgrid/s4u.hpp>\n#include "Low.hpp"\n')
        open(os.path.join(root, 'sim/core/Low.hpp'), 'w').close()
        if check(root):
            print('self-test: a clean tree was refused:', check(root))
            failed += 1
    print(f'check-layering self-test: {len(cases) + 1 - failed} of {len(cases) + 1} cases right', file=sys.stderr)
    return 1 if failed else 0


def main(argv):
    args = [a for a in argv if not a.startswith('--')]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    if '--self-test' in argv:
        return self_test()
    if '--rules' in argv:
        print_rules()
        return 0
    problems = check(root)
    for p in problems:
        print(p)
    print(f'check-layering: {len(problems)} violation(s) in {len(list(sources(root)))} files', file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
