// Which zod schema validates which ABP document (by its `schema` field), and validateDocumentText, the entry point of `abp validate`.
// It reaches node:crypto (registry digests), so Temporal workflow code imports the abp-*.ts schema modules, not this one.
import type { z } from 'zod';
import { ADAPTERS_SCHEMA_ID, adaptersSchema } from './abp-adapters.js';
import { BASELINE_SCHEMA_ID, baselineSchema } from './abp-baseline.js';
import { DRAW_SCHEMA_ID, drawSchema } from './abp-draw.js';
import { REGISTRY_SCHEMA_ID, registrySchema } from './abp-registry.js';
import { RUN_SCHEMA_ID, runSchema } from './abp-run.js';
import { TASK_SCHEMA_ID, taskSchema } from './abp-task.js';
import { TRACE_SCHEMA_ID, traceEventSchema, traceRuleViolations } from './abp-trace.js';
import { TRIAL_SCHEMA_ID, trialSchema } from './abp-trial.js';
import { TRUST_ROOT_SCHEMA_ID, trustRootSchema } from './abp-trust-root.js';
import { VERDICT_SCHEMA_ID, verdictSchema } from './abp-verdict.js';
import { locateIssues, plainWordsParseOptions } from './issues.js';
import { formatJsonPath, parseJsonText, scanJson, type JsonScan } from './json-text.js';
import { conforms, describeValue, sha256Digest } from './primitives.js';
import { registryDigest } from './registry-digest.js';

/** JSON documents by the value of their `schema` field. Traces are JSONL without that field and are handled apart. */
export const documentSchemas = {
  [TASK_SCHEMA_ID]: taskSchema,
  [RUN_SCHEMA_ID]: runSchema,
  [VERDICT_SCHEMA_ID]: verdictSchema,
  [REGISTRY_SCHEMA_ID]: registrySchema,
  [DRAW_SCHEMA_ID]: drawSchema,
  [ADAPTERS_SCHEMA_ID]: adaptersSchema,
  [TRIAL_SCHEMA_ID]: trialSchema,
  [BASELINE_SCHEMA_ID]: baselineSchema,
  [TRUST_ROOT_SCHEMA_ID]: trustRootSchema,
} as const;

export type DocumentSchemaId = keyof typeof documentSchemas;

/** Every kind `abp validate` recognizes, JSONL traces included. */
export const knownSchemaIds: readonly string[] = [...Object.keys(documentSchemas), TRACE_SCHEMA_ID];

export interface DocumentError {
  /** JSON path in readable form, e.g. `verification.failToPass[0]`; `$` is the root (of the line, for traces). */
  path: string;
  message: string;
  /** 1-based line of the offending value in the text, where known. */
  line?: number;
}

export interface DocumentValidation {
  /** The recognized kind, e.g. "abp-task/v1"; null when the text does not say or names an unknown kind. */
  schema: string | null;
  valid: boolean;
  errors: DocumentError[];
}

function isDocumentSchemaId(value: unknown): value is DocumentSchemaId {
  return typeof value === 'string' && Object.hasOwn(documentSchemas, value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// An event is recognizable by its own fields; a document never has both `kind` and `seq` at the top level without `schema`.
function looksLikeTraceEvent(value: unknown): boolean {
  return isPlainObject(value) && !('schema' in value) && 'kind' in value && 'seq' in value;
}

function nonBlankLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

function result(schema: string | null, errors: DocumentError[]): DocumentValidation {
  // Stable sort: errors read top to bottom like the file; those without a line keep their order at the end.
  const sorted = errors
    .map((error, index) => ({ error, index }))
    .sort((a, b) => (a.error.line ?? Infinity) - (b.error.line ?? Infinity) || a.index - b.index)
    .map(({ error }) => error);
  return { schema, valid: errors.length === 0, errors: sorted };
}

/** The line of the deepest value along `path` that exists in the text (a missing field points at its parent). */
function lineOf(scan: JsonScan | null, path: ReadonlyArray<string | number>): number | undefined {
  if (!scan) return undefined;
  for (let length = path.length; length >= 0; length -= 1) {
    const line = scan.valueLines.get(formatJsonPath(path.slice(0, length)));
    if (line !== undefined) return line;
  }
  return undefined;
}

function withLine(error: Omit<DocumentError, 'line'>, line: number | undefined): DocumentError {
  return line === undefined ? error : { ...error, line };
}

function duplicateKeyErrors(scan: JsonScan, lineOffset = 0): DocumentError[] {
  return scan.duplicateKeys.map((duplicate) => ({
    path: formatJsonPath(duplicate.path),
    line: duplicate.line + lineOffset,
    message: `repeats a key first given on line ${duplicate.firstLine + lineOffset}; JSON readers disagree on which value wins, so keep one`,
  }));
}

function schemaFieldError(value: Record<string, unknown>): DocumentError {
  const known = `expected one of ${documentSchemaIdList()} (traces are JSONL files, one event per line)`;
  if (!('schema' in value))
    return { path: 'schema', message: `is missing: every ABP document names its kind in "schema"; ${known}` };
  if (value.schema === TRACE_SCHEMA_ID) {
    return {
      path: 'schema',
      message: `${TRACE_SCHEMA_ID} is a JSONL format without a schema field: write one event object per line in a .jsonl file`,
    };
  }
  return { path: 'schema', message: `names an unknown document kind ${describeValue(value.schema)}; ${known}` };
}

function documentSchemaIdList(): string {
  return Object.keys(documentSchemas)
    .map((id) => JSON.stringify(id))
    .join(', ');
}

/**
 * Validates a parsed JSON document against the schema its `schema` field names. `scan` (of the same text) adds line
 * numbers and duplicate-key errors; without it, errors carry paths only.
 */
export function validateDocument(value: unknown, scan: JsonScan | null = null): DocumentValidation {
  if (!isPlainObject(value)) {
    return result(null, [
      withLine(
        { path: '$', message: `must be a JSON object with a "schema" field, got ${describeValue(value)}` },
        lineOf(scan, []),
      ),
    ]);
  }
  const schemaId = value.schema;
  if (!isDocumentSchemaId(schemaId)) return result(null, [withLine(schemaFieldError(value), lineOf(scan, ['schema']))]);

  const schema: z.ZodType = documentSchemas[schemaId];
  const parsed = schema.safeParse(value, plainWordsParseOptions);
  const errors: DocumentError[] = parsed.success
    ? []
    : locateIssues(parsed.error.issues).map((issue) =>
        withLine({ path: formatJsonPath(issue.path), message: issue.message }, lineOf(scan, issue.path)),
      );
  if (scan) errors.push(...duplicateKeyErrors(scan));

  // The digest needs node:crypto, so it is checked here rather than in the schema that workflow code imports.
  if (schemaId === REGISTRY_SCHEMA_ID && typeof value.digest === 'string' && conforms(sha256Digest, value.digest)) {
    const expected = registryDigest(value);
    if (expected !== value.digest) {
      errors.push(
        withLine(
          {
            path: 'digest',
            message: `does not match the document: the sha256 of its RFC 8785 canonical JSON without the digest field is ${expected}`,
          },
          lineOf(scan, ['digest']),
        ),
      );
    }
  }
  return result(schemaId, errors);
}

/** Validates JSONL trace text: every line as an abp-trace/v1 event, then the rules that span lines. */
export function validateTraceText(text: string): DocumentValidation {
  const errors: DocumentError[] = [];
  const events: unknown[] = [];
  const lineNumbers: number[] = [];
  const lines = text.split('\n');

  // A pretty-printed event or array is one JSON value over many lines; say so once instead of once per line.
  const [firstLine] = nonBlankLines(text);
  if (
    firstLine !== undefined &&
    nonBlankLines(text).length > 1 &&
    !parseJsonText(firstLine).ok &&
    parseJsonText(text).ok
  ) {
    return result(TRACE_SCHEMA_ID, [
      {
        path: '$',
        line: 1,
        message:
          'is one JSON value spread over several lines, but a trace is JSONL: write each event as one JSON object on its own line',
      },
    ]);
  }

  lines.forEach((raw, index) => {
    const lineText = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (lineText.trim() === '') return; // a blank line carries no event; editors add them at the end
    const line = index + 1;
    lineNumbers.push(line);
    const parsed = parseJsonText(lineText);
    if (!parsed.ok) {
      events.push(undefined);
      errors.push({
        path: '$',
        line,
        message: `is not valid JSON: ${parsed.error.message} (column ${parsed.error.column})`,
      });
      return;
    }
    events.push(parsed.value);
    if (!isPlainObject(parsed.value)) {
      errors.push({
        path: '$',
        line,
        message: `must be one JSON object (an ${TRACE_SCHEMA_ID} event), got ${describeValue(parsed.value)}`,
      });
      return;
    }
    const event = traceEventSchema.safeParse(parsed.value, plainWordsParseOptions);
    if (!event.success) {
      for (const issue of locateIssues(event.error.issues))
        errors.push({ path: formatJsonPath(issue.path), line, message: issue.message });
    }
    errors.push(...duplicateKeyErrors(scanJson(lineText), index));
  });

  if (events.length === 0)
    return result(TRACE_SCHEMA_ID, [
      { path: '$', message: 'is empty: a trace holds at least its run.start event, one JSON object per line' },
    ]);
  for (const violation of traceRuleViolations(events)) {
    errors.push(
      withLine({ path: formatJsonPath(violation.path), message: violation.message }, lineNumbers[violation.index]),
    );
  }
  return result(TRACE_SCHEMA_ID, errors);
}

/**
 * Validates one ABP document given as text. A trace is recognized by a `.jsonl` file name, or by its content: JSON
 * objects with `kind` and `seq` and no `schema` field (one per line, or a single such object). Everything else must be
 * one JSON document whose `schema` field picks the schema. All errors are collected, in file order.
 */
export function validateDocumentText(text: string, fileName: string): DocumentValidation {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text; // editors on Windows prepend a byte order mark
  if (/\.jsonl$/i.test(fileName)) return validateTraceText(body);
  if (body.trim() === '')
    return result(null, [{ path: '$', line: 1, message: 'is empty: expected a JSON document with a "schema" field' }]);

  const parsed = parseJsonText(body);
  if (!parsed.ok) {
    const [firstLine] = nonBlankLines(body);
    const first = firstLine === undefined ? null : parseJsonText(firstLine);
    if (first?.ok && looksLikeTraceEvent(first.value)) return validateTraceText(body);
    const { message, line, column } = parsed.error;
    return result(null, [
      { path: '$', line, message: `is not valid JSON: ${message} (line ${line}, column ${column})` },
    ]);
  }
  if (looksLikeTraceEvent(parsed.value)) return validateTraceText(body);
  return validateDocument(parsed.value, scanJson(body));
}
