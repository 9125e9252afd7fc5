// Deterministic assertions of fixture tasks (harness spec): checked after the engine exits, against its captured stdout and
// the verification checkout (base + the engine's non-test changes + held-out files), never against what the engine says.
import { createHash } from 'node:crypto';
import { lstat, readFile, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { relativePath, sha256Digest } from '@abp/protocol/schemas/primitives';

export const ASSERTIONS_SCHEMA_ID = 'abp-assertions/v1';

const assertion = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('stdout-equals'),
    expected: z.string(),
    trim: z.boolean().default(false).describe('Byte-exact unless true.'),
  }),
  z.strictObject({ kind: z.literal('stdout-contains'), expected: z.string().min(1) }),
  z.strictObject({
    kind: z.literal('stdout-json-equals'),
    expected: z.unknown(),
    orderedKeys: z.boolean().default(false).describe('Semantic unless true.'),
  }),
  z.strictObject({ kind: z.literal('file-present'), path: relativePath }),
  z.strictObject({ kind: z.literal('file-absent'), path: relativePath }),
  z.strictObject({ kind: z.literal('file-content'), path: relativePath, equals: z.string() }),
  z.strictObject({ kind: z.literal('file-hash'), path: relativePath, sha256: sha256Digest }),
  z.strictObject({
    kind: z.literal('command'),
    argv: z.array(z.string().min(1)).min(1),
    exitCode: z.int().default(0),
    stdoutEquals: z.string().optional(),
    timeoutSeconds: z.int().positive().max(1800).default(60),
  }),
]);

export const assertionsSchema = z.strictObject({
  schema: z.literal(ASSERTIONS_SCHEMA_ID),
  assertions: z.array(assertion).min(1),
});
export type FixtureAssertion = z.infer<typeof assertion>;

export interface AssertionResult {
  kind: FixtureAssertion['kind'];
  passed: boolean;
  detail: string;
}

export interface AssertionContext {
  engineStdout: Buffer;
  checkoutDir: string;
  /** Runs a bounded argument-array command in the checkout (the same runner and sandbox as verification commands). */
  runCommand(argv: readonly string[], timeoutMs: number): Promise<{ exitCode: number | null; stdout: Buffer }>;
}

/**
 * A regular file inside the checkout, or null. The engine wrote this tree: a symlink (at the path or on the way to it)
 * could point the grader, which runs outside any sandbox, at a host file, so anything that resolves elsewhere is absent.
 */
async function readChecked(root: string, path: string): Promise<Buffer | null> {
  const full = join(root, path);
  const info = await lstat(full).catch(() => null);
  if (!info?.isFile()) return null;
  const [realRoot, realFile] = await Promise.all([realpath(root), realpath(full).catch(() => '')]);
  return realFile.startsWith(`${realRoot}${sep}`) ? readFile(full) : null;
}

// Key order matters only when asked: JSON.stringify of the parsed values keeps the order the text had.
function jsonEqual(actual: unknown, expected: unknown, orderedKeys: boolean): boolean {
  return orderedKeys ? JSON.stringify(actual) === JSON.stringify(expected) : isDeepStrictEqual(actual, expected);
}

const preview = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);

export async function evaluateAssertion(check: FixtureAssertion, context: AssertionContext): Promise<AssertionResult> {
  const result = (passed: boolean, detail: string): AssertionResult => ({ kind: check.kind, passed, detail });
  const stdout = context.engineStdout.toString('utf8');
  switch (check.kind) {
    case 'stdout-equals': {
      const actual = check.trim ? stdout.trim() : stdout;
      const expected = check.trim ? check.expected.trim() : check.expected;
      return result(
        actual === expected,
        actual === expected
          ? 'stdout matches'
          : `stdout differs from the expected ${preview(expected)} (${Buffer.byteLength(actual)} bytes)`,
      );
    }
    case 'stdout-contains':
      return result(
        stdout.includes(check.expected),
        `stdout ${stdout.includes(check.expected) ? 'contains' : 'lacks'} ${preview(check.expected)}`,
      );
    case 'stdout-json-equals': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(stdout) as unknown;
      } catch {
        return result(false, `stdout is not JSON (${Buffer.byteLength(stdout)} bytes)`);
      }
      const equal = jsonEqual(parsed, check.expected, check.orderedKeys);
      return result(equal, equal ? 'stdout JSON matches' : 'stdout JSON differs from the expected value');
    }
    case 'file-present':
    case 'file-absent': {
      const present = (await readChecked(context.checkoutDir, check.path)) !== null;
      const passed = present === (check.kind === 'file-present');
      return result(passed, `${check.path} is ${present ? 'present' : 'absent'}`);
    }
    case 'file-content': {
      const content = await readChecked(context.checkoutDir, check.path);
      if (content === null) return result(false, `${check.path} is absent`);
      const passed = content.toString('utf8') === check.equals;
      // The content itself is not quoted: it is the engine's text and may carry anything.
      return result(
        passed,
        passed
          ? `${check.path} matches`
          : `${check.path} differs (${content.length} bytes, sha256:${createHash('sha256').update(content).digest('hex').slice(0, 12)})`,
      );
    }
    case 'file-hash': {
      const content = await readChecked(context.checkoutDir, check.path);
      if (content === null) return result(false, `${check.path} is absent`);
      const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`;
      return result(digest === check.sha256, `${check.path} has ${digest}`);
    }
    case 'command': {
      const run = await context.runCommand(check.argv, check.timeoutSeconds * 1000);
      const exitOk = run.exitCode === check.exitCode;
      const stdoutOk = check.stdoutEquals === undefined || run.stdout.toString('utf8') === check.stdoutEquals;
      return result(
        exitOk && stdoutOk,
        `${JSON.stringify(check.argv)} exited ${String(run.exitCode)}${stdoutOk ? '' : ' with unexpected stdout'}`,
      );
    }
  }
}
