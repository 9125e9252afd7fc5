// Relay connections over the world's offset listings: opaque cursors, first/after and last/before
// windows, an optional reach cap (search stops at 1,000 results), pages loaded lazily and once.
import type { Page } from '../world/model.js';
import { githubError } from './errors.js';

/** A GraphQL object for the default field resolver: plain values, or functions of (args, context). */
export type GqlObject = Record<string, unknown>;
export type Args = Record<string, unknown>;
export type Fetch<T> = (offset: number, limit: number) => Page<T>;

const cursorPrefix = 'cursor:sim:';

export function encodeCursor(index: number): string {
  return Buffer.from(`${cursorPrefix}${index}`).toString('base64');
}

/** The index a cursor names, or null when this simulator did not hand it out. */
export function decodeCursor(cursor: string): number | null {
  const text = Buffer.from(cursor, 'base64').toString('utf8');
  if (!text.startsWith(cursorPrefix)) return null;
  const index = Number(text.slice(cursorPrefix.length));
  return Number.isSafeInteger(index) && index >= 0 ? index : null;
}

function cursorArgument(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const index = decodeCursor(value);
  if (index === null)
    throw githubError('INVALID_CURSOR_ARGUMENTS', `\`${value}\` does not appear to be a valid cursor.`);
  return index;
}

function intArgument(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** A page function over an in-memory array (labels, tree entries, residual-filtered listings). */
export function fetchArray<T>(items: readonly T[]): Fetch<T> {
  return (offset, limit) => ({ total: items.length, items: items.slice(offset, offset + limit) });
}

/** Reads a whole listing (small ones: a repository's pulls, ≤ 5,000 search results) and filters it. */
export function fetchFiltered<T>(fetch: Fetch<T>, keep: (item: T) => boolean): Fetch<T> {
  let filtered: T[] | undefined;
  return (offset, limit) => {
    filtered ??= fetch(0, fetch(0, 0).total).items.filter(keep);
    return fetchArray(filtered)(offset, limit);
  };
}

export interface ConnectionOptions {
  /** Items past this index are unreachable (GitHub search serves only the first 1,000 results). */
  cap?: number;
  /** Extra fields on every edge (search edges carry `textMatches`). */
  edgeFields?: GqlObject;
}

export interface Connection {
  fields: GqlObject;
  /** The size of the whole listing, uncapped. */
  total: () => number;
}

/** A connection object with totalCount, nodes, edges and pageInfo; the analysis has already bounded first/last. */
export function connection<T>(
  args: Args,
  fetch: Fetch<T>,
  toNode: (item: T) => unknown,
  options: ConnectionOptions = {},
): Connection {
  const first = intArgument(args['first']);
  const last = intArgument(args['last']);
  const after = cursorArgument(args['after']);
  const before = cursorArgument(args['before']);
  const cap = options.cap ?? Number.POSITIVE_INFINITY;
  let total: number | undefined;
  let window: { start: number; items: T[] } | undefined;

  const totalCount = (): number => (total ??= fetch(0, 0).total);
  const reachable = (): number => Math.min(totalCount(), cap);
  const load = (): { start: number; items: T[] } => {
    if (window) return window;
    let start = after === undefined ? 0 : after + 1;
    if (first === undefined && last === undefined) return (window = { start, items: [] });
    let end = before ?? Number.POSITIVE_INFINITY;
    if (first !== undefined) end = Math.min(end, start + first);
    if (last !== undefined) {
      if (end === Number.POSITIVE_INFINITY) end = reachable();
      start = Math.max(start, end - last);
    }
    const limit = Math.max(0, Math.min(end, cap) - start);
    const page = fetch(start, limit);
    total ??= page.total;
    return (window = { start, items: page.items });
  };

  const fields: GqlObject = {
    totalCount,
    nodes: () => load().items.map(toNode),
    edges: () => {
      const { start, items } = load();
      return items.map((item, index) => ({
        cursor: encodeCursor(start + index),
        node: toNode(item),
        ...options.edgeFields,
      }));
    },
    pageInfo: () => {
      const { start, items } = load();
      const count = items.length;
      return {
        hasNextPage: start + count < reachable(),
        hasPreviousPage: start > 0,
        startCursor: count > 0 ? encodeCursor(start) : null,
        endCursor: count > 0 ? encodeCursor(start + count - 1) : null,
      };
    },
  };
  return { fields, total: totalCount };
}
