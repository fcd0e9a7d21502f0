#!/usr/bin/env python3
"""Every model page (docs/models/*.md) opens with `## Scope and limitations` and ends with `## Validation`
(the project's convention, after ns-3's model pages): the `model-pages` test.

  scripts/check-model-pages.py [ROOT]   exit 1 and one line per page that breaks it
"""
import glob
import os
import sys


def main(argv):
    root = argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    pages = sorted(glob.glob(os.path.join(root, 'docs', 'models', '*.md')))
    problems = []
    for page in pages:
        with open(page, encoding='utf-8') as f:
            headings = [line.strip() for line in f if line.startswith('## ')]
        name = os.path.relpath(page, root)
        if not headings or headings[0] != '## Scope and limitations':
            problems.append(f'{name}: the first section must be "## Scope and limitations", is '
                            f'"{headings[0] if headings else "(none)"}"')
        if not headings or headings[-1] != '## Validation':
            problems.append(f'{name}: the last section must be "## Validation", is '
                            f'"{headings[-1] if headings else "(none)"}"')
    for p in problems:
        print(p)
    print(f'check-model-pages: {len(problems)} problem(s) in {len(pages)} pages', file=sys.stderr)
    return 1 if problems or not pages else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
