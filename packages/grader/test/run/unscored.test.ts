import { describe, expect, it } from 'vitest';
import { describeUnscoredRun } from '../../src/run/unscored.js';
import { buildVerdict } from '../../src/run/verdict.js';
import { makeRun, makeTrial } from '../support/results.js';

const run = {
  ...makeRun({
    engines: [
      { name: 'ghost', version: '1' },
      { name: 'flaky', version: '1' },
    ],
  }),
  id: 'run-x',
};

describe('describeUnscoredRun', () => {
  it('names every engine, what excluded its trials and the first cause, when no trial was scored', () => {
    const trials = [
      makeTrial({
        task: 'task-a',
        engine: 'ghost',
        outcome: 'engine-error',
        reason: 'failed-preflight',
        detail: 'could not invoke /nonexistent/ghost: ENOENT',
      }),
      makeTrial({ task: 'task-b', engine: 'ghost', outcome: 'engine-error', reason: 'failed-preflight' }),
      makeTrial({
        task: 'task-a',
        engine: 'flaky',
        outcome: 'harness-error',
        reason: 'setup-failed',
        detail: 'x'.repeat(500),
      }),
      makeTrial({ task: 'task-b', engine: 'flaky', outcome: 'unsupported' }),
    ];
    const message = describeUnscoredRun(buildVerdict(run, trials), trials);
    expect(message).toMatch(/^no trial could be scored: all 4 trials were excluded \(/);
    expect(message).toContain(
      'ghost: 2 engine errors, 0 harness errors, 0 unsupported; first engine-error (failed-preflight): could not invoke /nonexistent/ghost: ENOENT',
    );
    expect(message).toContain(
      'flaky: 0 engine errors, 1 harness error, 1 unsupported; first harness-error (setup-failed)',
    );
    // A long detail (an engine's stderr) is cut: the trial record keeps it whole.
    expect(message).toContain(`${'x'.repeat(200)}…`);
    expect(message).not.toContain('x'.repeat(201));
  });

  it('is null when any trial was scored, an unresolved or disqualified one included', () => {
    for (const outcome of ['resolved', 'unresolved', 'disqualified'] as const) {
      const trials = [
        makeTrial({ task: 'task-a', engine: 'ghost', outcome: 'engine-error' }),
        makeTrial({ task: 'task-a', engine: 'flaky', outcome }),
      ];
      expect(describeUnscoredRun(buildVerdict(run, trials), trials)).toBeNull();
    }
  });
});
