// textkit (JavaScript, node --test): slugify and truncate. Open: accented letters split words
// (fix), truncate cuts emoji in half (fix), and a question about keeping underscores (no fix).

import type { LiveRepoSpec } from '../spec.js';
import { ciWorkflow, defaultLabels, mitLicense, text } from '../spec.js';

const owner = 'mira-quill';

const packageJson = text`
{
  "name": "textkit",
  "version": "1.2.0",
  "description": "Small text helpers: slugify and truncate.",
  "type": "module",
  "main": "src/index.js",
  "exports": "./src/index.js",
  "scripts": {
    "test": "node --test"
  },
  "engines": {
    "node": ">=20"
  },
  "license": "MIT"
}
`;

const slugifyV1 = text`
/**
 * Turns a title into a URL slug: lower-case letters and digits, words joined by a separator.
 *
 * @param {string} title
 * @param {{ separator?: string }} [options]
 * @returns {string}
 */
export function slugify(title, options = {}) {
  const separator = options.separator ?? '-';
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, separator);
  return slug.startsWith(separator) ? slug.slice(separator.length) : slug;
}
`;

const slugifyTestV1 = text`
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { slugify } from '../src/slugify.js';

describe('slugify', () => {
  test('joins lower-cased words with dashes', () => {
    assert.equal(slugify('Hello World'), 'hello-world');
  });

  test('drops punctuation between words', () => {
    assert.equal(slugify('Cats, dogs & birds'), 'cats-dogs-birds');
  });

  test('uses a custom separator', () => {
    assert.equal(slugify('Release notes 2026', { separator: '_' }), 'release_notes_2026');
  });
});
`;

const truncate = text`
/**
 * Shortens text to at most "max" characters, ending with an ellipsis when it had to cut.
 *
 * @param {string} text
 * @param {number} max
 * @param {string} [ellipsis]
 * @returns {string}
 */
export function truncate(text, max, ellipsis = '…') {
  if (text.length <= max) return text;
  return text.slice(0, Math.max(0, max - ellipsis.length)) + ellipsis;
}
`;

const truncateTest = text`
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { truncate } from '../src/truncate.js';

describe('truncate', () => {
  test('leaves short text alone', () => {
    assert.equal(truncate('short', 10), 'short');
  });

  test('cuts long text and adds an ellipsis', () => {
    assert.equal(truncate('The quick brown fox', 10), 'The quick…');
  });

  test('accepts a custom ellipsis', () => {
    assert.equal(truncate('abcdefgh', 6, '...'), 'abc...');
  });
});
`;

const readme = text`
# textkit

Small, dependency-free text helpers for Node.js.

~~~js
import { slugify, truncate } from 'textkit';

slugify('Hello, World!'); // 'hello-world'
truncate('The quick brown fox', 10); // 'The quick…'
~~~

Run the tests with "npm test" (Node's built-in test runner).
`;

const gitignore = text`
node_modules/
test-report.xml
`;

export const textkit: LiveRepoSpec = {
  name: 'textkit',
  description: 'Small, dependency-free text helpers: slugify and truncate.',
  language: 'JavaScript',
  licenseSpdxId: 'MIT',
  stars: 412,
  runner: 'node-test',
  labels: defaultLabels('bug', 'documentation', 'enhancement', 'good first issue', 'help wanted', 'question'),
  maintainers: [owner],
  history: [
    {
      type: 'commit',
      day: 120,
      commit: {
        message: 'Initial commit: slugify',
        author: owner,
        edits: [
          { path: 'README.md', content: readme },
          { path: 'LICENSE', content: mitLicense(owner) },
          { path: '.gitignore', content: gitignore },
          { path: 'package.json', content: packageJson },
          { path: 'src/index.js', content: "export { slugify } from './slugify.js';\n" },
          { path: 'src/slugify.js', content: slugifyV1 },
          { path: 'test/slugify.test.js', content: slugifyTestV1 },
        ],
      },
    },
    {
      type: 'commit',
      day: 95,
      commit: {
        message: 'Add truncate',
        author: owner,
        edits: [
          { path: 'src/index.js', append: "export { truncate } from './truncate.js';\n" },
          { path: 'src/truncate.js', content: truncate },
          { path: 'test/truncate.test.js', content: truncateTest },
        ],
      },
    },
    {
      type: 'merged-pull',
      number: 2,
      title: 'Trim separators at both ends of a slug',
      body: 'slugify only removed a leading separator, so titles ending in punctuation got a trailing dash.\n\nFixes #1',
      branch: 'fix/trailing-separator',
      author: '{c0}',
      mergedBy: owner,
      openedDay: 24,
      mergedDay: 21,
      commits: [
        {
          message: 'slugify: trim separators at both ends',
          author: '{c0}',
          edits: [
            {
              path: 'src/slugify.js',
              replace: [
                [
                  '  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, separator);\n  return slug.startsWith(separator) ? slug.slice(separator.length) : slug;\n',
                  "  const words = title.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word !== '');\n  return words.join(separator);\n",
                ],
              ],
            },
            {
              path: 'test/slugify.test.js',
              replace: [
                [
                  "    assert.equal(slugify('Release notes 2026', { separator: '_' }), 'release_notes_2026');\n  });\n",
                  "    assert.equal(slugify('Release notes 2026', { separator: '_' }), 'release_notes_2026');\n  });\n\n  test('trims separators at both ends', () => {\n    assert.equal(slugify('  Hello, world!  '), 'hello-world');\n  });\n",
                ],
              ],
            },
          ],
        },
      ],
    },
    {
      type: 'commit',
      day: 19,
      commit: {
        message: 'Add CI workflow',
        author: owner,
        edits: [
          {
            path: '.github/workflows/ci.yml',
            content: ciWorkflow(
              '      - uses: actions/setup-node@v4\n        with:\n          node-version: 20',
              'npm test',
            ),
          },
        ],
      },
    },
  ],
  issues: [
    {
      number: 1,
      title: 'slugify leaves a trailing dash when the title ends with punctuation',
      body: "`slugify('Hello, world!')` returns `'hello-world-'`. I expected `'hello-world'`: the trailing dash ends up in our URLs.",
      kind: 'bug',
      labels: ['bug'],
      author: '{c0}',
      openedDay: 30,
      closedByPull: 2,
      comments: [{ author: owner, body: 'Confirmed, only the leading separator is trimmed. A PR would be welcome!' }],
    },
    {
      number: 3,
      title: "slugify splits words at accented letters: 'Crème brûlée' becomes 'cr-me-br-l-e'",
      body: "```js\nslugify('Crème brûlée') // 'cr-me-br-l-e'\n```\n\nExpected `'creme-brulee'`. Accented letters should lose their accent instead of being treated as separators. This breaks every French and German title on our blog.",
      kind: 'bug',
      labels: ['bug'],
      author: '{c1}',
      openedDay: 16,
      comments: [
        {
          author: owner,
          body: 'Confirmed. The pattern only keeps ASCII letters, so every other letter becomes a separator.',
        },
        { author: '{c2}', body: 'Same here with German umlauts: `slugify("Grüße")` gives `"gr-e"`.' },
      ],
      fix: {
        branch: 'fix-accented-slugs',
        title: 'slugify: transliterate accented letters instead of splitting on them',
        body: 'Decompose the title (NFKD) and drop the combining accents before splitting into words.\n\nFixes #3',
        commitMessage: 'slugify: transliterate accented letters',
        edits: [
          {
            path: 'src/slugify.js',
            replace: [
              [
                '  const words = title.toLowerCase().split(',
                "  // NFKD splits 'é' into 'e' and a combining accent; dropping the accents keeps the letter.\n  const plain = title.normalize('NFKD').replace(/[\\u0300-\\u036f]/g, '');\n  const words = plain.toLowerCase().split(",
              ],
            ],
          },
          {
            path: 'test/slugify.test.js',
            replace: [
              [
                "    assert.equal(slugify('  Hello, world!  '), 'hello-world');\n  });\n",
                "    assert.equal(slugify('  Hello, world!  '), 'hello-world');\n  });\n\n  test('transliterates accented letters', () => {\n    assert.equal(slugify('Crème brûlée à la carte'), 'creme-brulee-a-la-carte');\n  });\n",
              ],
            ],
          },
        ],
        failToPass: ['slugify > transliterates accented letters'],
        breaks: [],
      },
    },
    {
      number: 4,
      title: 'How do I keep underscores in slugs?',
      body: "`slugify('snake_case_name')` gives `'snake-case-name'`. Is there an option to keep underscores as they are, or should I post-process the result myself?",
      kind: 'question',
      labels: ['question'],
      author: '{c2}',
      openedDay: 11,
      comments: [
        {
          author: owner,
          body: "There's no option for that today; `separator: '_'` gets close if underscores are all you need.",
        },
      ],
    },
    {
      number: 5,
      title: 'truncate cuts emoji in half',
      body: "`truncate('🍕🍕🍕🍕', 3)` returns a lone surrogate followed by the ellipsis, which renders as `�…`. The length check counts UTF-16 units, not characters; I'd expect `'🍕🍕…'`.",
      kind: 'bug',
      labels: ['bug', 'good first issue'],
      author: '{c1}',
      openedDay: 6,
      comments: [],
      fix: {
        branch: 'truncate-by-code-point',
        title: 'truncate: count characters, not UTF-16 units',
        body: 'Count code points so an emoji is one character and is never cut in half.\n\nFixes #5',
        commitMessage: 'truncate: count code points',
        edits: [
          {
            path: 'src/truncate.js',
            replace: [
              [
                '  if (text.length <= max) return text;\n  return text.slice(0, Math.max(0, max - ellipsis.length)) + ellipsis;\n',
                "  // Count code points, not UTF-16 units, so an emoji is one character and is never cut in half.\n  const characters = Array.from(text);\n  if (characters.length <= max) return text;\n  const room = Math.max(0, max - Array.from(ellipsis).length);\n  return characters.slice(0, room).join('') + ellipsis;\n",
              ],
            ],
          },
          {
            path: 'test/truncate.test.js',
            replace: [
              [
                "    assert.equal(truncate('abcdefgh', 6, '...'), 'abc...');\n  });\n",
                "    assert.equal(truncate('abcdefgh', 6, '...'), 'abc...');\n  });\n\n  test('counts an emoji as one character', () => {\n    assert.equal(truncate('🍕🍕🍕', 3), '🍕🍕🍕');\n  });\n\n  test('never splits a surrogate pair', () => {\n    assert.equal(truncate('🍕🍕🍕🍕', 3), '🍕🍕…');\n  });\n",
              ],
            ],
          },
        ],
        failToPass: ['truncate > counts an emoji as one character', 'truncate > never splits a surrogate pair'],
        breaks: [],
      },
    },
  ],
  flaky: [],
};
