// The worker's workflow bundle, made by a short-lived child process in a temporary folder: the folder is gone when the
// bundle is made, and one a killed worker left behind (its pid in the name, the process gone) is removed by the next.
import { mkdir, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { bundleWorkflowsApart } from '../../src/worker/worker.js';

describe('the workflow bundle made apart', () => {
  it('makes the bundle, leaves no folder of its own, and removes the folders of workers that are gone', async () => {
    const dead = spawn(process.execPath, ['-e', '0']);
    await once(dead, 'exit');
    const leftover = join(tmpdir(), `abp-bundle-${dead.pid}-Xy12Zq`);
    await mkdir(leftover, { recursive: true });
    const bundle = await bundleWorkflowsApart();
    expect(bundle.code.length).toBeGreaterThan(1000);
    expect(bundle.code).toContain('taskLifecycle');
    await expect(stat(leftover)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(tmpdir())).filter((name) => name.startsWith(`abp-bundle-${process.pid}-`))).toEqual([]);
  }, 120_000);
});
