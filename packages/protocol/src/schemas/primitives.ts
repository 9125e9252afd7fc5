// Shared building blocks of the ABP document schemas: timestamps, digests, ids, counts and commands, each with a plain-words error.
import { z } from 'zod';

/** Renders an offending value for an error message: short and quoted, never a whole subtree. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** A string that must match `re`; the message says what was expected and what arrived. */
function patterned(re: RegExp, expected: string, hint?: (input: string) => string | undefined) {
  return z.string().regex(re, {
    error: (issue) => {
      const extra = typeof issue.input === 'string' ? hint?.(issue.input) : undefined;
      return `must be ${expected}, got ${describeValue(issue.input)}${extra ? `; ${extra}` : ''}`;
    },
  });
}

// Uppercase T and Z only, any fraction precision: one spelling per instant keeps traces diffable (spec §6).
export const utcTimestamp = z.iso.datetime({
  error: (issue) =>
    `must be an RFC 3339 UTC timestamp ending in "Z", e.g. "2026-07-02T14:11:09Z", got ${describeValue(issue.input)}` +
    (typeof issue.input === 'string' && /[+-]\d\d:?\d\d$/.test(issue.input) ? '; convert the offset to UTC' : ''),
});

export const sha256Digest = patterned(
  /^sha256:[0-9a-f]{64}$/,
  'a digest "sha256:" followed by 64 lowercase hex digits',
  (input) => (/^[0-9a-fA-F]{64}$/.test(input) ? 'add the "sha256:" prefix' : undefined),
);

// A full sha: an abbreviated one can become ambiguous as the repository grows, and the task must pin one commit forever.
export const gitSha = patterned(/^[0-9a-f]{40}$/, 'a full 40-character hex git commit sha', (input) =>
  /^[0-9a-fA-F]{4,39}$/.test(input)
    ? `expand the abbreviation with \`git rev-parse ${input}\``
    : /^[0-9A-F]{40}$/i.test(input)
      ? 'use lowercase hex'
      : undefined,
);

// GitHub's own limits: owner 1-39 of [A-Za-z0-9-], name 1-100 of [A-Za-z0-9._-] and never "." or "..".
export const repoFullName = patterned(
  /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/(?!\.{1,2}$)[A-Za-z0-9._-]{1,100}$/,
  'a GitHub repository "owner/name", e.g. "vercel/next.js"',
);

const REGISTRY_VERSION = /^abp-registry\/(\d{4})Q([1-4])$/;
export const registryVersion = patterned(
  REGISTRY_VERSION,
  'a registry version "abp-registry/YYYYQn" with n from 1 to 4, e.g. "abp-registry/2026Q3"',
);

/** Orders registry versions: year * 4 + quarter - 1, or null when the text is not a version. */
export function registryVersionIndex(version: string): number | null {
  const match = REGISTRY_VERSION.exec(version);
  return match ? Number(match[1]) * 4 + Number(match[2]) - 1 : null;
}

// Ids end up in file names and URLs (traces/<task id>.abp-trace.jsonl), so they stay within a portable alphabet.
export const documentId = patterned(
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/,
  'an id of letters, digits, ".", "_" and "-" that starts with a letter or digit (at most 200 characters)',
);

export const modelId = patterned(/^\S{1,200}$/, 'a model id without spaces, e.g. "anthropic/claude-sonnet-5"');

export const engineVersion = patterned(/^\S{1,100}$/, 'a version without spaces, e.g. "1.4.2"');

// "<model>:<YYYY-MM>", the month of the model's training cutoff (spec §4.4).
const MODEL_CUTOFF = /^(\S+):(\d{4})-(0[1-9]|1[0-2])$/;
export const modelCutoff = patterned(MODEL_CUTOFF, '"<model>:<YYYY-MM>", e.g. "claude-sonnet-5:2026-01"');

/** The first instant after a cutoff month ("m:2026-01" gives 2026-02-01T00:00:00Z), or null for malformed text. */
export function cutoffEnd(cutoff: string): Date | null {
  const match = MODEL_CUTOFF.exec(cutoff);
  return match ? new Date(Date.UTC(Number(match[2]), Number(match[3]), 1)) : null;
}

export const command = patterned(/^[^\n\r]*\S[^\n\r]*$/, 'a non-empty one-line command');

export const nonBlankText = patterned(/\S/, 'non-empty text');

// Paths inside a bundle or result folder: relative, POSIX, and unable to escape it.
export const relativePath = patterned(
  /^(?![/\\])(?![A-Za-z]:)(?!(?:.*\/)?\.\.(?:\/|$))[^\\\0\n\r]+$/,
  'a relative POSIX path that stays inside its folder (no leading "/", no "..", no "\\")',
);

export const containerImage = patterned(
  /^[a-z0-9][^\s]{0,254}$/,
  'a container image reference, e.g. "ghcr.io/macanderson/abp-node:22"',
);

// Host-agnostic so the local GitHub simulator and GitHub Enterprise produce valid documents too; the path is GitHub's.
export const pullRequestUrl = patterned(
  /^https?:\/\/[^\s/?#]+(?:\/[^\s/?#]+)*\/[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}\/pull\/[1-9]\d*$/,
  'a pull request URL, e.g. "https://github.com/vercel/next.js/pull/81301"',
);
export const issueUrl = patterned(
  /^https?:\/\/[^\s/?#]+(?:\/[^\s/?#]+)*\/[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}\/issues\/[1-9]\d*$/,
  'an issue URL, e.g. "https://github.com/vercel/next.js/issues/81234"',
);

/** Splits a pull request or issue URL into the "owner/name" and number it points at; null when it is neither. */
export function parseGithubItemUrl(url: string): { repo: string; number: number } | null {
  const match = /\/([^/]+\/[^/]+)\/(?:pull|issues)\/(\d+)$/.exec(url);
  return match?.[1] && match[2] ? { repo: match[1], number: Number(match[2]) } : null;
}

// z.int() already stops at Number.MAX_SAFE_INTEGER, so every count survives a round trip through JSON and JavaScript.
export const positiveInt = z.int().positive();
export const nonNegativeInt = z.int().nonnegative();
export const seed = z
  .int()
  .nonnegative()
  .describe('Published so the selection or resampling can be re-derived (spec §3.3, §4.1).');
export const usd = z.number().nonnegative();
export const probability = z.number().min(0).max(1);

/** Whether `value` passes `schema`: cross-field rules use it to stay silent about fields that already carry their own error. */
export function conforms(schema: z.ZodType, value: unknown): boolean {
  return schema.safeParse(value).success;
}

/** Indices of the entries of `values` that repeat an earlier one (after `key`), with the index of that earlier one. */
export function duplicateIndices<T>(
  values: readonly T[],
  key: (value: T) => string = String,
): Array<{ index: number; first: number }> {
  const seen = new Map<string, number>();
  const duplicates: Array<{ index: number; first: number }> = [];
  values.forEach((value, index) => {
    const k = key(value);
    const first = seen.get(k);
    if (first === undefined) seen.set(k, index);
    else duplicates.push({ index, first });
  });
  return duplicates;
}

/** Code-unit order, the order of Array.prototype.sort() and of `LC_ALL=C sort`, so any language can reproduce it. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
