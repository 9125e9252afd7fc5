// `abp gate` and `abp baseline` through their command functions: the screen, --json, and the CommandFailed codes
// that become exit codes (1 failed, 3 refused).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { defaultGateThresholds } from '@abp/protocol/schemas/abp-baseline';
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import { baselineCommand, gateCommand } from '../../src/cli/gate.js';
import { CommandFailed } from '../../src/cli/output.js';
import { GateError, readBaselineFile, type GateReport } from '../../src/gate/index.js';
import { sha256Of } from '../../src/run/seal.js';
import { makeRun, matrix, rewriteSealed, writeResultsFolder, type TrialSpec } from '../support/results.js';

const root = await mkdtemp(join(tmpdir(), 'abp-gate-cli-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const TASKS = ['task-a', 'task-b', 'task-c', 'task-d', 'task-e', 'task-f'];

let folders = 0;
/** Writes a run into results/ of a fresh folder; returns results/run-latest, as CI passes it. */
async function resultsFolder(
  run: AbpRun,
  spec?: (task: string, engine: string, trial: number) => Partial<TrialSpec>,
): Promise<string> {
  const results = join(root, `case-${(folders += 1)}`, 'results');
  await mkdir(results, { recursive: true });
  await writeResultsFolder(results, { run, trials: matrix(run, spec) });
  return join(results, 'run-latest');
}

/** Runs a command with stdout captured; returns what it printed and what it threw. */
async function capture(command: () => Promise<void>): Promise<{ stdout: string; error: unknown }> {
  let stdout = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  try {
    await command();
    return { stdout, error: undefined };
  } catch (error) {
    return { stdout, error };
  } finally {
    spy.mockRestore();
  }
}

function failure(error: unknown): { code: string; exitCode: number; reportedAsData: boolean } {
  expect(error).toBeInstanceOf(CommandFailed);
  const { code, exitCode, reportedAsData } = error as CommandFailed;
  return { code, exitCode, reportedAsData };
}

const mainRun = makeRun({ id: 'run-main', tasks: TASKS, trials: 2 });
const baselineFile = join(root, 'abp-baseline.json');
const made = await capture(async () =>
  baselineCommand(await resultsFolder(mainRun), {
    engine: 'oxagen',
    output: baselineFile,
    maxTokensGrowth: 0.1,
    alpha: 0.01,
  }),
);
const prRun = makeRun({ id: 'run-pr', tasks: TASKS, trials: 2 });

describe('abp baseline', () => {
  it('writes the baseline file and says what it holds', async () => {
    expect(made.error).toBeUndefined();
    expect(made.stdout).toContain(`wrote ${baselineFile}: engine oxagen on ${mainRun.model}, run run-main`);
    expect(made.stdout).toContain('6 tasks, 12 scored trials, 12 resolved (100.0%)');
    const baseline = await readBaselineFile(baselineFile);
    expect(baseline.thresholds).toEqual({ ...defaultGateThresholds, tokensTotal: 0.1 });
    expect(baseline.alpha).toBe(0.01);
    expect(baseline.trials).toHaveLength(12);
  });

  it('prints the file and the baseline as data with --json', async () => {
    const output = join(root, 'json-baseline.json');
    const { stdout, error } = await capture(async () =>
      baselineCommand(await resultsFolder(mainRun), { engine: 'oxagen', output, json: true }),
    );
    expect(error).toBeUndefined();
    const data = JSON.parse(stdout) as { file: string; baseline: unknown };
    expect(data.file).toBe(output);
    expect(data.baseline).toEqual(JSON.parse(await readFile(output, 'utf8')));
  });
});

describe('abp gate', () => {
  it('passes with exit 0: a PASS line, then one line per check', async () => {
    const { stdout, error } = await capture(async () =>
      gateCommand(await resultsFolder(prRun), { baseline: baselineFile, requireSignificant: true }),
    );
    expect(error).toBeUndefined();
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PASS {2}engine oxagen, run run-pr vs baseline .*abp-baseline\.json \(run run-main\)/);
    expect(lines.slice(1).map((line) => line.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'pass resolve-rate',
      'pass resolve-rate-all-trials',
      'pass diffBytesNormalized',
      'pass tokensTotal',
      'pass wallClockMs',
      'pass computedUsd',
    ]);
  });

  it('fails with gate-failed (exit 1) and names the failing checks', async () => {
    const grown = await resultsFolder(prRun, () => ({ metrics: { tokensTotal: 60_000 } }));
    const { stdout, error } = await capture(() => gateCommand(grown, { baseline: baselineFile }));
    expect(failure(error)).toEqual({ code: 'gate-failed', exitCode: 1, reportedAsData: false });
    expect(stdout).toMatch(/^FAIL {2}.*1 of 6 checks failed \(tokensTotal\)/);
    expect(stdout).toMatch(
      /\n {2}fail {5}tokensTotal +median tokens 60000 vs 50000 in the baseline, \+20\.0% \(allowed \+10\.0%\)/,
    );
  });

  it('fails a significant resolve-rate drop under --require-significant, and prints the report with --json', async () => {
    const dropped = await resultsFolder(prRun, (task) => ({ outcome: task === 'task-a' ? 'resolved' : 'unresolved' }));
    const { stdout, error } = await capture(() =>
      gateCommand(dropped, { baseline: baselineFile, requireSignificant: true, json: true }),
    );
    expect(failure(error)).toEqual({ code: 'gate-failed', exitCode: 1, reportedAsData: true });
    const report = JSON.parse(stdout) as GateReport;
    expect(report.passed).toBe(false);
    expect(report.checks[0]).toMatchObject({ id: 'resolve-rate', status: 'fail', current: 2 / 12 });
  });

  it('refuses with not-comparable (exit 3) and lists the reasons', async () => {
    const other = await resultsFolder(
      makeRun({ id: 'run-pr', tasks: TASKS.slice(0, 4), trials: 2, model: 'openai/gpt-5.2' }),
    );
    const { stdout, error } = await capture(() => gateCommand(other, { baseline: baselineFile }));
    expect(failure(error)).toEqual({ code: 'not-comparable', exitCode: 3, reportedAsData: false });
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^REFUSED {2}.*: not comparable$/);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain('task-e, task-f');

    const json = await capture(() => gateCommand(other, { baseline: baselineFile, json: true }));
    expect(failure(json.error)).toEqual({ code: 'not-comparable', exitCode: 3, reportedAsData: true });
    expect((JSON.parse(json.stdout) as GateReport).reasons.map((reason) => reason.code)).toEqual([
      'model-differs',
      'task-set-differs',
    ]);
  });

  it('gates the engine named by --engine', async () => {
    const renamed = await resultsFolder(
      makeRun({ id: 'run-pr', tasks: TASKS, trials: 2, engines: [{ name: 'oxagen-next', version: '1.5.0' }] }),
    );
    expect((await capture(() => gateCommand(renamed, { baseline: baselineFile }))).error).toMatchObject({
      code: 'not-comparable',
    });
    expect(
      (await capture(() => gateCommand(renamed, { baseline: baselineFile, engine: 'oxagen-next' }))).error,
    ).toBeUndefined();
  });

  it('refuses with results-tampered (exit 3) a run folder that does not match its journal, and says which file', async () => {
    const folder = await resultsFolder(prRun, (task) => ({ outcome: task === 'task-a' ? 'unresolved' : 'resolved' }));
    const trialFile = join(folder, 'trials', 'task-a.oxagen.0.json');
    const trial = JSON.parse(await readFile(trialFile, 'utf8')) as Record<string, unknown>;
    await writeFile(trialFile, JSON.stringify({ ...trial, outcome: 'resolved' }));

    const screen = await capture(() => gateCommand(folder, { baseline: baselineFile }));
    expect(failure(screen.error)).toEqual({ code: 'results-tampered', exitCode: 3, reportedAsData: false });
    expect(screen.stdout).toMatch(/^REFUSED {2}/);
    expect(screen.stdout).toContain('trials/task-a.oxagen.0.json: changed');

    const json = await capture(() => gateCommand(folder, { baseline: baselineFile, json: true }));
    expect(failure(json.error)).toEqual({ code: 'results-tampered', exitCode: 3, reportedAsData: true });
    const report = JSON.parse(json.stdout) as GateReport;
    expect([report.comparable, report.passed, report.checks]).toEqual([false, false, []]);
    expect(report.reasons.map((reason) => reason.code)).toEqual(['results-tampered']);
    expect(report.reasons[0]?.findings).toEqual([
      expect.objectContaining({ file: 'trials/task-a.oxagen.0.json', change: 'changed' }),
    ]);
  });

  it('checks the journal against the digest abp run printed, with --journal-digest', async () => {
    const folder = await resultsFolder(prRun);
    const printed = sha256Of(await readFile(join(folder, 'progress.jsonl')));
    expect((await capture(() => gateCommand(folder, { baseline: baselineFile, journalDigest: printed }))).error).toBe(
      undefined,
    );
    const other = `sha256:${'0'.repeat(64)}`;
    const { error, stdout } = await capture(() =>
      gateCommand(folder, { baseline: baselineFile, journalDigest: other, json: true }),
    );
    expect(failure(error)).toMatchObject({ code: 'results-tampered', exitCode: 3 });
    expect((JSON.parse(stdout) as GateReport).reasons[0]?.findings).toEqual([
      { file: 'progress.jsonl', change: 'changed', recorded: other, found: printed },
    ]);
  });

  it('refuses a run whose sealed trial file this grader cannot read, naming it, and gates the other engine', async () => {
    const twoEngines = makeRun({
      id: 'run-pr',
      tasks: TASKS,
      trials: 2,
      engines: [
        { name: 'oxagen', version: '1.4.2' },
        { name: 'hermes', version: '0.1.0' },
      ],
    });
    const folder = await resultsFolder(twoEngines);
    const file = 'trials/task-a.hermes.0.json';
    const trial = JSON.parse(await readFile(join(folder, file), 'utf8')) as Record<string, unknown>;
    await rewriteSealed(folder, file, JSON.stringify({ ...trial, metrics: 'none' }));
    expect((await capture(() => gateCommand(folder, { baseline: baselineFile }))).error).toBeUndefined();
    const { error, stdout } = await capture(() =>
      gateCommand(folder, { baseline: baselineFile, engine: 'hermes', json: true }),
    );
    expect(failure(error)).toMatchObject({ code: 'not-comparable', exitCode: 3 });
    expect((JSON.parse(stdout) as GateReport).reasons.map((reason) => reason.code)).toEqual([
      'incomplete-run',
      'unreadable-trials',
    ]);
  });

  it('stops on a missing baseline file before comparing anything', async () => {
    const { error } = await capture(async () =>
      gateCommand(await resultsFolder(prRun), { baseline: join(root, 'absent.json') }),
    );
    expect(error).toBeInstanceOf(GateError);
    expect((error as GateError).code).toBe('missing-baseline');
  });
});
