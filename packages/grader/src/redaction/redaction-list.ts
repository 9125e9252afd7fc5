// The published redaction list (redaction-list.json beside this file): its schema, its loader, and the one error type of
// the redaction folder. The list is part of ABP conformance (spec §6), so it is data that ships, not rules buried in code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { locateIssues, plainWordsParseOptions } from '@abp/protocol/schemas/issues';
import { formatJsonPath, parseJsonText } from '@abp/protocol/schemas/json-text';
import { packageRoot } from '../package-root.js';
import { AbpError } from '@abp/protocol/errors';

export type RedactionErrorCode = 'unreadable-list' | 'invalid-list' | 'invalid-context';

// Messages name files, fields and rule ids only: nothing a redactor is given to hide may reach one.
export class RedactionError extends AbpError<RedactionErrorCode> {}

export const redactionRuleKinds = ['env-value', 'pattern', 'path'] as const;
export type RedactionRuleKind = (typeof redactionRuleKinds)[number];

/** The flags every rule's pattern is compiled with: global, with match indices so a named group "secret" can be cut out alone. */
export const REDACTION_PATTERN_FLAGS = 'gd';

function regexProblem(source: string): string | null {
  try {
    new RegExp(source, REDACTION_PATTERN_FLAGS);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

const rule = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be a lowercase kebab-case id, e.g. "github-token"'),
    kind: z.enum(redactionRuleKinds),
    description: z.string().regex(/\S/, 'must say what the rule removes'),
    pattern: z.string().min(1).optional(),
  })
  .superRefine((value, ctx) => {
    const needsPattern = value.kind !== 'path';
    if (needsPattern && value.pattern === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['pattern'],
        message: `is required for a rule of kind "${value.kind}" (a regular expression source)`,
      });
    }
    if (!needsPattern && value.pattern !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['pattern'],
        message: 'must be absent for a rule of kind "path": path handling is built into the redactor',
      });
    }
    const problem = value.pattern === undefined ? null : regexProblem(value.pattern);
    if (problem !== null)
      ctx.addIssue({ code: 'custom', path: ['pattern'], message: `is not a valid regular expression: ${problem}` });
  });

export const redactionListSchema = z
  .strictObject({
    version: z.string().regex(/^abp-redaction\/[1-9]\d*$/, 'must be "abp-redaction/<n>", e.g. "abp-redaction/1"'),
    description: z.string().optional(),
    rules: z.array(rule).min(1),
  })
  .superRefine((value, ctx) => {
    const seen = new Set<string>();
    value.rules.forEach((entry, index) => {
      if (seen.has(entry.id))
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index, 'id'],
          message: `repeats the rule id "${entry.id}"; ids name replacements and must be unique`,
        });
      seen.add(entry.id);
    });
  });

export type RedactionList = z.infer<typeof redactionListSchema>;
export type RedactionRule = RedactionList['rules'][number];

export const redactionListPath = join(packageRoot, 'data', 'redaction-list.json');

/** Parses and validates redaction list text; `source` names the file in every error. */
export function parseRedactionList(text: string, source: string): RedactionList {
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    throw new RedactionError(
      'invalid-list',
      `${source} is not valid JSON: ${parsed.error.message} (line ${parsed.error.line}, column ${parsed.error.column})`,
    );
  }
  const result = redactionListSchema.safeParse(parsed.value, plainWordsParseOptions);
  if (!result.success) {
    const problems = locateIssues(result.error.issues).map((issue) => `${formatJsonPath(issue.path)} ${issue.message}`);
    throw new RedactionError('invalid-list', `${source} is not a valid redaction list: ${problems.join('; ')}`);
  }
  return result.data;
}

export function loadRedactionList(file: string = redactionListPath): RedactionList {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new RedactionError(
      'unreadable-list',
      `cannot read the redaction list ${file}: ${(error as Error).message}; restore it from git`,
      { cause: error },
    );
  }
  return parseRedactionList(text, file);
}

let committedList: RedactionList | undefined;
/** The list this grader ships (redactionListPath), read once per process. */
export function committedRedactionList(): RedactionList {
  committedList ??= loadRedactionList();
  return committedList;
}
