import { describe, expect, it } from 'vitest';
import { verdictSchema } from '@abp/protocol/schemas/abp-verdict';
import { buildVerdict } from '../../src/run/verdict.js';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { makeRun, makeTrial } from '../support/results.js';

const run = makeRun({
  id: 'run-x',
  engines: [
    { name: 'a', version: '1' },
    { name: 'b', version: '1' },
  ],
  tasks: ['t1', 't2', 't3', 't4', 't5', 't6'],
});
const trials = [
  makeTrial({ task: 't1', engine: 'a', outcome: 'resolved', metrics: { diffBytesNormalized: 100, tokensTotal: 1000 } }),
  makeTrial({ task: 't1', engine: 'b', outcome: 'resolved', metrics: { diffBytesNormalized: 200, tokensTotal: 2000 } }),
  makeTrial({ task: 't2', engine: 'a', outcome: 'resolved', metrics: { diffBytesNormalized: 300, tokensTotal: 3000 } }),
  makeTrial({ task: 't2', engine: 'b', outcome: 'unresolved' }),
  makeTrial({ task: 't3', engine: 'a', outcome: 'resolved', metrics: { diffBytesNormalized: 50, tokensTotal: 500 } }),
  makeTrial({ task: 't3', engine: 'b', outcome: 'resolved', metrics: { diffBytesNormalized: 100, tokensTotal: 1000 } }),
  makeTrial({ task: 't4', engine: 'a', outcome: 'disqualified' }),
  makeTrial({
    task: 't4',
    engine: 'b',
    outcome: 'engine-error',
    metrics: { diffBytesNormalized: null, tokensTotal: null },
  }),
  makeTrial({ task: 't5', engine: 'a', outcome: 'harness-error' }),
  makeTrial({ task: 't5', engine: 'b', outcome: 'resolved', metrics: { diffBytesNormalized: 10, tokensTotal: 10 } }),
  makeTrial({ task: 't6', engine: 'a', outcome: 'unsupported' }),
  makeTrial({ task: 't6', engine: 'b', outcome: 'unresolved' }),
];

describe('buildVerdict', () => {
  const verdict = buildVerdict({ ...run, id: 'run-x' }, trials);

  it('is a valid abp-verdict/v1 document', () => {
    expect(verdictSchema.safeParse(verdict).success).toBe(true);
  });

  it('scores resolved, unresolved and disqualified trials, and reports the rest apart', () => {
    const [a, b] = verdict.perEngine;
    expect(a).toMatchObject({
      engine: 'a',
      scoredTrials: 4,
      resolvedTrials: 3,
      disqualifiedTrials: 1,
      excludedEngineErrors: 0,
      excludedHarnessErrors: 1,
      unsupportedTrials: 1,
    });
    expect(b).toMatchObject({
      engine: 'b',
      scoredTrials: 5,
      resolvedTrials: 3,
      excludedEngineErrors: 1,
      excludedHarnessErrors: 0,
      unsupportedTrials: 0,
    });
    expect(a?.resolveRate?.point).toBe(0.75);
    expect(a?.verifiedRateAllTrials?.point).toBe(0.6);
    // Wilson 95% for 3/4: [0.300642, 0.954413] (Newcombe 1998, method 3).
    expect(a?.resolveRate?.wilson95).toEqual([0.300642, 0.954413]);
  });

  it('takes efficiency medians over resolved trials only', () => {
    expect(verdict.perEngine[0]).toMatchObject({ medianDiffBytesNormalized: 100, medianTokensTotal: 1000 });
  });

  it('pairs trials scored for both engines for McNemar and the deltas', () => {
    const [pair] = verdict.pairwise;
    // Pairs: t1 (both), t2 (a only), t3 (both); t4..t6 have an excluded side.
    expect(pair).toMatchObject({ a: 'a', b: 'b', pairedTrials: 3, mcnemar: { discordant: [1, 0], pExact: 1 } });
    expect(pair?.diffDelta?.relMedian).toBe(-0.5);
    expect(pair?.diffDelta?.seed).toBe(run.seed);
  });

  it('reports no relative change when the baseline median is zero', () => {
    const zero = buildVerdict({ ...run, id: 'run-x' }, [
      makeTrial({ task: 't1', engine: 'a', metrics: { computedUsd: 0.1 } }),
      makeTrial({ task: 't1', engine: 'b', metrics: { computedUsd: 0 } }),
    ]);
    expect(zero.pairwise[0]?.costDelta).toBeNull();
    expect(zero.pairwise[0]?.diffDelta).not.toBeNull();
  });

  it('leads its warnings with unmatched models', () => {
    const unmatched = buildVerdict({ ...run, id: 'run-x', matchedModels: false }, trials);
    expect(unmatched.warnings?.[0]).toMatch(/matchedModels is false/);
  });

  it('is byte-identical for the same trials in any order', () => {
    expect(JSON.stringify(buildVerdict({ ...run, id: 'run-x' }, [...trials].reverse()))).toBe(JSON.stringify(verdict));
  });
});

describe('trials whose tokens or cost are unknown', () => {
  const traced = (flags: string[], unpricedModels: string[] = []): AbpTrial['trace'] => ({
    source: 'native',
    flags,
    problems: 0,
    modelCalls: 2,
    tokens: { input: 900_000, output: 0, cacheRead: 0, cacheWrite: 0 },
    perModel: {},
    perSubagent: {},
    unpricedModels,
  });
  const unknown = { tokensTotal: null, computedUsd: null };
  const trialsOf = [
    makeTrial({ task: 't1', engine: 'a', metrics: { tokensTotal: 1000, computedUsd: 1 } }),
    makeTrial({ task: 't1', engine: 'b', metrics: { tokensTotal: 3000, computedUsd: 3 } }),
    makeTrial({ task: 't2', engine: 'a', metrics: { tokensTotal: 2000, computedUsd: 2 } }),
    { ...makeTrial({ task: 't2', engine: 'b', metrics: unknown }), trace: traced(['invalid-lines', 'tokens-unknown']) },
    {
      ...makeTrial({ task: 't3', engine: 'a', metrics: { ...unknown, tokensTotal: 11 } }),
      trace: traced(['unpriced-model', 'budget-unchecked'], ['acme/unpriced']),
    },
    makeTrial({ task: 't3', engine: 'b', metrics: { tokensTotal: 9000, computedUsd: 9 } }),
  ];
  const verdict = buildVerdict({ ...run, id: 'run-x' }, trialsOf);

  it('leaves them out of the medians of those metrics', () => {
    expect(verdict.perEngine[0]).toMatchObject({ medianTokensTotal: 1000, medianComputedUsd: 1.5 });
    expect(verdict.perEngine[1]).toMatchObject({ medianTokensTotal: 6000, medianComputedUsd: 6 });
  });

  it('pairs only trials that both have the value', () => {
    // tokens: t1 and t3 pair (a's 11 is known, b's t2 is not); cost: only t1 pairs.
    const pair = verdict.pairwise[0];
    const only = buildVerdict(
      { ...run, id: 'run-x' },
      trialsOf.filter((trial) => trial.task !== 't2'),
    );
    expect(pair?.tokensDelta).toEqual(only.pairwise[0]?.tokensDelta);
    const t1 = buildVerdict(
      { ...run, id: 'run-x' },
      trialsOf.filter((trial) => trial.task === 't1'),
    );
    expect(pair?.costDelta).toEqual(t1.pairwise[0]?.costDelta);
    expect(pair?.costDelta?.relMedian).toBe(-0.666667); // 1 against 3
  });

  it('warns of unknown tokens and of an unpriced model, naming the engine and the model', () => {
    const warnings = verdict.warnings ?? [];
    const about = (engine: string, code: string) =>
      warnings.filter((warning) => warning.startsWith(`${engine}: `) && warning.includes(code));
    expect(about('b', 'tokens-unknown')).toHaveLength(1);
    expect(about('a', 'budget-unchecked')).toHaveLength(1);
    const unpriced = warnings.filter((warning) => warning.includes('acme/unpriced'));
    expect(unpriced).toHaveLength(1);
    expect(unpriced[0]?.startsWith('a: ')).toBe(true);
    expect(verdictSchema.safeParse(verdict).success).toBe(true);
  });
});

describe('difficulty strata (spec §4.5)', () => {
  // t1..t3 small fixes, t4 and t5 large ones, t6 a fixture without a golden fix.
  const goldenSizes = new Map([
    ['t1', { diffBytesNormalized: 120, filesTouched: 1 }],
    ['t2', { diffBytesNormalized: 300, filesTouched: 1 }],
    ['t3', { diffBytesNormalized: 300, filesTouched: 1 }],
    ['t4', { diffBytesNormalized: 2400, filesTouched: 3 }],
    ['t5', { diffBytesNormalized: 9000, filesTouched: 6 }],
    ['t6', null],
  ]);
  const verdict = buildVerdict({ ...run, id: 'run-x' }, trials, { goldenSizes });

  it('records every task of the run with its golden sizes, the edges and the bands, and validates', () => {
    expect(verdictSchema.safeParse(verdict).success).toBe(true);
    expect(verdict.difficulty?.tasks).toEqual([
      { task: 't1', diffBytesNormalized: 120, filesTouched: 1 },
      { task: 't2', diffBytesNormalized: 300, filesTouched: 1 },
      { task: 't3', diffBytesNormalized: 300, filesTouched: 1 },
      { task: 't4', diffBytesNormalized: 2400, filesTouched: 3 },
      { task: 't5', diffBytesNormalized: 9000, filesTouched: 6 },
      { task: 't6', diffBytesNormalized: null, filesTouched: null },
    ]);
    // Five known sizes: the edges are the 2nd and 4th smallest; t2 and t3 tie and share a band.
    expect(verdict.difficulty?.diffBytesNormalized).toEqual({
      edges: [300, 2400],
      bands: [
        { band: 'small', range: [120, 300], tasks: ['t1', 't2', 't3'] },
        { band: 'medium', range: [2400, 2400], tasks: ['t4'] },
        { band: 'large', range: [9000, 9000], tasks: ['t5'] },
        { band: 'unknown', range: null, tasks: ['t6'] },
      ],
    });
    expect(verdict.difficulty?.filesTouched.edges).toEqual([1, 3]);
  });

  it("gives each engine's scored trials per band, with the Wilson interval its overall rate uses", () => {
    const [a, b] = verdict.perEngine;
    // a: t1..t3 resolved; t4 disqualified (scored, not resolved); t5 a harness error and t6 unsupported, not scored.
    expect(a?.byDifficulty?.diffBytesNormalized).toEqual([
      { band: 'small', scoredTrials: 3, resolvedTrials: 3, resolveRate: { point: 1, wilson95: [0.438503, 1] } },
      { band: 'medium', scoredTrials: 1, resolvedTrials: 0, resolveRate: { point: 0, wilson95: [0, 0.793451] } },
      { band: 'large', scoredTrials: 0, resolvedTrials: 0, resolveRate: null },
      { band: 'unknown', scoredTrials: 0, resolvedTrials: 0, resolveRate: null },
    ]);
    // b: t1 and t3 resolved, t2 not; t4 an engine error; t5 resolved; t6 unresolved.
    expect(
      b?.byDifficulty?.diffBytesNormalized.map((rate) => [rate.band, rate.resolvedTrials, rate.scoredTrials]),
    ).toEqual([
      ['small', 2, 3],
      ['medium', 0, 0],
      ['large', 1, 1],
      ['unknown', 0, 1],
    ]);
  });

  it('counts tasks left out of the sizes as unknown, and is byte-identical whatever the order', () => {
    const unsized = buildVerdict({ ...run, id: 'run-x' }, trials);
    expect(unsized.difficulty?.diffBytesNormalized).toEqual({
      edges: [],
      bands: [{ band: 'unknown', range: null, tasks: ['t1', 't2', 't3', 't4', 't5', 't6'] }],
    });
    expect(unsized.perEngine[0]?.byDifficulty?.filesTouched).toEqual([
      { band: 'unknown', scoredTrials: 4, resolvedTrials: 3, resolveRate: unsized.perEngine[0]?.resolveRate },
    ]);
    const shuffled = new Map([...goldenSizes].reverse());
    expect(
      JSON.stringify(buildVerdict({ ...run, id: 'run-x' }, [...trials].reverse(), { goldenSizes: shuffled })),
    ).toBe(JSON.stringify(verdict));
  });
});

describe('an engine none of whose trials was scored', () => {
  it('is named in the warnings with what excluded its trials, not as a small sample', () => {
    const verdict = buildVerdict({ ...run, id: 'run-x' }, [
      makeTrial({ task: 't1', engine: 'a', outcome: 'resolved' }),
      makeTrial({ task: 't1', engine: 'b', outcome: 'engine-error', reason: 'failed-preflight' }),
      makeTrial({ task: 't2', engine: 'b', outcome: 'harness-error' }),
    ]);
    const about = (verdict.warnings ?? []).filter((warning) => warning.startsWith('b: '));
    expect(about[0]).toBe(
      'b: no trial could be scored, so it has no resolve rate and takes no part in any comparison; 1 engine error, 1 harness error, 0 unsupported',
    );
    expect(about.some((warning) => warning.includes('small sample'))).toBe(false);
    expect(verdictSchema.safeParse(verdict).success).toBe(true);
  });
});
