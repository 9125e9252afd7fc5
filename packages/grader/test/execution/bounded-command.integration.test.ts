import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBounded } from '../../src/execution/bounded-command.js';
import type { BoundedCommand } from '../../src/execution/bounded-command.js';
import { endedSoon } from './liveness.js';
import { asyncCodeOf } from './execution-error.js';

let folder: string;
const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C.UTF-8' };

function command(argv: string[], overrides: Partial<BoundedCommand> = {}): BoundedCommand {
  return { argv, cwd: folder, env, timeoutMs: 20_000, maxOutputBytes: 64 * 1024, ...overrides };
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'abp-process-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('runBounded outcomes', () => {
  it('reports the exit code and both streams of a failing command', async () => {
    const result = await runBounded(command(['sh', '-c', 'echo out; echo err >&2; exit 3']));
    expect(result).toMatchObject({
      exitCode: 3,
      signal: null,
      timedOut: false,
      spawnError: null,
      stdoutBytes: 4,
      stderrBytes: 4,
    });
    expect(result.stdout.toString()).toBe('out\n');
    expect(result.stderr.toString()).toBe('err\n');
  });

  it('runs in the given folder with argument arrays passed verbatim (no shell)', async () => {
    const result = await runBounded(
      command([
        'node',
        '-e',
        'console.log(JSON.stringify([process.cwd(), ...process.argv.slice(1)]))',
        '$HOME',
        'a b',
        '"; ls',
      ]),
    );
    expect(JSON.parse(result.stdout.toString())).toEqual([folder, '$HOME', 'a b', '"; ls']);
  });

  it('reports the signal that ended a command', async () => {
    const result = await runBounded(command(['sh', '-c', 'kill -KILL $$']));
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false, spawnError: null });
  });

  it('writes stdin then closes it, and gives an empty stdin when none is given', async () => {
    const echoed = await runBounded(command(['cat'], { stdin: 'line one\nline two' }));
    expect(echoed.stdout.toString()).toBe('line one\nline two');
    const empty = await runBounded(command(['cat'], { timeoutMs: 5_000 }));
    expect(empty).toMatchObject({ exitCode: 0, timedOut: false, stdoutBytes: 0 });
  });

  it('does not fail when the command exits without reading its stdin', async () => {
    const result = await runBounded(command(['true'], { stdin: 'x'.repeat(1024 * 1024) }));
    expect(result).toMatchObject({ exitCode: 0, spawnError: null });
  });

  it('keeps the first maxOutputBytes of each stream and counts the rest', async () => {
    const script = "process.stdout.write('a'.repeat(100000)); process.stderr.write('0123456789')";
    const result = await runBounded(command(['node', '-e', script], { maxOutputBytes: 1000 }));
    expect(result).toMatchObject({
      exitCode: 0,
      stdoutBytes: 100_000,
      stdoutTruncated: true,
      stderrBytes: 10,
      stderrTruncated: false,
    });
    expect(result.stdout.toString()).toBe('a'.repeat(1000));
    expect(result.stderr.toString()).toBe('0123456789');
  });
});

describe('runBounded when the command cannot be invoked', () => {
  it('reports a program missing from PATH as spawnError ENOENT', async () => {
    const result = await runBounded(command(['abp-no-such-program-7f3a']));
    expect(result.spawnError?.code).toBe('ENOENT');
    expect(result.exitCode).toBeNull();
  });

  it('reports a missing absolute program as ENOENT', async () => {
    const result = await runBounded(command([path.join(folder, 'absent-binary')]));
    expect(result.spawnError?.code).toBe('ENOENT');
  });

  it('reports a file without execute permission as EACCES', async () => {
    const script = path.join(folder, 'not-executable.sh');
    await writeFile(script, '#!/bin/sh\necho hi\n');
    await chmod(script, 0o644);
    const result = await runBounded(command([script]));
    expect(result.spawnError?.code).toBe('EACCES');
  });

  it('reports a missing working directory as ENOENT', async () => {
    const result = await runBounded(command(['true'], { cwd: path.join(folder, 'no-such-folder') }));
    expect(result.spawnError?.code).toBe('ENOENT');
  });

  it('throws for a malformed request: that is the harness at fault, not the engine', async () => {
    expect(await asyncCodeOf(() => runBounded(command([])))).toBe('invalid-command');
    expect(await asyncCodeOf(() => runBounded(command(['true'], { timeoutMs: 0 })))).toBe('invalid-command');
    expect(await asyncCodeOf(() => runBounded(command(['true'], { maxOutputBytes: -1 })))).toBe('invalid-command');
  });
});

describe('runBounded leaves no process behind', () => {
  it('on timeout kills the whole tree, including a grandchild that ignores SIGTERM', async () => {
    // Both shells and the sleep ignore SIGTERM, so only the SIGKILL after the grace period ends them.
    const script = 'trap "" TERM; sh -c \'sleep 60 & echo $!; wait\' & wait';
    const result = await runBounded(command(['sh', '-c', script], { timeoutMs: 500 }));
    const grandchild = Number(result.stdout.toString().trim());
    expect(Number.isInteger(grandchild) && grandchild > 0).toBe(true);
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL', exitCode: null });
    expect(await endedSoon([grandchild])).toBe(true);
  });

  it('on timeout gives a command that honours SIGTERM its chance to stop', async () => {
    const result = await runBounded(command(['sleep', '60'], { timeoutMs: 300 }));
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGTERM', exitCode: null });
  });

  it('kills a background straggler left behind by a command that exited', async () => {
    const result = await runBounded(command(['sh', '-c', 'sleep 60 & echo $!']));
    const straggler = Number(result.stdout.toString().trim());
    expect(straggler).toBeGreaterThan(0);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(await endedSoon([straggler])).toBe(true);
  });

  it('kills a straggler that let go of the output pipes', async () => {
    const result = await runBounded(command(['sh', '-c', 'sleep 60 >/dev/null 2>&1 </dev/null & echo $!']));
    const straggler = Number(result.stdout.toString().trim());
    expect(straggler).toBeGreaterThan(0);
    expect(await endedSoon([straggler])).toBe(true);
  });
});
