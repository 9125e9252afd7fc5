import { createHash } from 'node:crypto';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBounded } from '../../src/execution/index.js';
import {
  assertionsSchema,
  evaluateAssertion,
  type AssertionContext,
  type FixtureAssertion,
} from '../../src/verification/assertions.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'abp-assertions-'));
  await writeFile(join(dir, 'out.txt'), 'Hello, ABP!\n');
  await writeFile(
    join(dir, 'print.mjs'),
    "process.stdout.write('42\\n'); process.exit(Number(process.argv[2] ?? 0));\n",
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const context = (stdout: string): AssertionContext => ({
  engineStdout: Buffer.from(stdout),
  checkoutDir: dir,
  runCommand: async (argv, timeoutMs) => {
    const result = await runBounded({
      argv,
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs,
      maxOutputBytes: 4096,
    });
    return { exitCode: result.exitCode, stdout: result.stdout };
  },
});
const check = (raw: unknown) =>
  assertionsSchema.parse({ schema: 'abp-assertions/v1', assertions: [raw] }).assertions[0] as FixtureAssertion;
const passes = async (raw: unknown, stdout = '') => (await evaluateAssertion(check(raw), context(stdout))).passed;

describe('fixture assertions (harness spec)', () => {
  it('compares stdout byte for byte unless trim is set', async () => {
    expect(await passes({ kind: 'stdout-equals', expected: 'done' }, 'done\n')).toBe(false);
    expect(await passes({ kind: 'stdout-equals', expected: 'done\n' }, 'done\n')).toBe(true);
    expect(await passes({ kind: 'stdout-equals', expected: 'done', trim: true }, '  done\n')).toBe(true);
    expect(await passes({ kind: 'stdout-contains', expected: 'one' }, 'done\n')).toBe(true);
  });

  it('compares stdout JSON semantically unless orderedKeys is set', async () => {
    const expected = { a: 1, b: [1, 2] };
    expect(await passes({ kind: 'stdout-json-equals', expected }, '{"b":[1,2],"a":1}')).toBe(true);
    expect(await passes({ kind: 'stdout-json-equals', expected, orderedKeys: true }, '{"b":[1,2],"a":1}')).toBe(false);
    expect(await passes({ kind: 'stdout-json-equals', expected, orderedKeys: true }, '{"a":1,"b":[1,2]}')).toBe(true);
    expect(await passes({ kind: 'stdout-json-equals', expected }, '{"a":1,"b":[2,1]}')).toBe(false);
    expect(await passes({ kind: 'stdout-json-equals', expected }, 'not json')).toBe(false);
  });

  it('checks files of the verification checkout: presence, content and hash', async () => {
    const digest = `sha256:${createHash('sha256').update('Hello, ABP!\n').digest('hex')}`;
    expect(await passes({ kind: 'file-present', path: 'out.txt' })).toBe(true);
    expect(await passes({ kind: 'file-absent', path: 'out.txt' })).toBe(false);
    expect(await passes({ kind: 'file-absent', path: 'missing.txt' })).toBe(true);
    expect(await passes({ kind: 'file-content', path: 'out.txt', equals: 'Hello, ABP!\n' })).toBe(true);
    expect(await passes({ kind: 'file-content', path: 'out.txt', equals: 'Hello, ABP!' })).toBe(false);
    expect(await passes({ kind: 'file-hash', path: 'out.txt', sha256: digest })).toBe(true);
    expect(await passes({ kind: 'file-hash', path: 'missing.txt', sha256: digest })).toBe(false);
  });

  it('runs bounded argument-array commands and checks exit code and stdout', async () => {
    expect(await passes({ kind: 'command', argv: [process.execPath, 'print.mjs'], stdoutEquals: '42\n' })).toBe(true);
    expect(await passes({ kind: 'command', argv: [process.execPath, 'print.mjs', '3'] })).toBe(false);
    expect(await passes({ kind: 'command', argv: [process.execPath, 'print.mjs', '3'], exitCode: 3 })).toBe(true);
    expect(await passes({ kind: 'command', argv: [process.execPath, 'print.mjs'], stdoutEquals: '41\n' })).toBe(false);
  });

  it('treats a symlink out of the checkout as absent and never quotes file content', async () => {
    await symlink('/etc/passwd', join(dir, 'leak.txt'));
    await symlink('/etc', join(dir, 'etc-link'));
    expect(await passes({ kind: 'file-present', path: 'leak.txt' })).toBe(false);
    expect(await passes({ kind: 'file-present', path: 'etc-link/passwd' })).toBe(false);
    const content = await evaluateAssertion(
      check({ kind: 'file-content', path: 'out.txt', equals: 'other' }),
      context(''),
    );
    expect(content.passed).toBe(false);
    expect(content.detail).not.toContain('Hello');
  });

  it('refuses paths that leave the checkout', () => {
    expect(
      assertionsSchema.safeParse({
        schema: 'abp-assertions/v1',
        assertions: [{ kind: 'file-present', path: '../etc/passwd' }],
      }).success,
    ).toBe(false);
    expect(
      assertionsSchema.safeParse({
        schema: 'abp-assertions/v1',
        assertions: [{ kind: 'file-present', path: '/etc/passwd' }],
      }).success,
    ).toBe(false);
  });
});
