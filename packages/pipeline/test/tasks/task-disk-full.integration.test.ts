// A full disk is not a verdict on a task (issue 19): against the simulator, with the worker's freeze folder on a small
// real tmpfs filled to the last byte when the fix merges, the freeze stalls (its cause noted on the task, `abp status`
// naming it STALLED), is retried with backoff, and once the disk is freed the task ends scored, never rejected.
import { execFileSync } from 'node:child_process';
import { mkdir, rm, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorkflows } from '../../src/worker/worker.js';
import { describeTasks } from '../../src/task-reads/records.js';
import { useTestDatabase } from '../support/database.js';
import { startDevServer } from '../support/temporal.js';
import { runAbp } from '../support/cli.js';
import { startBench, type Bench } from './harness.js';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [env, bundle] = await Promise.all([startDevServer(), bundleWorkflows()]);
});
afterAll(async () => {
  await env?.teardown();
});

// Mounting a tmpfs needs root, which CI and the machines this runs on have; elsewhere the block is skipped, named.
describe.runIf(process.getuid?.() === 0)('a freeze on a full disk', () => {
  const database = useTestDatabase('pglite');
  let bench: Bench;
  let small: string;

  beforeAll(async () => {
    bench = await startBench({ env, bundle, db: database.db, pollSeconds: 1 });
    small = join(bench.home, 'freeze-work');
    await mkdir(small, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', small]);
  });
  afterAll(async () => {
    if (small) execFileSync('umount', ['-l', small]);
    await bench?.close();
  });

  it('stalls with its cause while the disk is full, and ends scored once it is freed', async () => {
    const filler = join(small, 'filler');
    const free = await statfs(small);
    await writeFile(filler, Buffer.alloc(free.bavail * free.bsize)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOSPC') throw error;
    });

    const taskId = await bench.startTask('textkit', 3);
    const pull = await bench.openFix('textkit', 3);
    await bench.submit(taskId, pull.url);
    await bench.until(taskId, ['tracking']);
    bench.world.setChecks(pull.repo, pull.number, 'SUCCESS');
    bench.world.mergePull(pull.repo, pull.number, pull.repo.owner);
    await bench.until(taskId, ['freezing']);

    // The freeze notes why it waits, and the operator's view names it.
    const deadline = Date.now() + 60_000;
    let last = (await describeTasks(database.db, { taskId }))[0]?.lastEvent;
    while (last?.cause !== 'freeze-stalled' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      last = (await describeTasks(database.db, { taskId }))[0]?.lastEvent;
    }
    expect(last).toMatchObject({
      from: 'freezing',
      to: 'freezing',
      cause: 'freeze-stalled',
      detail: { fault: 'disk-full' },
    });
    const status = await runAbp(['status', '--json'], { ABP_HOME: bench.home, TEMPORAL_ADDRESS: env.address });
    expect(status.code, status.stderr).toBe(0);
    const tasks = (
      JSON.parse(status.stdout) as { tasks: { value: { stalled: Array<{ taskId: string; fault: string }> } } }
    ).tasks.value;
    expect(tasks.stalled).toEqual([expect.objectContaining({ taskId, fault: 'disk-full' })]);

    await rm(filler);
    const done = await bench.until(taskId, ['scored', 'rejected'], 180_000);
    expect(done.state).toBe('scored');
    const [record] = await describeTasks(database.db, { taskId });
    expect(record?.events.map((event) => `${event.cause}→${event.to}`)).toEqual(
      expect.arrayContaining(['pr-merged→freezing', 'freeze-stalled→freezing', 'frozen→scored']),
    );
    expect(record?.events.some((event) => event.to === 'rejected')).toBe(false);
  }, 300_000);
});
