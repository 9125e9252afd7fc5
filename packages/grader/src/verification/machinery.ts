// Owns the verification machinery: the files that configure, extend or replace a test runner, which the engine's diff
// must not change for the run that grades it (spec §3.2). Before verification each such path is put back as the engine
// found it, in whole or, for files that also hold the project's own settings, only the runner's sections or fields.
// The list is published (docs/grader.md) so a task author knows what a fix cannot change; the diff's size still counts
// what the engine wrote there.
import { posix } from 'node:path';

export interface MachineryRule {
  /** Which runners read it. */
  readonly runners: string;
  /** A file name at any depth, or a folder anywhere, as it reads in docs/grader.md. */
  readonly paths: readonly string[];
  /** What is put back: the whole file, or only the runner's parts of it. */
  readonly restores: string;
  readonly match: (path: string) => boolean;
  /** The restored text, given the file as the engine found it and as it left it; null when the file must go. */
  readonly restore: (before: string | null, after: string) => string | null;
}

const name = (path: string) => posix.basename(path);
const underFolder = (folder: string) => (path: string) => path.split('/').slice(0, -1).includes(folder);
const whole = (before: string | null) => before;

export const MACHINERY: readonly MachineryRule[] = [
  {
    runners: 'pytest',
    paths: ['pytest.ini', 'conftest.py', 'sitecustomize.py', 'usercustomize.py', '*.pth'],
    restores: 'the whole file (conftest.py is a test file: held-out material replaces it)',
    match: (path) =>
      ['pytest.ini', 'conftest.py', 'sitecustomize.py', 'usercustomize.py'].includes(name(path)) ||
      path.endsWith('.pth'),
    restore: whole,
  },
  {
    // Python finds plugins through the entry points of every distribution on its path, the checkout's root included:
    // a planted `entry_points.txt` under `pytest11` would load a plugin without any configuration naming it.
    runners: 'pytest',
    paths: ['*.dist-info/', '*.egg-info/', '*.egg-link'],
    restores: 'the whole file: installed-package metadata comes from the frozen environment',
    match: (path) =>
      path.endsWith('.egg-link') ||
      path
        .split('/')
        .slice(0, -1)
        .some((folder) => /\.(dist|egg)-info$/.test(folder)),
    restore: whole,
  },
  {
    runners: 'pytest',
    paths: ['pyproject.toml', 'setup.cfg', 'tox.ini'],
    restores: 'the sections pytest reads: [tool.pytest.ini_options] and [tool.pytest], [tool:pytest], [pytest]',
    match: (path) => ['pyproject.toml', 'setup.cfg', 'tox.ini'].includes(name(path)),
    restore: (before, after) => restoreSections(before, after, /^(tool\.pytest(\..*)?|tool:pytest|pytest)$/),
  },
  {
    runners: 'node --test, jest, vitest, mocha, ava, node-tap',
    paths: ['package.json'],
    restores: 'the fields test runners read: scripts, jest, mocha, ava, tap, c8, nyc',
    match: (path) => name(path) === 'package.json',
    restore: (before, after) => restoreFields(before, after, ['scripts', 'jest', 'mocha', 'ava', 'tap', 'c8', 'nyc']),
  },
  {
    runners: 'jest, vitest, mocha, ava, node-tap, jasmine, lab, bun test',
    paths: [
      'jest.config.*',
      'vitest.config.*',
      'vitest.workspace.*',
      'vite.config.*',
      '.mocharc.*',
      'ava.config.*',
      '.taprc',
      'support/jasmine.json',
      'support/jasmine.*js',
      '.labrc*',
      'bunfig.toml',
      'babel.config.*',
      '.babelrc*',
      'node_modules/',
    ],
    restores: 'the whole file',
    match: (path) =>
      /^(jest|vitest|vite|babel|ava)\.(config|workspace)\.[a-z]+$/.test(name(path)) ||
      ['.taprc', 'bunfig.toml'].includes(name(path)) ||
      // jasmine's configuration sits in spec/support by default; a `jasmine.js` elsewhere may be the project's code.
      (/^jasmine\.([cm]?js|json)$/.test(name(path)) && path.split('/').at(-2) === 'support') ||
      /^\.labrc(\.[cm]?js)?$/.test(name(path)) ||
      /^\.mocharc(\.[a-z]+)?$/.test(name(path)) ||
      /^\.babelrc(\.[a-z]+)?$/.test(name(path)) ||
      underFolder('node_modules')(path),
    restore: whole,
  },
  {
    runners: 'go test',
    paths: ['go.mod', 'go.work', 'go.work.sum', 'vendor/'],
    restores: 'the whole file: the module graph, the toolchain line and replacements come from the frozen environment',
    match: (path) => ['go.mod', 'go.work', 'go.work.sum'].includes(name(path)) || underFolder('vendor')(path),
    restore: whole,
  },
  {
    runners: 'cargo test',
    paths: ['Cargo.toml', 'Cargo.lock', '.cargo/config', '.cargo/config.toml', 'build.rs', 'rust-toolchain*'],
    restores: 'the whole file: test targets, harnesses, build scripts, runners and the toolchain',
    match: (path) =>
      ['Cargo.toml', 'Cargo.lock', 'build.rs', 'rust-toolchain', 'rust-toolchain.toml'].includes(name(path)) ||
      (underFolder('.cargo')(path) && /^config(\.toml)?$/.test(name(path))),
    restore: whole,
  },
  {
    runners: 'Maven Surefire, Gradle',
    paths: ['pom.xml', 'build.gradle*', 'settings.gradle*', 'gradle.properties', '.mvn/', 'gradle/'],
    restores: 'the whole file',
    match: (path) =>
      ['pom.xml', 'gradle.properties'].includes(name(path)) ||
      /^(build|settings)\.gradle(\.kts)?$/.test(name(path)) ||
      underFolder('.mvn')(path) ||
      path.startsWith('gradle/'),
    restore: whole,
  },
];

export function machineryRule(path: string): MachineryRule | null {
  return MACHINERY.find((rule) => rule.match(path)) ?? null;
}

const HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/;

/** An INI or TOML file as its preamble and its sections, each with its header line, in order. */
function sections(text: string): Array<{ name: string | null; text: string }> {
  const found: Array<{ name: string | null; text: string }> = [{ name: null, text: '' }];
  for (const line of text.split(/(?<=\n)/)) {
    const header = HEADER.exec(line.replace(/\r?\n$/, ''));
    if (header !== null) found.push({ name: (header[1] ?? '').replace(/["']/g, ''), text: line });
    else (found[found.length - 1] as { text: string }).text += line;
  }
  return found;
}

/**
 * The engine's file with the runner's sections as they were before it; the whole file as before when the runner's
 * settings could hide elsewhere (a dotted key or an inline table naming the runner outside its sections).
 */
function restoreSections(before: string | null, after: string, runnerSection: RegExp): string | null {
  const old = sections(before ?? '');
  const wanted = old.filter((section) => section.name !== null && runnerSection.test(section.name));
  const kept = sections(after).filter((section) => section.name === null || !runnerSection.test(section.name));
  const oldOutside = new Set(
    old
      .filter((section) => section.name === null || !runnerSection.test(section.name))
      .flatMap((section) => section.text.split('\n')),
  );
  const smuggled = kept
    .flatMap((section) => section.text.split('\n'))
    .some((line) => /pytest/i.test(line) && !oldOutside.has(line));
  if (smuggled) return before;
  let text = kept.map((section) => section.text).join('');
  for (const section of wanted) {
    if (text !== '' && !text.endsWith('\n')) text += '\n';
    text += section.text;
  }
  return before === null && text.trim() === '' ? null : text;
}

/** The engine's JSON with the runner's fields as they were before it; the whole file as before if either is not JSON. */
function restoreFields(before: string | null, after: string, fields: readonly string[]): string | null {
  const parse = (text: string): Record<string, unknown> | null => {
    try {
      const value = JSON.parse(text) as unknown;
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : null;
    } catch {
      return null;
    }
  };
  const old = before === null ? {} : parse(before);
  const now = parse(after);
  if (old === null || now === null) return before;
  const changed = fields.some((field) => JSON.stringify(old[field]) !== JSON.stringify(now[field]));
  if (!changed) return after;
  const result: Record<string, unknown> = { ...now };
  for (const field of fields) {
    if (field in old) result[field] = old[field];
    else delete result[field];
  }
  return `${JSON.stringify(result, null, 2)}\n`;
}
