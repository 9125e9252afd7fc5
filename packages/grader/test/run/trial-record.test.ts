import { describe, expect, it } from 'vitest';
import { trialSchema, type AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { checkedTrialRecord } from '../../src/run/trial-record.js';
import { makeTrial } from '../support/results.js';

const now = () => new Date('2026-07-18T10:02:00Z');

describe('checkedTrialRecord', () => {
  it('passes a valid record through as it is', () => {
    const trial = makeTrial({ task: 't1' });
    expect(checkedTrialRecord(trial, now)).toBe(trial);
  });

  it('turns a record that fails abp-trial/v1 into a valid harness-error, keeping what identifies it and what is valid', () => {
    const trial: AbpTrial = {
      ...makeTrial({ task: 't1', engine: 'a', trial: 2, order: 7 }),
      metrics: { diffBytesNormalized: 10, tokensTotal: Number.MAX_SAFE_INTEGER + 2, wallClockMs: 5, computedUsd: 1 },
    };
    const checked = checkedTrialRecord(trial, now);
    expect(trialSchema.safeParse(checked).success).toBe(true);
    expect(checked).toMatchObject({
      trialId: trial.trialId,
      task: 't1',
      engine: 'a',
      trial: 2,
      order: 7,
      outcome: 'harness-error',
      reason: 'invalid-trial-record',
      metrics: { diffBytesNormalized: null, tokensTotal: null, wallClockMs: null, computedUsd: null },
      engineProcess: trial.engineProcess,
      receipts: trial.receipts,
      timing: trial.timing,
    });
    expect(checked.detail).toContain('metrics.tokensTotal');
  });

  it('replaces every invalid part, a broken timing included', () => {
    const trial = {
      ...makeTrial({ task: 't1' }),
      timing: { startedAt: 'yesterday', finishedAt: 'today', harnessOverheadMs: -1 },
      trace: {
        source: 'native',
        flags: [],
        problems: 0,
        modelCalls: 1,
        tokens: { input: Number.NaN, output: 0, cacheRead: 0, cacheWrite: 0 },
        perModel: {},
        perSubagent: {},
        unpricedModels: [],
      },
    } as AbpTrial;
    const checked = checkedTrialRecord(trial, now);
    expect(trialSchema.safeParse(checked).success).toBe(true);
    expect(checked.trace).toBeNull();
    expect(checked.timing.startedAt).toBe('2026-07-18T10:02:00.000Z');
  });
});
