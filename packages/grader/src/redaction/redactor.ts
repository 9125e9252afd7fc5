// The redactor: applies the published redaction list to text, bytes and tool-call arguments for one trial, given that
// trial's environment, workspace and named secrets. It never stores or reports the values it hides.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import {
  committedRedactionList,
  RedactionError,
  REDACTION_PATTERN_FLAGS,
  type RedactionList,
} from './redaction-list.js';

export interface RedactionContext {
  env: Readonly<Record<string, string | undefined>>;
  /** Absolute path of the trial workspace. */
  workspace: string;
  /** Values to hide whatever their length or where they came from (e.g. credentials read from a store). */
  secrets?: readonly string[];
}

export interface Redactor {
  readonly listVersion: string;
  redactText(text: string): string;
  /** Text-safe: bytes outside a match are returned unchanged, so binary and invalid UTF-8 survive. */
  redactBytes(data: Buffer): Buffer;
  /** A bounded, redacted, host-path-free summary of tool-call arguments, the same for the same input. */
  summarizeArgs(args: Readonly<Record<string, unknown>>): Record<string, unknown>;
}

// Short values (e.g. "true", "1") would shred ordinary text; the list's description publishes this threshold.
const MIN_ENV_VALUE_LENGTH = 6;
const MAX_STRING_LENGTH = 200;
const MAX_DEPTH = 3;
const MAX_ITEMS = 20;
const OUTSIDE_WORKSPACE = '<outside-workspace>';
const MORE_KEYS = '<more>';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const byLengthThenText = (a: string, b: string) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0);
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** Literal values to hide, each with its replacement label: env values by variable name, then named secrets. */
function secretLabels(list: RedactionList, context: RedactionContext): Map<string, string> {
  const namePatterns = list.rules
    .filter((rule) => rule.kind === 'env-value')
    .map((rule) => new RegExp(rule.pattern ?? ''));
  const labels = new Map<string, string>();
  // Sorted names: when two variables hold one value, the label does not depend on the environment's order.
  for (const name of Object.keys(context.env).sort()) {
    const value = context.env[name];
    if (value === undefined || value.length < MIN_ENV_VALUE_LENGTH || labels.has(value)) continue;
    if (namePatterns.some((pattern) => pattern.test(name.toUpperCase()))) labels.set(value, `[REDACTED:env:${name}]`);
  }
  for (const secret of context.secrets ?? []) {
    if (secret !== '' && !labels.has(secret)) labels.set(secret, '[REDACTED:secret]');
  }
  return labels;
}

/** Replaces each match (or only its "secret" group) with `label`. */
function replaceMatches(text: string, pattern: RegExp, label: string): string {
  let output = '';
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const [start, end] = match.indices?.groups?.secret ?? [match.index, match.index + match[0].length];
    output += text.slice(last, start) + label;
    last = end;
  }
  return output + text.slice(last);
}

type Encode = (text: string) => string;

/**
 * One redaction pass over a string. `encode` maps needles and labels into the string's representation: identity for
 * text, UTF-8 bytes seen as latin1 for Buffers (one char per byte, so untouched bytes round-trip exactly).
 */
function buildPass(
  list: RedactionList,
  context: RedactionContext,
  workspace: string,
  home: string | null,
  encode: Encode,
): (text: string) => string {
  const labels = new Map([...secretLabels(list, context)].map(([value, label]) => [encode(value), encode(label)]));
  // Longest first inside one alternation: at any position the longest value wins, so no fragment of it survives.
  const literals =
    labels.size === 0 ? null : new RegExp([...labels.keys()].sort(byLengthThenText).map(escapeRegExp).join('|'), 'g');
  const patterns = list.rules.flatMap((rule) =>
    rule.kind === 'pattern' && rule.pattern !== undefined
      ? [{ regex: new RegExp(rule.pattern, REDACTION_PATTERN_FLAGS), label: encode(`[REDACTED:${rule.id}]`) }]
      : [],
  );
  const hostPaths = new Map([[encode(workspace), encode('{workspace}')]]);
  if (home !== null && !hostPaths.has(encode(home))) hostPaths.set(encode(home), encode('<home>'));
  // A path prefix ends where a path component ends: /tmp/ws must not eat /tmp/ws2.
  const hostPathPattern = new RegExp(
    `(?:${[...hostPaths.keys()].sort(byLengthThenText).map(escapeRegExp).join('|')})(?![A-Za-z0-9._-])`,
    'g',
  );

  return (text) => {
    let output = literals === null ? text : text.replace(literals, (value) => labels.get(value) ?? value);
    for (const { regex, label } of patterns) output = replaceMatches(output, regex, label);
    return output.replace(hostPathPattern, (prefix) => hostPaths.get(prefix) ?? prefix);
  };
}

function absoluteDirectory(value: string | undefined): string | null {
  if (value === undefined || !posix.isAbsolute(value)) return null;
  const resolved = posix.resolve(value);
  return resolved === '/' ? null : resolved;
}

export function createRedactor(context: RedactionContext): Redactor {
  const workspace = absoluteDirectory(context.workspace);
  if (workspace === null) {
    throw new RedactionError(
      'invalid-context',
      `the redaction workspace must be an absolute directory other than "/", got ${JSON.stringify(context.workspace)}; pass the trial's workspace path`,
    );
  }
  const list = committedRedactionList();
  const home = absoluteDirectory(context.env.HOME);
  const redactText = buildPass(list, context, workspace, home, (text) => text);
  const redactLatin1 = buildPass(list, context, workspace, home, (text) =>
    Buffer.from(text, 'utf8').toString('latin1'),
  );

  // Only a whole-string path is classified; paths inside commands are handled by redactText's {workspace} and <home>.
  const relativePath = (value: string) => {
    const relative = posix.relative(workspace, posix.resolve(value));
    if (relative === '') return '.';
    return relative === '..' || relative.startsWith('../') ? OUTSIDE_WORKSPACE : relative;
  };

  const summarizeString = (value: string) => {
    const isPath = posix.isAbsolute(value) && !/\s/.test(value);
    const redacted = redactText(isPath ? relativePath(value) : value);
    if (redacted.length <= MAX_STRING_LENGTH) return redacted;
    const digest = createHash('sha256').update(redacted, 'utf8').digest('hex').slice(0, 12);
    return `<${Buffer.byteLength(redacted, 'utf8')} bytes, sha256:${digest}>`;
  };

  const summarizeObject = (value: Readonly<Record<string, unknown>>, depth: number): Record<string, unknown> => {
    const entries = Object.entries(value);
    const summary: Record<string, unknown> = {};
    for (const [key, item] of entries.slice(0, MAX_ITEMS)) summary[redactText(key)] = summarizeValue(item, depth + 1);
    if (entries.length > MAX_ITEMS) summary[MORE_KEYS] = `<${plural(entries.length - MAX_ITEMS, 'more key')}>`;
    return summary;
  };

  const summarizeValue = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return summarizeString(value);
    if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
    if (Array.isArray(value)) {
      if (depth >= MAX_DEPTH) return `<array of ${plural(value.length, 'item')}>`;
      const items = value.slice(0, MAX_ITEMS).map((item: unknown) => summarizeValue(item, depth + 1));
      return value.length > MAX_ITEMS ? [...items, `<${plural(value.length - MAX_ITEMS, 'more item')}>`] : items;
    }
    if (typeof value === 'object') {
      const record = value as Record<string, unknown>;
      return depth >= MAX_DEPTH
        ? `<object with ${plural(Object.keys(record).length, 'key')}>`
        : summarizeObject(record, depth);
    }
    return `<${typeof value}>`;
  };

  return {
    listVersion: list.version,
    redactText,
    redactBytes: (data) => Buffer.from(redactLatin1(data.toString('latin1')), 'latin1'),
    summarizeArgs: (args) => summarizeObject(args, 0),
  };
}
