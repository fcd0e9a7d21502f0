#!/usr/bin/env python3
"""Validates JSON files against a JSON Schema (any draft the installed jsonschema knows: the SARIF 2.1.0
schema is draft-04, docs/formats/report.schema.json is 2020-12), with formats asserted.

  scripts/check-json-schema.py SCHEMA FILE...

One line per problem, `FILE: $.json.path: message`, then a summary on stderr; exit 0 when every file
is valid, 1 when one is not, 2 when the schema or a file cannot be read or jsonschema is missing
(Debian: python3-jsonschema).

Formats: `uri` must be an absolute URI (RFC 3986: a scheme, then ':'), `uri-reference` any URI reference
without spaces, `date-time` RFC 3339. These are checked here rather than by the optional packages
jsonschema would use (rfc3987, rfc3339-validator), so the result does not depend on what else is installed.
"""
import json
import re
import sys

MAX_ERRORS_PER_FILE = 25

ABSOLUTE_URI = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$')
URI_REFERENCE = re.compile(r'^[^\s]*$')
DATE_TIME = re.compile(r'^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$')


def json_path(path):
    out = '$'
    for p in path:
        out += f'[{p}]' if isinstance(p, int) else (f'.{p}' if re.match(r'^[A-Za-z_$][\w$]*$', p) else
                                                    '[' + json.dumps(p) + ']')
    return out


def format_checker(jsonschema):
    checker = jsonschema.FormatChecker()

    def matches(pattern):
        return lambda value: not isinstance(value, str) or bool(pattern.match(value))

    checker.checks('uri')(matches(ABSOLUTE_URI))
    checker.checks('uri-reference')(matches(URI_REFERENCE))
    checker.checks('date-time')(matches(DATE_TIME))
    return checker


def load(path):
    with open(path, encoding='utf-8') as f:
        return json.load(f)


def main(argv):
    if len(argv) < 2 or argv[0] in ('-h', '--help'):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import jsonschema
    except ImportError:
        print('check-json-schema: the Python module jsonschema is missing (Debian: python3-jsonschema)',
              file=sys.stderr)
        return 2
    schema_path, files = argv[0], argv[1:]
    try:
        schema = load(schema_path)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as e:
        print(f'check-json-schema: {schema_path}: not a usable schema: {e}', file=sys.stderr)
        return 2
    validator = cls(schema, format_checker=format_checker(jsonschema))
    invalid = unreadable = 0
    for path in files:
        try:
            instance = load(path)
        except (OSError, ValueError) as e:
            print(f'{path}: cannot read: {e}')
            unreadable += 1
            continue
        errors = sorted(validator.iter_errors(instance), key=lambda e: (list(map(str, e.absolute_path)), e.message))
        if errors:
            invalid += 1
        for e in errors[:MAX_ERRORS_PER_FILE]:
            print(f'{path}: {json_path(e.absolute_path)}: {e.message}')
        if len(errors) > MAX_ERRORS_PER_FILE:
            print(f'{path}: ... and {len(errors) - MAX_ERRORS_PER_FILE} more')
    print(f'check-json-schema: {len(files) - invalid - unreadable} valid, {invalid} invalid, {unreadable} unreadable '
          f'({schema_path})', file=sys.stderr)
    if unreadable:
        return 2
    return 1 if invalid else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
