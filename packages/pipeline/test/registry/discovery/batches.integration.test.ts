// Batches one at a time, as a Temporal activity will run them: planBatches, fetchBatch's idempotence and agreement
// with a whole discovery, repositories gone since search, pagination of many labels and of merged pull requests
// that settle late, and the production client obeying retry-after through injected limits and server errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGithubClient } from '../../../src/github/client.js';
import type { CandidateFacts } from '../../../src/registry/criteria/facts.js';
import { loadCriteria } from '../../../src/registry/criteria/load.js';
import type { Criteria } from '../../../src/registry/criteria/schema.js';
import { discoverCandidates } from '../../../src/registry/discovery/discover.js';
import { DiscoveryError } from '../../../src/registry/discovery/errors.js';
import { CANDIDATE_BATCH_SIZE, fetchBatch, planBatches } from '../../../src/registry/discovery/fetch.js';
import { searchCandidates } from '../../../src/registry/discovery/search.js';
import { noFaults } from '@abp/github-sim/faults';
import { startSimulator, type RunningSimulator } from '@abp/github-sim/server';
import { createScaleWorld } from '@abp/github-sim/world/scale';
import { MemoryWorld, simIssue, simPull, simRepo } from '../../../../github-sim/test/support/memory-world.js';
import { unthrottledClient } from './support.js';

const TOKEN = 'batches-token';
const world = createScaleWorld({ seed: 77, repos: 300, issues: 30_000 });
let sim: RunningSimulator;
let criteria: Criteria;
let names: string[];

beforeAll(async () => {
  sim = await startSimulator({ world, tokens: new Set([TOKEN]) });
  criteria = await loadCriteria();
  names = (await searchCandidates(unthrottledClient(sim.apiUrl, TOKEN), { top: 300 })).hits.map(
    (hit) => hit.nameWithOwner,
  );
});

afterAll(async () => {
  await sim.close();
});

async function discoveryError(promise: Promise<unknown>): Promise<DiscoveryError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof DiscoveryError)) throw new Error(`expected a DiscoveryError, got ${String(error)}`);
  return error;
}

describe('planBatches', () => {
  it('cuts the names in order into batches of the size asked, 100 by default', () => {
    const many = Array.from({ length: 250 }, (_, index) => `owner/repo-${index}`);
    expect(planBatches(many).map((batch) => batch.length)).toEqual([100, 100, 50]);
    expect(planBatches(many, 40).flat()).toEqual(many);
    expect(planBatches([])).toEqual([]);
    expect(CANDIDATE_BATCH_SIZE).toBe(100);
  });

  it('refuses a batch size GitHub cannot page', () => {
    for (const size of [0, 101, 2.5]) {
      expect(() => planBatches(['a/b'], size)).toThrow(DiscoveryError);
    }
  });
});

describe('fetchBatch', () => {
  it('read batch by batch, agrees with a whole discovery, and costs the same', async () => {
    const github = unthrottledClient(sim.apiUrl, TOKEN);
    const whole = await discoverCandidates(github, { top: 300, criteria, batchSize: 60 });
    const candidates: CandidateFacts[] = [];
    let requests = 0;
    let points = 0;
    for (const batch of planBatches(names, 60)) {
      const read = await fetchBatch(github, batch, criteria);
      expect(read.missing).toEqual([]);
      candidates.push(...read.candidates);
      requests += read.cost.requests;
      points += read.cost.points;
    }
    expect(candidates).toEqual(whole.candidates);
    const searchCost = whole.cost.requests - requests;
    expect(searchCost).toBeGreaterThan(0);
    expect(whole.cost).toEqual({ requests: requests + searchCost, points: points + searchCost });
  });

  it('gives the same facts for the same cost when a batch is read again', async () => {
    const github = unthrottledClient(sim.apiUrl, TOKEN);
    const batch = names.slice(0, 100);
    const first = await fetchBatch(github, batch, criteria);
    const again = await fetchBatch(github, batch, criteria);
    expect(again).toEqual(first);
    expect(first.candidates).toHaveLength(100);
    // Two queries for the criteria, one tree listing a repository, and one query for every manifest of the batch.
    expect(first.cost).toEqual({ requests: 2 + 100 + 1, points: 5 + 1 });
  });

  it('reports repositories gone since search and reads the rest', async () => {
    const [known = ''] = names;
    const read = await fetchBatch(unthrottledClient(sim.apiUrl, TOKEN), ['ghost-owner/deleted-repo', known], criteria);
    expect(read.missing).toEqual(['ghost-owner/deleted-repo']);
    expect(read.candidates.map((candidate) => candidate.nameWithOwner)).toEqual([known]);
  });

  it('refuses names it cannot ask for', async () => {
    const github = unthrottledClient(sim.apiUrl, TOKEN);
    for (const batch of [
      ['not-a-repository'],
      ['a/b', 'A/B'],
      Array.from({ length: 101 }, (_, index) => `o/r${index}`),
    ]) {
      expect((await discoveryError(fetchBatch(github, batch, criteria))).code).toBe('invalid-options');
    }
  });

  it('fails with github-query-failed when GitHub refuses the token', async () => {
    const stranger = unthrottledClient(sim.apiUrl, 'not-a-known-token');
    expect((await discoveryError(fetchBatch(stranger, names.slice(0, 2), criteria))).code).toBe('github-query-failed');
  });
});

describe('fetchBatch on repositories that need more pages', () => {
  const generatedAt = '2026-11-01T00:00:00Z';
  const labels = Array.from({ length: 150 }, (_, index) => ({
    name: index === 140 ? 'Type: Bug' : `area/${String(index).padStart(3, '0')}`,
    color: 'ededed',
    description: null,
  }));
  const issues = [
    // Only labels past the first page of 100: found once every label is read.
    simIssue({ repoId: 1, number: 1, labels: ['Type: Bug'] }),
    simIssue({ repoId: 1, number: 2, labels: ['area/120', 'area/121'] }),
    simIssue({ repoId: 1, number: 3, labels: [] }),
    simIssue({ repoId: 1, number: 4, labels: ['area/001'], state: 'CLOSED', closedAt: '2026-01-01T00:00:00Z' }),
  ];
  // Eleven old pull requests commented on lately come before the latest merge in UPDATED_AT order.
  const pulls = [
    ...Array.from({ length: 11 }, (_, index) =>
      simPull({
        repoId: 1,
        number: 10 + index,
        state: 'MERGED',
        mergedAt: '2024-03-01T00:00:00Z',
        closedAt: '2024-03-01T00:00:00Z',
        updatedAt: `2026-10-${String(30 - index).padStart(2, '0')}T00:00:00Z`,
      }),
    ),
    simPull({
      repoId: 1,
      number: 30,
      state: 'MERGED',
      mergedAt: '2026-10-05T12:00:00Z',
      closedAt: '2026-10-05T12:00:00Z',
      updatedAt: '2026-10-05T12:00:00Z',
    }),
    simPull({
      repoId: 1,
      number: 31,
      state: 'CLOSED',
      closedAt: '2026-10-31T00:00:00Z',
      updatedAt: '2026-10-31T00:00:00Z',
    }),
  ];
  const repos = [
    simRepo({
      id: 1,
      owner: 'big',
      name: 'labels',
      stargazerCount: 50,
      primaryLanguage: 'Go',
      labels,
      files: [
        { path: 'go.mod', content: 'module x\n' },
        { path: 'x_test.go', content: 'package x\n' },
      ],
    }),
    simRepo({ id: 2, owner: 'bare', name: 'empty', stargazerCount: 5, licenseSpdxId: null, defaultBranch: 'trunk' }),
  ];
  let memory: RunningSimulator;

  beforeAll(async () => {
    memory = await startSimulator({
      world: new MemoryWorld({ users: [], repos, issues, pulls, comments: [] }, { generatedAt }),
      tokens: new Set([TOKEN]),
    });
  });

  afterAll(async () => {
    await memory.close();
  });

  it('reads every label and every merged pull request the latest merge depends on', async () => {
    const read = await fetchBatch(unthrottledClient(memory.apiUrl, TOKEN), ['big/labels', 'bare/empty'], criteria);
    expect(read.missing).toEqual([]);
    expect(read.candidates).toEqual([
      {
        nameWithOwner: 'big/labels',
        stargazerCount: 50,
        defaultBranch: 'main',
        primaryLanguage: 'Go',
        licenseSpdxId: 'MIT',
        isArchived: false,
        isFork: false,
        isMirror: false,
        mergedPullCount: 12,
        lastMergedPullAt: '2026-10-05T12:00:00Z',
        paths: ['go.mod', 'x_test.go'],
        texts: {},
        treeTruncated: false,
        openIssues: 3,
        labeledOpenIssues: 2,
        bugLabels: ['Type: Bug'],
        bugLabeledOpenIssues: 1,
      },
      {
        nameWithOwner: 'bare/empty',
        stargazerCount: 5,
        defaultBranch: 'trunk',
        primaryLanguage: null,
        licenseSpdxId: null,
        isArchived: false,
        isFork: false,
        isMirror: false,
        mergedPullCount: 0,
        lastMergedPullAt: null,
        paths: [],
        texts: {},
        treeTruncated: false,
        openIssues: 0,
        labeledOpenIssues: 0,
        bugLabels: [],
        bugLabeledOpenIssues: 0,
      },
    ]);
    // The first query, the second page of labels with the next merged pull requests, then the counts by label; then
    // the two trees, which hold no manifest detection reads.
    expect(read.cost.requests).toBe(3 + 2);
  });
});

describe('discovery with the production client', () => {
  it('waits out secondary limits for the retry-after GitHub sent and retries server errors, to the same facts', async () => {
    const small = createScaleWorld({ seed: 11, repos: 120, issues: 6_000 });
    const clean = await startSimulator({ world: small, tokens: new Set([TOKEN]) });
    const faulty = await startSimulator({
      world: small,
      tokens: new Set([TOKEN]),
      faults: {
        ...noFaults,
        seed: 1,
        secondaryLimitRate: 0.2,
        secondaryLimitBurst: 1,
        retryAfterSeconds: 1,
        serverErrorRate: 0.15,
        serverErrorBurst: 1,
      },
    });
    try {
      const expected = await discoverCandidates(unthrottledClient(clean.apiUrl, TOKEN), { top: 120, criteria });
      const limits: Array<{ kind: string; retryAfterSeconds: number }> = [];
      const github = createGithubClient(
        { baseUrl: faulty.apiUrl, token: TOKEN, retryAfterBaseMs: 10, onLimit: (event) => limits.push(event) },
        {},
      );
      const discovered = await discoverCandidates(github, { top: 120, criteria });
      expect(discovered.candidates).toEqual(expected.candidates);
      expect(discovered.cost).toEqual(expected.cost);
      expect(limits.length).toBeGreaterThan(0);
      expect(limits.every((limit) => limit.kind === 'secondary' && limit.retryAfterSeconds === 1)).toBe(true);
      // Refused and failed attempts reached the server too; the cost counts the calls that were answered.
      expect(faulty.apiRequests()).toBeGreaterThan(discovered.cost.requests + limits.length);
    } finally {
      await clean.close();
      await faulty.close();
    }
  });
});
