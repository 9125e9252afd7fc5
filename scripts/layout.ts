// The README's layout section, made from the tree: every package with its package.json description, every folder of
// its sources with what it holds, and the repository's other top-level folders. A description written in the README
// is kept; a new folder takes the first sentence of its index module's header (or of its first module's). With
// --check, writes nothing and fails when the section no longer lists exactly the folders there are.
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const README = join(root, 'README.md');
const START =
  '<!-- layout:start (npm run layout writes this table from the tree; edit the descriptions, not the rows) -->';
const END = '<!-- layout:end -->';

/** Folders of the repository besides the packages, with what they hold; a folder not listed here fails the check. */
const TOP_LEVEL: Record<string, string> = {
  '.changeset/': 'the changes each pull request brings to the published packages (`npm run changeset`)',
  '.ci/': '`run`: what CI runs on a clean clone (`scripts/setup.sh`, then `npm run check`)',
  'bench/': 'benchmarks, each printing its figures as ratios against a baseline measured in the same run',
  'bin/': '`run-ts.js`: runs a script or benchmark from the TypeScript sources',
  'docs/': 'the guides, the ABP specification and the design notes the code relies on, and the decision records',
  'scripts/':
    'set-up (`setup.sh`, `install-temporal.sh`, `install-engines.sh`), the JSON Schema export and this layout',
  'test/': 'tests of the repository as a whole: the lint rules that keep imports pointing one way and free of cycles',
  'test-support/':
    'what the test tiers share: the build before process tiers, the unit tier’s no-process guard, caches, the summary line',
};

interface Row {
  path: string;
  description: string;
}

function firstSentence(file: string): string | null {
  const header: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('//')) break;
    header.push(line.replace(/^\/\/\s?/, ''));
  }
  const text = header.join(' ').trim();
  if (text === '') return null;
  const sentence = /^(.*?[.:])(\s|$)/.exec(text)?.[1] ?? text;
  return sentence.replace(/[.:]$/, '');
}

function folderDescription(folder: string): string {
  const index = join(folder, 'index.ts');
  const modules = readdirSync(folder)
    .filter((name) => name.endsWith('.ts'))
    .sort();
  const source = existsSync(index) ? index : modules[0] === undefined ? null : join(folder, modules[0]);
  return (source === null ? null : firstSentence(source)) ?? 'no module header to describe it yet';
}

function treeRows(): Row[] {
  const rows: Row[] = [];
  const packagesDir = join(root, 'packages');
  for (const name of readdirSync(packagesDir).sort()) {
    const manifest = JSON.parse(readFileSync(join(packagesDir, name, 'package.json'), 'utf8')) as {
      name: string;
      description: string;
      private?: boolean;
    };
    rows.push({
      path: `packages/${name}/`,
      description: `**${manifest.name}**${manifest.private ? ' (private)' : ''}: ${manifest.description}`,
    });
    const src = join(packagesDir, name, 'src');
    for (const entry of readdirSync(src, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.isDirectory())
        rows.push({
          path: `packages/${name}/src/${entry.name}/`,
          description: folderDescription(join(src, entry.name)),
        });
    }
    for (const extra of ['bin', 'data', 'migrations', 'json-schema', 'test']) {
      if (existsSync(join(packagesDir, name, extra)))
        rows.push({ path: `packages/${name}/${extra}/`, description: '' });
    }
  }
  for (const [path, description] of Object.entries(TOP_LEVEL)) rows.push({ path, description });
  return rows;
}

const EXTRA_DESCRIPTIONS: Record<string, string> = {
  bin: '`abp.js`: the package’s `abp`, over its build in `dist/`',
  data: 'the tables the code reads at run time',
  migrations: 'the committed SQL migrations drizzle-kit generates from `src/db/schema/`',
  'json-schema': 'the JSON Schema of every ABP document, exported from the zod schemas (`npm run schemas:export`)',
  test: 'the package’s tests: `*.test.ts` unit, `*.integration.test.ts`, `*.e2e.test.ts`, with their support and fixtures',
};

function currentSection(readme: string): { before: string; rows: Map<string, string>; after: string } {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start)
    throw new Error(`README.md has no layout section between "${START}" and "${END}": add both markers where it goes`);
  const rows = new Map<string, string>();
  for (const line of readme.slice(start + START.length, end).split('\n')) {
    const match = /^\| `([^`]+)` \| (.*) \|$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) rows.set(match[1], match[2]);
  }
  return { before: readme.slice(0, start), rows, after: readme.slice(end + END.length) };
}

function render(rows: Row[], kept: Map<string, string>): string {
  const lines = rows.map((row) => {
    const extra = EXTRA_DESCRIPTIONS[row.path.replace(/^packages\/[^/]+\//, '').replace(/\/$/, '')];
    const generated =
      row.path in TOP_LEVEL || row.path.split('/').length === 3 ? row.description : (extra ?? row.description);
    const description =
      row.path.split('/').length === 3 || row.path in TOP_LEVEL ? generated : (kept.get(row.path) ?? generated);
    return `| \`${row.path}\` | ${description} |`;
  });
  return [START, '| path | what it holds |', '| --- | --- |', ...lines, END].join('\n');
}

const readme = readFileSync(README, 'utf8');
const { before, rows: kept, after } = currentSection(readme);
const rows = treeRows();
const next = `${before}${render(rows, kept)}${after}`;
if (process.argv.includes('--check')) {
  const listed = [...kept.keys()].sort();
  const present = rows.map((row) => row.path).sort();
  const missing = present.filter((path) => !kept.has(path));
  const gone = listed.filter((path) => !present.includes(path));
  if (missing.length > 0 || gone.length > 0 || next !== readme) {
    console.error(
      [
        ...missing.map((path) => `not in the README's layout: ${path}`),
        ...gone.map((path) => `in the README's layout but not in the tree: ${path}`),
        'README.md: the layout section is out of date; run `npm run layout` and commit the result',
      ].join('\n'),
    );
    process.exit(1);
  }
  console.log(`README.md: the layout section lists the ${present.length} folders there are`);
} else {
  writeFileSync(`${README}.partial`, next);
  renameSync(`${README}.partial`, README);
  console.log(`README.md: layout section written (${rows.length} rows)`);
}
