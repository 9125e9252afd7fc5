// The abp-draw/v1 record: valid by its schema, a stable digest of its canonical bytes, an id that names the selection,
// and the same bytes in another process with another time zone and locale.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawSchema } from '../../src/schemas/abp-draw.js';
import { DrawError } from '../../src/draw/errors.js';
import { buildDrawRecord, drawId, drawRecordDigest, drawRecordText, optOutsDigest } from '../../src/draw/record.js';
import type { DrawInputs } from '../../src/draw/record.js';
import { exampleInputs, sizedPool } from './pools.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../../..');

function idOf(inputs: DrawInputs): string {
  return drawId({ ...inputs, optOutsDigest: optOutsDigest(inputs.optOuts) });
}

describe('buildDrawRecord', () => {
  it('makes a valid record whose digest is that of its content without the digest', () => {
    const record = buildDrawRecord(exampleInputs());
    expect(drawSchema.safeParse(record).success).toBe(true);
    expect(record.digest).toBe(drawRecordDigest(record));
    expect(record.picks.map((pick) => pick.order)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(record.backlogSnapshot).toEqual({ digest: exampleInputs().snapshotDigest, repos: 3, issues: 6 });
    expect(record.inputDigests.backlog).toBe(record.backlogSnapshot.digest);
    expect(record.picks[0]?.issueUrl).toBe(
      `https://github.com/${record.picks[0]?.repo}/issues/${record.picks[0]?.issue}`,
    );
  });

  it('gives byte-identical text for the same inputs, and a different digest for any changed input', () => {
    const text = drawRecordText(buildDrawRecord(exampleInputs()));
    expect(drawRecordText(buildDrawRecord(exampleInputs()))).toBe(text);
    expect(text.endsWith('}\n')).toBe(true);
    const digest = buildDrawRecord(exampleInputs()).digest;
    const changes: Array<Partial<DrawInputs>> = [
      { seed: 424243 },
      { count: 9 },
      { drawnAt: '2026-10-03T00:00:01Z' },
      { registryVersion: 'abp-registry/2027Q1' },
      { registryDigest: `sha256:${'3'.repeat(64)}` },
      { snapshotDigest: `sha256:${'4'.repeat(64)}` },
      { eligibilityRules: 'abp-eligibility/2' },
      { optOuts: new Set() },
    ];
    const digests = changes.map((change) => buildDrawRecord({ ...exampleInputs(), ...change }).digest);
    expect(new Set([digest, ...digests]).size).toBe(changes.length + 1);
  });

  it('changes the digest when a title changes, though the picks stay the same issues', () => {
    const inputs = exampleInputs();
    const renamed = exampleInputs();
    const issue = renamed.pool.repos[3]?.issues[1];
    if (!issue) throw new Error('the example pool lost gamma/lib#205');
    issue.title = 'Leak in the cache';
    expect(buildDrawRecord(renamed).digest).not.toBe(buildDrawRecord(inputs).digest);
  });

  it('refuses inputs that cannot make a valid record', () => {
    const attempts: Array<Partial<DrawInputs>> = [
      { drawnAt: '2026-10-03 00:00' },
      { registryVersion: 'abp-registry/2026Q5' },
      { snapshotDigest: 'sha256:abc' },
      { eligibilityRules: 'rules v1' },
    ];
    for (const change of attempts) {
      let caught: unknown;
      try {
        buildDrawRecord({ ...exampleInputs(), ...change });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(DrawError);
      expect((caught as DrawError).code).toBe('invalid-record');
    }
  });
});

describe('drawId', () => {
  it('names the selection: the same for another drawnAt, different for any input of the selection', () => {
    const id = idOf(exampleInputs());
    expect(id).toMatch(/^draw-2026Q4-424242-[0-9a-f]{12}$/);
    expect(idOf({ ...exampleInputs(), drawnAt: '2027-01-01T00:00:00Z' })).toBe(id);
    expect(buildDrawRecord({ ...exampleInputs(), drawnAt: '2027-01-01T00:00:00Z' }).id).toBe(id);
    const others = [
      { seed: 1 },
      { count: 2 },
      { registryDigest: `sha256:${'5'.repeat(64)}` },
      { snapshotDigest: `sha256:${'6'.repeat(64)}` },
      { eligibilityRules: 'abp-eligibility/9' },
      { optOuts: new Set(['a/b']) },
    ];
    for (const change of others) expect(idOf({ ...exampleInputs(), ...change })).not.toBe(id);
  });
});

describe('optOutsDigest', () => {
  it('does not depend on the order the opt-outs were added in', () => {
    expect(optOutsDigest(new Set(['zeta/z', 'alpha/a', 'Mid/m']))).toBe(
      optOutsDigest(new Set(['Mid/m', 'zeta/z', 'alpha/a'])),
    );
    expect(optOutsDigest(new Set())).toBe('sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945');
  });
});

describe('the same bytes in another process', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'abp-draw-record-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a byte-identical record under another time zone and locale', async () => {
    const script = path.join(dir, 'print-record.mts');
    const pools = pathToFileURL(path.join(here, 'pools.ts')).href;
    const record = pathToFileURL(path.join(here, '../../src/draw/record.ts')).href;
    await writeFile(
      script,
      [
        `import { exampleInputs, sizedPool } from ${JSON.stringify(pools)};`,
        `import { buildDrawRecord, drawRecordText } from ${JSON.stringify(record)};`,
        `process.stdout.write(drawRecordText(buildDrawRecord(exampleInputs())));`,
        `process.stdout.write(drawRecordText(buildDrawRecord({ ...exampleInputs(), seed: 7, count: 40, pool: sizedPool([5, 0, 30, 12]) })));`,
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, [path.join(root, 'bin/run-ts.js'), script], {
      cwd: root,
      env: { ...process.env, TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' },
    });
    const expected =
      drawRecordText(buildDrawRecord(exampleInputs())) +
      drawRecordText(buildDrawRecord({ ...exampleInputs(), seed: 7, count: 40, pool: sizedPool([5, 0, 30, 12]) }));
    expect(stdout).toBe(expected);
  });
});
