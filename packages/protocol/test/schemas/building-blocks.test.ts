// The pieces under the document schemas: primitives, paths, canonical JSON and digests, and the cross-field rules of each kind.
import { describe, expect, it } from 'vitest';
import { drawSchema } from '../../src/schemas/abp-draw.js';
import { registrySchema } from '../../src/schemas/abp-registry.js';
import { githubTaskId } from '../../src/schemas/abp-task.js';
import { traceRuleViolations, traceSchema } from '../../src/schemas/abp-trace.js';
import { verdictSchema } from '../../src/schemas/abp-verdict.js';
import { canonicalJson } from '../../src/schemas/canonical-json.js';
import { formatJsonPath } from '../../src/schemas/json-text.js';
import {
  cutoffEnd,
  gitSha,
  registryVersionIndex,
  relativePath,
  repoFullName,
  utcTimestamp,
} from '../../src/schemas/primitives.js';
import { registryDigest } from '../../src/schemas/registry-digest.js';
import { containing, readFixture, readJsonFixture, validDir } from './fixtures.js';

// Typed copies of the valid fixtures, parsed by their own schemas, for tests that break one rule at a time.
const registry = () => registrySchema.parse(readJsonFixture(validDir, 'registry-2026Q3.json'));
const verdict = () => verdictSchema.parse(readJsonFixture(validDir, 'verdict-spec-example.json'));
const draw = () => drawSchema.parse(readJsonFixture(validDir, 'draw-2026Q3-424242.json'));
const traceEvents = () =>
  readFixture(validDir, 'trace-multi-agent.abp-trace.jsonl')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const paths = (result: { error?: { issues: Array<{ path: PropertyKey[] }> } }) =>
  result.error?.issues.map((issue) => issue.path);

describe('primitives', () => {
  it.each([
    ['2026-07-02T14:11:09Z', true],
    ['2026-07-02T14:11:09.402123Z', true],
    ['2028-02-29T00:00:00Z', true],
    ['2026-02-29T00:00:00Z', false],
    ['2026-07-02T14:11:09+00:00', false],
    ['2026-07-02 14:11:09Z', false],
    ['2026-07-02T14:11:09z', false],
    ['2026-07-02T14:11Z', false],
  ])('utcTimestamp %s -> %s', (value, ok) => {
    expect(utcTimestamp.safeParse(value).success).toBe(ok);
  });

  it('tells an uppercase sha how to fix itself', () => {
    const result = gitSha.safeParse('9F2C41D7E3B85A06C1D4F9E27B3A58C0D6E1F492');
    expect(result.error?.issues[0]?.message).toContain('use lowercase hex');
  });

  it.each([
    ['vercel/next.js', true],
    ['a/b', true],
    ['-owner/name', false],
    ['owner/..', false],
    ['owner', false],
    ['owner/name/extra', false],
    ['owner/na me', false],
  ])('repoFullName %s -> %s', (value, ok) => {
    expect(repoFullName.safeParse(value).success).toBe(ok);
  });

  it.each([
    ['traces/a.jsonl', true],
    ['trials/', true],
    ['a/..b/c', true],
    ['/etc/passwd', false],
    ['../up', false],
    ['a/../b', false],
    ['a\\b', false],
    ['C:/x', false],
  ])('relativePath %s -> %s', (value, ok) => {
    expect(relativePath.safeParse(value).success).toBe(ok);
  });

  it('orders registry versions and ends cutoff months', () => {
    expect(registryVersionIndex('abp-registry/2026Q4')! - registryVersionIndex('abp-registry/2026Q3')!).toBe(1);
    expect(registryVersionIndex('abp-registry/2027Q1')! - registryVersionIndex('abp-registry/2026Q4')!).toBe(1);
    expect(registryVersionIndex('abp-registry/2026Q5')).toBeNull();
    expect(cutoffEnd('claude-sonnet-5:2026-01')?.toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(cutoffEnd('gpt-5.2:2026-12')?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('derives github task ids', () => {
    expect(githubTaskId('vercel/next.js', 81234)).toBe('gh-vercel-next.js-81234');
  });

  it.each([
    [[], '$'],
    [['verification', 'failToPass', 0], 'verification.failToPass[0]'],
    [[0, 'seq'], '[0].seq'],
    [['a b', 'c'], '$["a b"].c'],
    [['entries', 3, 'runner', 'x.y'], 'entries[3].runner["x.y"]'],
  ] as const)('formats path %j as %s', (path, text) => {
    expect(formatJsonPath(path)).toBe(text);
  });
});

describe('canonical JSON and digests', () => {
  it('matches the RFC 8785 example', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts keys at every depth and ignores key order in the input', () => {
    expect(canonicalJson({ b: [{ z: 1, a: 2 }], a: null })).toBe('{"a":null,"b":[{"a":2,"z":1}]}');
  });

  it('reproduces the digest of the valid registry fixture, whatever its key order', () => {
    const document = readJsonFixture(validDir, 'registry-2026Q3.json') as Record<string, unknown>;
    expect(registryDigest(document)).toBe(document.digest);
    expect(registryDigest(Object.fromEntries(Object.entries(document).reverse()))).toBe(document.digest);
  });
});

describe('trace rules', () => {
  it('accept the multi-agent fixture as one array', () => {
    expect(traceSchema.safeParse(traceEvents()).success).toBe(true);
  });

  it('catch a parent that is not open, a reused subagent id and a second run.start', () => {
    const events = traceEvents();
    events[6] = { ...events[6], parent: 'sa-9' };
    events.splice(12, 0, { ...events[2], seq: 12.5 }); // sa-1 again, after it ended
    events.splice(14, 0, { ...events[0], seq: 13.5 });
    expect(traceRuleViolations(events)).toEqual([
      { index: 6, path: ['parent'], message: containing('no subagent.start with id "sa-9"') },
      { index: 12, path: ['id'], message: containing('"sa-1" was already started at seq 3') },
      { index: 14, path: ['kind'], message: 'run.start may only be the first event of a trace' },
    ]);
  });

  it('report an ended subagent as ended, not as unknown', () => {
    const events = traceEvents();
    events[14] = { ...events[14], subagent: 'sa-1' };
    expect(traceRuleViolations(events)).toEqual([
      { index: 14, path: ['subagent'], message: containing('already ended at seq 11') },
    ]);
  });

  it('skip unreadable lines instead of cascading from them', () => {
    const events: unknown[] = traceEvents();
    events[3] = undefined; // it opened sa-2, which later events use
    events[7] = 'not an object';
    expect(traceRuleViolations(events)).toEqual([]);
  });

  it('report rule violations at their index inside an array', () => {
    const events = traceEvents();
    events[4] = { ...events[4], seq: 2 };
    expect(paths(traceSchema.safeParse(events))).toEqual([[4, 'seq']]);
  });
});

describe('cross-field rules', () => {
  it('verdict: a rate is null exactly when nothing was scored', () => {
    const document = verdict();
    const engine = document.perEngine[1]!;
    engine.scoredTrials = 0;
    expect(paths(verdictSchema.safeParse(document))).toEqual([['perEngine', 1, 'resolveRate']]);
    engine.resolveRate = null;
    engine.medianDiffBytesNormalized = null;
    expect(verdictSchema.safeParse(document).success).toBe(true);
  });

  it('verdict: an engine is not compared with itself', () => {
    const document = verdict();
    document.pairwise[0]!.b = 'oxagen';
    expect(paths(verdictSchema.safeParse(document))).toEqual([['pairwise', 0, 'b']]);
  });

  it('registry: the first version adds every entry and keeps none', () => {
    const document = registry();
    document.previous = null;
    document.diff = { added: document.entries.map((entry) => entry.repo), removed: [], kept: [] };
    for (const entry of document.entries) entry.addedIn = document.version;
    expect(registrySchema.safeParse(document).success).toBe(true);
    document.diff.kept = ['vercel/next.js'];
    expect(paths(registrySchema.safeParse(document))).toEqual(
      expect.arrayContaining([
        ['diff', 'kept'],
        ['diff', 'added', 3],
      ]),
    );
  });

  it('registry: each entry is added or kept, and addedIn agrees', () => {
    const document = registry();
    document.entries[2]!.addedIn = 'abp-registry/2026Q2'; // pallets/flask is in diff.added
    document.diff.kept = document.diff.kept.filter((repo) => repo !== 'gin-gonic/gin');
    expect(registrySchema.safeParse(document).error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [['entries', 1, 'repo'], containing('in neither diff.added nor diff.kept')],
      [['entries', 2, 'addedIn'], containing('must be abp-registry/2026Q3')],
    ]);
  });

  it('registry: repositories are unique regardless of case', () => {
    const document = registry();
    document.entries[1]!.repo = 'FastAPI/fastapi';
    expect(paths(registrySchema.safeParse(document))).toContainEqual(['entries', 1, 'repo']);
  });

  it('draw: fewer picks than requested only when the backlog ran out', () => {
    const document = draw();
    document.requested = 5;
    expect(paths(drawSchema.safeParse(document))).toEqual([['picks']]);
    document.backlogSnapshot.issues = 3;
    expect(drawSchema.safeParse(document).success).toBe(true);
  });

  it('draw: the backlog input is the snapshot it names', () => {
    const document = draw();
    document.inputDigests.backlog = document.inputDigests.optOuts;
    expect(paths(drawSchema.safeParse(document))).toEqual([['inputDigests', 'backlog']]);
  });
});
