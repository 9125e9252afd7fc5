// abp's GitHub client against a misbehaving simulator: 5xx bursts are retried, secondary limits
// are waited out, slow answers time out, and a drifting search repeats results across pages.
import { afterEach, describe, expect, it } from 'vitest';
import { createGithubClient, type GithubClient } from '../../../src/github/client.js';
import { FaultInjector, noFaults, type FaultPlan } from '@abp/github-sim/faults';
import { startSimulator, type RunningSimulator } from '@abp/github-sim/server';
import { createScaleWorld } from '@abp/github-sim/world/scale';

const token = 'ghs_faults';
const world = createScaleWorld({ seed: 9, repos: 200, issues: 2_000 });
let simulator: RunningSimulator | undefined;

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

async function serve(faults: FaultPlan): Promise<{
  github: GithubClient;
  attempts: () => number;
  limits: Array<{ kind: string; retryAfterSeconds: number }>;
}> {
  const running = await startSimulator({ world, tokens: new Set([token]), faults });
  simulator = running;
  const limits: Array<{ kind: string; retryAfterSeconds: number }> = [];
  const github = createGithubClient({
    baseUrl: running.apiUrl,
    token,
    retryAfterBaseMs: 5,
    onLimit: (event) => limits.push(event),
  });
  return { github, attempts: () => running.apiRequests(), limits };
}

const repo = world.repoAt(0);
if (!repo) throw new Error('the world has no repository');

describe('faults over HTTP', () => {
  it('retries through 5xx bursts on the seeded schedule', async () => {
    const plan: FaultPlan = { ...noFaults, seed: 1, serverErrorRate: 0.2, serverErrorBurst: 1 };
    // The client retries a failed request 3 times: this seed's schedule never fails 4 in a row.
    const preview = new FaultInjector(plan);
    const runs = Array.from({ length: 60 }, () => (preview.next().kind === 'server-error' ? 'E' : '.'))
      .join('')
      .split('.');
    expect(Math.max(...runs.map((run) => run.length))).toBeLessThanOrEqual(3);
    const schedule = new FaultInjector(plan);
    const { github, attempts } = await serve(plan);
    let expectedAttempts = 0;
    let serverErrors = 0;
    for (let call = 0; call < 20; call += 1) {
      // Each call takes attempts until one is not a server error: predict that from the same schedule.
      for (;;) {
        expectedAttempts += 1;
        if (schedule.next().kind !== 'server-error') break;
        serverErrors += 1;
      }
      const { data } = await github.rest.repos.get({ owner: repo.owner, repo: repo.name });
      expect(data.id).toBe(repo.id);
    }
    expect(serverErrors).toBeGreaterThan(0);
    expect(attempts()).toBe(expectedAttempts);
  });

  it('waits out injected secondary limits with the retry-after the simulator sent', async () => {
    const { github, limits } = await serve({
      ...noFaults,
      seed: 1,
      secondaryLimitRate: 0.2,
      secondaryLimitBurst: 1,
      retryAfterSeconds: 1,
    });
    // Seed 1 refuses the first request of the run: at least one limit is met in these calls.
    for (let call = 0; call < 3; call += 1) await github.rest.repos.get({ owner: repo.owner, repo: repo.name });
    expect(limits.length).toBeGreaterThan(0);
    expect(limits.every((limit) => limit.kind === 'secondary' && limit.retryAfterSeconds === 1)).toBe(true);
  });

  it('holds answers past a client timeout', async () => {
    const { github } = await serve({ ...noFaults, seed: 1, slowRate: 1, slowMs: 1_500 });
    await expect(
      github.rest.repos.get({ owner: repo.owner, repo: repo.name, request: { signal: AbortSignal.timeout(300) } }),
    ).rejects.toThrow(/abort|timeout/i);
  });

  it('repeats search results across pages when the ranking drifts', async () => {
    const { github } = await serve({ ...noFaults, seed: 3, shiftingSearchRate: 1 });
    // Two pages: the drift between them repeats the last result of the first page on the second.
    const items = await github.paginate(github.rest.search.repos, {
      q: 'stars:>=0',
      sort: 'stars',
      order: 'desc',
      per_page: 100,
    });
    const names = items.map((item) => item.full_name);
    expect(names.length).toBeGreaterThan(100);
    expect(new Set(names).size).toBeLessThan(names.length);
  });
});
