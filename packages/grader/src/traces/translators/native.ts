// What every sidecar translator does with an engine's native output alike: read its JSON loosely (a field of the wrong
// type reads as absent), check the context it was given, sum token counts, and number the events it drafted. Counts
// are passed on as the engine wrote them: a negative or fractional one fails the trace's schema and is reported. (A
// difference a translator takes itself, input less cached tokens, is floored at zero.)
import type { TokenCounts } from '@abp/protocol/schemas/abp-trace';
import { utcTimestamp } from '@abp/protocol/schemas/primitives';
import { TraceError } from '../errors.js';
import type { TraceTranslatorContext } from './translator.js';

export type NativeObject = Record<string, unknown>;
/** An event before its seq: a translator drafts them in order, then numbers them. */
export type DraftEvent = NativeObject & { t: string };

export const isObject = (value: unknown): value is NativeObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const stringOf = (value: unknown) => (typeof value === 'string' ? value : undefined);
export const countOf = (value: unknown) => (typeof value === 'number' ? value : 0);

/** One JSON object from text (a line, or a whole file), or undefined for anything else: a stray line holds no events. */
export function parseObject(text: string): NativeObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The JSON objects among the lines of `text`. */
export const objectLines = (text: string): NativeObject[] =>
  text.split('\n').flatMap((line) => {
    const object = parseObject(line);
    return object === undefined ? [] : [object];
  });

export function checkContext(context: TraceTranslatorContext): void {
  if (!utcTimestamp.safeParse(context.startedAt).success)
    throw new TraceError(
      'invalid-translator-context',
      `startedAt must be an RFC 3339 UTC timestamp such as "2026-07-02T14:11:09Z", got ${JSON.stringify(context.startedAt)}`,
    );
}

export const NO_TOKENS: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

export const sumTokens = (counts: readonly TokenCounts[]): TokenCounts =>
  counts.reduce(
    (sum, tokens) => ({
      input: sum.input + tokens.input,
      output: sum.output + tokens.output,
      cacheRead: sum.cacheRead + tokens.cacheRead,
      cacheWrite: sum.cacheWrite + tokens.cacheWrite,
    }),
    NO_TOKENS,
  );

/** The drafted events with seq 1, 2, … in the order drafted, t first as the format shows it. */
export const numbered = (events: readonly DraftEvent[]): unknown[] =>
  events.map(({ t, ...rest }, index) => ({ t, seq: index + 1, ...rest }));

/**
 * A clock for native records that carry epoch seconds: each event's time, never before the last one given (records of
 * several agents, or none at all, must not step back).
 */
export function epochClock(startedAt: string): { at(seconds: unknown): string; readonly last: string } {
  let last = startedAt;
  return {
    at(seconds) {
      // A time past what a Date holds (±8.64e15 ms), or not a number at all, is no time: the last one stands.
      const ms = typeof seconds === 'number' ? seconds * 1000 : Number.NaN;
      if (Math.abs(ms) <= 8.64e15 && ms > Date.parse(last)) last = new Date(ms).toISOString();
      return last;
    },
    get last() {
      return last;
    },
  };
}
