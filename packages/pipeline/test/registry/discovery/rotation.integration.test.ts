// The acceptance test of curation (issue 5): over real HTTP against a 3,000-repository scale world, discovery plus
// evaluation by the registry's own criteria equals the world's ground truth exactly — every verdict, reason, detail
// and runner recipe — and the rotation spends what docs/registry.md's cost formula says, within 250 points and
// 150 GraphQL requests, plus one REST tree listing a candidate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CandidateEvaluation } from '../../../src/registry/criteria/evaluate.js';
import { evaluateAll } from '../../../src/registry/criteria/evaluate.js';
import { loadCriteria } from '../../../src/registry/criteria/load.js';
import type { Discovery } from '../../../src/registry/discovery/discover.js';
import { discoverCandidates } from '../../../src/registry/discovery/discover.js';
import { isReadManifest } from '../../../src/registry/suites/detect-suite.js';
import { startSimulator, type RunningSimulator } from '@abp/github-sim/server';
import { isBugLabel } from '@abp/github-sim/world/criteria';
import { groundTruth, type WorldTruth } from '@abp/github-sim/world/ground-truth';
import type { SimRepo } from '@abp/github-sim/world/model';
import { createScaleWorld, type ScaleWorld } from '@abp/github-sim/world/scale';
import { unthrottledClient, worldRanking } from './support.js';

// Every rotation lists each candidate's tree over REST: under GitHub's 900 points a minute these rotations would wait
// minutes for the window to reset (batches.integration shows the client waiting out a limit), so the limit is raised.
const TREE_READS = { pointsPerMinute: 100_000 };

const TOKEN = 'rotation-token';
const REPOS = 3_000;

let world: ScaleWorld;
let truth: WorldTruth;
let sim: RunningSimulator;
let discovery: Discovery;
let evaluations: CandidateEvaluation[];
const timings: Record<string, number> = {};

beforeAll(async () => {
  let started = Date.now();
  world = createScaleWorld({ seed: 2026, repos: REPOS, issues: 300_000 });
  truth = groundTruth(world);
  timings.worldMs = Date.now() - started;
  sim = await startSimulator({ world, tokens: new Set([TOKEN]), secondaryLimits: TREE_READS });
  const criteria = await loadCriteria();
  started = Date.now();
  discovery = await discoverCandidates(unthrottledClient(sim.apiUrl, TOKEN), { top: REPOS, criteria });
  timings.discoveryMs = Date.now() - started;
  evaluations = evaluateAll(discovery.candidates, criteria, new Date(world.generatedAt));
});

afterAll(async () => {
  await sim.close();
});

function repoOf(nameWithOwner: string): SimRepo {
  const [owner = '', name = ''] = nameWithOwner.split('/');
  const repo = world.repoByName(owner, name);
  if (repo === undefined) throw new Error(`${nameWithOwner} is not in the world`);
  return repo;
}

/** Whether the first page of merged pull requests (10, most recently updated first) leaves the latest merge open. */
function needsMoreMerges(repo: SimRepo): boolean {
  const pulls = world.pulls(repo, { states: ['MERGED'], orderBy: { field: 'UPDATED_AT', direction: 'DESC' } }, 0, 10);
  let latest = '';
  for (const pull of pulls.items) {
    if ((pull.mergedAt ?? '') > latest) latest = pull.mergedAt ?? '';
    if (pull.updatedAt <= latest) return false;
  }
  return pulls.total > 10;
}

describe('a rotation over a 3,000-repository world', () => {
  it('discovers every repository once, in the world order', () => {
    expect(discovery.missing).toEqual([]);
    expect(discovery.candidates.map((candidate) => candidate.nameWithOwner)).toEqual(
      worldRanking(world).map((hit) => hit.nameWithOwner),
    );
  });

  it('judges every candidate exactly as the ground truth does', () => {
    const ours = new Map(evaluations.map((evaluation) => [evaluation.nameWithOwner, evaluation]));
    expect(truth.repos).toHaveLength(REPOS);
    for (const repo of truth.repos) {
      const evaluation = ours.get(repo.nameWithOwner);
      expect({
        repo: repo.nameWithOwner,
        eligible: evaluation?.eligible,
        verdicts: evaluation?.verdicts,
        runner: evaluation?.runner,
      }).toEqual({
        repo: repo.nameWithOwner,
        eligible: repo.eligible,
        verdicts: repo.verdicts,
        runner: repo.runner,
      });
    }
    const eligible = evaluations
      .filter((evaluation) => evaluation.eligible)
      .map((evaluation) => evaluation.nameWithOwner);
    expect(eligible.sort()).toEqual(truth.eligible);
    // Every reason of the vocabulary occurs, so the equality above covered each.
    const reasons = new Set(
      evaluations.flatMap((evaluation) =>
        evaluation.verdicts.flatMap((verdict) => (verdict.pass ? [] : [verdict.reason])),
      ),
    );
    expect(reasons.size).toBe(14);
  });

  it('reads the facts the ground truth was built from', () => {
    const facts = new Map(discovery.candidates.map((candidate) => [candidate.nameWithOwner, candidate]));
    for (const repo of truth.repos) {
      const candidate = facts.get(repo.nameWithOwner);
      const {
        licenseSpdxId,
        isArchived,
        isFork,
        isMirror,
        lastMergedPullAt,
        openIssues,
        labeledOpenIssues,
        bugLabelInUse,
      } = repo.facts;
      expect({
        repo: repo.nameWithOwner,
        licenseSpdxId: candidate?.licenseSpdxId,
        isArchived: candidate?.isArchived,
        isFork: candidate?.isFork,
        isMirror: candidate?.isMirror,
        lastMergedPullAt: candidate?.lastMergedPullAt,
        openIssues: candidate?.openIssues,
        labeledOpenIssues: candidate?.labeledOpenIssues,
        bugLabelInUse: (candidate?.bugLabeledOpenIssues ?? 0) >= 1,
      }).toEqual({
        repo: repo.nameWithOwner,
        licenseSpdxId,
        isArchived,
        isFork,
        isMirror,
        lastMergedPullAt,
        openIssues,
        labeledOpenIssues,
        bugLabelInUse,
      });
    }
  });

  it('spends what the cost formula predicts: within 250 points and 150 GraphQL requests, and one tree listing a candidate', () => {
    const searchPages = discovery.bands.reduce(
      (sum, band) => sum + Math.max(1, Math.ceil(band.repositoryCount / 100)),
      0,
    );
    let batchRequests = 0;
    let batchPoints = 0;
    let treeRequests = 0;
    for (let start = 0; start < discovery.candidates.length; start += 100) {
      const batch = discovery.candidates.slice(start, start + 100).map((candidate) => repoOf(candidate.nameWithOwner));
      // First query: merged pull requests, open issues and labels per repository.
      batchRequests += 1;
      batchPoints += Math.max(1, Math.round((3 * batch.length) / 100));
      // Follow-up: labeled open issues (and bug-labeled ones where a bug label exists), more merged pull requests.
      const connections = batch.reduce((sum, repo) => {
        const counted =
          repo.openIssueCount > 0 && repo.labels.length > 0
            ? 1 + (repo.labels.some((label) => isBugLabel(label.name)) ? 1 : 0)
            : 0;
        return sum + counted + (needsMoreMerges(repo) ? 1 : 0);
      }, 0);
      if (connections > 0) {
        batchRequests += 1;
        batchPoints += Math.max(1, Math.round(connections / 100));
      }
      // Suite files: one REST tree listing a repository (no GraphQL points), then the manifests detection reads, 300
      // blobs a query at 1 point each (git objects cost nothing, a query at least 1).
      const manifests = batch.reduce(
        (sum, repo) => sum + repo.files.filter((file) => isReadManifest(file.path)).length,
        0,
      );
      treeRequests += batch.length;
      batchRequests += Math.ceil(manifests / 300);
      batchPoints += Math.ceil(manifests / 300);
    }
    const expected = {
      requests: searchPages + discovery.splits + batchRequests + treeRequests,
      points: searchPages + discovery.splits + batchPoints,
    };
    console.info(
      `rotation of ${REPOS} candidates: ${discovery.cost.requests} requests, ${discovery.cost.points} points; ${discovery.bands.length} bands, ${discovery.splits} splits; world ${timings.worldMs} ms, discovery ${timings.discoveryMs} ms`,
    );
    expect(discovery.cost).toEqual(expected);
    expect(sim.apiRequests()).toBe(discovery.cost.requests);
    expect(discovery.cost.points).toBeLessThanOrEqual(250);
    expect(discovery.cost.requests - treeRequests).toBeLessThanOrEqual(150);
    expect(treeRequests).toBe(REPOS);
  });
});
