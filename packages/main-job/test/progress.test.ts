// How `abp start` prints its progress: a live line on a terminal, plain lines without control characters elsewhere, one
// JSON object per event with --json; and the summary block that says where to look.
import { describe, expect, it } from 'vitest';
import { createProgressPrinter, progressMode, seconds, summaryLines } from '../src/cli/progress.js';
import type { PipelineEvent } from '../src/events.js';
import type { MainJobSummary } from '../src/main-job.js';

/** A stream that keeps what is written, as a terminal (isTTY) or a pipe would receive it. */
function captured(isTTY: boolean) {
  const chunks: string[] = [];
  return { stream: { isTTY, columns: 100, write: (text: string) => chunks.push(text) }, text: () => chunks.join('') };
}

const summary: MainJobSummary = {
  schema: 'abp-main-job-summary/1',
  startedAt: '2026-11-30T18:00:00.000Z',
  seed: 8,
  world: { seed: 1, date: '2026-11-30' },
  registryVersion: 'abp-registry/2026Q4',
  drawId: 'draw-2026Q4-8-abc',
  drawRecord: '/home/.abp/published/draws/draw-2026Q4-8-abc.json',
  drawDigest: `sha256:${'1'.repeat(64)}`,
  auditCommand: 'abp audit draw /home/.abp/published/draws/draw-2026Q4-8-abc.json --snapshot s.jsonl --opt-outs o.json',
  tasks: { drawn: 2, solved: 2, merged: 2, scored: 2, rejected: 0, pulled: 2 },
  rejected: [],
  drawnTasks: [
    { taskId: 'gh-mira-quill-textkit-3', state: 'scored', reason: null },
    { taskId: 'gh-tern-labs-rangeset-2', state: 'scored', reason: null },
    { taskId: 'gh-tern-labs-durafmt-5', state: 'drawn', reason: 'drawn {"drawId":"draw-2026Q4-8-abc"}' },
  ],
  notDelivered: [],
  bundles: { 'gh-mira-quill-textkit-3': `sha256:${'2'.repeat(64)}` },
  temporalUi: 'http://127.0.0.1:8233',
  serve: 'http://127.0.0.1:40000',
  simulator: 'http://127.0.0.1:40001',
  runFolder: '/home/.abp/main-job/runs/20261130T180000Z',
  results: '/home/.abp/main-job/runs/20261130T180000Z/results/run-1',
  report: '/home/.abp/main-job/runs/20261130T180000Z/results/run-1/report.html',
  verdict: '/home/.abp/main-job/runs/20261130T180000Z/results/run-1/verdict.json',
  baseline: '/home/.abp/main-job/baselines/draw-2026Q4-8-abc.abp-baseline.json',
  gate: 'pass',
  logs: { worker: '/w.log', simulator: '/s.log', serve: '/v.log', temporal: '/t.log' },
  stages: { stack: 11_000, merge: 65_000 },
  coldStartMs: 11_000,
  totalMs: 125_000,
  memory: [{ process: 'worker', pid: 1, peakMiB: 512.5 }],
};

const events: PipelineEvent[] = [
  { event: 'stage-started', stage: 'merge', title: 'wait for CI and the maintainers', at: '2026-11-30T18:00:00.000Z' },
  { event: 'stage-progress', stage: 'merge', done: 1, total: 2, unit: 'pull requests', label: '1 merged' },
  { event: 'stage-progress', stage: 'merge', done: 1, total: 2, unit: 'pull requests', label: '1 merged' },
  { event: 'note', stage: 'merge', message: 'http://127.0.0.1:40001/o/n/pull/6: merged' },
  { event: 'stage-done', stage: 'merge', ms: 1_500, summary: '2 of 2 fixes merged' },
  { event: 'stage-started', stage: 'freeze', title: 'wait for the freezes', at: '2026-11-30T18:00:02.000Z' },
  { event: 'stage-failed', stage: 'freeze', ms: 900, reason: 'no task froze', log: '/w.log' },
  { event: 'summary', summary },
];

function play(mode: 'tty' | 'plain' | 'json', isTTY: boolean): string {
  const out = captured(isTTY);
  const printer = createProgressPrinter(mode, out.stream);
  for (const event of events) printer.sink(event);
  printer.close();
  return out.text();
}

describe('abp start progress', () => {
  it('chooses the live line only on a terminal, and JSON when asked', () => {
    expect(progressMode({ json: true }, { isTTY: true, write: () => true })).toBe('json');
    expect(progressMode({}, { isTTY: false, write: () => true })).toBe('plain');
    expect(progressMode({}, { write: () => true })).toBe('plain');
  });

  it('prints plain lines without control characters off a terminal: one per stage, each count once, the failure with its log', () => {
    const text = play('plain', false);
    // eslint-disable-next-line no-control-regex -- the assertion is exactly that no control character is written
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    const lines = text.split('\n');
    expect(lines).toContain('ok merge in 1.5 s: 2 of 2 fixes merged');
    expect(lines.filter((line) => line === '  merge 1/2 pull requests (1 merged)')).toHaveLength(1);
    expect(lines).toContain('FAILED freeze after 0.9 s: no task froze');
    expect(lines).toContain('  read /w.log');
    expect(text).toContain(`  HTML report        ${summary.report}`);
  });

  it('prints one JSON object per event with --json, a repeated count once', () => {
    const lines = play('json', true).trimEnd().split('\n');
    const parsed = lines.map((line) => JSON.parse(line) as PipelineEvent);
    expect(parsed.map((event) => event.event)).toEqual([
      'stage-started',
      'stage-progress',
      'note',
      'stage-done',
      'stage-started',
      'stage-failed',
      'summary',
    ]);
    expect(parsed.at(-1)).toEqual({ event: 'summary', summary });
  });

  it('draws a live line with a bar on a terminal and leaves one line per finished stage', () => {
    const text = play('tty', true);
    expect(text).toContain('\r\u001b[2K');
    expect(text).toContain('[██████████░░░░░░░░░░] 1/2 pull requests · 1 merged');
    expect(text).toContain('✓\u001b[0m \u001b[1mmerge\u001b[0m \u001b[2m1.5 s\u001b[0m  2 of 2 fixes merged\n');
    expect(text).toContain('✗ freeze failed');
  });

  it('prints nothing once closed: a failed stage may still have work winding down', () => {
    const out = captured(false);
    const printer = createProgressPrinter('plain', out.stream);
    printer.sink({ event: 'stage-failed', stage: 'grade', ms: 10, reason: 'the worker exited', log: '/w.log' });
    printer.close();
    printer.sink({ event: 'note', stage: 'grade', message: 'a trial finished after the failure' });
    expect(out.text()).toBe('FAILED grade after 0.0 s: the worker exited\n  read /w.log\n');
  });

  it('ends with where to look: the Web UI, the report, the results, the draw record and its audit, timings and memory', () => {
    const lines = summaryLines(summary);
    expect(lines).toEqual(
      expect.arrayContaining([
        '  Temporal Web UI    http://127.0.0.1:8233',
        `  results folder     ${summary.results}`,
        `  draw record        ${summary.drawRecord}`,
        `  re-derive the draw ${summary.auditCommand}`,
        '  stage timings      stack 11.0 s · merge 1 min 5 s',
        '  peak memory        worker 512.5 MiB',
      ]),
    );
    expect(lines[1]).toContain('Main job done in 2 min 5 s (cold start 11.0 s)');
    expect(seconds(59_940)).toBe('59.9 s');
    expect(lines.join('\n')).not.toContain('rejected');
  });

  it('names every task the freeze rejected, with its reason, and says the job fails for it', () => {
    const reason = 'environment-build-failed {"detail":"pip: no matching distribution"}';
    const lines = summaryLines({
      ...summary,
      tasks: { ...summary.tasks, scored: 1, rejected: 1 },
      rejected: [{ taskId: 'gh-tern-labs-rangeset-2', reason }],
    });
    expect(lines[1]).toContain('1 scored, 1 rejected by the freeze');
    expect(lines[1]).toContain('the job exits 1 for the merged fixes that were not frozen and graded');
    expect(lines).toContain(`    ${'gh-tern-labs-rangeset-2'.padEnd(34)} ${reason}`);
  });

  it('lists where every drawn task ended, and each merged fix that was not delivered, with why', () => {
    const lines = summaryLines({
      ...summary,
      notDelivered: [{ taskId: 'gh-tern-labs-rangeset-2', why: 'freezing: freeze-stalled {"fault":"disk-full"}' }],
    });
    expect(lines[1]).toContain('the job exits 1 for the merged fixes that were not frozen and graded');
    const at = lines.indexOf('  every drawn task, where it ended:');
    expect(lines.slice(at + 1, at + 4)).toEqual([
      `    ${'gh-mira-quill-textkit-3'.padEnd(34)} scored`,
      `    ${'gh-tern-labs-rangeset-2'.padEnd(34)} scored`,
      `    ${'gh-tern-labs-durafmt-5'.padEnd(34)} drawn: drawn {"drawId":"draw-2026Q4-8-abc"}`,
    ]);
    expect(lines).toContain(
      `    ${'gh-tern-labs-rangeset-2'.padEnd(34)} freezing: freeze-stalled {"fault":"disk-full"}`,
    );
  });
});
