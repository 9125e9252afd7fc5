// durafmt (Go, go test): format durations for people ("1h30m", "2d4h") and parse them back.
// Open: negative durations format as "-1m-30s" (fix), Parse drops a trailing number without a
// unit (fix), and a feature request for weeks (no fix).

import type { LiveRepoSpec } from '../spec.js';
import { bsd3License, ciWorkflow, text } from '../spec.js';

const owner = 'hal-gopher';

const durafmtGo = text`
// Package durafmt writes durations the way people read them ("1h30m", "2d4h") and parses them back.
package durafmt

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Day is 24 hours; durafmt has no notion of calendar days.
const Day = 24 * time.Hour

var units = []struct {
	suffix string
	size   time.Duration
}{
	{"d", Day},
	{"h", time.Hour},
	{"m", time.Minute},
	{"s", time.Second},
}

// Format writes d with the largest units first and leaves out zero parts; it stops at seconds.
func Format(d time.Duration) string {
	var b strings.Builder
	for _, unit := range units {
		if n := d / unit.size; n != 0 {
			b.WriteString(strconv.FormatInt(int64(n), 10))
			b.WriteString(unit.suffix)
			d -= n * unit.size
		}
	}
	return b.String()
}

// Parse reads what Format writes: one or more <integer><unit> parts with units d, h, m and s.
func Parse(text string) (time.Duration, error) {
	rest := strings.TrimSpace(text)
	if rest == "" {
		return 0, fmt.Errorf("durafmt: empty duration")
	}
	var total time.Duration
	for rest != "" {
		digits := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
		if digits == -1 {
			break
		}
		if digits == 0 {
			return 0, fmt.Errorf("durafmt: expected a number at %q", rest)
		}
		n, err := strconv.ParseInt(rest[:digits], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("durafmt: %w", err)
		}
		rest = rest[digits:]
		size, suffix, ok := unitOf(rest)
		if !ok {
			return 0, fmt.Errorf("durafmt: unknown unit at %q", rest)
		}
		total += time.Duration(n) * size
		rest = rest[len(suffix):]
	}
	return total, nil
}

func unitOf(text string) (time.Duration, string, bool) {
	for _, unit := range units {
		if strings.HasPrefix(text, unit.suffix) {
			return unit.size, unit.suffix, true
		}
	}
	return 0, "", false
}
`;

const durafmtTest = text`
package durafmt

import (
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	cases := []struct {
		in   time.Duration
		want string
	}{
		{90 * time.Minute, "1h30m"},
		{26 * time.Hour, "1d2h"},
		{45 * time.Second, "45s"},
		{Day + 5*time.Second, "1d5s"},
	}
	for _, c := range cases {
		if got := Format(c.in); got != c.want {
			t.Errorf("Format(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	cases := map[string]time.Duration{
		"1h30m": 90 * time.Minute,
		"2d":    2 * Day,
		" 45s ": 45 * time.Second,
		"1m1m":  2 * time.Minute,
	}
	for in, want := range cases {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"", "h", "5x", "1h-5m"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", in)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, d := range []time.Duration{time.Second, 61 * time.Minute, 3*Day + 4*time.Hour + 5*time.Second} {
		got, err := Parse(Format(d))
		if err != nil || got != d {
			t.Errorf("Parse(Format(%v)) = %v, %v", d, got, err)
		}
	}
}
`;

const exampleTest = text`
package durafmt_test

import (
	"fmt"
	"time"

	"github.com/hal-gopher/durafmt"
)

func ExampleFormat() {
	fmt.Println(durafmt.Format(90 * time.Minute))
	// Output: 1h30m
}

func ExampleParse() {
	d, err := durafmt.Parse("2d4h")
	fmt.Println(d, err)
	// Output: 52h0m0s <nil>
}
`;

const readme = text`
# durafmt

Durations for people: "1h30m", "2d4h".

~~~go
durafmt.Format(90 * time.Minute) // "1h30m"
d, err := durafmt.Parse("2d4h")  // 52h0m0s, nil
~~~
`;

export const durafmt: LiveRepoSpec = {
  name: 'durafmt',
  description: 'Format durations for people ("1h30m", "2d4h") and parse them back.',
  language: 'Go',
  licenseSpdxId: 'BSD-3-Clause',
  stars: 1_137,
  runner: 'go-test',
  labels: [
    { name: 'kind/bug', color: 'e11d21', description: 'Categorizes issue or PR as related to a bug.' },
    { name: 'kind/feature', color: 'c7def8', description: 'Categorizes issue or PR as related to a new feature.' },
    { name: 'kind/support', color: 'd455d0', description: 'Categorizes issue or PR as a support question.' },
    {
      name: 'kind/documentation',
      color: 'c7def8',
      description: 'Categorizes issue or PR as related to documentation.',
    },
    { name: 'priority/backlog', color: 'fef2c0', description: 'Higher priority than priority/awaiting-more-evidence.' },
  ],
  maintainers: [owner],
  history: [
    {
      type: 'commit',
      day: 200,
      commit: {
        message: 'Initial commit: Format and Parse',
        author: owner,
        edits: [
          { path: 'README.md', content: readme },
          { path: 'LICENSE', content: bsd3License(owner) },
          { path: 'go.mod', content: 'module github.com/hal-gopher/durafmt\n\ngo 1.21\n' },
          { path: 'durafmt.go', content: durafmtGo },
          { path: 'durafmt_test.go', content: durafmtTest },
        ],
      },
    },
    {
      type: 'commit',
      day: 150,
      commit: { message: 'Add examples', author: owner, edits: [{ path: 'example_test.go', content: exampleTest }] },
    },
    {
      type: 'merged-pull',
      number: 2,
      title: 'Format zero and sub-second durations as "0s"',
      body: 'Format returned an empty string for anything shorter than a second.\n\nFixes #1',
      branch: 'format-zero',
      author: '{c0}',
      mergedBy: owner,
      openedDay: 22,
      mergedDay: 19,
      commits: [
        {
          message: 'Format: write "0s" for durations under a second',
          author: '{c0}',
          edits: [
            {
              path: 'durafmt.go',
              replace: [
                [
                  'func Format(d time.Duration) string {\n',
                  'func Format(d time.Duration) string {\n\tif d > -time.Second && d < time.Second {\n\t\treturn "0s"\n\t}\n',
                ],
              ],
            },
            {
              path: 'durafmt_test.go',
              append:
                '\nfunc TestFormatZero(t *testing.T) {\n\tfor _, d := range []time.Duration{0, 500 * time.Millisecond} {\n\t\tif got := Format(d); got != "0s" {\n\t\t\tt.Errorf("Format(%v) = %q, want \\"0s\\"", d, got)\n\t\t}\n\t}\n}\n',
            },
          ],
        },
      ],
    },
    {
      type: 'commit',
      day: 17,
      commit: {
        message: 'Add CI workflow',
        author: owner,
        edits: [
          {
            path: '.github/workflows/ci.yml',
            content: ciWorkflow(
              "      - uses: actions/setup-go@v5\n        with:\n          go-version: '1.22'",
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
      title: 'Format returns an empty string for durations under a second',
      body: '`durafmt.Format(0)` and `durafmt.Format(500 * time.Millisecond)` both return `""`. Our logs end up with `took ` and nothing after it.',
      kind: 'bug',
      labels: ['kind/bug'],
      author: '{c0}',
      openedDay: 27,
      closedByPull: 2,
      comments: [],
    },
    {
      number: 3,
      title: 'Negative durations are formatted as "-1m-30s"',
      body: '```go\ndurafmt.Format(-90 * time.Second) // "-1m-30s"\n```\n\nI expected `"-1m30s"`, with the sign once in front, which is also what `time.Duration.String` does (`-1m30s`). `Parse` cannot read the current output either.',
      kind: 'bug',
      labels: ['kind/bug'],
      author: '{c1}',
      openedDay: 15,
      comments: [
        {
          author: owner,
          body: 'Every part keeps its sign because the remainder stays negative. Should be a small fix.',
        },
      ],
      fix: {
        branch: 'format-negative',
        title: 'Format: write the sign of a negative duration once',
        body: 'Write the sign once and format the absolute value.\n\nFixes #3',
        commitMessage: 'Format: write the sign of negative durations once',
        edits: [
          {
            path: 'durafmt.go',
            replace: [
              [
                '\tvar b strings.Builder\n\tfor _, unit := range units {\n',
                "\tvar b strings.Builder\n\tif d < 0 {\n\t\tb.WriteByte('-')\n\t\td = -d\n\t}\n\tfor _, unit := range units {\n",
              ],
            ],
          },
          {
            path: 'durafmt_test.go',
            append:
              '\nfunc TestFormatNegative(t *testing.T) {\n\tcases := map[time.Duration]string{\n\t\t-90 * time.Second: "-1m30s",\n\t\t-26 * time.Hour:   "-1d2h",\n\t}\n\tfor in, want := range cases {\n\t\tif got := Format(in); got != want {\n\t\t\tt.Errorf("Format(%v) = %q, want %q", in, got, want)\n\t\t}\n\t}\n}\n',
          },
        ],
        failToPass: ['github.com/hal-gopher/durafmt::TestFormatNegative'],
        breaks: [],
      },
    },
    {
      number: 4,
      title: 'Parse("1h30") returns 1h instead of an error',
      body: 'A number without a unit at the end is silently dropped: `Parse("1h30")` returns `1h0m0s, nil`. A typo in our config turned a 90 minute timeout into one hour. It should be an error, as `Parse("5x")` is.',
      kind: 'bug',
      labels: ['kind/bug', 'priority/backlog'],
      author: '{c2}',
      openedDay: 8,
      comments: [],
      fix: {
        branch: 'parse-trailing-number',
        title: 'Parse: reject a number without a unit',
        body: 'A trailing number without a unit is an error, not something to ignore.\n\nFixes #4',
        commitMessage: 'Parse: reject a trailing number without a unit',
        edits: [
          {
            path: 'durafmt.go',
            replace: [
              [
                '\t\tif digits == -1 {\n\t\t\tbreak\n\t\t}\n',
                '\t\tif digits == -1 {\n\t\t\treturn 0, fmt.Errorf("durafmt: missing unit after %q", rest)\n\t\t}\n',
              ],
            ],
          },
          {
            path: 'durafmt_test.go',
            replace: [
              [
                'func TestRoundTrip(t *testing.T) {\n',
                'func TestParseRejectsTrailingNumber(t *testing.T) {\n\tfor _, in := range []string{"1h30", "15"} {\n\t\tif d, err := Parse(in); err == nil {\n\t\t\tt.Errorf("Parse(%q) = %v, want an error", in, d)\n\t\t}\n\t}\n}\n\nfunc TestRoundTrip(t *testing.T) {\n',
              ],
            ],
          },
        ],
        failToPass: ['github.com/hal-gopher/durafmt::TestParseRejectsTrailingNumber'],
        breaks: [],
      },
    },
    {
      number: 5,
      title: 'Support weeks ("2w")',
      body: 'Retention settings are usually given in weeks. Would you accept a `w` unit in Format and Parse?',
      kind: 'feature',
      labels: ['kind/feature'],
      author: '{c1}',
      openedDay: 5,
      comments: [{ author: '{c0}', body: '+1, though Format switching to weeks would change existing output.' }],
    },
  ],
  flaky: [],
};
