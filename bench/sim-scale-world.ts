// How long the simulator takes to generate the scale world (5,000 repositories, 1,000,000 issues)
// and to serve its full backlog the way a client pages through it (every repository's open issues,
// then every issue, through `issues()` in pages of 100; then the open backlog over HTTP, REST pages
// of 100 from the real server), with peak memory, against a baseline measured in the same run:
// allocating and iterating 1,000,000 plain issue objects.
//   node bin/run-ts.js bench/sim-scale-world.ts [seed]
import { startSimulator } from '@abp/github-sim/server';
import type { SimIssue } from '@abp/github-sim/world/model';
import { groundTruth } from '@abp/github-sim/world/ground-truth';
import type { ScaleWorld } from '@abp/github-sim/world/scale';
import { createScaleWorld } from '@abp/github-sim/world/scale';

const seed = Number(process.argv[2] ?? 1);
const repos = 5_000;
const issues = 1_000_000;
const pageSize = 100;
const generationTargetMs = 60_000;
const peakTargetBytes = 2 * 1024 ** 3;

function mib(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
}

function timed<T>(run: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = run();
  return { value, ms: performance.now() - started };
}

/** Page through every repository's issues as a client would; returns how many were served. */
function listBacklog(world: ScaleWorld, states: SimIssue['state'][] | undefined): number {
  let served = 0;
  for (let index = 0; index < world.repoCount(); index++) {
    const repo = world.repoAt(index);
    if (repo === undefined) continue;
    for (let offset = 0; ; offset += pageSize) {
      const page = world.issues(repo, states === undefined ? {} : { states }, offset, pageSize);
      served += page.items.length;
      if (offset + pageSize >= page.total) break;
    }
  }
  return served;
}

/** The floor for serving: a million issue-shaped objects allocated and read once, no derivation. */
function baseline(): number {
  const created = '2026-10-01T12:00:00Z';
  const plain: SimIssue[] = [];
  for (let number = 1; number <= issues; number++) {
    plain.push({
      repoId: number % repos,
      number,
      title: `Issue ${number} crashes with unicode input`,
      body: `Steps to reproduce ${number}`,
      state: number % 3 === 0 ? 'CLOSED' : 'OPEN',
      stateReason: null,
      labels: number % 2 === 0 ? ['bug'] : [],
      authorLogin: `user${number % 40_000}`,
      createdAt: created,
      updatedAt: created,
      closedAt: null,
      commentCount: number % 7,
      kind: 'bug',
    });
  }
  let checksum = 0;
  for (const issue of plain) checksum += issue.title.length + issue.labels.length;
  return checksum;
}

const generation = timed(() => createScaleWorld({ seed, repos, issues }));
const world = generation.value;
const totals = world.totals();
const truth = timed(() => groundTruth(world));
const openCold = timed(() => listBacklog(world, ['OPEN']));
const openWarm = timed(() => listBacklog(world, ['OPEN']));
const everything = timed(() => listBacklog(world, undefined));

/** The open backlog over HTTP: every repository's open issues, REST pages of 100, one client connection at a time. */
async function serveBacklogOverHttp(): Promise<{ issues: number; requests: number; ms: number }> {
  const token = 'ghs_bench';
  // Limits raised: this measures serving, not GitHub's hourly budget (which one token could not spend this fast).
  const simulator = await startSimulator({
    world,
    tokens: new Set([token]),
    rateLimits: { core: { limit: 10_000_000, windowSeconds: 3_600 } },
    secondaryLimits: { pointsPerMinute: 10_000_000 },
  });
  const started = performance.now();
  let served = 0;
  let requests = 0;
  try {
    for (let index = 0; index < world.repoCount(); index++) {
      const repo = world.repoAt(index);
      if (repo === undefined) continue;
      for (let page = 1; ; page++) {
        const response = await fetch(
          `${simulator.apiUrl}/repos/${repo.owner}/${repo.name}/issues?state=open&per_page=${pageSize}&page=${page}`,
          { headers: { authorization: `token ${token}` } },
        );
        requests += 1;
        if (!response.ok) throw new Error(`HTTP ${response.status} for ${repo.owner}/${repo.name} page ${page}`);
        const items = (await response.json()) as Array<{ pull_request?: unknown }>;
        served += items.filter((item) => item.pull_request === undefined).length;
        if (!response.headers.get('link')?.includes('rel="next"')) break;
      }
    }
  } finally {
    await simulator.close();
  }
  return { issues: served, requests, ms: performance.now() - started };
}
const overHttp = await serveBacklogOverHttp();
const peakBytes = process.resourceUsage().maxRSS * 1024;
const heapBytes = process.memoryUsage().heapUsed;
const floor = timed(baseline);

const rate = (count: number, ms: number) => `${Math.round(count / (ms / 1000)).toLocaleString('en-US')} issues/s`;
console.log(
  `scale world: seed ${seed}, ${totals.repos.toLocaleString('en-US')} repositories, ${totals.issues.toLocaleString('en-US')} issues (${totals.openIssues.toLocaleString('en-US')} open), ${totals.pulls.toLocaleString('en-US')} pull requests`,
);
console.log(`generation:                  ${generation.ms.toFixed(0)} ms`);
console.log(
  `ground truth:                ${truth.ms.toFixed(0)} ms (${truth.value.eligible.length} eligible repositories)`,
);
console.log(
  `open backlog listing, cold:  ${openCold.ms.toFixed(0)} ms for ${openCold.value.toLocaleString('en-US')} issues in pages of ${pageSize} (${rate(openCold.value, openCold.ms)}; derives every backlog)`,
);
console.log(`open backlog listing, warm:  ${openWarm.ms.toFixed(0)} ms (${rate(openWarm.value, openWarm.ms)})`);
console.log(
  `full listing, all states:    ${everything.ms.toFixed(0)} ms for ${everything.value.toLocaleString('en-US')} issues (${rate(everything.value, everything.ms)})`,
);
console.log(
  `open backlog over HTTP:       ${overHttp.ms.toFixed(0)} ms for ${overHttp.issues.toLocaleString('en-US')} issues in ${overHttp.requests.toLocaleString('en-US')} REST requests (${rate(overHttp.issues, overHttp.ms)}; open pull requests interleave, as on GitHub)`,
);
console.log(`peak memory (maxRSS):        ${mib(peakBytes)} (heap in use ${mib(heapBytes)})`);
console.log(
  `baseline:                    ${floor.ms.toFixed(0)} ms to allocate and iterate ${issues.toLocaleString('en-US')} plain issue objects`,
);
console.log(`ratio full listing/baseline: ${(everything.ms / floor.ms).toFixed(1)}x`);
console.log(`target generation < 60 s:    ${generation.ms < generationTargetMs ? 'met' : 'MISSED'}`);
console.log(`target peak < 2 GiB:         ${peakBytes < peakTargetBytes ? 'met' : 'MISSED'}`);
if (
  everything.value !== totals.issues ||
  openCold.value !== totals.openIssues ||
  overHttp.issues !== totals.openIssues
) {
  console.error('listing did not serve every issue exactly once');
  process.exitCode = 1;
}
