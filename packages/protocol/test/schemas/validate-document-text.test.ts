// validateDocumentText: how it tells traces from documents, reads broken JSON, and reports every error with a path and a line.
import { describe, expect, it } from 'vitest';
import { knownSchemaIds, validateDocument, validateDocumentText } from '../../src/schemas/documents.js';
import { containing, edit, readFixture, readJsonFixture, validDir } from './fixtures.js';

const task = readJsonFixture(validDir, 'task-spec-example.json');
const traceText = readFixture(validDir, 'trace-spec-example.abp-trace.jsonl');

describe('trace detection', () => {
  it('reads a .jsonl file as a trace whatever it holds', () => {
    expect(validateDocumentText(readFixture(validDir, 'run-spec-example.json'), 'run.jsonl')).toMatchObject({
      schema: 'abp-trace/v1',
      valid: false,
    });
  });

  it('recognizes JSONL event lines under another name', () => {
    expect(validateDocumentText(traceText, 'trace.txt')).toEqual({ schema: 'abp-trace/v1', valid: true, errors: [] });
    expect(validateDocumentText(traceText, '-')).toEqual({ schema: 'abp-trace/v1', valid: true, errors: [] });
  });

  it('recognizes a lone event object as a one-line trace', () => {
    const [first] = traceText.split('\n');
    expect(validateDocumentText(first ?? '', 'event.json')).toEqual({
      schema: 'abp-trace/v1',
      valid: true,
      errors: [],
    });
  });

  it('still reports a broken line when the first line looks like an event', () => {
    const text = traceText.replace('"seq":3,', '"seq":3,,');
    const result = validateDocumentText(text, 'trace.log');
    expect(result.schema).toBe('abp-trace/v1');
    expect(result.errors).toEqual([{ path: '$', line: 3, message: containing('is not valid JSON') }]);
  });

  it('explains a pretty-printed trace once rather than once per line', () => {
    const pretty = JSON.stringify(JSON.parse(traceText.split('\n')[0] ?? ''), null, 2);
    expect(validateDocumentText(pretty, 'trace.jsonl').errors).toEqual([
      { path: '$', line: 1, message: containing('write each event as one JSON object on its own line') },
    ]);
  });

  it('tolerates CRLF line ends, blank lines and a byte order mark', () => {
    const text = `\uFEFF${traceText.replace(/\n/g, '\r\n')}\r\n\r\n`;
    expect(validateDocumentText(text, 'trace.jsonl')).toEqual({ schema: 'abp-trace/v1', valid: true, errors: [] });
  });

  it('rejects an empty trace', () => {
    expect(validateDocumentText('\n', 'trace.jsonl').errors).toEqual([{ path: '$', message: containing('is empty') }]);
  });

  it('redirects a document that claims to be abp-trace/v1 to the JSONL form', () => {
    const result = validateDocumentText('{"schema":"abp-trace/v1","events":[]}', 'trace.json');
    expect(result).toMatchObject({
      schema: null,
      valid: false,
      errors: [{ path: 'schema', message: containing('JSONL') }],
    });
  });

  it('allows times to go backwards between lines (only seq orders a trace) and subagents left open at run.end', () => {
    const lines = traceText.trim().split('\n');
    expect(lines[2]).toContain('2026-07-02T14:12:04.131Z');
    lines[2] = (lines[2] ?? '').replace('2026-07-02T14:12:04.131Z', '2026-07-02T14:12:01.000Z');
    expect(validateDocumentText(lines.join('\n'), 'trace.jsonl').valid).toBe(true);
  });
});

describe('JSON documents', () => {
  it('lists the known kinds when schema is unknown', () => {
    const result = validateDocumentText('{"schema":"abp-tsk/v1"}', 'x.json');
    expect(result.schema).toBeNull();
    for (const id of knownSchemaIds.filter((id) => id !== 'abp-trace/v1'))
      expect(result.errors[0]?.message).toContain(`"${id}"`);
  });

  it('refuses a root that is not an object', () => {
    expect(validateDocumentText('[1, 2]', 'x.json').errors).toEqual([
      { path: '$', line: 1, message: containing('must be a JSON object') },
    ]);
  });

  it.each([
    ['', 'is empty', 1],
    ['{"schema": "abp-run/v1",\n  "seed": 1,\n}', 'trailing comma before "}": remove it (line 2, column 12)', 2],
    ['{"schema": \'abp-run/v1\'}', 'strings must use double quotes (line 1, column 12)', 1],
    ['{"schema": "abp-run/v1"', 'expected "," or "}" after the value of "schema", got the end of the text', 1],
    ['{"a": 1}\n{"b": 2}', 'unexpected "{" after the end of the JSON value (line 2, column 1)', 2],
    ['{"a": "x\ny"}', 'control character inside a string', 1],
    ['{"a": tru}', 'expected a JSON value, got "t" (line 1, column 7)', 1],
  ])('locates the syntax error in %j', (text, message, line) => {
    const result = validateDocumentText(text, 'x.json');
    expect(result).toMatchObject({ schema: null, valid: false });
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ path: '$', line });
    expect(result.errors[0]?.message).toContain(message);
  });

  it('collects every error, in file order, each with the line of its value', () => {
    const doc = edit(task, {
      'source.baseCommit': '9f2c41d',
      'verification.failToPass': [],
      'verification.heldOut': false,
      'environment.setup': [''],
      prompt: undefined,
      extra: 1,
    });
    const text = JSON.stringify(doc, null, 2);
    const result = validateDocumentText(text, 'task.json');
    expect(result.schema).toBe('abp-task/v1');
    const lines = text.split('\n');
    const lineOf = (needle: string) => lines.findIndex((line) => line.includes(needle)) + 1;
    expect(result.errors).toEqual([
      // A missing field points at its parent, the root object here.
      { path: 'prompt', line: 1, message: 'is required but missing' },
      {
        path: 'source.baseCommit',
        line: lineOf('"baseCommit"'),
        message: containing('full 40-character hex git commit sha, got "9f2c41d"'),
      },
      { path: 'environment.setup[0]', line: lineOf('"setup"') + 1, message: containing('non-empty one-line command') },
      { path: 'verification.failToPass', line: lineOf('"failToPass"'), message: containing('at least one command') },
      { path: 'verification.heldOut', line: lineOf('"heldOut"'), message: containing('must be true') },
      { path: 'extra', line: lineOf('"extra"'), message: containing('is not a known field') },
    ]);
  });

  it('suggests the field a typo meant', () => {
    const doc = edit(task, {
      'verification.passtoPass': ['pnpm test -- test/router/'],
      'verification.passToPass': undefined,
    });
    const result = validateDocument(doc);
    expect(result.errors).toContainEqual({
      path: 'verification.passtoPass',
      message: containing('did you mean "passToPass"?'),
    });
    expect(result.errors).toContainEqual({ path: 'verification.passToPass', message: 'is required but missing' });
  });

  it('names wrong types and enum values in plain words', () => {
    const run = edit(readJsonFixture(validDir, 'run-spec-example.json'), {
      trials: 2.5,
      ordering: 'abab',
      matchedModels: 'yes',
    });
    expect(validateDocument(run).errors).toEqual([
      { path: 'matchedModels', message: 'must be true or false, got "yes"' },
      { path: 'trials', message: 'must be an integer, got 2.5' },
      { path: 'ordering', message: 'must be one of "abba", "shuffled", "sequential", got "abab"' },
    ]);
  });

  it('quotes odd keys in paths', () => {
    const doc = edit(task, { 'odd key': true });
    expect(validateDocument(doc).errors).toEqual([
      { path: '$["odd key"]', message: containing('is not a known field') },
    ]);
  });
});
