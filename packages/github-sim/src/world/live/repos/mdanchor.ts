// mdanchor (JavaScript, vitest, npm devDependencies with a committed lockfile): the anchors GitHub gives Markdown
// headings. Its tests run under vitest and build documents with dedent, both installed by `npm ci` from the lockfile;
// it asks for Node 22 (engines). Open: a heading's closing hashes end up in its anchor (fix).

import type { LiveRepoSpec } from '../spec.js';
import { ciWorkflow, defaultLabels, mitLicense, text } from '../spec.js';
import lockfile from './mdanchor.package-lock.json' with { type: 'json' };

const owner = 'dara-okafor';

// As npm writes them: two-space JSON and a final newline.
const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

const packageJson = json({
  name: 'mdanchor',
  version: '0.3.1',
  description: 'GitHub-style heading anchors for Markdown documents.',
  type: 'module',
  main: 'src/index.js',
  exports: './src/index.js',
  scripts: { test: 'vitest run' },
  engines: { node: '>=22' },
  devDependencies: { dedent: '1.5.3', vitest: '3.2.4' },
  license: 'MIT',
});

const anchorV1 = text`
/**
 * The anchor GitHub gives a heading: lower-cased, punctuation dropped, spaces as dashes.
 *
 * @param {string} heading
 * @returns {string}
 */
export function anchor(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * The anchors of every ATX heading ("# Title") of a Markdown document, in order.
 *
 * @param {string} markdown
 * @returns {string[]}
 */
export function anchorsOf(markdown) {
  const anchors = [];
  for (const line of markdown.split('\n')) {
    const match = /^#{1,6}\s+(.*)$/.exec(line);
    if (match !== null) anchors.push(anchor(match[1]));
  }
  return anchors;
}
`;

// Test files build documents with dedent's tagged templates, so they are written line by line here.
const anchorTestV1 = [
  "import dedent from 'dedent';",
  "import { describe, expect, test } from 'vitest';",
  "import { anchor, anchorsOf } from '../src/anchor.js';",
  '',
  "describe('anchor', () => {",
  "  test('lower-cases and joins words with dashes', () => {",
  "    expect(anchor('Getting Started')).toBe('getting-started');",
  '  });',
  '',
  "  test('drops punctuation', () => {",
  "    expect(anchor('What is it?')).toBe('what-is-it');",
  '  });',
  '});',
  '',
  "describe('anchorsOf', () => {",
  "  test('lists every heading in order', () => {",
  '    const doc = dedent`',
  '      # Title',
  '      Some text.',
  '      ## Usage',
  '    `;',
  "    expect(anchorsOf(doc)).toEqual(['title', 'usage']);",
  '  });',
  '});',
  '',
].join('\n');

const readme = text`
# mdanchor

The anchors GitHub gives the headings of a Markdown document.

    import { anchorsOf } from 'mdanchor';
    anchorsOf('# Getting Started'); // ['getting-started']

Install with "npm ci" and run "npm test" (vitest).
`;

export const mdanchor: LiveRepoSpec = {
  name: 'mdanchor',
  description: 'GitHub-style heading anchors for Markdown documents.',
  language: 'JavaScript',
  licenseSpdxId: 'MIT',
  stars: 356,
  runner: 'vitest',
  install: 'npm ci --no-audit --no-fund',
  labels: defaultLabels('bug', 'enhancement'),
  maintainers: [owner],
  history: [
    {
      type: 'commit',
      day: 85,
      commit: {
        message: 'Initial commit: anchor and anchorsOf',
        author: owner,
        edits: [
          { path: 'README.md', content: readme },
          { path: 'LICENSE', content: mitLicense(owner) },
          { path: '.gitignore', content: 'node_modules/\ntest-report.xml\n' },
          { path: 'package.json', content: packageJson },
          { path: 'package-lock.json', content: json(lockfile) },
          { path: 'src/index.js', content: "export { anchor, anchorsOf } from './anchor.js';\n" },
          { path: 'src/anchor.js', content: anchorV1 },
          { path: 'test/anchor.test.js', content: anchorTestV1 },
        ],
      },
    },
    {
      type: 'merged-pull',
      number: 2,
      title: 'anchorsOf: number repeated headings as GitHub does',
      body: 'Two "## Example" headings both got `example`; GitHub makes the second `example-1`.\n\nFixes #1',
      branch: 'repeated-headings',
      author: '{c0}',
      mergedBy: owner,
      openedDay: 16,
      mergedDay: 14,
      commits: [
        {
          message: 'anchorsOf: number repeated headings',
          author: '{c0}',
          edits: [
            {
              path: 'src/anchor.js',
              replace: [
                ['  const anchors = [];\n', '  const seen = new Map();\n  const anchors = [];\n'],
                [
                  '    if (match !== null) anchors.push(anchor(match[1]));\n',
                  "    if (match === null) continue;\n    const base = anchor(match[1]);\n    const count = seen.get(base) ?? 0;\n    seen.set(base, count + 1);\n    anchors.push(count === 0 ? base : base + '-' + count);\n",
                ],
              ],
            },
            {
              path: 'test/anchor.test.js',
              replace: [
                [
                  "    expect(anchorsOf(doc)).toEqual(['title', 'usage']);\n  });\n",
                  "    expect(anchorsOf(doc)).toEqual(['title', 'usage']);\n  });\n\n  test('numbers repeated headings', () => {\n    const doc = dedent`\n      ## Example\n      ## Example\n    `;\n    expect(anchorsOf(doc)).toEqual(['example', 'example-1']);\n  });\n",
                ],
              ],
            },
          ],
        },
      ],
    },
    {
      type: 'commit',
      day: 12,
      commit: {
        message: 'Add CI workflow',
        author: owner,
        edits: [
          {
            path: '.github/workflows/ci.yml',
            content: ciWorkflow(
              '      - uses: actions/setup-node@v4\n        with:\n          node-version: 22\n      - run: npm ci',
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
      title: 'Repeated headings get the same anchor',
      body: 'Two `## Example` headings both get `example`, so the second link jumps to the first.',
      kind: 'bug',
      labels: ['bug'],
      author: '{c0}',
      openedDay: 20,
      closedByPull: 2,
      comments: [],
    },
    {
      number: 3,
      title: "A heading's closing hashes end up in its anchor",
      body: 'CommonMark allows closing hashes: `## Install ##`. mdanchor gives `install-` for it; GitHub gives `install`.',
      kind: 'bug',
      labels: ['bug'],
      author: '{c1}',
      openedDay: 7,
      comments: [
        { author: owner, body: 'Confirmed: the closing sequence should be stripped before the anchor is made.' },
      ],
      fix: {
        branch: 'closing-hashes',
        title: 'anchorsOf: strip the closing sequence of a heading',
        body: "Drop an ATX heading's optional closing hashes before making its anchor.\n\nFixes #3",
        commitMessage: 'anchorsOf: strip closing hashes',
        edits: [
          {
            path: 'src/anchor.js',
            replace: [
              [
                '    const base = anchor(match[1]);\n',
                "    // CommonMark's optional closing sequence (\"## Install ##\") is not part of the heading.\n    const base = anchor(match[1].replace(/\\s+#+\\s*$/, ''));\n",
              ],
            ],
          },
          {
            path: 'test/anchor.test.js',
            replace: [
              [
                "    expect(anchorsOf(doc)).toEqual(['example', 'example-1']);\n  });\n",
                "    expect(anchorsOf(doc)).toEqual(['example', 'example-1']);\n  });\n\n  test('ignores a closing sequence of hashes', () => {\n    const doc = dedent`\n      ## Install ##\n      ### Notes ###\n    `;\n    expect(anchorsOf(doc)).toEqual(['install', 'notes']);\n  });\n",
              ],
            ],
          },
        ],
        failToPass: ['test/anchor.test.js > anchorsOf > ignores a closing sequence of hashes'],
        breaks: [],
      },
    },
  ],
  flaky: [],
};
