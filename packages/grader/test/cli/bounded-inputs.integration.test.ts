// Inputs the real `abp` command reads whole are refused, each with its own code and quickly, when they are not regular
// files (a device that never ends, a FIFO that would block) or larger than stated for their kind: a sparse file
// reports its size without taking the disk, so a 300 MiB "document" costs nothing to make here.
import { execFileSync } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAbp } from '../support/cli.js';

let root: string;
let sparse: string;
let fifo: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-bounded-inputs-'));
  sparse = join(root, 'huge.json');
  const file = await open(sparse, 'w');
  await file.truncate(300 * 1024 * 1024);
  await file.close();
  fifo = join(root, 'pipe.json');
  execFileSync('mkfifo', [fifo]);
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

async function refused(
  args: string[],
): Promise<{ code: number | null; errorCode: string | undefined; stderr: string }> {
  const result = await runAbp([...args, '--json'], { ABP_HOME: join(root, 'home') }, 30_000);
  const data = JSON.parse(result.stdout || '{}') as {
    error?: { code: string };
    files?: Array<{ errors: Array<{ message: string }> }>;
  };
  return {
    code: result.code,
    errorCode: data.error?.code ?? /^([a-z-]+):/.exec(data.files?.[0]?.errors[0]?.message ?? '')?.[1],
    stderr: result.stderr,
  };
}

describe('inputs that are not files, or too large, are refused before they are read', () => {
  it('abp verify /dev/zero: not-a-regular-file, at once', async () => {
    const result = await refused(['verify', '/dev/zero', '--signature', '/dev/null']);
    expect(result.code).toBe(1);
    expect(result.errorCode).toBe('not-a-regular-file');
    expect(result.stderr).toContain('/dev/zero is not a regular file (a device)');
  });

  it('abp validate on a FIFO does not block, and on a 300 MiB file refuses it: not-a-regular-file, input-too-large', async () => {
    const onFifo = await refused(['validate', fifo]);
    expect(onFifo.code).toBe(1);
    expect(onFifo.errorCode).toBe('not-a-regular-file');
    const onHuge = await refused(['validate', sparse]);
    expect(onHuge.code).toBe(1);
    expect(onHuge.errorCode).toBe('input-too-large');
    expect(onHuge.stderr).toContain('larger than the 64 MiB allowed');
  });

  it('abp verify with a huge signature, and abp audit draw with a device for its snapshot, name the input', async () => {
    const bundle = join(root, 'bundle.tar');
    await (await open(bundle, 'w')).close();
    const signature = await refused(['verify', bundle, '--signature', sparse]);
    expect(signature.errorCode).toBe('input-too-large');
    expect(signature.stderr).toContain("the bundle's signature");
    const audit = await refused(['audit', 'draw', sparse, '--snapshot', bundle]);
    expect(audit.code).toBe(1);
    expect(audit.errorCode).toBe('input-too-large');
    const snapshot = await refused(['audit', 'draw', bundle, '--snapshot', '/dev/zero']);
    expect(snapshot.errorCode).toBe('not-a-regular-file');
  });
});
