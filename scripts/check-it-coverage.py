#!/usr/bin/env python3
"""Check data/karpenter-versions/it-names/coverage.tsv against changes-minors.tsv.

changes-minors.tsv lists the upstream Ginkgo spec changes (It/Entry added, removed or retitled)
between the newest patches of consecutive Karpenter minors; coverage.tsv says, for each of them,
what the spec asserts (its class) and which of our scenarios under tests/scenarios/ port it.

Checks, each failure printed and counted:
  - every non-summary row of changes-minors.tsv (op other than '=', comments skipped) has a row in
    coverage.tsv with the same from, to, op, file, path and title, in the same order, and
    coverage.tsv has no other row;
  - every row has 9 tab-separated columns and a class among decision, events, metrics, status,
    internal, provisioning-only;
  - covered_by is '-' or a comma-separated list of folders that exist under tests/scenarios/ and
    hold an expect.json; only decision rows may name folders;
  - a decision row without coverage says why in its note.

On success prints the rows per class and the decision rows covered and not covered, and exits 0;
on any inconsistency exits 1.

Usage: python3 scripts/check-it-coverage.py   (from anywhere; paths are relative to the repo)
"""

import os
import sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IT_NAMES = os.path.join(ROOT, "data", "karpenter-versions", "it-names")
CHANGES = os.path.join(IT_NAMES, "changes-minors.tsv")
COVERAGE = os.path.join(IT_NAMES, "coverage.tsv")
SCENARIOS = os.path.join(ROOT, "tests", "scenarios")

CLASSES = ("decision", "events", "metrics", "status", "internal", "provisioning-only")
KEY_COLUMNS = ("from", "to", "op", "file", "path", "title")
COVERAGE_COLUMNS = KEY_COLUMNS + ("class", "covered_by", "note")


def data_rows(path):
    """Yield (line number, columns) of the data rows: no comments, no header, no blank lines."""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            columns = line.split("\t")
            if columns[0] == "from":
                continue
            yield number, columns


def main():
    errors = []

    expected = []
    for number, columns in data_rows(CHANGES):
        if len(columns) < len(KEY_COLUMNS):
            errors.append(f"changes-minors.tsv:{number}: {len(columns)} columns, want at least {len(KEY_COLUMNS)}")
            continue
        if columns[2] == "=":
            continue
        expected.append((number, tuple(columns[: len(KEY_COLUMNS)])))

    rows = []
    for number, columns in data_rows(COVERAGE):
        if len(columns) != len(COVERAGE_COLUMNS):
            errors.append(f"coverage.tsv:{number}: {len(columns)} columns, want {len(COVERAGE_COLUMNS)}")
            continue
        rows.append((number, columns))

    # Same rows, same order.
    got_keys = [tuple(c[: len(KEY_COLUMNS)]) for _, c in rows]
    want_keys = [k for _, k in expected]
    missing = Counter(want_keys) - Counter(got_keys)
    extra = Counter(got_keys) - Counter(want_keys)
    for (number, key) in expected:
        if missing.get(key):
            errors.append(f"changes-minors.tsv:{number}: no coverage row for {' | '.join(key)}")
            missing[key] -= 1
    for (number, columns) in rows:
        key = tuple(columns[: len(KEY_COLUMNS)])
        if extra.get(key):
            errors.append(f"coverage.tsv:{number}: not a row of changes-minors.tsv: {' | '.join(key)}")
            extra[key] -= 1
    if not errors and got_keys != want_keys:
        for (cov_number, _), got, want in zip(rows, got_keys, want_keys):
            if got != want:
                errors.append(f"coverage.tsv:{cov_number}: out of order, expected {' | '.join(want)} here")
                break

    classes = Counter()
    covered = uncovered = 0
    for number, columns in rows:
        cls, covered_by, note = columns[6], columns[7].strip(), columns[8].strip()
        where = f"coverage.tsv:{number}"
        if cls not in CLASSES:
            errors.append(f"{where}: class {cls!r} is not one of {', '.join(CLASSES)}")
            continue
        classes[cls] += 1
        if covered_by in ("", "-"):
            folders = []
        else:
            folders = [f.strip() for f in covered_by.split(",")]
        if not covered_by:
            errors.append(f"{where}: empty covered_by (use '-')")
        for folder in folders:
            if not folder or "/" in folder or folder in (".", ".."):
                errors.append(f"{where}: bad folder name {folder!r} in covered_by")
            elif not os.path.isfile(os.path.join(SCENARIOS, folder, "expect.json")):
                errors.append(f"{where}: tests/scenarios/{folder}/expect.json does not exist")
        if len(set(folders)) != len(folders):
            errors.append(f"{where}: a folder is named twice in covered_by")
        if cls != "decision":
            if folders:
                errors.append(f"{where}: covered_by must be '-' for a {cls} row")
            continue
        if folders:
            covered += 1
        else:
            uncovered += 1
            if note in ("", "-"):
                errors.append(f"{where}: decision row without coverage needs a note saying why")

    if errors:
        for e in errors:
            print(e, file=sys.stderr)
        print(f"{len(errors)} inconsistencies", file=sys.stderr)
        return 1

    print(f"coverage.tsv: {len(rows)} rows = non-summary rows of changes-minors.tsv")
    for cls in CLASSES:
        print(f"  {cls:<18} {classes[cls]}")
    print(f"decision rows: {covered} covered, {uncovered} not covered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
