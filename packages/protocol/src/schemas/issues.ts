// Turns zod issues into the errors `abp validate` prints: a readable path and the problem in plain words, with the fix where one is obvious.
import type { z } from 'zod';
import { formatJsonPath } from './json-text.js';
import { describeValue } from './primitives.js';

export interface LocatedIssue {
  path: Array<string | number>;
  message: string;
}

const typeNames: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  tuple: 'an array',
  record: 'an object',
  null: 'null',
};

const quoteAll = (values: readonly unknown[]) => values.map((value) => JSON.stringify(value)).join(', ');

/** The nearest allowed name to a mistyped one (case slip or at most two edits), for "did you mean". */
function nearest(key: string, allowed: readonly string[]): string | undefined {
  const distance = (a: string, b: string) => {
    let row = Array.from({ length: b.length + 1 }, (_, index) => index);
    for (let i = 1; i <= a.length; i += 1) {
      const next = [i];
      for (let j = 1; j <= b.length; j += 1)
        next[j] = Math.min(
          (row[j] ?? 0) + 1,
          (next[j - 1] ?? 0) + 1,
          (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
        );
      row = next;
    }
    return row[b.length] ?? Infinity;
  };
  const scored = allowed.map((name) => ({
    name,
    score: name.toLowerCase() === key.toLowerCase() ? 0 : distance(key, name),
  }));
  const best = scored.sort((a, b) => a.score - b.score)[0];
  return best && best.score <= 2 ? best.name : undefined;
}

function shapeKeys(issue: { inst?: unknown }): string[] {
  const def = (issue.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def;
  return def?.shape ? Object.keys(def.shape) : [];
}

/**
 * Plain-words messages for the issues that schemas leave to zod's defaults. Pass it per parse
 * (`schema.safeParse(value, { error: plainWordsErrorMap, reportInput: true })`) rather than globally,
 * so other users of zod in the same process keep their own messages.
 */
export const plainWordsErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required but missing';
      return `must be ${typeNames[issue.expected] ?? issue.expected}, got ${describeValue(issue.input)}`;
    case 'unrecognized_keys': {
      const allowed = shapeKeys(issue);
      const list = allowed.length > 0 ? `; allowed: ${allowed.join(', ')}` : '';
      if (issue.keys.length === 1) {
        const suggestion = nearest(issue.keys[0] ?? '', allowed);
        return `is not a known field${suggestion ? `; did you mean "${suggestion}"?` : ''}${list}`;
      }
      return `has unknown fields ${quoteAll(issue.keys)}${list}`;
    }
    case 'too_small': {
      const minimum = Number(issue.minimum);
      if (issue.origin === 'array' || issue.origin === 'set')
        return minimum === 1 ? 'must not be empty' : `must have at least ${minimum} items`;
      if (issue.origin === 'string')
        return minimum === 1 ? 'must not be empty' : `must be at least ${minimum} characters long`;
      return `must be ${issue.inclusive === false ? 'greater than' : 'at least'} ${minimum}, got ${describeValue(issue.input)}`;
    }
    case 'too_big': {
      const maximum = Number(issue.maximum);
      if (issue.origin === 'array' || issue.origin === 'set') return `must have at most ${maximum} items`;
      if (issue.origin === 'string') return `must be at most ${maximum} characters long`;
      return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${maximum}, got ${describeValue(issue.input)}`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}, got ${describeValue(issue.input)}`
        : `must be one of ${quoteAll(issue.values)}, got ${describeValue(issue.input)}`;
    case 'invalid_union': {
      if (issue.discriminator !== undefined && 'options' in issue && Array.isArray(issue.options)) {
        const options: unknown[] = issue.options;
        const input = issue.input as Record<string, unknown> | undefined;
        const value = typeof input === 'object' && input !== null ? input[issue.discriminator] : undefined;
        if (value === undefined) return `is required; one of ${quoteAll(options)}`;
        return `unknown ${issue.discriminator} ${describeValue(value)}; expected one of ${quoteAll(options)}`;
      }
      return `does not match any allowed form, got ${describeValue(issue.input)}`;
    }
    case 'invalid_format':
      return `must be a valid ${issue.format}, got ${describeValue(issue.input)}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}, got ${describeValue(issue.input)}`;
    case 'invalid_key':
      return 'has a key that is not allowed here';
    case 'invalid_element':
      return 'has an element that is not allowed here';
    case 'custom':
      return undefined; // refinements word their own messages
  }
};

/** Options for safeParse that produce plain-words messages and keep the offending input on each issue. */
export const plainWordsParseOptions = { error: plainWordsErrorMap, reportInput: true } as const;

/** Flattens zod issues to located errors; an unknown field is reported at its own path, where the reader will look. */
export function locateIssues(issues: readonly z.core.$ZodIssue[]): LocatedIssue[] {
  return issues.map((issue) => {
    const path = issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
    if (issue.code === 'unrecognized_keys' && issue.keys.length === 1 && issue.keys[0] !== undefined)
      path.push(issue.keys[0]);
    return { path, message: issue.message };
  });
}

/** Zod issues as the lines a person reads under "<file> is not valid": the field's path, then the problem. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return locateIssues(issues)
    .map((issue) => `  ${formatJsonPath(issue.path)}: ${issue.message}`)
    .join('\n');
}

/** Zod issues as one line, `field: problem; field: problem`, for messages that must name the field to fix. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return locateIssues(issues)
    .map((issue) => `${formatJsonPath(issue.path)}: ${issue.message}`)
    .join('; ');
}
