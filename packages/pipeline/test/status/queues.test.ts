// The task-queue part of `abp status` without a server: the facts made of what DescribeTaskQueue answers (workers merged
// by identity, a backlog the server does not report kept unknown rather than 0) and the lines a person reads of them.
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { queueFactsOf, type DescribeResponse, type QueueFacts, type QueuesFacts } from '../../src/status/queues.js';
import { formatAge, queueLines, SILENT_AFTER_MS } from '../../src/status/status-text.js';

const DESCRIBED_AT = '2026-07-20T09:30:00.000Z';
/** A response as the client decodes one off the wire: int64 fields as Long. */
const response = (object: Record<string, unknown>): DescribeResponse =>
  proto.temporal.api.workflowservice.v1.DescribeTaskQueueResponse.fromObject(object);
const secondsBefore = (seconds: number) => ({ seconds: String(Date.parse(DESCRIBED_AT) / 1_000 - seconds), nanos: 0 });
const stats = (count: number, ageSeconds = 0) => ({
  approximateBacklogCount: String(count),
  approximateBacklogAge: { seconds: String(ageSeconds), nanos: 250_000_000 },
});

const reported = (count: number, oldestAgeMs = 0) => ({ $case: 'reported' as const, count, oldestAgeMs });
const idle = { workflow: reported(0), activity: reported(0) };
const worker = (identity: string, lastAccessAt = DESCRIBED_AT): QueueFacts['workers'][number] => ({
  identity,
  polls: ['activity'],
  lastAccessAt,
});

function facts(queues: Partial<Record<'main' | 'freeze' | 'trials', Partial<QueueFacts>>>): QueuesFacts {
  return {
    describedAt: DESCRIBED_AT,
    queues: (['main', 'freeze', 'trials'] as const).map((kind) => ({
      kind,
      name: `abp-${kind}`,
      workers: [],
      backlog: idle,
      ...queues[kind],
    })),
  };
}

describe('queueFactsOf', () => {
  it("lists each worker once with what it polls for and its latest poll, and each kind of task's backlog", () => {
    const workflow = response({
      pollers: [{ identity: '4411@host-a', lastAccessTime: secondsBefore(30) }],
      stats: stats(2, 252),
    });
    const activity = response({
      pollers: [
        { identity: '512@host-b', lastAccessTime: secondsBefore(5) },
        { identity: '4411@host-a', lastAccessTime: secondsBefore(3) },
      ],
      stats: stats(0),
    });
    expect(queueFactsOf('main', { workflow, activity })).toEqual({
      kind: 'main',
      name: 'abp-main',
      workers: [
        { identity: '4411@host-a', polls: ['workflow', 'activity'], lastAccessAt: '2026-07-20T09:29:57.000Z' },
        { identity: '512@host-b', polls: ['activity'], lastAccessAt: '2026-07-20T09:29:55.000Z' },
      ],
      backlog: { workflow: reported(2, 252_250), activity: reported(0) },
    });
  });

  it('keeps a backlog the server does not report as unknown, not 0', () => {
    const facts = queueFactsOf('trials', { workflow: response({}), activity: response({ pollers: [] }) });
    expect(facts.workers).toEqual([]);
    expect(facts.backlog).toEqual({ workflow: { $case: 'unknown' }, activity: { $case: 'unknown' } });
  });
});

describe('queueLines', () => {
  it('names the workers of each queue, or the command that starts one, with the backlog and its oldest task', () => {
    const lines = queueLines(
      facts({
        main: { workers: [worker('4411@host-a'), worker('512@host-b')] },
        freeze: {
          workers: [worker('77@host-c')],
          backlog: { workflow: reported(0), activity: reported(3, 252_000) },
        },
        trials: { backlog: { workflow: reported(0), activity: reported(24, 5_000) } },
      }),
    );
    expect(lines).toEqual([
      'abp-main     2 workers (4411@host-a, 512@host-b), backlog 0',
      'abp-freeze   1 worker (77@host-c), backlog 3, oldest 4m12s',
      'abp-trials   no worker polls: start one with `abp worker --queues trials`; backlog 24, oldest 5s',
    ]);
  });

  it('sums the workflow and activity backlogs and shows the older of their oldest tasks', () => {
    const [main] = queueLines(
      facts({ main: { backlog: { workflow: reported(2, 61_000), activity: reported(5, 9_000) } } }),
    );
    expect(main).toBe(
      'abp-main     no worker polls: start one with `abp worker --queues main`; backlog 7, oldest 1m1s',
    );
  });

  it('says "backlog unknown" when the server does not report stats', () => {
    const [main, freeze] = queueLines(
      facts({
        main: { workers: [worker('1@a')], backlog: { workflow: { $case: 'unknown' }, activity: { $case: 'unknown' } } },
        freeze: { backlog: { workflow: reported(0), activity: { $case: 'unknown' } } },
      }),
    );
    expect(main).toBe('abp-main     1 worker (1@a), backlog unknown');
    expect(freeze).toBe('abp-freeze   no worker polls: start one with `abp worker --queues freeze`; backlog unknown');
  });

  it('marks a worker whose latest poll is older than a live one would be, and counts workers past five', () => {
    const silentSince = new Date(Date.parse(DESCRIBED_AT) - SILENT_AFTER_MS - 5_000).toISOString();
    const [main] = queueLines(
      facts({ main: { workers: ['1@a', '2@b', '3@c', '4@d', '5@e', '6@f', '7@g'].map((id) => worker(id)) } }),
    );
    expect(main).toBe('abp-main     7 workers (1@a, 2@b, 3@c, 4@d, 5@e, … and 2 more), backlog 0');
    expect(queueLines(facts({ trials: { workers: [worker('9@gone', silentSince)] } }))[2]).toBe(
      'abp-trials   1 worker (9@gone last polled 2m5s ago), backlog 0',
    );
  });
});

describe('formatAge', () => {
  it.each([
    [0, '<1s'],
    [999, '<1s'],
    [45_000, '45s'],
    [252_000, '4m12s'],
    [3_605_000, '1h0m5s'],
    [97_200_000, '1d3h'],
  ])('%d ms is %s', (ms, text) => expect(formatAge(ms)).toBe(text));
});
