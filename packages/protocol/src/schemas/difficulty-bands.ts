// Owns how a task set is cut into difficulty bands by the size of each task's golden fix (spec §4.5: "difficulty is
// stratified in reporting"). Pure and deterministic, and part of the verdict format: abp-verdict/v1 records each task's
// size and the edges, and its schema recomputes the bands with this function, so any reader can re-derive them.
import { compareCodeUnits } from './primitives.js';

/** The golden sizes a task manifest records (abp-task/v1 `golden`), each banded on its own. */
export const DIFFICULTY_MEASURES = ['diffBytesNormalized', 'filesTouched'] as const;
export type DifficultyMeasure = (typeof DIFFICULTY_MEASURES)[number];

/** The method's name as the verdict records it; a change to the rule below must change it. */
export const DIFFICULTY_METHOD = 'nearest-rank-terciles/v1';

export const SIZED_BANDS = ['small', 'medium', 'large'] as const;
export type SizedBandName = (typeof SIZED_BANDS)[number];
/** Tasks without a golden fix (fixtures): never guessed into a size band. */
export const UNKNOWN_BAND = 'unknown';
export type BandName = SizedBandName | typeof UNKNOWN_BAND;

export type DifficultyBand =
  | { band: SizedBandName; range: [number, number]; tasks: string[] }
  | { band: typeof UNKNOWN_BAND; range: null; tasks: string[] };

export interface DifficultyBands {
  /**
   * The upper edges of the small and medium bands, inclusive: small is size <= edges[0], medium edges[0] < size <=
   * edges[1], large size > edges[1]. Empty when no task has a size.
   */
  edges: number[];
  /** The bands that hold a task, smallest first, then unknown; each band's tasks in code-unit order. */
  bands: DifficultyBand[];
}

/**
 * Cuts tasks into terciles of `size` by the nearest-rank method: with the n known sizes sorted ascending, the edges are
 * the sizes at ranks ceil(n/3) and ceil(2n/3). Bands are ranges of size, so tied tasks always share a band, and a band
 * left empty by ties (every task touching one file) is left out rather than reported with nothing in it. A task whose
 * size is null goes to the unknown band. Input order does not matter.
 */
export function difficultyBands(tasks: ReadonlyArray<{ task: string; size: number | null }>): DifficultyBands {
  const known = tasks
    .filter((entry): entry is { task: string; size: number } => entry.size !== null)
    .map((entry) => entry.size)
    .sort((a, b) => a - b);
  const unknown = tasks
    .filter((entry) => entry.size === null)
    .map((entry) => entry.task)
    .sort(compareCodeUnits);
  const bands: DifficultyBand[] = [];
  let edges: number[] = [];
  if (known.length > 0) {
    const n = known.length;
    // ceil(j·n/3) in integers, so no floating-point rounding can move an edge.
    const atRank = (j: number) => known[Math.floor((j * n + 2) / 3) - 1] as number;
    edges = [atRank(1), atRank(2)];
    const uppers = [...edges, known[n - 1] as number];
    SIZED_BANDS.forEach((band, index) => {
      const lower = index === 0 ? Number.NEGATIVE_INFINITY : (uppers[index - 1] as number);
      const upper = uppers[index] as number;
      const inside = tasks.filter(
        (entry): entry is { task: string; size: number } =>
          entry.size !== null && entry.size > lower && entry.size <= upper,
      );
      if (inside.length === 0) return;
      const sizes = inside.map((entry) => entry.size);
      bands.push({
        band,
        range: [Math.min(...sizes), Math.max(...sizes)],
        tasks: inside.map((entry) => entry.task).sort(compareCodeUnits),
      });
    });
  }
  if (unknown.length > 0) bands.push({ band: UNKNOWN_BAND, range: null, tasks: unknown });
  return { edges, bands };
}

/** The band `size` falls in under `edges` (null size: unknown), as a reader applies the recorded edges. */
export function bandOf(edges: readonly number[], size: number | null): BandName {
  if (size === null || edges.length === 0) return UNKNOWN_BAND;
  if (size <= (edges[0] as number)) return 'small';
  return size <= (edges[1] as number) ? 'medium' : 'large';
}
