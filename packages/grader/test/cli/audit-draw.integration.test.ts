import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eligiblePool } from '@abp/protocol/backlog/eligibility';
import { writeSnapshot } from '@abp/protocol/backlog/snapshot';
import { buildDrawRecord, drawRecordText } from '@abp/protocol/draw/record';
import { backlogSnapshot } from '../../../protocol/test/draw/snapshots.js';
import { runAbp } from '../support/cli.js';

// An auditor's path through the real command: a published record, the snapshot it names, the opt-outs; nothing else.
describe('abp audit draw', () => {
  let dir = '';
  const snapshot = backlogSnapshot([3, 40, 1, 17, 9]);
  const optOuts = new Set(['org001/project']);
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'abp-audit-draw-'));
    const snapshotDigest = await writeSnapshot(join(dir, 'backlog.jsonl'), snapshot);
    const { pool, rules } = eligiblePool(snapshot, { optOuts });
    const record = buildDrawRecord({
      seed: 424242,
      count: 5,
      drawnAt: '2026-10-03T00:00:00Z',
      registryVersion: snapshot.registryVersion,
      registryDigest: `sha256:${'1'.repeat(64)}`,
      snapshotDigest,
      eligibilityRules: rules,
      optOuts,
      pool,
    });
    await writeFile(join(dir, 'draw.json'), drawRecordText(record));
    await writeFile(join(dir, 'opt-outs.json'), JSON.stringify([...optOuts]));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const audit = (record = 'draw.json', snapshotFile = 'backlog.jsonl') =>
    runAbp([
      'audit',
      'draw',
      join(dir, record),
      '--snapshot',
      join(dir, snapshotFile),
      '--opt-outs',
      join(dir, 'opt-outs.json'),
    ]);

  it('prints match for the published record', async () => {
    const result = await audit();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^match: /);
  });

  it('finds a tampered snapshot and names the difference (exit 1)', async () => {
    const [first] = snapshot.repos;
    const tampered = {
      ...snapshot,
      repos: [
        {
          ...first!,
          issues: first!.issues.map((issue, index) => (index === 0 ? { ...issue, title: 'Something else' } : issue)),
        },
        ...snapshot.repos.slice(1),
      ],
    };
    await writeSnapshot(join(dir, 'tampered.jsonl'), tampered);
    const result = await audit('draw.json', 'tampered.jsonl');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no match: .*snapshot/i);
  });

  it('finds a tampered seed (exit 1)', async () => {
    const record = JSON.parse(await readFile(join(dir, 'draw.json'), 'utf8')) as { seed: number };
    await writeFile(join(dir, 'reseeded.json'), JSON.stringify({ ...record, seed: record.seed + 1 }));
    const result = await audit('reseeded.json');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no match: /);
  });
});
