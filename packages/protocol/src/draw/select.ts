// The seeded selection of abp-draw/v1 (docs/draw-algorithm.md): a repository uniformly among those with an eligible
// issue left, then an issue uniformly within it, without replacement, driven by seedrandom's ARC4 generator.
import seedrandom from 'seedrandom';
import { DRAW_ALGORITHM } from '../schemas/abp-draw.js';
import type { EligiblePool } from '../backlog/types.js';
import { DrawError } from './errors.js';

export interface Pick {
  repo: string;
  number: number;
  title: string;
}

const TWO_TO_THE_32 = 4_294_967_296;

/**
 * The generator's input: "abp-draw/v1:" and the seed's decimal digits. RC4 repeats a short key to fill its schedule, so
 * the digits alone would make seeds 42 and 424242 (keys "42" and "424242") one stream; the fixed prefix rules that out.
 */
export function seedText(seed: number): string {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new DrawError(
      'invalid-seed',
      `seed ${seed} is not a non-negative integer up to ${Number.MAX_SAFE_INTEGER}; publish a whole number such as 424242`,
    );
  }
  return `${DRAW_ALGORITHM}:${seed}`;
}

/** The 32-bit stream a draw reads: the next four ARC4 output bytes, big-endian, as an unsigned integer. */
export function drawStream(seed: number): () => number {
  const rng = seedrandom(seedText(seed));
  // int32() is those four bytes reinterpreted as signed; >>> 0 takes the unsigned reading back.
  return () => rng.int32() >>> 0;
}

/**
 * An index in [0, n) with exactly equal chances: draw 32-bit values until one falls below the largest multiple of n
 * that fits in 2^32, then take it modulo n. Integer arithmetic only, so every language gets the same answer.
 */
export function uniformIndex(next: () => number, n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > TWO_TO_THE_32)
    throw new RangeError(`cannot draw an index among ${n} choices`);
  const limit = TWO_TO_THE_32 - (TWO_TO_THE_32 % n);
  for (;;) {
    const value = next();
    if (value < limit) return value % n;
  }
}

/**
 * The positions 0..size-1 of a list that still remain, as a Fenwick tree of presence counts: the k-th remaining
 * position and a removal each cost O(log size), and building it costs O(size) without copying the list.
 */
class RemainingPositions {
  private readonly tree: Int32Array;
  private readonly topStep: number;
  private left: number;

  constructor(private readonly size: number) {
    this.tree = new Int32Array(size + 1);
    // With every position present, node i of a Fenwick tree counts exactly its own span: i & -i positions.
    for (let node = 1; node <= size; node++) this.tree[node] = node & -node;
    let step = 1;
    while (step * 2 <= size) step *= 2;
    this.topStep = step;
    this.left = size;
  }

  get remaining(): number {
    return this.left;
  }

  /** The position of the k-th (0-based) remaining element. */
  select(k: number): number {
    let node = 0;
    let rank = k + 1;
    for (let step = this.topStep; step > 0; step >>= 1) {
      const next = node + step;
      if (next > this.size) continue;
      const count = this.tree[next] ?? 0;
      if (count < rank) {
        node = next;
        rank -= count;
      }
    }
    return node;
  }

  remove(position: number): void {
    for (let node = position + 1; node <= this.size; node += node & -node) this.tree[node] = (this.tree[node] ?? 0) - 1;
    this.left -= 1;
  }
}

/** Refuses a pool out of the documented order: the picks of a seed are only defined for that order. */
function checkOrder(pool: EligiblePool): void {
  let previousRepo: string | undefined;
  for (const { repo, issues } of pool.repos) {
    if (previousRepo !== undefined && !(previousRepo < repo)) {
      throw new DrawError(
        'unsorted-pool',
        `pool repository "${repo}" follows "${previousRepo}": list repositories once each, sorted by "owner/name" in code-unit order`,
      );
    }
    previousRepo = repo;
    let previousNumber = 0;
    for (const { number } of issues) {
      if (!Number.isSafeInteger(number) || number <= previousNumber) {
        throw new DrawError(
          'unsorted-pool',
          `pool issue ${repo}#${number} follows #${previousNumber}: list each repository's issues once each, by positive number ascending`,
        );
      }
      previousNumber = number;
    }
  }
}

/** Draws up to `count` distinct issues from `pool` with the abp-draw/v1 algorithm; fewer only when the pool runs out. */
export function selectIssues(pool: EligiblePool, input: { seed: number; count: number }): Pick[] {
  if (!Number.isSafeInteger(input.count) || input.count < 1) {
    throw new DrawError(
      'invalid-count',
      `count ${input.count} is not a positive whole number; ask for at least one pick`,
    );
  }
  checkOrder(pool);
  const next = drawStream(input.seed);
  const candidates = pool.repos.filter((entry) => entry.issues.length > 0);
  const repos = new RemainingPositions(candidates.length);
  const issuesLeft = new Map<number, RemainingPositions>();
  const picks: Pick[] = [];
  while (picks.length < input.count && repos.remaining > 0) {
    const repoPosition = repos.select(uniformIndex(next, repos.remaining));
    const entry = candidates[repoPosition];
    if (entry === undefined) throw new RangeError(`no repository at position ${repoPosition}`);
    let issues = issuesLeft.get(repoPosition);
    if (issues === undefined) {
      issues = new RemainingPositions(entry.issues.length);
      issuesLeft.set(repoPosition, issues);
    }
    const issuePosition = issues.select(uniformIndex(next, issues.remaining));
    const issue = entry.issues[issuePosition];
    if (issue === undefined) throw new RangeError(`no issue at position ${issuePosition} of ${entry.repo}`);
    issues.remove(issuePosition);
    if (issues.remaining === 0) repos.remove(repoPosition);
    picks.push({ repo: entry.repo, number: issue.number, title: issue.title });
  }
  return picks;
}
