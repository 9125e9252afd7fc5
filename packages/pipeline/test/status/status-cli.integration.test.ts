// `abp status` as an operator runs it, on the real embedded stack: `abp dev up` (the Temporal dev server with its Web UI,
// the worker on the data directory's PGlite, the rotation Schedule) over a data directory with a signed registry
// version, draw and bundle; then the status command in a process of its own, as text and as --json.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorStatus } from '../../src/status/status.js';
import { ROTATION_SCHEDULE_ID } from '../../src/contracts/rotation.js';
import { freePort, runAbp, type CliResult } from '../support/cli.js';
import { buildDataDir, type DataDir } from './data-dir.js';

const root = await mkdtemp(join(tmpdir(), 'abp-status-cli-'));
let data: DataDir;
let home: string;
let env: NodeJS.ProcessEnv;
let ports: { temporal: number; ui: number };

/** `abp status` in a process of its own, timed. */
async function runStatus(args: string[]): Promise<CliResult & { ms: number }> {
  const started = performance.now();
  const result = await runAbp(['status', ...args], env, 60_000);
  return { ...result, ms: performance.now() - started };
}

beforeAll(async () => {
  data = await buildDataDir(join(root, 'built'));
  home = join(root, 'home');
  await cp(data.home, home, { recursive: true });
  ports = { temporal: await freePort(), ui: await freePort() };
  env = {
    ABP_HOME: home,
    ABP_TEMPORAL_PORT: String(ports.temporal),
    ABP_TEMPORAL_UI_PORT: String(ports.ui),
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
  };
  const up = await runAbp(['dev', 'up'], env);
  expect(up.code, up.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  await runAbp(['dev', 'down'], env);
  await rm(root, { recursive: true, force: true });
});

const line = (label: string, text: string) => `${label.padEnd(16)}${text}`;

describe('abp status on a running embedded stack', () => {
  it('prints the components with the Web UI, the signed records, no tasks yet, and the next rotation', async () => {
    const result = await runStatus([]);
    console.log(`abp status (its own process, module loading included): ${result.ms.toFixed(0)} ms`);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const address = `127.0.0.1:${ports.temporal}`;
    expect(lines).toEqual(
      expect.arrayContaining([
        line('data directory', home),
        expect.stringMatching(new RegExp(`^temporal {8}running pid \\d+  ${address.replace(/\./g, '\\.')}$`)) as string,
        line('', `Web UI http://127.0.0.1:${ports.ui}`),
        expect.stringMatching(
          new RegExp(`^worker {10}running pid \\d+  task queue abp-main on ${address.replace(/\./g, '\\.')}$`),
        ) as string,
        line('simulator', 'stopped'),
        line('serve', 'stopped'),
        line(
          'registry',
          `abp-registry/2026Q3: ${data.registry.entries.length} repositories, digest ${data.registry.digest}`,
        ),
        line('tasks', 'none yet: `abp draw` starts one task per pick'),
        expect.stringMatching(
          new RegExp(
            `^schedule {8}next rotation \\d{4}-(01|04|07|10)-01T00:00:00\\.000Z \\(Schedule ${ROTATION_SCHEDULE_ID}\\)$`,
          ),
        ) as string,
        // The dev stack's worker polls the main queue under the SDK's identity, pid@host.
        expect.stringMatching(/^queues {10}abp-main {5}1 worker \(\d+@[^)]+\), backlog \d+/) as string,
      ]),
    );
  });

  it('gives the same facts as one JSON object with --json', async () => {
    const result = await runStatus(['--json']);
    expect(result.code, result.stderr).toBe(0);
    const status = JSON.parse(result.stdout) as OperatorStatus;
    expect(status.home).toBe(home);
    expect(status.stack.webUi).toBe(`http://127.0.0.1:${ports.ui}`);
    expect(
      status.stack.components.filter((component) => component.state === 'running').map((component) => component.name),
    ).toEqual(['temporal', 'worker']);
    expect(status.tasks).toEqual({
      $case: 'found',
      value: {
        total: 0,
        byState: { drawn: 0, solving: 0, tracking: 0, freezing: 0, scored: 0, practice: 0, withdrawn: 0, rejected: 0 },
        capped: [],
        limit: 1_000,
        stalled: [],
      },
    });
    expect(status.schedule).toMatchObject({
      $case: 'found',
      value: { scheduleId: ROTATION_SCHEDULE_ID, paused: false },
    });
    expect(status.registry).toMatchObject({
      $case: 'found',
      value: { version: 'abp-registry/2026Q3', signature: { $case: 'verified' } },
    });
    expect(status.bundles).toMatchObject({ $case: 'found', value: { count: 1, signed: 1 } });
    // `abp dev up` returned once the worker polled the main queue's workflow tasks.
    expect(status.queues).toMatchObject({
      $case: 'found',
      value: {
        queues: [
          {
            name: 'abp-main',
            workers: [
              {
                identity: expect.stringMatching(/^\d+@/) as string,
                polls: expect.arrayContaining(['workflow']) as string[],
              },
            ],
          },
          { name: 'abp-freeze' },
          { name: 'abp-trials' },
        ],
      },
    });
  });
});
