import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baselineSchema } from '@abp/protocol/schemas/abp-baseline';
import { buildRunFixture, GREETING_TASK, type RunFixture } from '../support/run-fixture.js';
import { runAbp } from '../support/cli.js';

// The CI loop end to end through the real command: run, take a baseline, gate later runs against it.
describe('abp run, abp baseline and abp gate as CI uses them', () => {
  let built: RunFixture;
  let narrow: RunFixture;
  let baseline = '';
  beforeAll(async () => {
    built = await buildRunFixture({
      adapters: [
        { engine: 'fixer', script: 'fix' },
        { engine: 'noop', script: 'noop' },
      ],
      trials: 2,
    });
    narrow = await buildRunFixture({ adapters: [{ engine: 'fixer', script: 'fix' }], tasks: [GREETING_TASK] });
    baseline = join(built.dir, 'abp-baseline.json');
  }, 60_000);
  afterAll(async () => {
    await built.cleanup();
    await narrow.cleanup();
  });

  it('runs, prints where the verdict and report are, and writes a valid baseline', async () => {
    const run = await runAbp(['run', '--config', built.config, '-o', join(built.dir, 'results')]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/fixer: resolved 4\/4 scored/);
    expect(run.stdout).toMatch(/report: .*report\.html/);
    const written = await runAbp([
      'baseline',
      join(built.dir, 'results', 'run-latest'),
      '--engine',
      'fixer',
      '-o',
      baseline,
    ]);
    expect(written.code).toBe(0);
    expect(baselineSchema.parse(JSON.parse(await readFile(baseline, 'utf8')))).toMatchObject({
      engine: 'fixer',
      trials: expect.any(Array) as unknown,
    });
  }, 120_000);

  it('passes the same engine against its own baseline', async () => {
    const gate = await runAbp([
      'gate',
      join(built.dir, 'results', 'run-latest'),
      '--baseline',
      baseline,
      '--require-significant',
    ]);
    expect(gate.code).toBe(0);
    expect(gate.stdout).toMatch(/PASS/);
  });

  it('fails (exit 1) when the resolve rate drops, and says why', async () => {
    const gate = await runAbp([
      'gate',
      join(built.dir, 'results', 'run-latest'),
      '--baseline',
      baseline,
      '--engine',
      'noop',
    ]);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toMatch(/FAIL/);
    expect(gate.stdout).toMatch(/resolve/i);
  });

  it('refuses (exit 3) to compare a run on another task set', async () => {
    const run = await runAbp(['run', '--config', narrow.config, '-o', join(narrow.dir, 'results')]);
    expect(run.code).toBe(0);
    const gate = await runAbp(['gate', join(narrow.dir, 'results', 'run-latest'), '--baseline', baseline, '--json']);
    expect(gate.code).toBe(3);
    expect(JSON.parse(gate.stdout)).toMatchObject({ comparable: false });
  }, 120_000);

  it('refuses a run config with a usage error before anything starts (exit 1, file and field named)', async () => {
    const config = JSON.parse(await readFile(built.config, 'utf8')) as Record<string, unknown>;
    const broken = join(built.dir, 'broken.json');
    await writeFile(broken, JSON.stringify({ ...config, trials: 0 }));
    const run = await runAbp([
      'run',
      '--config',
      broken,
      '--adapters',
      built.adapters,
      '--tasks',
      built.tasks,
      '-o',
      join(built.dir, 'broken-results'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(broken);
    expect(run.stderr).toMatch(/trials/);
  });
});
