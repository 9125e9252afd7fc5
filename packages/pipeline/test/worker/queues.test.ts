// Which queue each activity runs on, and how `abp worker --queues/--max-concurrent` read: a freeze or trial activity
// registered on the wrong queue would wait forever for a worker that never polls for it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTIVITY_QUEUES, activitiesOn } from '../../src/activities/index.js';
import { createFreezeActivities, type FreezeDependencies } from '../../src/activities/freeze.js';
import { createPublishActivities, type PublishDependencies } from '../../src/activities/publish.js';
import { createGradingActivities } from '../../src/grading/activities.js';
import { FolderRunStore } from '../../src/run-store/store.js';
import { parseQueues } from '../../src/cli/worker.js';
import { packageRoot } from '../../src/package-root.js';
import { StackError } from '../../src/worker/errors.js';

describe('activity queues', () => {
  // Built only to read their names: nothing here runs an activity.
  const freeze = createFreezeActivities({ workDir: '/nonexistent' } as unknown as FreezeDependencies);
  const publish = createPublishActivities({ attestor: { signer: {} } } as unknown as PublishDependencies);
  const grading = createGradingActivities({
    home: '/nonexistent',
    store: new FolderRunStore('/nonexistent'),
    cacheDir: '/nonexistent',
    environmentStore: '/nonexistent',
    hostEnv: {},
  });

  it('puts the freeze worker’s activities on the freeze queue, publishing on main, grading on the trials queue', () => {
    for (const name of Object.keys(freeze)) expect([name, ACTIVITY_QUEUES[name]]).toEqual([name, 'freeze']);
    for (const name of Object.keys(publish)) expect([name, ACTIVITY_QUEUES[name]]).toEqual([name, undefined]);
    for (const name of Object.keys(grading)) expect([name, ACTIVITY_QUEUES[name]]).toEqual([name, 'trials']);
    expect(Object.keys(ACTIVITY_QUEUES).sort()).toEqual([...Object.keys(freeze), ...Object.keys(grading)].sort());
  });

  it('splits one process’s activities by queue, the rest on main', () => {
    const all = { ...freeze, ...publish, ...grading, recordTaskEvent: () => undefined };
    expect(Object.keys(activitiesOn('main', all)).sort()).toEqual(
      ['publishFrozenTask', 'recordTaskEvent', 'stageGoldenTrace'].sort(),
    );
    expect(Object.keys(activitiesOn('freeze', all)).sort()).toEqual(Object.keys(freeze).sort());
    expect(Object.keys(activitiesOn('trials', all)).sort()).toEqual(Object.keys(grading).sort());
  });

  it('names the same queue in the workflows that call them', async () => {
    const source = (file: string) => readFile(join(packageRoot, 'src', 'workflows', file), 'utf8');
    expect((await source('freeze.ts')).match(/taskQueue: taskQueues\.freeze/g)).toHaveLength(2);
    expect((await source('freeze.ts')).match(/taskQueue: taskQueues\.main/g)).toHaveLength(1);
    expect(await source('grade-run.ts')).toContain('taskQueue: taskQueues.trials');
  });
});

describe('abp worker --queues and --max-concurrent', () => {
  it('serves all three queues by default, each at its default concurrency', () => {
    expect(parseQueues({})).toEqual({
      main: { maxConcurrent: 100 },
      freeze: { maxConcurrent: 1 },
      trials: { maxConcurrent: 1 },
    });
  });

  it('takes one limit for every queue served, or one per queue', () => {
    expect(parseQueues({ queues: 'freeze,trials', maxConcurrent: '4' })).toEqual({
      freeze: { maxConcurrent: 4 },
      trials: { maxConcurrent: 4 },
    });
    expect(parseQueues({ queues: 'trials, freeze', maxConcurrent: 'trials=8' })).toEqual({
      freeze: { maxConcurrent: 1 },
      trials: { maxConcurrent: 8 },
    });
  });

  it.each([
    [{ queues: 'trails' }, 'trails is not a queue'],
    [{ queues: ',' }, 'names no queue'],
    [{ queues: 'trials', maxConcurrent: 'freeze=2' }, '"freeze" is not a queue this worker serves'],
    [{ maxConcurrent: '0' }, 'is not a whole number from 1 to 1000'],
    [{ maxConcurrent: 'trials=two' }, 'the limit of trials "two"'],
  ])('refuses %j, naming the flag and the fix', (options, message) => {
    let thrown: unknown;
    try {
      parseQueues(options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StackError);
    expect((thrown as StackError).code).toBe('invalid-setting');
    expect((thrown as Error).message).toContain(message);
  });
});
