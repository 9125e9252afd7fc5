// A golden trace is checked before a freeze names it: a clean abp-trace/v1 file of the task is read whole and addressed
// by its bytes; one that is too large, not JSON on some line, not an abp-trace/v1 event, another task's, or holding what
// the redaction list hides is refused with its own code, naming the file, the line and the fix (and never the secret).
// The store keeps traces under their digest and the trace attached to a task before its freeze.
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { FreezeError } from '../../src/freeze/errors.js';
import { GOLDEN_TRACE_MAX_BYTES, readGoldenTrace } from '../../src/freeze/golden-trace.js';
import { GoldenTraceStore } from '../../src/freeze/golden-trace-store.js';
import { codeOf } from './bundle/support.js';
import { goldenTraceEvents, goldenTraceText } from '../support/golden-trace.js';

const TASK = 'gh-acme-widgets-42';
let root = '';
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-golden-trace-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function traceFile(name: string, text: string | Buffer): Promise<string> {
  const path = join(root, name);
  await writeFile(path, text);
  return path;
}

/** The trace with line `line` (1-based) replaced by `text`. */
function withLine(line: number, text: string): string {
  const lines = goldenTraceText(TASK).split('\n');
  lines[line - 1] = text;
  return lines.join('\n');
}

async function refusal(path: string, taskId = TASK): Promise<FreezeError> {
  const error: unknown = await readGoldenTrace(path, taskId).then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(FreezeError);
  return error as FreezeError;
}

describe('readGoldenTrace', () => {
  it('reads a clean trace of the task whole, addressed by the sha256 of its bytes', async () => {
    const path = await traceFile('clean.abp-trace.jsonl', goldenTraceText(TASK));
    const trace = await readGoldenTrace(path, TASK);
    expect(trace.bytes.equals(await readFile(path))).toBe(true);
    expect(trace.digest).toBe(`sha256:${sha256Hex(trace.bytes)}`);
  });

  it('refuses a line that is not JSON, naming the file and the line', async () => {
    const path = await traceFile(
      'bad-json.abp-trace.jsonl',
      withLine(3, '{"t": "2026-06-02T10:00:02.000Z", "seq": 3,'),
    );
    const error = await refusal(path);
    expect(error.code).toBe('invalid-golden-trace');
    expect(error.message).toContain(`${path} line 3: $: is not valid JSON`);
    expect(error.message).toContain('abp-trace/v1');
  });

  it('refuses an event abp-trace/v1 does not define, naming its line', async () => {
    const unknown = { t: '2026-06-02T10:00:01.000Z', seq: 2, kind: 'file.read', path: 'src/slug.js' };
    const path = await traceFile('unknown-event.abp-trace.jsonl', withLine(2, JSON.stringify(unknown)));
    const error = await refusal(path);
    expect(error.code).toBe('invalid-golden-trace');
    expect(error.message).toContain(`${path} line 2: kind: unknown kind "file.read"`);
  });

  it('refuses another task’s trace, and an empty file', async () => {
    const other = await traceFile('other-task.abp-trace.jsonl', goldenTraceText('gh-acme-widgets-7'));
    const error = await refusal(other);
    expect(error.code).toBe('invalid-golden-trace');
    expect(error.message).toContain(
      `${other} line 1: run.start names task "gh-acme-widgets-7", but this is task ${TASK}`,
    );
    expect((await refusal(await traceFile('empty.abp-trace.jsonl', ''))).code).toBe('invalid-golden-trace');
  });

  it('refuses a trace past the receipt bound before reading it, and what is not a regular file', async () => {
    const path = await traceFile('large.abp-trace.jsonl', Buffer.alloc(GOLDEN_TRACE_MAX_BYTES + 1, 0x20));
    const large = await refusal(path);
    expect(large.code).toBe('golden-trace-too-large');
    expect(large.message).toContain(`${path} is larger than the 8 MiB`);
    await mkdir(join(root, 'a-folder'));
    expect((await refusal(join(root, 'a-folder'))).code).toBe('golden-trace-unreadable');
    expect((await refusal(join(root, 'absent.abp-trace.jsonl'))).code).toBe('golden-trace-unreadable');
  });

  it('refuses a trace holding what the redaction list hides, naming the rule and never the secret', async () => {
    const token = `ghp_${'x1Y2'.repeat(9)}`;
    const [, , call] = goldenTraceEvents(TASK);
    const leaking = { ...call, args: { command: `curl -H 'X-Token: ${token}' https://api.github.com` } };
    const path = await traceFile('secret.abp-trace.jsonl', withLine(3, JSON.stringify(leaking)));
    const error = await refusal(path);
    expect(error.code).toBe('golden-trace-unredacted');
    expect(error.message).toContain(`${path} line 3 holds what the redaction list's rule github-token hides`);
    expect(error.message).not.toContain(token);
    // Checked before the schema, whose messages quote values: a secret on a malformed line is still never repeated.
    const malformed = await traceFile('secret-malformed.abp-trace.jsonl', withLine(2, `{"kind": "${token}"`));
    expect((await refusal(malformed)).message).not.toContain(token);
  });
});

describe('GoldenTraceStore', () => {
  const trace = Buffer.from(goldenTraceText(TASK));
  const digest = `sha256:${sha256Hex(trace)}`;

  it('keeps a trace under the sha256 of its bytes, once, and reads it back checked', async () => {
    const store = new GoldenTraceStore(join(root, 'store'));
    expect(await store.has(digest)).toBe(false);
    expect(await store.put(trace)).toBe(digest);
    expect(await store.put(trace)).toBe(digest);
    expect(store.path(digest)).toBe(join(root, 'store', 'sha256', `${sha256Hex(trace)}.abp-trace.jsonl`));
    expect(await readdir(join(root, 'store', 'sha256'))).toEqual([`${sha256Hex(trace)}.abp-trace.jsonl`]);
    expect((await store.get(digest)).equals(trace)).toBe(true);
    await chmod(store.path(digest), 0o644);
    await writeFile(store.path(digest), 'rotted bits\n');
    expect(await codeOf(store.get(digest))).toBe('corrupt-store');
    expect(await codeOf(store.get('sha256:../../etc/passwd'))).toBe('invalid-digest');
  });

  it('attaches a stored trace to a task, replacing one attached before, and refuses one it does not hold', async () => {
    const store = new GoldenTraceStore(join(root, 'attached'));
    expect(await store.attached(TASK)).toBeNull();
    expect(await codeOf(store.attach(TASK, digest))).toBe('not-found');
    await store.put(trace);
    await store.attach(TASK, digest);
    expect(await store.attached(TASK)).toBe(digest);
    const other = await store.put(Buffer.from(goldenTraceText(TASK).replace('"seq":5', '"seq":6')));
    const path = await store.attach(TASK, other);
    expect(await store.attached(TASK)).toBe(other);
    await writeFile(path, '{"taskId": "gh-acme-widgets-7"}');
    expect(await codeOf(store.attached(TASK))).toBe('corrupt-store');
  });
});
