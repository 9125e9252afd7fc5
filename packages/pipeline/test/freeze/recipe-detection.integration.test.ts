// The freeze's recipe for a repository without a registry entry, from detection over its whole tree at the
// base commit (a real git repository): a pnpm monorepo whose root script fans out to vitest in its packages gets the
// pnpm install the repository pins and vitest run from the root; a repository whose suite cannot run here is refused
// with why.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FreezeError, recipeFor } from '../../src/freeze/index.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-recipe-detection-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function repository(name: string, files: Record<string, string>): Promise<{ gitDir: string; base: string }> {
  const dir = join(root, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir })
      .toString()
      .trim();
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'base');
  return { gitDir: dir, base: git('rev-parse', 'HEAD') };
}

describe('recipeFor a repository by detection over its tree', () => {
  it('gives a pnpm monorepo the install it pins and the runner its packages call', async () => {
    const repo = await repository('monorepo', {
      'package.json': JSON.stringify({ packageManager: 'pnpm@9.12.3', scripts: { test: 'pnpm -r test' } }),
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
      'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n",
      'packages/core/package.json': JSON.stringify({ scripts: { test: 'vitest' } }),
      'packages/core/test/sum.test.ts': "import { it } from 'vitest';\nit('adds', () => {});\n",
    });
    const recipe = await recipeFor({ repo: 'octo/mono', ...repo, entry: null });
    expect(recipe).toEqual({
      runner: 'vitest',
      ecosystem: 'node',
      install: ['npx --yes pnpm@9.12.3 install --frozen-lockfile'],
      test: 'node_modules/.bin/vitest run',
      report: 'jest-json',
    });
  });

  it('refuses a suite it finds but cannot run here, saying why', async () => {
    const repo = await repository('gem', { Gemfile: "source 'https://rubygems.org'\n", 'spec/a_spec.rb': '' });
    const refused = await recipeFor({ repo: 'octo/gem', ...repo, entry: null }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(FreezeError);
    expect(refused).toMatchObject({ code: 'unsupported-runner' });
    expect((refused as Error).message).toContain('ruby, rspec: gems come from rubygems.org');
  });
});
