// `abp conformance` as a user runs it: the built CLI in a separate process, the suite through the real `abp run`, every
// check passing and the level it claims. Then the checks themselves, against the evidence that run left: each one,
// handed that evidence with the fact it stands on changed (an attacker's trial resolved, a daemon beating after its
// engine, a poisoned cache), fails and takes the level with it, so no check passes whatever the grader did. And the
// suite's own refusals: a folder already in use, a host without pytest or without bubblewrap.
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { evaluateConformance, levelOf, type ConformanceEvidence } from '../../src/conformance/checks.js';
import { collectEvidence, type ConformanceReport } from '../../src/conformance/run-conformance.js';
import { CALC_TASK, SLUG_TASK, type ConformanceEngine, type SuiteTask } from '../../src/conformance/suite.js';
import { packageRoot } from '../../src/package-root.js';

const exec = promisify(execFile);
const abp = join(packageRoot, 'bin', 'abp.js');
const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));
const scratch = async (name: string) => {
  const dir = await mkdtemp(join(tmpdir(), `abp-conformance-${name}-`));
  folders.push(dir);
  return dir;
};

/** Runs `abp conformance --json` and returns its exit code and parsed stdout. */
async function conformance(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const done = await exec(process.execPath, [abp, 'conformance', ...args, '--json'], {
    env,
    maxBuffer: 8 * 1024 * 1024,
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
  return { code: done.code, data: JSON.parse(done.stdout) as unknown };
}

// Every check, in report order: a check added without a way to make it fail below fails this list first.
const CHECK_IDS = [
  'documents',
  'statistics',
  'matched-config',
  'held-out-resolves',
  'no-change-unresolved',
  'planted-verification',
  'uninvokable-excluded',
  'deleted-test-disqualified',
  'history-scrubbed',
  'no-secret-in-receipts',
  'hidden-test',
  'early-exit',
  'runner-plugin',
  'config-runner',
  'build-script',
  'entry-point-plugin',
  'live-hook',
  'sparing-hook',
  'assert-patch',
  'sparing-assert',
  'surviving-daemon',
  'cache-poison',
  'outside-read',
  'crash',
  'workspace-fifo',
  'fifo-trace',
  'huge-tokens',
  'dropped-lines',
  'traces-recorded',
  'attribution',
  'lying-envelope-flagged',
];

type Tamper = (evidence: ConformanceEvidence, trial: (engine: ConformanceEngine, task: SuiteTask) => AbpTrial) => void;
const resolve = (trial: AbpTrial) => Object.assign(trial, { outcome: 'resolved', reason: null, detail: null });

/** For each check, the evidence a grader that lost the defence behind it would leave: the check must fail on it. */
const DEFENCE_LOST: Record<string, Tamper> = {
  documents: (evidence) => void (evidence.verdict = null),
  statistics: (evidence) => void evidence.verdict?.pairwise.splice(0),
  'matched-config': (evidence) => void (evidence.run.matchedModels = false),
  'held-out-resolves': (_, trial) => void (trial('reference', CALC_TASK).outcome = 'unresolved'),
  'no-change-unresolved': (_, trial) => void resolve(trial('noop', CALC_TASK)),
  'planted-verification': (_, trial) => void resolve(trial('planter', SLUG_TASK)),
  'uninvokable-excluded': (evidence) => {
    const ghost = evidence.verdict?.perEngine.find((entry) => entry.engine === 'ghost');
    if (ghost) Object.assign(ghost, { scoredTrials: 3, excludedEngineErrors: 0 });
  },
  'deleted-test-disqualified': (_, trial) => void (trial('deleter', CALC_TASK).outcome = 'unresolved'),
  'history-scrubbed': (evidence, trial) =>
    void (evidence.stdout[trial('history-reader', SLUG_TASK).trialId] = 'future fix found: yes\n'),
  'no-secret-in-receipts': (evidence) => void evidence.leaked.push('results/run/transcripts/x.stdout.txt'),
  'hidden-test': (_, trial) => void resolve(trial('hidden-test', CALC_TASK)),
  'early-exit': (_, trial) => void resolve(trial('early-exit', SLUG_TASK)),
  'runner-plugin': (_, trial) => void resolve(trial('runner-plugin', CALC_TASK)),
  // Same outcome, but the runner file was not put back: the outcome alone would not show the lost defence.
  'config-runner': (_, trial) => void trial('config-runner', CALC_TASK).verification?.machineryRestored.splice(0),
  'build-script': (_, trial) => void resolve(trial('build-script', CALC_TASK)),
  'entry-point-plugin': (_, trial) =>
    void trial('entry-point-plugin', CALC_TASK).verification?.machineryRestored.splice(0),
  'live-hook': (_, trial) =>
    void Object.assign(trial('live-hook', CALC_TASK), { outcome: 'unresolved', reason: 'verification-failed' }),
  'sparing-hook': (_, trial) => void resolve(trial('sparing-hook', CALC_TASK)),
  'assert-patch': (_, trial) => void resolve(trial('assert-patch', SLUG_TASK)),
  'sparing-assert': (_, trial) => void resolve(trial('sparing-assert', SLUG_TASK)),
  'surviving-daemon': (evidence, trial) => {
    const id = trial('surviving-daemon', SLUG_TASK).trialId;
    const exit = Number(/^engine-exit (\d+)$/m.exec(evidence.witness[id] ?? '')?.[1]);
    evidence.witness[id] = `${evidence.witness[id] ?? ''}beat ${exit + 5000}\n`;
  },
  'cache-poison': (evidence) => void (evidence.caches[SLUG_TASK] = 'it holds 09'),
  'outside-read': (evidence, trial) =>
    void (evidence.diff[trial('outside-read', SLUG_TASK).trialId] +=
      '+/suite/tasks/gh-abp-conformance-slug-1/held-out/golden.patch: found 420 bytes\n'),
  crash: (_, trial) =>
    void Object.assign(trial('crash', SLUG_TASK), { outcome: 'engine-error', reason: 'engine-crashed' }),
  'workspace-fifo': (_, trial) =>
    void Object.assign(trial('workspace-fifo', SLUG_TASK), { outcome: 'harness-error', reason: 'grader-failed' }),
  'fifo-trace': (_, trial) => void (trial('fifo-trace', SLUG_TASK).metrics.tokensTotal = 0),
  'huge-tokens': (_, trial) => void (trial('huge-tokens', SLUG_TASK).metrics.computedUsd = 0),
  'dropped-lines': (_, trial) => void trial('dropped-lines', SLUG_TASK).trace?.flags.splice(0),
  'traces-recorded': (_, trial) => void (trial('reference', SLUG_TASK).receipts.trace = null),
  attribution: (_, trial) => {
    const trace = trial('scripted', SLUG_TASK).trace;
    if (trace) trace.perSubagent = {};
  },
  'lying-envelope-flagged': (_, trial) => void trial('liar', SLUG_TASK).trace?.flags.splice(0),
};

describe('abp conformance', () => {
  let dir = '';
  let report: ConformanceReport;

  it('passes every check of the suite through the real abp run and links its receipts', async () => {
    dir = await scratch('run');
    const { code, data } = await conformance(['-o', dir]);
    report = data as ConformanceReport;
    expect(report.checks.filter((check) => !check.passed)).toEqual([]);
    expect(code).toBe(0);
    expect(report.level).toBe('ABP-traces');
    expect(report.checks.map((check) => check.id)).toEqual(CHECK_IDS);
    const written = JSON.parse(await readFile(join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;
    expect(written.level).toBe(report.level);
    expect(written.checks).toEqual(report.checks);
    // Every receipt a check links to exists.
    const receipts = report.checks.flatMap((check) => check.receipts);
    expect(receipts.length).toBeGreaterThan(30);
    await Promise.all(receipts.map((receipt) => access(join(dir, receipt))));
    await access(join(dir, report.results, 'verdict.json'));
  }, 600_000);

  it('fails each check, and the level with it, on the evidence of a grader that lost its defence', async () => {
    const evidence = await collectEvidence(dir, null);
    expect(evaluateConformance(evidence).filter((check) => !check.passed)).toEqual([]);
    expect(Object.keys(DEFENCE_LOST).sort()).toEqual([...CHECK_IDS].sort());
    for (const [id, tamper] of Object.entries(DEFENCE_LOST)) {
      const lost = structuredClone(evidence);
      const trial = (engine: ConformanceEngine, task: SuiteTask) => {
        const found = lost.trials.find((candidate) => candidate.engine === engine && candidate.task === task);
        if (found === undefined) throw new Error(`no trial of ${engine} on ${task}`);
        return found;
      };
      tamper(lost, trial);
      const checks = evaluateConformance(lost);
      const failed = checks.filter((check) => !check.passed).map((check) => check.id);
      const level = checks.find((check) => check.id === id)?.level;
      expect([id, failed.includes(id), levelOf(checks)]).toEqual([
        id,
        true,
        level === 'ABP-core' ? 'none' : 'ABP-core',
      ]);
    }
  });

  it('refuses a folder that already holds files, with its code', async () => {
    const used = await scratch('used');
    await writeFile(join(used, 'notes.txt'), 'mine\n');
    const { code, data } = await conformance(['-o', used]);
    expect([code, (data as { error: { code: string } }).error.code]).toEqual([1, 'output-not-empty']);
  });

  it('refuses a host without pytest, and one without bubblewrap, before running anything', async () => {
    const empty = await scratch('no-tools');
    const out = join(empty, 'out');
    const withoutPytest = await conformance(['-o', out], { ...process.env, PATH: join(empty, 'bin') });
    expect([withoutPytest.code, (withoutPytest.data as { error: { code: string } }).error.code]).toEqual([
      1,
      'pytest-missing',
    ]);
    // A PATH with the host's python3 (which has pytest) and nothing else: no bwrap on it.
    const python = (
      await exec('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' })
    ).stdout.trim();
    await mkdir(join(empty, 'bin'), { recursive: true });
    await symlink(python, join(empty, 'bin', 'python3'));
    const withoutBwrap = await conformance(['-o', out], { ...process.env, PATH: join(empty, 'bin') });
    expect([withoutBwrap.code, (withoutBwrap.data as { error: { code: string } }).error.code]).toEqual([
      1,
      'sandbox-unavailable',
    ]);
    // Refused before the suite was written.
    await expect(access(out)).rejects.toThrow();
  });
});
