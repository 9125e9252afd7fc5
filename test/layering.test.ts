// The layering lives in eslint.config.js; these cases run that configuration on probe sources placed in each package,
// so a rule that stops firing (a renamed package, a glob that no longer matches) fails here rather than silently
// letting an upward import through. Type-aware rules are off: the probes are not files any TypeScript project holds.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({
    cwd: root,
    ignore: false,
    overrideConfig: [{ files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked }],
  });
});

async function messagesFor(file: string, source: string): Promise<{ ruleId: string | null; message: string }[]> {
  const [result] = await eslint.lintText(source, { filePath: join(root, file) });
  return (result?.messages ?? []).map(({ ruleId, message }) => ({ ruleId, message }));
}

const restricted = (messages: { ruleId: string | null; message: string }[]) =>
  messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);

describe('imports point one way: main-job → pipeline → grader → protocol', () => {
  it.each([
    [
      'packages/protocol/src/probe.ts',
      "import { runBounded } from '@abp/grader/execution';",
      '@abp/protocol depends on no other',
    ],
    ['packages/protocol/src/probe.ts', "import { spawn } from 'node:child_process';", 'starts no process'],
    ['packages/grader/src/probe.ts', "import { openDatabase } from '@abp/pipeline/db';", '@abp/grader depends only on'],
    ['packages/grader/src/probe.ts', "import { Client } from '@temporalio/client';", 'no Temporal, database'],
    ['packages/grader/src/probe.ts', "import { drizzle } from 'drizzle-orm/pglite';", 'no Temporal, database'],
    ['packages/github-sim/src/probe.ts', "import { startWorker } from '@abp/pipeline/worker';", 'test double'],
    ['packages/pipeline/src/probe.ts', "import { runMainJob } from '@abp/main-job';", 'the main job is built on it'],
    ['packages/pipeline/src/probe.ts', "import { startSimulator } from '@abp/github-sim';", 'dev dependency'],
    [
      'packages/grader/src/probe.ts',
      "import { startProviderStandIn } from '@abp/provider-sim/server';",
      'depends only on',
    ],
    [
      'packages/provider-sim/src/probe.ts',
      "import { runMatrix } from '@abp/grader/run';",
      'test double of a model API',
    ],
    ['packages/pipeline/src/workflows/probe.ts', "import { readFile } from 'node:fs/promises';", 'deterministic'],
    ['packages/pipeline/src/workflows/probe.ts', "import { freezeTask } from '../freeze/index.js';", 'as types only'],
  ])('%s: %s is refused', async (file, source, why) => {
    const messages = restricted(await messagesFor(file, `${source}\n`));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(why);
  });

  it.each([
    ['packages/grader/src/probe.ts', "import { canonicalJson } from '@abp/protocol/canonical';"],
    ['packages/pipeline/src/probe.ts', "import { runBounded } from '@abp/grader/execution';"],
    ['packages/main-job/src/probe.ts', "import { startWorker } from '@abp/pipeline/worker';"],
    ['packages/pipeline/test/probe.test.ts', "import { startSimulator } from '@abp/github-sim';"],
    ['packages/grader/test/probe.test.ts', "import { startProviderStandIn } from '@abp/provider-sim/server';"],
    ['packages/pipeline/src/workflows/probe.ts', "import type { freezeTask } from '../freeze/index.js';"],
  ])('%s: %s is allowed', async (file, source) => {
    expect(restricted(await messagesFor(file, `${source}\n`))).toEqual([]);
  });
});

describe('no import cycles', () => {
  it('finds the cycle between the two fixture modules', async () => {
    const [result] = await eslint.lintFiles([join(root, 'test/fixtures/import-cycle/first.ts')]);
    const cycles = (result?.messages ?? []).filter((message) => message.ruleId === 'import-x/no-cycle');
    expect(cycles.map((message) => message.message)).toEqual([expect.stringContaining('Dependency cycle')]);
  });
});
