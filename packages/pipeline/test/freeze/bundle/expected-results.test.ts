import { describe, expect, it } from 'vitest';
import {
  parseExpectedResults,
  serializeExpectedResults,
  type ExpectedResults,
} from '@abp/protocol/bundle/expected-results';
import { bundleInput, codeOf } from './support.js';

const valid: ExpectedResults = bundleInput({ dir: '/nowhere', baseCommit: 'a'.repeat(40) }).heldOut.expected;

/** The message of the error parsing `change(valid)` raises, or "valid". */
function problem(change: (copy: Record<string, unknown>) => void): string {
  const copy = structuredClone(valid) as unknown as Record<string, unknown>;
  change(copy);
  try {
    parseExpectedResults(copy, 'held-out/expected-results.json');
    return 'valid';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('abp-expected-results/v1', () => {
  it('accepts the freeze output and names the field of each problem', async () => {
    expect(parseExpectedResults(valid, 'x')).toEqual(valid);
    expect(await codeOf(Promise.resolve().then(() => parseExpectedResults({}, 'x')))).toBe('invalid-expected-results');
    expect(problem((copy) => void (copy.failToPass = ['a', 'a']))).toMatch(
      /held-out\/expected-results\.json[\s\S]*failToPass\[1\]: repeats failToPass\[0\]/,
    );
    expect(problem((copy) => void (copy.reportFormat = 'xml'))).toMatch(/reportFormat/);
    expect(
      problem((copy) => void (copy.flaky = [{ id: 't', outcomes: { before: ['passed'], after: ['pass'] } }])),
    ).toMatch(/flaky\[0\]\.outcomes\.before\[0\]/);
    expect(problem((copy) => void (copy.flaky = [{ id: 't', outcomes: { before: [], after: ['pass'] } }]))).toMatch(
      /flaky\[0\]\.outcomes\.before/,
    );
    expect(problem((copy) => void ((copy.commands as { failToPass: string[] }).failToPass = []))).toMatch(
      /commands\.failToPass/,
    );
    expect(problem((copy) => void (copy.extra = 1))).toMatch(/extra/);
  });

  it('serializes canonically: test sets sorted, commands in their order', () => {
    const shuffled: ExpectedResults = {
      ...valid,
      failToPass: ['b', 'a', 'C'],
      flaky: [
        { id: 'z', outcomes: { before: ['fail', 'pass'], after: ['pass'] } },
        { id: 'y', outcomes: { before: ['pass'], after: ['pass', 'fail'] } },
      ],
      commands: { failToPass: ['second run', 'first run'], passToPass: [] },
    };
    const parsed = JSON.parse(serializeExpectedResults(shuffled).toString()) as ExpectedResults;
    expect(parsed.failToPass).toEqual(['C', 'a', 'b']);
    expect(parsed.flaky.map((test) => test.id)).toEqual(['y', 'z']);
    expect(parsed.flaky[1]?.outcomes.before).toEqual(['fail', 'pass']);
    expect(parsed.commands.failToPass).toEqual(['second run', 'first run']);
    expect(serializeExpectedResults(shuffled).toString()).toBe(
      serializeExpectedResults({ ...shuffled, failToPass: ['a', 'C', 'b'] }).toString(),
    );
  });
});
