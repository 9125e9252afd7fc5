// rangeset (Python, pytest): parse, merge and format inclusive integer ranges. Open: ranges that
// share an endpoint are not merged (the known fix also merges adjacent ranges and so breaks an
// existing test: its CI goes red), negative numbers do not parse (fix), and a report about the
// round-trip test that fails now and then (the planted flaky test; no fix).

import type { LiveRepoSpec } from '../spec.js';
import { ciWorkflow, mitLicense, text } from '../spec.js';

const owner = 'tobias-pyrite';

const pyproject = text`
[project]
name = "rangeset"
version = "0.4.0"
description = "Parse, merge and format inclusive integer ranges like 1-3,7,10-12."
requires-python = ">=3.9"
license = { text = "MIT" }

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
`;

const init = text`
"""Inclusive integer ranges: parse "1-3,7", merge overlaps, format them back."""

from rangeset.core import format_ranges, merge_ranges, parse_ranges, total_length

__all__ = ["format_ranges", "merge_ranges", "parse_ranges", "total_length"]
`;

const core = text`
"""Ranges are (start, end) tuples of ints; both bounds are inclusive."""

from typing import Iterable, List, Tuple

Range = Tuple[int, int]


def parse_ranges(text: str) -> List[Range]:
    """Parses "1-3,7,10-12" into [(1, 3), (7, 7), (10, 12)]."""
    ranges = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            first, last = part.split("-", 1)
            start, end = int(first), int(last)
        else:
            start = end = int(part)
        if start > end:
            raise ValueError(f"range {part!r} ends before it starts")
        ranges.append((start, end))
    return ranges


def merge_ranges(ranges: Iterable[Range]) -> List[Range]:
    """Sorts ranges and merges the ones that overlap."""
    merged: List[Range] = []
    for start, end in sorted(ranges):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def format_ranges(ranges: Iterable[Range]) -> str:
    """Writes ranges the way parse_ranges reads them."""
    return ",".join(f"{start}-{end}" for start, end in ranges)


def total_length(ranges: Iterable[Range]) -> int:
    """Counts the integers the ranges cover, each once."""
    return sum(end - start + 1 for start, end in merge_ranges(ranges))
`;

const testParse = text`
import pytest

from rangeset import parse_ranges


def test_parse_single_numbers_and_ranges():
    assert parse_ranges("1-3,7,10-12") == [(1, 3), (7, 7), (10, 12)]


def test_parse_ignores_spaces_and_empty_parts():
    assert parse_ranges(" 1-2, ,5 ") == [(1, 2), (5, 5)]


def test_parse_rejects_garbage():
    with pytest.raises(ValueError):
        parse_ranges("1-x")


def test_parse_rejects_reversed_ranges():
    with pytest.raises(ValueError):
        parse_ranges("5-1")
`;

const testMerge = text`
from rangeset import merge_ranges, total_length


def test_merge_overlapping_ranges():
    assert merge_ranges([(5, 8), (1, 6)]) == [(1, 8)]


def test_merge_sorts_disjoint_ranges():
    assert merge_ranges([(10, 12), (1, 2)]) == [(1, 2), (10, 12)]


def test_merge_keeps_adjacent_ranges_apart():
    # 1-3 and 4-6 cover 1..6 without overlapping; they are reported as written.
    assert merge_ranges([(1, 3), (4, 6)]) == [(1, 3), (4, 6)]


def test_total_length_counts_each_number_once():
    assert total_length([(1, 3), (7, 7), (2, 3)]) == 4
`;

const testFormat = text`
from rangeset import format_ranges


def test_format_ranges():
    assert format_ranges([(1, 3), (8, 9)]) == "1-3,8-9"
`;

const testRoundTrip = text`
import os
import random

from rangeset import format_ranges, parse_ranges


def test_format_round_trips_random_ranges():
    # RANGESET_TEST_SEED replays a run; unset, every run draws new numbers.
    rng = random.Random(os.environ.get("RANGESET_TEST_SEED"))
    start, end = rng.randint(0, 50), rng.randint(0, 50)
    assert parse_ranges(format_ranges([(start, end)])) == [(start, end)]
`;

const readme = text`
# rangeset

Parse, merge and format inclusive integer ranges.

~~~python
>>> from rangeset import parse_ranges, merge_ranges, format_ranges
>>> merge_ranges(parse_ranges("5-8,1-6,10"))
[(1, 8), (10, 10)]
>>> format_ranges([(1, 8), (10, 10)])
'1-8,10'
~~~

Run the tests with "python -m pytest".
`;

export const rangeset: LiveRepoSpec = {
  name: 'rangeset',
  description: 'Parse, merge and format inclusive integer ranges like 1-3,7,10-12.',
  language: 'Python',
  licenseSpdxId: 'MIT',
  stars: 268,
  runner: 'pytest',
  labels: [
    { name: 'type: bug', color: 'e11d21', description: null },
    { name: 'type: feature', color: '84b6eb', description: null },
    { name: 'type: question', color: 'cc317c', description: null },
    { name: 'type: chore', color: 'c5def5', description: null },
    { name: 'flaky-test', color: 'fbca04', description: 'A test that fails only sometimes' },
    { name: 'help wanted', color: '008672', description: null },
  ],
  maintainers: [owner, 'ines-ranges'],
  history: [
    {
      type: 'commit',
      day: 140,
      commit: {
        message: 'Initial commit: parse, merge and format ranges',
        author: owner,
        edits: [
          { path: 'README.md', content: readme },
          { path: 'LICENSE', content: mitLicense(owner) },
          { path: '.gitignore', content: '__pycache__/\n.pytest_cache/\ntest-report.xml\n' },
          { path: 'pyproject.toml', content: pyproject },
          { path: 'rangeset/__init__.py', content: init },
          { path: 'rangeset/core.py', content: core },
          { path: 'tests/test_parse.py', content: testParse },
          { path: 'tests/test_merge.py', content: testMerge },
          { path: 'tests/test_format.py', content: testFormat },
        ],
      },
    },
    {
      type: 'commit',
      day: 100,
      commit: {
        message: 'Add a round-trip test for format_ranges',
        author: 'ines-ranges',
        edits: [{ path: 'tests/test_roundtrip.py', content: testRoundTrip }],
      },
    },
    {
      type: 'merged-pull',
      number: 2,
      title: 'Write single-number ranges as one number',
      body: 'format_ranges wrote (7, 7) as "7-7"; parse_ranges reads "7", so write that.\n\nFixes #1',
      branch: 'format-single-numbers',
      author: '{c0}',
      mergedBy: 'ines-ranges',
      openedDay: 23,
      mergedDay: 20,
      commits: [
        {
          message: 'format_ranges: write single numbers without a dash',
          author: '{c0}',
          edits: [
            {
              path: 'rangeset/core.py',
              replace: [
                [
                  '    return ",".join(f"{start}-{end}" for start, end in ranges)\n',
                  '    return ",".join(str(start) if start == end else f"{start}-{end}" for start, end in ranges)\n',
                ],
              ],
            },
            {
              path: 'tests/test_format.py',
              append:
                '\n\ndef test_format_single_numbers():\n    assert format_ranges([(7, 7), (9, 10)]) == "7,9-10"\n',
            },
          ],
        },
      ],
    },
    {
      type: 'commit',
      day: 18,
      commit: {
        message: 'README: bounds are inclusive',
        author: owner,
        edits: [
          {
            path: 'README.md',
            replace: [
              [
                'Parse, merge and format inclusive integer ranges.\n',
                'Parse, merge and format inclusive integer ranges: "1-3" is 1, 2 and 3.\n',
              ],
            ],
          },
          {
            path: '.github/workflows/ci.yml',
            content: ciWorkflow(
              "      - uses: actions/setup-python@v5\n        with:\n          python-version: '3.11'\n      - run: pip install pytest",
              'python -m pytest',
            ),
          },
        ],
      },
    },
  ],
  issues: [
    {
      number: 1,
      title: 'format_ranges writes single numbers as "7-7"',
      body: '`format_ranges([(7, 7)])` returns `"7-7"`. It parses back fine, but the README promises output like `1-8,10`.',
      kind: 'bug',
      labels: ['type: bug'],
      author: '{c0}',
      openedDay: 28,
      closedByPull: 2,
      comments: [{ author: 'ines-ranges', body: 'Good catch, happy to take a PR.' }],
    },
    {
      number: 3,
      title: 'merge_ranges does not merge ranges that share an endpoint',
      body: '`merge_ranges([(1, 3), (3, 5)])` returns `[(1, 3), (3, 5)]` although both contain 3, and `total_length([(1, 3), (3, 5)])` is 6 instead of 5.\n\nBounds are inclusive, so ranges sharing an endpoint overlap and should become `[(1, 5)]`.',
      kind: 'bug',
      labels: ['type: bug'],
      author: '{c1}',
      openedDay: 14,
      comments: [{ author: owner, body: 'Yes, the overlap test is off by one for inclusive bounds.' }],
      fix: {
        branch: 'merge-touching-ranges',
        title: 'merge_ranges: merge ranges that touch',
        body: 'Merge ranges that overlap or touch: with inclusive bounds 1-3 and 3-5 share 3, and 1-3 and 4-5 cover 1..5 without a gap.\n\nFixes #3',
        commitMessage: 'merge_ranges: merge touching ranges',
        edits: [
          {
            path: 'rangeset/core.py',
            replace: [
              [
                '    """Sorts ranges and merges the ones that overlap."""\n',
                '    """Sorts ranges and merges the ones that overlap or touch."""\n',
              ],
              ['        if merged and start < merged[-1][1]:\n', '        if merged and start <= merged[-1][1] + 1:\n'],
            ],
          },
          {
            path: 'tests/test_merge.py',
            append:
              '\n\ndef test_merge_ranges_sharing_an_endpoint():\n    assert merge_ranges([(1, 3), (3, 5)]) == [(1, 5)]\n\n\ndef test_total_length_counts_a_shared_endpoint_once():\n    assert total_length([(1, 3), (3, 5)]) == 5\n',
          },
        ],
        failToPass: [
          'tests/test_merge.py::test_merge_ranges_sharing_an_endpoint',
          'tests/test_merge.py::test_total_length_counts_a_shared_endpoint_once',
        ],
        breaks: ['tests/test_merge.py::test_merge_keeps_adjacent_ranges_apart'],
      },
    },
    {
      number: 4,
      title: 'parse_ranges rejects negative numbers',
      body: '`parse_ranges("-5--3,-1")` raises `ValueError: invalid literal for int() with base 10: \'\'`. Negative bounds are valid integers; I expected `[(-5, -3), (-1, -1)]`.',
      kind: 'bug',
      labels: ['type: bug', 'help wanted'],
      author: '{c2}',
      openedDay: 9,
      comments: [],
      fix: {
        branch: 'parse-negative-numbers',
        title: 'parse_ranges: accept negative bounds',
        body: 'Read each part with a pattern that allows a sign on both bounds instead of splitting at the first dash.\n\nFixes #4',
        commitMessage: 'parse_ranges: accept negative bounds',
        edits: [
          {
            path: 'rangeset/core.py',
            replace: [
              ['from typing import Iterable, List, Tuple\n', 'import re\nfrom typing import Iterable, List, Tuple\n'],
              [
                'Range = Tuple[int, int]\n',
                'Range = Tuple[int, int]\n\n_PART = re.compile(r"^(-?\\d+)(?:\\s*-\\s*(-?\\d+))?$")\n',
              ],
              [
                '        if "-" in part:\n            first, last = part.split("-", 1)\n            start, end = int(first), int(last)\n        else:\n            start = end = int(part)\n',
                '        match = _PART.match(part)\n        if match is None:\n            raise ValueError(f"not a range: {part!r}")\n        start = int(match.group(1))\n        end = start if match.group(2) is None else int(match.group(2))\n',
              ],
            ],
          },
          {
            path: 'tests/test_parse.py',
            append:
              '\n\ndef test_parse_negative_numbers():\n    assert parse_ranges("-5--3,-1,2") == [(-5, -3), (-1, -1), (2, 2)]\n',
          },
        ],
        failToPass: ['tests/test_parse.py::test_parse_negative_numbers'],
        breaks: [],
      },
    },
    {
      number: 5,
      title: 'test_format_round_trips_random_ranges fails now and then',
      body: "CI went red on an unrelated change with `ValueError: range '41-17' ends before it starts` in `test_format_round_trips_random_ranges`; a rerun passed. Looks like the test can draw an end below its start.",
      kind: 'chore',
      labels: ['flaky-test'],
      author: 'ines-ranges',
      openedDay: 4,
      comments: [],
    },
  ],
  flaky: [
    {
      test: 'tests/test_roundtrip.py::test_format_round_trips_random_ranges',
      env: 'RANGESET_TEST_SEED',
      passingValue: '1',
      failingValue: '5',
      why: 'draws start and end independently, so about half the runs build a reversed range that parse_ranges rejects',
    },
  ],
};
