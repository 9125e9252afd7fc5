// The offline audit: a genuine record matches; a changed snapshot, seed, pick, title, input or digest is found and
// named. Snapshots go through the real snapshot digest and eligibility rules, except where a pool is injected.
import { describe, expect, it } from 'vitest';
import type { AbpDraw } from '../../src/schemas/abp-draw.js';
import { eligiblePool } from '../../src/backlog/eligibility.js';
import { snapshotDigest } from '../../src/backlog/snapshot.js';
import type { BacklogSnapshot } from '../../src/backlog/types.js';
import type { DrawAudit } from '../../src/draw/audit.js';
import { auditDraw } from '../../src/draw/audit.js';
import { buildDrawRecord, drawRecordDigest } from '../../src/draw/record.js';
import { backlogSnapshot } from './snapshots.js';

const registryDigest = `sha256:${'a'.repeat(64)}`;
const optOuts: ReadonlySet<string> = new Set(['org002/project']);

/** A genuine draw from `snapshot`, the way the draw command makes one. */
function draw(snapshot: BacklogSnapshot, seed = 424242, count = 8): AbpDraw {
  const { pool, rules } = eligiblePool(snapshot, { optOuts });
  return buildDrawRecord({
    seed,
    count,
    drawnAt: '2026-10-03T09:15:00Z',
    registryVersion: snapshot.registryVersion,
    registryDigest,
    snapshotDigest: snapshotDigest(snapshot),
    eligibilityRules: rules,
    optOuts,
    pool,
  });
}

/** A copy of `record` with `change` applied, its digest recomputed as a careful forger would. */
function forged(record: AbpDraw, change: (copy: AbpDraw) => void): AbpDraw {
  const copy = structuredClone(record);
  change(copy);
  return { ...copy, digest: drawRecordDigest(copy) };
}

function difference(audit: DrawAudit): string {
  if (audit.match) throw new Error('the audit matched where a difference was expected');
  return audit.firstDifference;
}

const sizes = [30, 5, 12, 1, 48, 7];

describe('auditDraw', () => {
  it('matches a genuine record, with and without the registry digest, with the default eligibility rules', () => {
    const snapshot = backlogSnapshot(sizes);
    const record = draw(snapshot);
    expect(record.picks).toHaveLength(8);
    expect(record.picks.some((pick) => pick.repo === 'org002/project')).toBe(false);
    expect(auditDraw({ record, snapshot, optOuts })).toEqual({ match: true });
    expect(auditDraw({ record, snapshot, optOuts, registryDigest })).toEqual({ match: true });
    expect(
      auditDraw({
        record: JSON.parse(JSON.stringify(record)) as unknown,
        snapshot: structuredClone(snapshot),
        optOuts: new Set(['ORG002/Project']),
      }),
    ).toEqual({ match: true });
  });

  it('finds a snapshot with one issue changed', () => {
    const snapshot = backlogSnapshot(sizes);
    const record = draw(snapshot);
    const tampered = structuredClone(snapshot);
    const issue = tampered.repos[4]?.issues[20];
    if (!issue) throw new Error('the snapshot lost org004/project');
    issue.labels = ['question'];
    expect(difference(auditDraw({ record, snapshot: tampered, optOuts }))).toMatch(/^backlog snapshot digest: /);
    const retitled = structuredClone(snapshot);
    const first = retitled.repos[0]?.issues[0];
    if (!first) throw new Error('the snapshot lost org000/project');
    first.title = `${first.title}.`;
    expect(difference(auditDraw({ record, snapshot: retitled, optOuts }))).toMatch(/^backlog snapshot digest: /);
  });

  it('finds a changed seed, whether or not the digest was recomputed', () => {
    const snapshot = backlogSnapshot(sizes);
    const record = draw(snapshot);
    expect(difference(auditDraw({ record: { ...record, seed: 424243 }, snapshot, optOuts }))).toMatch(
      /^pick \d+: the record has .+, re-deriving with seed 424243 gives /,
    );
    expect(difference(auditDraw({ record: forged(record, (copy) => (copy.seed = 1)), snapshot, optOuts }))).toMatch(
      /^pick \d+: /,
    );
    // Re-labelling a record with a seed that happens to give the same single pick still changes what the id names.
    const tiny = backlogSnapshot([1]);
    const single = draw(tiny, 5, 1);
    expect(
      difference(auditDraw({ record: forged(single, (copy) => (copy.seed = 6)), snapshot: tiny, optOuts })),
    ).toMatch(/^id: /);
  });

  it('finds reordered picks, whether only their contents or whole entries were swapped', () => {
    const snapshot = backlogSnapshot(sizes);
    const record = draw(snapshot);
    const swapped = forged(record, (copy) => {
      const [first, second] = copy.picks;
      if (!first || !second) throw new Error('the draw has fewer than two picks');
      copy.picks[0] = { ...second, order: 1 };
      copy.picks[1] = { ...first, order: 2 };
    });
    expect(difference(auditDraw({ record: swapped, snapshot, optOuts }))).toMatch(/^pick 1: /);
    const entries = forged(record, (copy) => copy.picks.reverse());
    expect(difference(auditDraw({ record: entries, snapshot, optOuts }))).toMatch(
      /^the record is not a valid abp-draw\/v1 document: picks\[0\]\.order /,
    );
  });

  it('finds a changed title, a changed count and an edit made without recomputing the digest', () => {
    const snapshot = backlogSnapshot(sizes);
    const record = draw(snapshot);
    expect(
      difference(
        auditDraw({ record: forged(record, (copy) => (copy.picks[2]!.title = 'Something else')), snapshot, optOuts }),
      ),
    ).toMatch(/^pick 3 title: /);
    expect(
      difference(
        auditDraw({ record: forged(record, (copy) => (copy.backlogSnapshot.issues += 1)), snapshot, optOuts }),
      ),
    ).toMatch(/^eligible issues: /);
    expect(difference(auditDraw({ record: forged(record, (copy) => copy.picks.pop()), snapshot, optOuts }))).toMatch(
      /^the record is not a valid abp-draw\/v1 document: picks /,
    );
    expect(
      difference(auditDraw({ record: forged(record, (copy) => (copy.requested = 7)), snapshot, optOuts })),
    ).toMatch(/^the record is not a valid/);
    expect(
      difference(
        auditDraw({
          record: forged(record, (copy) => {
            copy.requested = 9;
            copy.picks.pop();
          }),
          snapshot,
          optOuts,
        }),
      ),
    ).toMatch(/^the record is not a valid/);
    expect(
      difference(auditDraw({ record: { ...record, drawnAt: '2026-10-03T09:15:01Z' }, snapshot, optOuts })),
    ).toMatch(/^digest: /);
  });

  it('finds inputs other than the ones the record names', () => {
    const snapshot = backlogSnapshot(sizes);
    const record = draw(snapshot);
    expect(difference(auditDraw({ record, snapshot, optOuts: new Set() }))).toMatch(/^opt-out list digest: /);
    expect(difference(auditDraw({ record, snapshot, optOuts, registryDigest: `sha256:${'b'.repeat(64)}` }))).toMatch(
      /^registry digest: /,
    );
    expect(
      difference(auditDraw({ record, snapshot: { ...snapshot, registryVersion: 'abp-registry/2027Q1' }, optOuts })),
    ).toMatch(/^registry version: /);
    expect(difference(auditDraw({ record: { ...record, algorithm: 'abp-draw/v2' }, snapshot, optOuts }))).toMatch(
      /^algorithm: /,
    );
    expect(difference(auditDraw({ record: 'not a record', snapshot, optOuts }))).toMatch(/^algorithm: /);
  });

  it('re-derives the pool through an injected derivation, and names another rules version or another pool', () => {
    const snapshot = backlogSnapshot(sizes);
    const record = draw(snapshot);
    const genuine = eligiblePool(snapshot, { optOuts });
    expect(auditDraw({ record, snapshot, optOuts, derivePool: () => genuine })).toEqual({ match: true });
    expect(
      difference(
        auditDraw({ record, snapshot, optOuts, derivePool: () => ({ ...genuine, rules: 'abp-eligibility/2' }) }),
      ),
    ).toMatch(/^eligibility rules: /);
    const smaller = {
      repos: genuine.pool.repos.map((entry, index) =>
        index === 0 ? { ...entry, issues: entry.issues.slice(1) } : entry,
      ),
    };
    expect(
      difference(auditDraw({ record, snapshot, optOuts, derivePool: () => ({ pool: smaller, rules: genuine.rules }) })),
    ).toMatch(/^eligible issues: the record counts \d+, re-deriving the pool gives \d+$/);
  });
});
