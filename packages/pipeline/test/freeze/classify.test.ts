// FAIL_TO_PASS, PASS_TO_PASS, flaky and regression classification of repeated runs, and the rejection
// a freeze gets when the runs cannot grade a fix.
import { describe, expect, it } from 'vitest';
import { classifyRuns, FreezeError, type RunResults } from '../../src/freeze/index.js';
import type { TestStatus } from '@abp/grader/test-reports';

/** One run from "id:status" words. */
function run(...entries: string[]): RunResults {
  return new Map(
    entries.map((entry) => {
      const [id = '', status = ''] = entry.split(':');
      return [id, status as TestStatus];
    }),
  );
}

const three = (...entries: string[]) => [run(...entries), run(...entries), run(...entries)];

describe('classifyRuns', () => {
  it('takes tests that fail, error, skip or are missing in every before-run and pass in every after-run as FAIL_TO_PASS', () => {
    const before = three('a:pass', 'b:fail', 'c:error', 'd:skip');
    const after = three('a:pass', 'b:pass', 'c:pass', 'd:pass', 'e:pass');
    const result = classifyRuns(before, after);
    expect(result.failToPass).toEqual(['b', 'c', 'd', 'e']);
    expect(result.passToPass).toEqual(['a']);
    expect(result.flaky).toEqual([]);
    expect(result.regressions).toEqual([]);
    expect(result.rejection).toBeNull();
  });

  it('sorts every list by id in code-unit order, whatever order the runs listed them in', () => {
    const result = classifyRuns(
      three('z:pass', 'B:fail', 'a:pass', 'b:fail'),
      three('b:pass', 'B:pass', 'a:pass', 'z:pass'),
    );
    expect(result.failToPass).toEqual(['B', 'b']);
    expect(result.passToPass).toEqual(['a', 'z']);
  });

  it('quarantines a test whose outcome differs between runs of one state, with what each run saw', () => {
    const before = [
      run('t:fail', 'f:pass', 'g:fail'),
      run('t:fail', 'f:fail', 'g:fail'),
      run('t:fail', 'f:pass', 'g:fail'),
    ];
    const after = [run('t:pass', 'f:pass', 'g:pass'), run('t:pass', 'f:pass'), run('t:pass', 'f:pass', 'g:pass')];
    const result = classifyRuns(before, after);
    expect(result.flaky).toEqual([
      { id: 'f', outcomes: { before: ['pass', 'fail', 'pass'], after: ['pass', 'pass', 'pass'] } },
      { id: 'g', outcomes: { before: ['fail', 'fail', 'fail'], after: ['pass', 'missing', 'pass'] } },
    ]);
    expect(result.failToPass).toEqual(['t']);
    expect(result.passToPass).toEqual([]);
  });

  it('counts a skip as not passing, so a test skipped in one run of a state is flaky', () => {
    const result = classifyRuns(three('a:pass', 'n:fail'), [
      run('a:pass', 'n:pass'),
      run('a:skip', 'n:pass'),
      run('a:pass', 'n:pass'),
    ]);
    expect(result.flaky.map((test) => test.id)).toEqual(['a']);
    expect(result.passToPass).toEqual([]);
  });

  it('rejects a fix after which a test that always passed fails, errors, is skipped or is gone', () => {
    const before = three('a:pass', 'b:pass', 'c:pass', 'd:pass', 'n:fail');
    const after = three('a:fail', 'b:error', 'c:skip', 'n:pass');
    const result = classifyRuns(before, after);
    expect(result.regressions).toEqual(['a', 'b', 'c', 'd']);
    expect(result.failToPass).toEqual(['n']);
    expect(result.rejection?.reason).toBe('regression');
  });

  it('rejects a fix whose tests already pass before it', () => {
    const result = classifyRuns(three('a:pass', 'b:pass'), three('a:pass', 'b:pass'));
    expect(result.failToPass).toEqual([]);
    expect(result.rejection?.reason).toBe('tests-already-pass');
  });

  it('rejects as no-fail-to-pass when tests fail before but none passes reliably after', () => {
    const before = three('a:pass', 'n:fail', 'm:fail');
    const after = [
      run('a:pass', 'n:fail', 'm:pass'),
      run('a:pass', 'n:fail', 'm:fail'),
      run('a:pass', 'n:fail', 'm:pass'),
    ];
    const result = classifyRuns(before, after);
    expect(result.flaky.map((test) => test.id)).toEqual(['m']);
    expect(result.rejection?.reason).toBe('no-fail-to-pass');
    expect(result.rejection?.detail).toContain('m, n');
  });

  it('leaves a test failing in both states out of every graded set', () => {
    const result = classifyRuns(three('broken:fail', 'n:fail'), three('broken:fail', 'n:pass'));
    expect([result.failToPass, result.passToPass, result.regressions, result.flaky]).toEqual([['n'], [], [], []]);
  });

  it('counts ids that only some runs name, and neither state names in every run, as volatile: never graded nor listed', () => {
    // A test parametrized with the time: each run names it anew.
    const before = [run('n:fail', 't[1001]:pass'), run('n:fail', 't[1002]:pass'), run('n:fail', 't[1003]:pass')];
    const after = [run('n:pass', 't[1004]:pass'), run('n:pass', 't[1005]:pass'), run('n:pass', 't[1006]:pass')];
    const result = classifyRuns(before, after);
    expect(result.volatile).toEqual(['t[1001]', 't[1002]', 't[1003]', 't[1004]', 't[1005]', 't[1006]']);
    expect([result.failToPass, result.passToPass, result.flaky, result.regressions]).toEqual([['n'], [], [], []]);
  });

  it('keeps a test every run of one state names classified: passing before and crashing in some runs after regresses', () => {
    const result = classifyRuns(three('a:pass', 'n:fail'), [run('n:pass'), run('a:fail', 'n:pass'), run('n:pass')]);
    expect(result.volatile).toEqual([]);
    expect(result.regressions).toEqual(['a']);
  });

  it('needs at least one run of each state', () => {
    expect(() => classifyRuns([], three('a:pass'))).toThrow(FreezeError);
    expect(() => classifyRuns(three('a:pass'), [])).toThrow(
      expect.objectContaining({ code: 'invalid-options' }) as Error,
    );
  });
});
