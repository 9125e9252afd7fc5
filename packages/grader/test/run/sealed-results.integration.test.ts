// A real `abp run`, then its results folder changed after the run the way a daemon left behind could: each change makes
// the real `abp gate` refuse with results-tampered (exit 3), the report's reading of the folder refuse too, and a resume
// refuse to continue on it. The untouched run still gates, and resumes without writing anything.
import { appendFile, cp, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import type { AbpVerdict } from '@abp/protocol/schemas/abp-verdict';
import type { GateReport } from '../../src/gate/index.js';
import { readRunResults, ResultsError } from '../../src/results/index.js';
import { RunError } from '../../src/run/errors.js';
import { runMatrix } from '../../src/run/run-matrix.js';
import { trialIdOf } from '../../src/run/schedule.js';
import { sha256Of } from '../../src/run/seal.js';
import { runAbp } from '../support/cli.js';
import { buildRunFixture, type RunFixture } from '../support/run-fixture.js';
import { rewriteSealed } from '../support/results.js';

let built: RunFixture;
let copies: string;
let results: string;
let runId: string;
let journalDigest: string;
let baseline: string;
const cacheDir = () => join(built.dir, 'cache');

beforeAll(async () => {
  built = await buildRunFixture({
    adapters: [
      { engine: 'fixer', script: 'fix' },
      { engine: 'noop', script: 'noop' },
    ],
    trials: 2,
  });
  copies = await mkdtemp(join(tmpdir(), 'abp-sealed-'));
  results = join(built.dir, 'results');
  const run = await runAbp(['run', '--config', built.config, '-o', results, '--json'], {}, 300_000);
  expect(run.code, run.stderr).toBe(0);
  ({ runId, journalDigest } = JSON.parse(run.stdout) as { runId: string; journalDigest: string });
  baseline = join(built.dir, 'abp-baseline.json');
  const made = await runAbp(['baseline', join(results, 'run-latest'), '--engine', 'noop', '-o', baseline]);
  expect(made.code, made.stderr).toBe(0);
}, 300_000);
afterAll(async () => {
  await built.cleanup();
  await rm(copies, { recursive: true, force: true });
});

let copied = 0;
/** A copy of the whole results folder (run-latest stays a relative link), to damage without touching the original. */
async function copyOfResults(): Promise<{ output: string; runDir: string }> {
  const output = join(copies, `results-${(copied += 1)}`);
  await cp(results, output, { recursive: true, verbatimSymlinks: true });
  return { output, runDir: join(output, runId) };
}

const gate = (runFolder: string, extra: string[] = []) =>
  runAbp(['gate', runFolder, '--baseline', baseline, '--engine', 'noop', '--json', ...extra]);

async function trialOf(runDir: string, engine: string): Promise<AbpTrial> {
  const names = (await readdir(join(runDir, 'trials'))).filter((name) => name.includes(`--${engine}--`)).sort();
  return JSON.parse(await readFile(join(runDir, 'trials', names[0] ?? ''), 'utf8')) as AbpTrial;
}

describe('a sealed run folder', () => {
  it('prints the digest of its journal, and gates and resumes untouched', async () => {
    const runDir = join(results, runId);
    expect(journalDigest).toBe(sha256Of(await readFile(join(runDir, 'progress.jsonl'))));
    const passed = await gate(join(results, 'run-latest'), ['--journal-digest', journalDigest]);
    expect(passed.code, passed.stderr).toBe(0);
    expect((JSON.parse(passed.stdout) as GateReport).passed).toBe(true);

    const before = await readFile(join(runDir, 'progress.jsonl'));
    const verdict = await readFile(join(runDir, 'verdict.json'), 'utf8');
    const resumed = await runMatrix({
      config: built.config,
      output: results,
      resumeProgress: runDir,
      cacheDir: cacheDir(),
    });
    // A finished run resumed is checked, not written again: the same journal, verdict and digest.
    expect(resumed.journalDigest).toBe(journalDigest);
    expect(await readFile(join(runDir, 'progress.jsonl'))).toEqual(before);
    expect(resumed.verdict).toEqual(JSON.parse(verdict) as AbpVerdict);
    expect(resumed.trials).toHaveLength(8);
  }, 120_000);

  const damages: Array<[string, (runDir: string) => Promise<string>]> = [
    [
      '(a) a trial file rewritten to resolved',
      async (runDir) => {
        const trial = await trialOf(runDir, 'noop');
        expect(trial.outcome).toBe('unresolved');
        await writeFile(
          join(runDir, 'trials', `${trial.trialId}.json`),
          `${JSON.stringify({ ...trial, outcome: 'resolved', reason: null }, null, 2)}\n`,
        );
        return `trials/${trial.trialId}.json`;
      },
    ],
    [
      '(b) verdict.json rewritten',
      async (runDir) => {
        const verdict = JSON.parse(await readFile(join(runDir, 'verdict.json'), 'utf8')) as AbpVerdict;
        const perEngine = verdict.perEngine.map((engine) => ({
          ...engine,
          resolveRate: { point: 1, wilson95: [0.51, 1] as [number, number] },
        }));
        await writeFile(join(runDir, 'verdict.json'), `${JSON.stringify({ ...verdict, perEngine }, null, 2)}\n`);
        return 'verdict.json';
      },
    ],
    [
      '(c) a diff receipt edited',
      async (runDir) => {
        const trial = await trialOf(runDir, 'fixer');
        await appendFile(join(runDir, trial.receipts.diff ?? ''), '+// one more line\n');
        return trial.receipts.diff ?? '';
      },
    ],
    [
      '(d) a trial file deleted',
      async (runDir) => {
        const trial = await trialOf(runDir, 'noop');
        await unlink(join(runDir, 'trials', `${trial.trialId}.json`));
        return `trials/${trial.trialId}.json`;
      },
    ],
    [
      '(e) a forged trial file added',
      async (runDir) => {
        const trial = await trialOf(runDir, 'fixer');
        const forged = { ...trial, trialId: trialIdOf(trial.task, 'noop', 9), engine: 'noop', trial: 9 };
        await writeFile(join(runDir, 'trials', `${forged.trialId}.json`), `${JSON.stringify(forged, null, 2)}\n`);
        return `trials/${forged.trialId}.json`;
      },
    ],
  ];

  for (const [label, damage] of damages) {
    it(`${label}: abp gate refuses with results-tampered, and so do the report's reading and a resume`, async () => {
      const { output, runDir } = await copyOfResults();
      const file = await damage(runDir);

      const refused = await gate(join(output, 'run-latest'));
      expect(refused.code, refused.stderr).toBe(3);
      const report = JSON.parse(refused.stdout) as GateReport;
      expect([report.comparable, report.passed]).toEqual([false, false]);
      expect(report.reasons.map((reason) => reason.code)).toEqual(['results-tampered']);
      expect(report.reasons[0]?.findings?.map((finding) => finding.file)).toEqual([file]);

      const read = await readRunResults(runDir).catch((error: unknown) => error);
      expect(read).toBeInstanceOf(ResultsError);
      expect(read).toMatchObject({ code: 'results-tampered', findings: [expect.objectContaining({ file })] });

      const resumed = await runMatrix({
        config: built.config,
        output,
        resumeProgress: runDir,
        cacheDir: cacheDir(),
      }).catch((error: unknown) => error);
      expect(resumed).toBeInstanceOf(RunError);
      expect(resumed).toMatchObject({ code: 'results-tampered' });
    }, 120_000);
  }

  it('is refused through --journal-digest even when the forger rewrote the journal to match', async () => {
    const { output, runDir } = await copyOfResults();
    const trial = await trialOf(runDir, 'noop');
    const file = `trials/${trial.trialId}.json`;
    await rewriteSealed(runDir, file, `${JSON.stringify({ ...trial, outcome: 'resolved', reason: null }, null, 2)}\n`);
    // Whoever can rewrite the whole folder can make it consistent: the seal alone cannot tell.
    expect((await gate(join(output, 'run-latest'))).code).toBe(0);
    const refused = await gate(join(output, 'run-latest'), ['--journal-digest', journalDigest]);
    expect(refused.code).toBe(3);
    expect((JSON.parse(refused.stdout) as GateReport).reasons[0]?.findings).toEqual([
      expect.objectContaining({ file: 'progress.jsonl', change: 'changed', recorded: journalDigest }),
    ]);
  }, 120_000);
});
