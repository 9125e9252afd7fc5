// The committed JSON Schema files are current, carry the rules they must, and accept and reject what the zod schemas do.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  applyJsonSchemaExport,
  DEFAULT_OUT_DIR,
  planJsonSchemaExport,
} from '../../../../scripts/export-json-schemas.js';
import { jsonSchemaFileName, renderJsonSchemaFiles } from '../../src/schemas/json-schema.js';
import { containing, expectedKind, fixtureFiles, invalidCases, invalidDir, readFixture, validDir } from './fixtures.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type JsonObject = Record<string, unknown>;

async function committedSchema(kind: string): Promise<JsonObject> {
  return JSON.parse(await readFile(join(DEFAULT_OUT_DIR, jsonSchemaFileName(kind)), 'utf8')) as JsonObject;
}

const at = (value: unknown, ...keys: string[]): JsonObject =>
  keys.reduce((node, key) => (node as JsonObject)[key], value) as JsonObject;

/** The values a JSON Schema file is applied to: the document, or each event line of a trace. */
function instances(file: string, text: string): unknown[] {
  return file.endsWith('.jsonl')
    ? text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as unknown)
    : [JSON.parse(text) as unknown];
}

describe('committed JSON Schema files', () => {
  it('are exactly what the export generates now (run npm run schemas:export when this fails)', async () => {
    for (const file of renderJsonSchemaFiles()) {
      expect(await readFile(join(DEFAULT_OUT_DIR, file.fileName), 'utf8'), file.fileName).toBe(file.text);
    }
    const plan = await planJsonSchemaExport();
    expect({ stale: plan.stale, missing: plan.missing, unexpected: plan.unexpected }).toEqual({
      stale: [],
      missing: [],
      unexpected: [],
    });
  });

  it('are pretty-printed with two spaces and end in one newline', () => {
    for (const file of renderJsonSchemaFiles()) {
      expect(file.text.endsWith('}\n')).toBe(true);
      expect(file.text).toBe(`${JSON.stringify(JSON.parse(file.text), null, 2)}\n`);
    }
  });

  it('name one file per kind, each with $id, title and the 2020-12 dialect', async () => {
    expect(
      renderJsonSchemaFiles()
        .map((file) => file.fileName)
        .sort(),
    ).toEqual([
      'abp-adapters-v1.schema.json',
      'abp-baseline-v1.schema.json',
      'abp-draw-v1.schema.json',
      'abp-registry-v1.schema.json',
      'abp-run-v1.schema.json',
      'abp-task-v1.schema.json',
      'abp-trace-v1.schema.json',
      'abp-trial-v1.schema.json',
      'abp-trust-root-v1.schema.json',
      'abp-verdict-v1.schema.json',
    ]);
    const task = await committedSchema('abp-task/v1');
    expect(task).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:abp:schema:abp-task:v1',
      title: containing('abp-task/v1'),
    });
  });
});

describe('the task JSON Schema', () => {
  it('requires the manifest fields and fixes heldOut to true', async () => {
    const task = await committedSchema('abp-task/v1');
    expect(task.required).toEqual(
      expect.arrayContaining(['schema', 'id', 'source', 'prompt', 'environment', 'verification', 'cutoffsVerified']),
    );
    expect(task.additionalProperties).toBe(false);
    const verification = at(task, 'properties', 'verification');
    expect(verification.required).toEqual(
      expect.arrayContaining(['kind', 'failToPass', 'passToPass', 'timeoutSeconds', 'heldOut']),
    );
    expect(at(verification, 'properties', 'heldOut')).toMatchObject({ const: true });
    expect(at(verification, 'properties', 'failToPass')).toMatchObject({ minItems: 1 });
  });

  it('rejects an abbreviated baseCommit by pattern', async () => {
    const task = await committedSchema('abp-task/v1');
    const githubIssue = (at(task, 'properties', 'source').oneOf as JsonObject[]).find(
      (option) => at(option, 'properties', 'kind').const === 'github-issue',
    );
    const pattern = new RegExp(at(githubIssue, 'properties', 'baseCommit').pattern as string, 'u');
    expect(pattern.test('9f2c41d')).toBe(false);
    expect(pattern.test('9f2c41d7e3b85a06c1d4f9e27b3a58c0d6e1f492')).toBe(true);
  });

  it('requires golden for github-issue tasks and forbids it for fixtures', async () => {
    const task = await committedSchema('abp-task/v1');
    expect(task).toMatchObject({ then: { not: { required: ['golden'] } }, else: { required: ['golden'] } });
  });
});

describe('the trace JSON Schema', () => {
  it('is one event, a union over the event kinds, with non-negative integer tokens', async () => {
    const trace = await committedSchema('abp-trace/v1');
    const options = trace.oneOf as JsonObject[];
    expect(options.map((option) => at(option, 'properties', 'kind').const)).toEqual([
      'run.start',
      'model.call',
      'tool.call',
      'subagent.start',
      'subagent.end',
      'run.end',
    ]);
    const modelCall = options[1];
    expect(at(modelCall, 'properties', 'tokens', 'properties', 'input')).toMatchObject({ type: 'integer', minimum: 0 });
    expect(at(modelCall, 'properties', 'seq')).toMatchObject({ type: 'integer', exclusiveMinimum: 0 });
  });
});

// Another implementation's view: Ajv, a JSON Schema 2020-12 validator that knows nothing of zod.
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
function evaluateJsonSchema(schema: JsonObject, instance: unknown): string[] {
  const validate = (typeof schema.$id === 'string' ? ajv.getSchema(schema.$id) : undefined) ?? ajv.compile(schema);
  return validate(instance)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
}

describe('evaluating the JSON Schema files with Ajv', () => {
  it.each(fixtureFiles(validDir))('accepts valid %s', async (file) => {
    const schema = await committedSchema(expectedKind(file));
    for (const instance of instances(file, readFixture(validDir, file)))
      expect(evaluateJsonSchema(schema, instance)).toEqual([]);
  });

  it.each(invalidCases().filter((entry) => entry.jsonSchemaRejects))(
    'rejects invalid $file ($reason)',
    async (entry) => {
      const schema = await committedSchema(entry.schema ?? '');
      const failures = instances(entry.file, readFixture(invalidDir, entry.file)).flatMap((instance) =>
        evaluateJsonSchema(schema, instance),
      );
      expect(failures.length).toBeGreaterThan(0);
    },
  );
});

describe('export-json-schemas', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'abp-json-schemas-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports every file missing in an empty folder, writes them, then reports nothing', async () => {
    const before = await planJsonSchemaExport(dir);
    expect(before.missing).toHaveLength(renderJsonSchemaFiles().length);
    await applyJsonSchemaExport(before, dir);
    expect((await readdir(dir)).sort()).toEqual(
      renderJsonSchemaFiles()
        .map((file) => file.fileName)
        .sort(),
    ); // no temp files left behind
    const after = await planJsonSchemaExport(dir);
    expect([...after.stale, ...after.missing, ...after.unexpected]).toEqual([]);
  });

  it('finds stale and unexpected files, and the write removes the unexpected ones', async () => {
    await applyJsonSchemaExport(await planJsonSchemaExport(dir), dir);
    await writeFile(join(dir, 'abp-run-v1.schema.json'), '{}\n');
    await writeFile(join(dir, 'abp-run-v0.schema.json'), '{}\n');
    await writeFile(join(dir, 'README.md'), 'not a schema\n');
    const plan = await planJsonSchemaExport(dir);
    expect(plan).toMatchObject({
      stale: ['abp-run-v1.schema.json'],
      missing: [],
      unexpected: ['abp-run-v0.schema.json'],
    });
    expect(await applyJsonSchemaExport(plan, dir)).toEqual(['abp-run-v0.schema.json', 'abp-run-v1.schema.json']);
    expect((await readdir(dir)).includes('README.md')).toBe(true);
    expect((await planJsonSchemaExport(dir)).stale).toEqual([]);
  });
});
