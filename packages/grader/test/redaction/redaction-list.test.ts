import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRedactionList, RedactionError, redactionListPath } from '../../src/redaction/index.js';

let dir: string;
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'abp-redaction-list-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function listFile(name: string, content: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

function failure(run: () => unknown): RedactionError {
  try {
    run();
  } catch (error) {
    if (error instanceof RedactionError) return error;
    throw error;
  }
  throw new Error('expected a RedactionError');
}

const rule = (overrides: Record<string, unknown>) => ({
  id: 'some-rule',
  kind: 'pattern',
  description: 'a rule',
  pattern: 'x+',
  ...overrides,
});

describe('the committed redaction list', () => {
  it('loads, is versioned, and covers environment values, patterns and paths', () => {
    const list = loadRedactionList(redactionListPath);
    expect(list.version).toBe('abp-redaction/1');
    expect(new Set(list.rules.map((entry) => entry.kind))).toEqual(new Set(['env-value', 'pattern', 'path']));
  });
});

describe('loadRedactionList', () => {
  it('reports a missing file as unreadable', () => {
    expect(failure(() => loadRedactionList(join(dir, 'absent.json'))).code).toBe('unreadable-list');
  });

  it('reports invalid JSON, naming the file', async () => {
    const file = await listFile('broken.json', '{"version": "abp-redaction/1", rules: []}');
    const error = failure(() => loadRedactionList(file));
    expect(error.code).toBe('invalid-list');
    expect(error.message).toContain(file);
  });

  it.each([
    [
      'a pattern rule without a pattern',
      { version: 'abp-redaction/1', rules: [rule({ pattern: undefined })] },
      'rules[0].pattern',
    ],
    ['a path rule with a pattern', { version: 'abp-redaction/1', rules: [rule({ kind: 'path' })] }, 'rules[0].pattern'],
    [
      'an invalid regular expression',
      { version: 'abp-redaction/1', rules: [rule({ pattern: '(unclosed' })] },
      'rules[0].pattern',
    ],
    ['a repeated rule id', { version: 'abp-redaction/1', rules: [rule({}), rule({})] }, 'rules[1].id'],
    ['an unknown kind', { version: 'abp-redaction/1', rules: [rule({ kind: 'regex' })] }, 'rules[0].kind'],
    ['a malformed version', { version: 'redaction-1', rules: [rule({})] }, 'version'],
    ['no rules', { version: 'abp-redaction/1', rules: [] }, 'rules'],
  ])('refuses %s, naming the file and field', async (_case, content, field) => {
    files += 1;
    const file = await listFile(`case-${files}.json`, content);
    const error = failure(() => loadRedactionList(file));
    expect(error.code).toBe('invalid-list');
    expect(error.message).toContain(file);
    expect(error.message).toContain(`${field} `);
  });
});
