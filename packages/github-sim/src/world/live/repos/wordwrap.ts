// wordwrap (Go, go test, a module dependency): break text into lines no wider than a width. Its tests compare with
// github.com/google/go-cmp, fetched through the module proxy. Open: widths are counted in bytes, so accented text
// wraps too early (fix).

import type { LiveRepoSpec } from '../spec.js';
import { ciWorkflow, defaultLabels, mitLicense, text } from '../spec.js';

const owner = 'ines-kovac';
const module = 'github.com/ines-kovac/wordwrap';

const goMod = text`
module ${module}

go 1.21

require github.com/google/go-cmp v0.6.0
`;

// What `go mod tidy` writes for go-cmp v0.6.0 (the module proxy's checksums).
const goSum = text`
github.com/google/go-cmp v0.6.0 h1:ofyhxvXcZhMsU5ulbFiLKl/XBFqE1GSq7atu8tAmTRI=
github.com/google/go-cmp v0.6.0/go.mod h1:17dUlkBOakJ0+DkrSSNjCkIjxS6bF9zb3elmeNGIjoY=
`;

const wrapGo = text`
// Package wordwrap breaks text into lines no wider than a given width.
package wordwrap

import "strings"

// Wrap splits text into lines of at most width characters, breaking between words. A word
// longer than width gets a line of its own.
func Wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line == "" {
			line = word
		} else {
			line += " " + word
		}
	}
	return append(lines, line)
}
`;

const wrapTest = text`
package wordwrap

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWrapBreaksBetweenWords(t *testing.T) {
	got := Wrap("the quick brown fox jumps", 10)
	want := []string{"the quick", "brown fox", "jumps"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Wrap mismatch (-want +got):\n%s", diff)
	}
}

func TestWrapKeepsLongWordsWhole(t *testing.T) {
	got := Wrap("a extraordinarily b", 5)
	want := []string{"a", "extraordinarily", "b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Wrap mismatch (-want +got):\n%s", diff)
	}
}

func TestWrapJoinsShortWords(t *testing.T) {
	got := Wrap("a b c d", 3)
	want := []string{"a b", "c d"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Wrap mismatch (-want +got):\n%s", diff)
	}
}
`;

const readme = text`
# wordwrap

Break text into lines no wider than a given width.

    lines := wordwrap.Wrap("the quick brown fox", 10) // ["the quick", "brown fox"]

Run the tests with "go test ./...".
`;

export const wordwrap: LiveRepoSpec = {
  name: 'wordwrap',
  description: 'Break text into lines no wider than a given width.',
  language: 'Go',
  licenseSpdxId: 'MIT',
  stars: 331,
  runner: 'go-test',
  install: 'go mod download',
  labels: defaultLabels('bug', 'enhancement'),
  maintainers: [owner],
  history: [
    {
      type: 'commit',
      day: 70,
      commit: {
        message: 'Initial commit: Wrap',
        author: owner,
        edits: [
          { path: 'README.md', content: readme },
          { path: 'LICENSE', content: mitLicense(owner) },
          { path: 'go.mod', content: goMod },
          { path: 'go.sum', content: goSum },
          { path: 'wrap.go', content: wrapGo },
          { path: 'wrap_test.go', content: wrapTest },
        ],
      },
    },
    {
      type: 'merged-pull',
      number: 2,
      title: 'Wrap: no lines for blank text',
      body: 'Blank text gave one empty line; it should give none.\n\nFixes #1',
      branch: 'blank-text',
      author: '{c0}',
      mergedBy: owner,
      openedDay: 17,
      mergedDay: 15,
      commits: [
        {
          message: 'Wrap: return no lines for blank text',
          author: '{c0}',
          edits: [
            {
              path: 'wrap.go',
              replace: [
                [
                  '\treturn append(lines, line)\n',
                  '\tif line != "" {\n\t\tlines = append(lines, line)\n\t}\n\treturn lines\n',
                ],
              ],
            },
            {
              path: 'wrap_test.go',
              append:
                '\nfunc TestWrapOfBlankText(t *testing.T) {\n\tif diff := cmp.Diff([]string(nil), Wrap("   ", 8)); diff != "" {\n\t\tt.Errorf("Wrap mismatch (-want +got):\\n%s", diff)\n\t}\n}\n',
            },
          ],
        },
      ],
    },
    {
      type: 'commit',
      day: 13,
      commit: {
        message: 'Add CI workflow',
        author: owner,
        edits: [
          {
            path: '.github/workflows/ci.yml',
            content: ciWorkflow(
              '      - uses: actions/setup-go@v5\n        with:\n          go-version-file: go.mod',
              'go test ./...',
            ),
          },
        ],
      },
    },
  ],
  issues: [
    {
      number: 1,
      title: 'Wrap returns one empty line for blank text',
      body: '`Wrap("   ", 8)` returns `[""]`; I expected no lines at all.',
      kind: 'bug',
      labels: ['bug'],
      author: '{c0}',
      openedDay: 19,
      closedByPull: 2,
      comments: [],
    },
    {
      number: 3,
      title: 'Accented text wraps too early',
      body: '`Wrap("crème brûlée", 12)` gives `["crème", "brûlée"]`, though the text is twelve characters wide. The width seems to be counted in bytes.',
      kind: 'bug',
      labels: ['bug'],
      author: '{c1}',
      openedDay: 9,
      comments: [{ author: owner, body: 'Right, `len` counts bytes. It should count runes.' }],
      fix: {
        branch: 'count-runes',
        title: 'Wrap: count characters, not bytes',
        body: 'Measure lines with utf8.RuneCountInString.\n\nFixes #3',
        commitMessage: 'Wrap: count runes, not bytes',
        edits: [
          {
            path: 'wrap.go',
            replace: [
              ['import "strings"\n', 'import (\n\t"strings"\n\t"unicode/utf8"\n)\n'],
              [
                '\t\tif line != "" && len(line)+1+len(word) > width {\n',
                '\t\t// Widths are in characters: len would count the bytes of every accented letter.\n\t\tif line != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {\n',
              ],
            ],
          },
          {
            path: 'wrap_test.go',
            append:
              '\nfunc TestWrapCountsCharactersNotBytes(t *testing.T) {\n\tgot := Wrap("crème brûlée", 12)\n\twant := []string{"crème brûlée"}\n\tif diff := cmp.Diff(want, got); diff != "" {\n\t\tt.Errorf("Wrap mismatch (-want +got):\\n%s", diff)\n\t}\n}\n',
          },
        ],
        failToPass: [`${module}::TestWrapCountsCharactersNotBytes`],
        breaks: [],
      },
    },
  ],
  flaky: [],
};
