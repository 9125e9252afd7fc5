// `abp status` against real data directories (test/ops/data-dir.ts: made by the code that makes them in production), a
// real Temporal dev server, and a real PGlite database read through the task-read endpoint a worker runs: every part found and verified, every part
// degrading on its own with the line that says why (fresh directory, no stack, damaged files, no worker, a server that
// does not answer), the rotation Schedule's next run and pause, the read staying read-only and fast.
import { cp, lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatherStatus, type OperatorStatus } from '../../src/status/status.js';
import { formatBytes, statusLines } from '../../src/status/status-text.js';
import { ROTATION_SCHEDULE_ID } from '../../src/contracts/rotation.js';
import { statementPath } from '../../src/signing/attestor.js';
import { signingPaths } from '../../src/signing/home.js';
import { createSigner } from '../../src/signing/signer.js';
import { createRegistryVersionStatement } from '@abp/protocol/signing/statement';
import { resolveStackConfig, type StackConfig } from '../../src/worker/config.js';
import { freePort } from '../../src/dev-stack/processes.js';
import { ensureRotationSchedule } from '../../src/worker/rotation-schedule.js';
import { startTaskReadEndpoint, type RunningTaskReads } from '../../src/task-reads/endpoint.js';
import { auditLog } from '@abp/grader/audit';
import { insertDrawnTask, taskEventRow, useTestDatabase } from '../support/database.js';
import { taskEvents } from '../../src/db/schema/index.js';
import { startDevServer } from '../support/temporal.js';
import { buildDataDir, SIGNED_AT, type DataDir } from './data-dir.js';

const root = await mkdtemp(join(tmpdir(), 'abp-status-'));
let data: DataDir;
let closedPort: number;

beforeAll(async () => {
  [data, closedPort] = await Promise.all([buildDataDir(root), freePort()]);
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** The stack as `abp status` resolves it for `home`: embedded, on a port nothing listens on, nothing started. */
function configOf(home: string, env: Record<string, string> = {}): StackConfig {
  return resolveStackConfig({ ABP_HOME: home, ABP_TEMPORAL_PORT: String(closedPort), ...env }, root);
}

/** Every path under `dir` with its size, mode and modification time: what a read-only command must leave as it was. */
async function treeOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  const rows = await Promise.all(
    entries.map(async (entry) => {
      const stats = await lstat(join(dir, entry));
      return `${entry} ${stats.size} ${stats.mode.toString(8)} ${stats.mtimeMs}`;
    }),
  );
  return rows.sort();
}

const found = <T>(part: { $case: string; value?: T }): T => {
  expect(part.$case).toBe('found');
  return part.value as T;
};

const LABEL = 16;
const line = (label: string, text: string) => `${label.padEnd(LABEL)}${text}`;

describe('abp status from the data directory alone (no stack running)', () => {
  it('on a fresh data directory, says of each part what makes it, and creates nothing', async () => {
    const home = join(root, 'fresh');
    const status = await gatherStatus({ config: configOf(home) });

    expect(status.trustRoot).toEqual({ $case: 'absent', detail: expect.stringContaining('`abp init`') as string });
    expect(status.registry).toEqual({
      $case: 'absent',
      detail: expect.stringContaining('no registry version yet: run `abp registry rotate`') as string,
    });
    expect(status.draws).toEqual({ $case: 'absent', detail: expect.stringContaining('`abp draw --seed') as string });
    expect(status.bundles.$case).toBe('absent');
    expect(status.log.$case).toBe('absent');
    expect(status.tasks).toEqual({
      $case: 'unavailable',
      detail: expect.stringContaining(`no abp worker holds the embedded database in ${home}`) as string,
    });
    expect(status.schedule).toEqual({
      $case: 'unavailable',
      detail: 'the Temporal dev server is not running: `abp dev up` starts the stack',
    });
    expect(status.stack.components.map((component) => [component.name, component.state])).toEqual([
      ['temporal', 'stopped'],
      ['worker', 'stopped'],
      ['simulator', 'stopped'],
      ['serve', 'stopped'],
    ]);
    expect(status.stack.webUi).toBeNull();
    expect(existsSync(home)).toBe(false);

    const lines = statusLines(status);
    expect(lines).toContain(
      line(
        'registry',
        'no registry version yet: run `abp registry rotate` (the quarterly Schedule does it on its own)',
      ),
    );
    expect(lines).toContain(
      line(
        'tasks',
        `unavailable: the tasks could not be read: no abp worker holds the embedded database in ${home} (${join(home, 'run', 'task-reads.json')} is absent): start it with \`abp dev up\` or \`abp worker\`, or set DATABASE_URL to read a PostgreSQL server`,
      ),
    );
    expect(lines).toContain(
      line('schedule', 'unavailable: the Temporal dev server is not running: `abp dev up` starts the stack'),
    );
  });

  it('reports the registry version, the draws, the bundles and the log, each verified against the trust root, and changes no file', async () => {
    const before = await treeOf(data.home);
    const status = await gatherStatus({ config: configOf(data.home) });
    expect(await treeOf(data.home)).toEqual(before);

    const keyed = { kind: 'keyed', keyId: data.key.keyId };
    expect(found(status.trustRoot)).toEqual({ path: signingPaths(data.home).trustRoot, version: 1, keys: 1 });
    expect(found(status.registry)).toMatchObject({
      version: 'abp-registry/2026Q3',
      repositories: data.registry.entries.length,
      digest: data.registry.digest,
      previous: data.registry.previous,
      publishedVersions: 1,
      signature: { $case: 'verified', signer: keyed, signedAt: SIGNED_AT.registry, trustRootVersion: 1 },
    });
    const draws = found(status.draws);
    expect(draws).toMatchObject({ count: 1, unreadable: [] });
    expect(draws.latest).toMatchObject({
      id: data.draw.id,
      seed: data.draw.seed,
      registryVersion: data.draw.registryVersion,
      picks: data.draw.picks.map(({ order, repo, issue }) => ({ order, repo, issue })),
      signature: { $case: 'verified', signer: keyed, signedAt: SIGNED_AT.draw },
    });
    expect(found(status.bundles)).toEqual({
      root: signingPaths(data.home).bundles,
      count: 1,
      totalBytes: data.bundle.archive.length,
      signed: 1,
    });
    const audited = await auditLog(signingPaths(data.home).log, {
      publicKeyPem: data.key.publicKeyPem,
      keyId: data.key.keyId,
    });
    expect(found(status.log)).toMatchObject({
      size: 3,
      appendInProgress: false,
      checkpoints: 3,
      latestCheckpoint: { size: 3, rootHash: audited.rootHash, keyId: data.key.keyId, check: { $case: 'verified' } },
    });
    // --json prints this object: it must survive JSON whole.
    expect(JSON.parse(JSON.stringify(status))).toEqual(status);

    const lines = statusLines(status);
    const picks = data.draw.picks.map((pick) => `${pick.order}. ${pick.repo}#${pick.issue}`).join('  ');
    expect(lines).toEqual(
      expect.arrayContaining([
        line(
          'registry',
          `abp-registry/2026Q3: ${data.registry.entries.length} repositories, digest ${data.registry.digest}`,
        ),
        line(
          '',
          `signed by key ${data.key.keyId.slice(0, 16)}… at ${SIGNED_AT.registry}, verified against trust root v1`,
        ),
        line(
          'draws',
          `1 published; latest ${data.draw.id}: seed 424242, ${data.draw.picks.length} of ${data.draw.requested} picks from abp-registry/2026Q3, drawn ${data.draw.drawnAt}`,
        ),
        line('', `picks: ${picks}`),
        line('bundles', `1, ${formatBytes(data.bundle.archive.length)}, 1 signed (${signingPaths(data.home).bundles})`),
        line(
          'log',
          `3 entries; newest checkpoint covers 3, signed ${found(status.log).latestCheckpoint?.timestamp}, root ${audited.rootHash}`,
        ),
        line('', 'signature and root verified; `abp audit log` checks them all'),
        line('trust root', `v1, 1 key (${signingPaths(data.home).trustRoot})`),
      ]),
    );
  });

  it('degrades part by part: a statement for another document, a rewritten log entry, a damaged draw, a missing signature', async () => {
    const home = join(root, 'damaged');
    await cp(data.home, home, { recursive: true });
    const paths = signingPaths(home);
    // The registry's kept statement replaced by a valid signature over another digest, as if another document was signed.
    const signer = await createSigner({ keyDir: paths.keyDir });
    const wrong = createRegistryVersionStatement({
      version: data.registry.version,
      digest: data.draw.digest,
      previous: null,
      criteriaVersion: data.registry.criteriaVersion,
      repositories: 1,
      signedAt: SIGNED_AT.registry,
    });
    await writeFile(
      statementPath(paths.statements, 'registry-version', data.registry.version),
      JSON.stringify(await signer.sign(wrong)),
    );
    // Entry 0 rewritten after the checkpoints were signed.
    const entries = join(paths.log, 'entries.jsonl');
    const text = await readFile(entries, 'utf8');
    await writeFile(entries, text.replace('"appendedAt":"', '"appendedAt":"1'));
    await writeFile(join(home, 'published', 'draws', 'draw-broken.json'), '{"schema":"abp-draw/v1"}\n');
    await rm(join(paths.bundles, 'sha256', `${data.bundle.digest.slice('sha256:'.length)}.sigstore.json`));

    const status = await gatherStatus({ config: configOf(home) });
    expect(found(status.registry).signature).toMatchObject({ $case: 'invalid', code: 'digest-mismatch' });
    expect(found(status.log).latestCheckpoint?.check).toEqual({
      $case: 'invalid',
      detail: expect.stringContaining('no longer matches entries 0..2') as string,
    });
    const draws = found(status.draws);
    expect(draws.count).toBe(2);
    expect(draws.latest?.id).toBe(data.draw.id);
    expect(draws.unreadable).toEqual([
      {
        path: join(home, 'published', 'draws', 'draw-broken.json'),
        problem: expect.stringContaining('not an abp-draw/v1 record') as string,
      },
    ]);
    expect(found(status.bundles)).toMatchObject({ count: 1, signed: 0 });

    const lines = statusLines(status);
    expect(lines.some((text) => text.startsWith(`${''.padEnd(LABEL)}SIGNATURE INVALID (digest-mismatch): `))).toBe(
      true,
    );
    expect(
      lines.some((text) => text.startsWith(`${''.padEnd(LABEL)}INVALID: `) && text.includes('no longer matches')),
    ).toBe(true);
    expect(
      lines.some((text) =>
        text.startsWith(`${''.padEnd(LABEL)}UNREADABLE ${join(home, 'published', 'draws', 'draw-broken.json')}: `),
      ),
    ).toBe(true);

    // Without a trust root the kept statements are reported, not vouched for.
    await rm(paths.trustRoot);
    const unpinned = await gatherStatus({ config: configOf(home) });
    expect(unpinned.trustRoot.$case).toBe('absent');
    expect(found(unpinned.draws).latest?.signature).toMatchObject({
      $case: 'unverified',
      detail: expect.stringContaining('`abp init`') as string,
    });
  });

  it('when the configured Temporal does not answer, says so when the deadline passes and still reports the files', async () => {
    // A Temporal that never answered would hold this past the test's timeout; the deadline ends it with a reason.
    const status = await gatherStatus({
      config: configOf(data.home, { TEMPORAL_ADDRESS: `127.0.0.1:${closedPort}` }),
      timeoutMs: 1_500,
    });
    expect(status.schedule).toEqual({
      $case: 'unavailable',
      detail: expect.stringMatching(new RegExp(`^Temporal at 127\\.0\\.0\\.1:${closedPort} does not answer`)) as string,
    });
    // Tasks are not read through Temporal: what stops them here is that no worker holds the database.
    expect(status.tasks).toEqual({
      $case: 'unavailable',
      detail: expect.stringContaining('no abp worker holds the embedded database') as string,
    });
    expect(status.stack.components[0]).toMatchObject({
      name: 'temporal',
      state: 'external',
      serves: `127.0.0.1:${closedPort}`,
    });
    expect(status.registry.$case).toBe('found');
    expect(status.bundles.$case).toBe('found');
  });
});

describe('abp status with a running stack', () => {
  const database = useTestDatabase('pglite');
  let env: TestWorkflowEnvironment;
  let reads: RunningTaskReads | undefined;

  beforeAll(async () => {
    env = await startDevServer();
    // Five tasks in four states, each with the draw chain it needs.
    for (const [n, task] of [
      [1, { state: 'drawn' }],
      [2, { state: 'drawn' }],
      [3, { state: 'solving' }],
      [4, { state: 'tracking', prUrl: 'https://github.com/acme/widgets/pull/4' }],
      [5, { state: 'withdrawn' }],
    ] as const) {
      await insertDrawnTask(database.db, { task: { id: `gh-acme-status-${n}`, ...task } });
    }
  });
  afterAll(async () => {
    await reads?.close();
    await env?.teardown();
  });

  const statusNow = (options: { taskReadLimit?: number } = {}): Promise<OperatorStatus> =>
    gatherStatus({ config: configOf(data.home), client: env.client, ...options });

  it('before the worker holds the database: tasks say so; the Schedule is not there yet', async () => {
    const status = await statusNow();
    expect(status.tasks).toEqual({
      $case: 'unavailable',
      detail: expect.stringContaining(`no abp worker holds the embedded database in ${data.home}`) as string,
    });
    expect(status.schedule).toEqual({
      $case: 'absent',
      detail: expect.stringContaining(`not scheduled: no Schedule ${ROTATION_SCHEDULE_ID}`) as string,
    });
    expect(statusLines(status)).toContain(
      line(
        'schedule',
        `not scheduled: no Schedule ${ROTATION_SCHEDULE_ID}; \`abp registry schedule\` creates the quarterly rotation (\`abp dev up\` does too)`,
      ),
    );
  });

  it("counts the tasks by state through the worker's read endpoint, no workflow started; names the next rotation", async () => {
    reads = await startTaskReadEndpoint({ db: database.db, home: data.home });
    const scheduled = await ensureRotationSchedule(env.client);
    const status = await statusNow();
    expect(found(status.tasks)).toEqual({
      total: 5,
      byState: { drawn: 2, solving: 1, tracking: 1, freezing: 0, scored: 0, practice: 0, withdrawn: 1, rejected: 0 },
      capped: [],
      limit: 1_000,
      stalled: [],
    });
    const nextRun = scheduled.nextRuns[0]?.toISOString();
    expect(found(status.schedule)).toEqual({
      scheduleId: ROTATION_SCHEDULE_ID,
      paused: false,
      note: null,
      nextRuns: scheduled.nextRuns.map((time) => time.toISOString()),
      lastRunAt: null,
    });
    expect(statusLines(status)).toEqual(
      expect.arrayContaining([
        line('tasks', '5: 2 drawn, 1 solving, 1 tracking, 1 withdrawn'),
        line('schedule', `next rotation ${nextRun} (Schedule ${ROTATION_SCHEDULE_ID})`),
      ]),
    );
    // Reading tasks started no workflow: the server has none at all.
    const started = [];
    for await (const workflow of env.client.workflow.list()) started.push(workflow.workflowId);
    expect(started).toEqual([]);
  });
  it('reads per state when one read is not enough, and marks a state at the limit as a floor', async () => {
    const status = await statusNow({ taskReadLimit: 2 });
    expect(found(status.tasks)).toMatchObject({
      total: 5,
      byState: { drawn: 2, solving: 1, tracking: 1, withdrawn: 1 },
      capped: ['drawn'],
      limit: 2,
    });
    expect(statusLines(status)).toContain(line('tasks', '5+: 2+ drawn, 1 solving, 1 tracking, 1 withdrawn'));
  });

  it('shows a paused Schedule with its note', async () => {
    await env.client.schedule.getHandle(ROTATION_SCHEDULE_ID).pause('registry frozen for the audit');
    const status = await statusNow();
    expect(found(status.schedule)).toMatchObject({ paused: true, note: 'registry frozen for the audit' });
    expect(statusLines(status)).toContain(
      line('schedule', 'PAUSED (registry frozen for the audit): no rotation runs until it is unpaused'),
    );
  });

  it('names each freeze that waits out a machine fault, with the fault and since when', async () => {
    const taskId = 'gh-acme-status-6';
    await insertDrawnTask(database.db, {
      task: {
        id: taskId,
        state: 'freezing',
        prUrl: 'https://github.com/acme/widgets/pull/6',
        mergeCommit: 'f'.repeat(40),
        mergedAt: new Date('2026-07-01T00:00:00Z'),
      },
    });
    await database.db.insert(taskEvents).values(
      taskEventRow({
        taskId,
        seq: 1,
        fromState: 'freezing',
        toState: 'freezing',
        cause: 'freeze-stalled',
        detail: { fault: 'disk-full', message: 'ENOSPC: no space left on device, write' },
        at: new Date('2026-07-02T00:00:00Z'),
      }),
    );
    const status = await statusNow();
    expect(found(status.tasks).stalled).toEqual([
      {
        taskId,
        fault: 'disk-full',
        message: 'ENOSPC: no space left on device, write',
        since: '2026-07-02T00:00:00.000Z',
      },
    ]);
    expect(statusLines(status)).toContain(
      line(
        '',
        `STALLED ${taskId}: its freeze waits out disk-full since 2026-07-02T00:00:00.000Z (ENOSPC: no space left on device, write)`,
      ),
    );
  });
});
