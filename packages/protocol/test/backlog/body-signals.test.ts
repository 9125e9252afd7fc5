// The body-signal rules abp-body-signals/1: every pattern of the table fires on an example of what its comment says,
// the text preparation keeps templates' hidden instructions and code out of the prose, texts that only look alike
// stay quiet, and a body of GitHub's maximum size is scanned in linear time.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { bodySignals, SIGNAL_PATTERNS, SIGNAL_RULES } from '../../src/backlog/body-signals.js';
import type { BodySignals } from '../../src/backlog/types.js';

const QUIET: BodySignals = { reproduction: false, question: false, proposal: false };

/** For each pattern of the table: an issue it must fire on, written so that no other pattern of its signal does. */
const examples: Record<string, { title: string; body: string }> = {
  'reproduction-heading': {
    title: 'Parser fails',
    body: 'Describe the bug: it fails.\n\n**Steps to reproduce**\n1. parse("x")',
  },
  'expected-and-actual': { title: 'Wrong total', body: 'Expected: 3\nActual: 4' },
  'error-in-code-block': {
    title: 'Build fails',
    body: 'After upgrading:\n\n```\nnpm ERR! TypeError: Cannot read properties of undefined\n```',
  },
  'stack-trace': { title: 'Crash on start', body: "Log:\n\nthread 'main' panicked at src/main.rs:10:5" },
  'playground-link': { title: 'Parser fails', body: 'See https://stackblitz.com/edit/parser-bug' },
  'interrogative-title': { title: 'Why is the bundle so large?', body: 'It is 4 MB.' },
  'question-title-tag': { title: '[Question] caching strategy', body: 'We cache per request.' },
  'how-to-title': { title: 'How to run the server behind nginx', body: 'We use nginx.' },
  'how-do-i': { title: 'Proxy setup', body: 'How do I set a proxy for outgoing requests' },
  'is-it-possible': { title: 'Proxy setup', body: 'Is there a way to set a proxy per request' },
  'asks-for-guidance': { title: 'Proxy setup', body: 'Could someone explain the proxy settings' },
  'proposal-title-tag': { title: 'feat(cli): a --json flag', body: 'Print the result as JSON.' },
  'asks-for-feature': { title: 'A --json flag', body: 'It would be nice to print the result as JSON.' },
  'asks-for-opinions': { title: 'Default timeouts', body: 'We are looking for feedback on a default timeout.' },
  'pros-and-cons': { title: 'Default timeouts', body: '- Pros: fewer hangs\n- Cons: slow servers fail' },
};

describe('the pattern table', () => {
  it('has an example per pattern, and each fires its signal', () => {
    expect(Object.keys(examples).sort()).toEqual(SIGNAL_PATTERNS.map((pattern) => pattern.name).sort());
    for (const pattern of SIGNAL_PATTERNS) {
      const example = examples[pattern.name] as { title: string; body: string };
      expect(bodySignals(example.title, example.body)[pattern.signal], pattern.name).toBe(true);
    }
  });

  it('fires no signal on a plain title and an empty body', () => {
    expect(bodySignals('Parser rewrite', '')).toEqual(QUIET);
  });

  it('is documented pattern by pattern, each expression verbatim, under its version', async () => {
    const doc = await readFile(new URL('../../../../docs/eligibility.md', import.meta.url), 'utf8');
    expect(SIGNAL_RULES).toBe('abp-body-signals/1');
    expect(doc).toContain(`\`${SIGNAL_RULES}\``);
    for (const pattern of SIGNAL_PATTERNS) {
      expect(doc, pattern.name).toContain(`\`${pattern.name}\` (scope \`${pattern.scope}\`)`);
      for (const regex of pattern.all) expect(doc, pattern.name).toContain(`\`/${regex.source}/${regex.flags}\``);
    }
  });
});

describe('issues as projects write them', () => {
  it('reads a bug report from an issue template', () => {
    const body =
      '### Describe the bug\nThe parser hangs.\n\n### Steps to reproduce\n1. Install 1.2.3\n2. Parse a file\n\n### Expected behavior\nIt parses.';
    expect(bodySignals('parser hangs with nested arrays', body)).toEqual({
      reproduction: true,
      question: false,
      proposal: false,
    });
  });

  it('reads a question, a feature request and a debate', () => {
    expect(
      bodySignals(
        'How do I cache nested arrays?',
        "I'm new to this. How can I cache nested arrays? Any pointers appreciated!",
      ),
    ).toEqual({ reproduction: false, question: true, proposal: false });
    expect(
      bodySignals(
        'Support IPv6 addresses in the router',
        'It would be useful if the router could parse IPv6 addresses.\n\nProposed API: an option `parseMode`.',
      ),
    ).toEqual({ reproduction: false, question: false, proposal: true });
    expect(
      bodySignals(
        'RFC: should the cache retry by default?',
        'Opening this to collect opinions before anyone writes code.\n\nPros: simpler.\nCons: breaking.\n\nThoughts?',
      ),
    ).toEqual({ reproduction: false, question: false, proposal: true });
  });

  it('reads stack traces of several languages, fenced or pasted', () => {
    expect(bodySignals('Crash', 'Traceback (most recent call last):\n  File "x.py", line 1').reproduction).toBe(true);
    expect(bodySignals('Crash', '```\nError: boom\n    at parse (/app/src/parser.js:10:15)\n```').reproduction).toBe(
      true,
    );
    expect(bodySignals('Crash', '\tat com.acme.Parser.parse(Parser.java:42)').reproduction).toBe(true);
    expect(bodySignals('Crash', 'goroutine 1 [running]:\nmain.main()').reproduction).toBe(true);
    expect(bodySignals('Crash', 'The process died: Segmentation fault (core dumped)').reproduction).toBe(true);
  });
});

describe('text preparation', () => {
  it("ignores an issue template's instructions hidden in HTML comments", () => {
    const template =
      '<!-- Please include:\n### Steps to reproduce\n### Expected behavior\n### Actual behavior\n-->\nThe parser is slow.';
    expect(bodySignals('Parser is slow', template)).toEqual(QUIET);
    expect(bodySignals('Parser is slow', '<!-- unclosed comment\n### Steps to reproduce')).toEqual(QUIET);
  });

  it('keeps fenced code out of the prose, and prose out of the code', () => {
    expect(bodySignals('Example', '```js\n// how do I read this? It would be nice\nconst x = 1;\n```')).toEqual(QUIET);
    expect(bodySignals('Example', 'The parser throws a TypeError here.')).toEqual(QUIET);
    expect(bodySignals('Example', '~~~~\nTypeError: x\n~~~~')).toMatchObject({ reproduction: true });
    // A shorter or different fence does not close the block: the heading stays code.
    expect(bodySignals('Example', '````\n```\n### Steps to reproduce\n~~~~\n')).toEqual(QUIET);
    expect(bodySignals('Example', '```\ncode\n```\n### Steps to reproduce')).toMatchObject({ reproduction: true });
  });

  it('treats CRLF and CR line endings as LF', () => {
    expect(bodySignals('x', 'Intro\r\n### Steps to reproduce\r\n1. run').reproduction).toBe(true);
    expect(bodySignals('x', 'Intro\r- Pros: a\r- Cons: b').proposal).toBe(true);
  });
});

describe('texts that only look alike', () => {
  it('does not take a mention for a section', () => {
    expect(
      bodySignals(
        'x',
        'I tried to reproduce this on my laptop but the steps to reproduce it there are unclear to me, sorry.',
      ).reproduction,
    ).toBe(false);
    expect(bodySignals('x', '### Expected behavior\nIt parses.').reproduction).toBe(false);
    expect(bodySignals('x', 'Current version: 1.2.3\nExpected: it parses').reproduction).toBe(false);
  });

  it('does not take every question mark, or a debate title, for a question', () => {
    expect(bodySignals('RFC: should the cache retry by default?', '').question).toBe(false);
    expect(bodySignals('Discussion: rethink how we retry', '').question).toBe(false);
    expect(bodySignals('Crash with "?" in paths', 'It crashes when a path has a ? in it.').question).toBe(false);
  });

  it('does not take a proposed fix for a feature proposal', () => {
    expect(bodySignals('Crash', 'Proposed fix: check for null first.').proposal).toBe(false);
  });
});

describe('cost', () => {
  // A pattern that backtracks on these inputs takes minutes or hours per body, far past this test's timeout; a linear
  // scan takes milliseconds. The timeout, generous for a loaded machine, is the only clock here.
  it('scans adversarial bodies of GitHub’s maximum size without catastrophic backtracking', { timeout: 30_000 }, () => {
    const size = 65_536;
    const bodies = [
      `${'    at '.repeat(size / 8)}`,
      'a'.repeat(size),
      `### ${'Steps to reproduce '.repeat(size / 20)}`,
      `${'#'.repeat(size)}`,
      `Expected:${' '.repeat(size)}`,
      `${'```\n'.repeat(size / 4)}`,
      `<!--${'-'.repeat(size)}`,
      `${'how do '.repeat(size / 7)}`,
      `${'\n'.repeat(size)}`,
    ];
    for (const body of bodies)
      expect(bodySignals(`${'?'.repeat(250)}`, body)).toMatchObject({ question: expect.any(Boolean) as boolean });
  });
});
