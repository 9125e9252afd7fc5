// Difficulty bands (spec §4.5): the nearest-rank terciles of a task set's golden sizes, ties kept together, unknown sizes
// apart, the same bands whatever the input order; and the verdict's rules that tie each engine's strata to those bands.
import { describe, expect, it } from 'vitest';
import { verdictSchema } from '../../src/schemas/abp-verdict.js';
import { bandOf, difficultyBands } from '../../src/schemas/difficulty-bands.js';
import { readJsonFixture, validDir } from './fixtures.js';

const sized = (...sizes: Array<number | null>) =>
  sizes.map((size, index) => ({ task: `t${String(index).padStart(2, '0')}`, size }));

const paths = (result: { error?: { issues: Array<{ path: PropertyKey[] }> } }) =>
  result.error?.issues.map((issue) => issue.path);

describe('difficultyBands', () => {
  it('gives no bands for an empty task set', () => {
    expect(difficultyBands([])).toEqual({ edges: [], bands: [] });
  });

  it('puts tasks without a size in the unknown band only, and gives no edges when none has one', () => {
    expect(
      difficultyBands([
        { task: 'fixture-b', size: null },
        { task: 'fixture-a', size: null },
      ]),
    ).toEqual({
      edges: [],
      bands: [{ band: 'unknown', range: null, tasks: ['fixture-a', 'fixture-b'] }],
    });
  });

  it('cuts six distinct sizes two by two, at ranks ceil(n/3) and ceil(2n/3)', () => {
    expect(difficultyBands(sized(40, 10, 60, 30, 20, 50))).toEqual({
      edges: [20, 40],
      bands: [
        { band: 'small', range: [10, 20], tasks: ['t01', 't04'] },
        { band: 'medium', range: [30, 40], tasks: ['t00', 't03'] },
        { band: 'large', range: [50, 60], tasks: ['t02', 't05'] },
      ],
    });
  });

  it.each([
    // n: the sizes 1..n; the edges are the sizes at ranks ceil(n/3) and ceil(2n/3), computed by hand.
    [1, [1, 1], [1]],
    [2, [1, 2], [1, 1]],
    [3, [1, 2], [1, 1, 1]],
    [4, [2, 3], [2, 1, 1]],
    [5, [2, 4], [2, 2, 1]],
    [7, [3, 5], [3, 2, 2]],
    [10, [4, 7], [4, 3, 3]],
  ])('n = %i distinct sizes: edges %j, band sizes %j', (n, edges, counts) => {
    const result = difficultyBands(sized(...Array.from({ length: n }, (_, index) => index + 1)));
    expect(result.edges).toEqual(edges);
    expect(result.bands.map((band) => band.tasks.length)).toEqual(counts);
  });

  it('keeps tied tasks in one band and leaves out the band ties empty', () => {
    // Ranks 2 and 4 both land on 20: everything up to 20 is small, nothing is medium.
    expect(difficultyBands(sized(10, 20, 20, 20, 30, 40))).toEqual({
      edges: [20, 20],
      bands: [
        { band: 'small', range: [10, 20], tasks: ['t00', 't01', 't02', 't03'] },
        { band: 'large', range: [30, 40], tasks: ['t04', 't05'] },
      ],
    });
  });

  it('gives one small band when every task has the same size (every fix touches one file)', () => {
    expect(difficultyBands(sized(1, 1, 1, 1))).toEqual({
      edges: [1, 1],
      bands: [{ band: 'small', range: [1, 1], tasks: ['t00', 't01', 't02', 't03'] }],
    });
  });

  it('bands known sizes without counting unknown ones, and lists the unknown band last', () => {
    const result = difficultyBands(sized(null, 300, 100, null, 200));
    expect(result.edges).toEqual([100, 200]);
    expect(result.bands.map((band) => [band.band, band.tasks])).toEqual([
      ['small', ['t02']],
      ['medium', ['t04']],
      ['large', ['t01']],
      ['unknown', ['t00', 't03']],
    ]);
  });

  it('is the same whatever the order of the tasks', () => {
    const tasks = sized(5, 900, 5, null, 42, 42, 7, 1800, 3, null, 42);
    const expected = JSON.stringify(difficultyBands(tasks));
    for (const order of [[...tasks].reverse(), [...tasks.slice(5), ...tasks.slice(0, 5)]])
      expect(JSON.stringify(difficultyBands(order))).toBe(expected);
  });

  it('puts every task in the band bandOf gives for its size under the recorded edges', () => {
    const tasks = sized(5, 900, 5, null, 42, 42, 7, 1800, 3, null, 42, 0);
    const { edges, bands } = difficultyBands(tasks);
    for (const { task, size } of tasks)
      expect(bands.find((band) => band.tasks.includes(task))?.band).toBe(bandOf(edges, size));
  });
});

describe('abp-verdict/v1 difficulty strata', () => {
  const stratified = () => verdictSchema.parse(readJsonFixture(validDir, 'verdict-stratified.json'));

  it('accepts the stratified fixture, and a verdict without strata (other harnesses)', () => {
    expect(verdictSchema.safeParse(stratified()).success).toBe(true);
    const plain = stratified();
    delete plain.difficulty;
    delete plain.perEngine[0]?.byDifficulty;
    expect(verdictSchema.safeParse(plain).success).toBe(true);
  });

  it('refuses bands that the recorded sizes do not give', () => {
    const document = stratified();
    document.difficulty!.tasks[4]!.diffBytesNormalized = 100;
    expect(paths(verdictSchema.safeParse(document))).toEqual([['difficulty', 'diffBytesNormalized']]);
  });

  it('refuses a task with one golden size and not the other, and tasks out of order', () => {
    const half = stratified();
    half.difficulty!.tasks[0]!.filesTouched = 1;
    expect(paths(verdictSchema.safeParse(half))).toContainEqual(['difficulty', 'tasks', 0]);
    const unordered = stratified();
    unordered.difficulty!.tasks.reverse();
    expect(paths(verdictSchema.safeParse(unordered))).toContainEqual(['difficulty', 'tasks', 1, 'task']);
  });

  it("refuses an engine's strata that skip a band or do not add up to its totals", () => {
    const skipped = stratified();
    skipped.perEngine[0]!.byDifficulty!.filesTouched.splice(1, 1);
    expect(paths(verdictSchema.safeParse(skipped))).toContainEqual(['perEngine', 0, 'byDifficulty', 'filesTouched']);
    const resolved = stratified();
    const small = resolved.perEngine[0]!.byDifficulty!.diffBytesNormalized[0]!;
    small.resolvedTrials = 3;
    small.resolveRate = { point: 1, wilson95: [0.43849, 1] };
    expect(paths(verdictSchema.safeParse(resolved))).toEqual([['perEngine', 0, 'byDifficulty', 'diffBytesNormalized']]);
  });

  it('requires strata exactly when the verdict has bands, and a rate exactly when a band has scored trials', () => {
    const orphan = stratified();
    delete orphan.difficulty;
    expect(paths(verdictSchema.safeParse(orphan))).toEqual([['perEngine', 0, 'byDifficulty']]);
    const missing = stratified();
    delete missing.perEngine[0]?.byDifficulty;
    expect(paths(verdictSchema.safeParse(missing))).toEqual([['perEngine', 0, 'byDifficulty']]);
    const rateless = stratified();
    rateless.perEngine[0]!.byDifficulty!.filesTouched[1]!.resolveRate = null;
    expect(paths(verdictSchema.safeParse(rateless))).toEqual([
      ['perEngine', 0, 'byDifficulty', 'filesTouched', 1, 'resolveRate'],
    ]);
  });
});
