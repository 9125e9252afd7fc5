// batchkit (Python, pytest, a PyPI dependency): batches and sliding windows over more-itertools. Open: windows over
// input shorter than the window pad it with None (fix), and a question about lazy batches (no fix). Its CI installs
// the package and pytest into a virtualenv from PyPI; nothing of it is on the host.

import type { LiveRepoSpec } from '../spec.js';
import { ciWorkflow, defaultLabels, mitLicense, text } from '../spec.js';

const owner = 'priya-venkat';

const pyproject = text`
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "batchkit"
version = "0.2.0"
description = "Batches and sliding windows over any iterable."
requires-python = ">=3.9"
dependencies = ["more-itertools==10.5.0"]
license = { text = "MIT" }

[project.optional-dependencies]
test = ["pytest"]

[tool.setuptools]
packages = ["batchkit"]

[tool.pytest.ini_options]
testpaths = ["tests"]
`;

const init = text`
"""Batches and sliding windows over any iterable, on top of more-itertools."""

from batchkit.core import batches, windows

__all__ = ["batches", "windows"]
`;

const core = text`
"""Thin, typed helpers over more_itertools for batching work."""

from typing import Iterable, List, Tuple, TypeVar

import more_itertools

T = TypeVar("T")


def batches(items: Iterable[T], size: int) -> List[List[T]]:
    """Splits items into lists of at most size elements, in order."""
    return [list(chunk) for chunk in more_itertools.chunked(items, size)]


def windows(items: Iterable[T], n: int) -> List[Tuple[T, ...]]:
    """Every run of n consecutive items, in order."""
    if n < 1:
        raise ValueError("n must be at least 1")
    return list(more_itertools.windowed(items, n))
`;

const batchesTest = text`
from batchkit import batches


def test_batches_split_in_order():
    assert batches(range(7), 3) == [[0, 1, 2], [3, 4, 5], [6]]


def test_batches_of_nothing():
    assert batches([], 4) == []
`;

const windowsTest = text`
import pytest

from batchkit import windows


def test_windows_slide_by_one():
    assert windows("abcd", 2) == [("a", "b"), ("b", "c"), ("c", "d")]


def test_windows_of_whole_input():
    assert windows([1, 2, 3], 3) == [(1, 2, 3)]


def test_windows_reject_width_zero():
    with pytest.raises(ValueError):
        windows([1], 0)
`;

const readme = text`
# batchkit

Batches and sliding windows over any iterable, built on more-itertools.

    from batchkit import batches, windows

    batches(range(5), 2)  # [[0, 1], [2, 3], [4]]
    windows("abc", 2)     # [("a", "b"), ("b", "c")]

Install with "pip install -e .[test]" and run "pytest".
`;

const gitignore = text`
.venv/
*.egg-info/
__pycache__/
test-report.xml
`;

export const batchkit: LiveRepoSpec = {
  name: 'batchkit',
  description: 'Batches and sliding windows over any iterable, on top of more-itertools.',
  language: 'Python',
  licenseSpdxId: 'MIT',
  stars: 268,
  runner: 'pytest',
  install: 'python3 -m venv .venv && .venv/bin/python -m pip install --quiet -e ".[test]"',
  labels: defaultLabels('bug', 'enhancement', 'question'),
  maintainers: [owner],
  history: [
    {
      type: 'commit',
      day: 80,
      commit: {
        message: 'Initial commit: batches and windows',
        author: owner,
        edits: [
          { path: 'README.md', content: readme },
          { path: 'LICENSE', content: mitLicense(owner) },
          { path: '.gitignore', content: gitignore },
          { path: 'pyproject.toml', content: pyproject },
          { path: 'batchkit/__init__.py', content: init },
          { path: 'batchkit/core.py', content: core },
          { path: 'tests/test_batches.py', content: batchesTest },
          { path: 'tests/test_windows.py', content: windowsTest },
        ],
      },
    },
    {
      type: 'merged-pull',
      number: 2,
      title: 'batches: refuse a size below one',
      body: '`batches(items, 0)` looped forever inside more-itertools. Refuse it like `windows` does.\n\nFixes #1',
      branch: 'batches-size-check',
      author: '{c0}',
      mergedBy: owner,
      openedDay: 22,
      mergedDay: 20,
      commits: [
        {
          message: 'batches: refuse a size below one',
          author: '{c0}',
          edits: [
            {
              path: 'batchkit/core.py',
              replace: [
                [
                  '    """Splits items into lists of at most size elements, in order."""\n',
                  '    """Splits items into lists of at most size elements, in order."""\n    if size < 1:\n        raise ValueError("size must be at least 1")\n',
                ],
              ],
            },
            {
              path: 'tests/test_batches.py',
              replace: [
                ['from batchkit import batches\n', 'import pytest\n\nfrom batchkit import batches\n'],
                [
                  '    assert batches([], 4) == []\n',
                  '    assert batches([], 4) == []\n\n\ndef test_batches_reject_size_zero():\n    with pytest.raises(ValueError):\n        batches([1], 0)\n',
                ],
              ],
            },
          ],
        },
      ],
    },
    {
      type: 'commit',
      day: 18,
      commit: {
        message: 'Add CI workflow',
        author: owner,
        edits: [
          {
            path: '.github/workflows/ci.yml',
            content: ciWorkflow(
              '      - uses: actions/setup-python@v5\n        with:\n          python-version: "3.11"\n      - run: pip install -e ".[test]"',
              'pytest',
            ),
          },
        ],
      },
    },
  ],
  issues: [
    {
      number: 1,
      title: 'batches(items, 0) never returns',
      body: '`batches([1, 2], 0)` hangs. I expected a ValueError like `windows(items, 0)` raises.',
      kind: 'bug',
      labels: ['bug'],
      author: '{c0}',
      openedDay: 26,
      closedByPull: 2,
      comments: [],
    },
    {
      number: 3,
      title: 'windows pads input shorter than the window with None',
      body: '```python\n>>> windows([1, 2], 3)\n[(1, 2, None)]\n```\n\nI expected `[]`: there is no run of three items in a list of two. The None then crashes our code downstream.',
      kind: 'bug',
      labels: ['bug'],
      author: '{c1}',
      openedDay: 12,
      comments: [
        {
          author: owner,
          body: '`more_itertools.windowed` pads short input on purpose; `sliding_window` does not. We should use that one.',
        },
      ],
      fix: {
        branch: 'windows-no-padding',
        title: 'windows: yield nothing for input shorter than the window',
        body: 'Use `more_itertools.sliding_window`, which never pads.\n\nFixes #3',
        commitMessage: 'windows: use sliding_window, which never pads',
        edits: [
          {
            path: 'batchkit/core.py',
            replace: [
              [
                '    return list(more_itertools.windowed(items, n))\n',
                '    # windowed pads input shorter than n with None; sliding_window yields no window at all.\n    return list(more_itertools.sliding_window(items, n))\n',
              ],
            ],
          },
          {
            path: 'tests/test_windows.py',
            append: '\n\ndef test_windows_of_short_input_are_empty():\n    assert windows([1, 2], 3) == []\n',
          },
        ],
        failToPass: ['tests/test_windows.py::test_windows_of_short_input_are_empty'],
        breaks: [],
      },
    },
    {
      number: 4,
      title: 'Could batches be lazy?',
      body: 'For a generator of a million rows `batches` builds every list up front. Would a lazy variant be welcome?',
      kind: 'question',
      labels: ['question'],
      author: '{c2}',
      openedDay: 5,
      comments: [
        { author: owner, body: 'Maybe: `more_itertools.chunked` is lazy already, so it would be a thin wrapper.' },
      ],
    },
  ],
  flaky: [],
};
