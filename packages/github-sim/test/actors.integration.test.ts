// The actors of a live world at work: CI runs the real test suite of each pull request, a
// maintainer merges the green ones and leaves the red ones; the same seed replays the same story.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Actors, type ActorDecision } from '../src/actors.js';
import { startSimulator } from '../src/server.js';
import { createLiveCi } from '../src/world/live/ci.js';
import { createLiveWorld, SOLVER_LOGIN } from '../src/world/live/world.js';
import type { WorldEvent } from '../src/world/model.js';
import { fixFor, openFixPull, pushFix } from './support/solver.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-actors-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Story {
  decisions: readonly ActorDecision[];
  events: WorldEvent[];
  mergeCommits: Array<string | null>;
  pullStates: string[];
}

/** One scenario: the solver opens a clean fix and a fix that breaks another test; the actors take it from there. */
async function playScenario(name: string): Promise<Story> {
  const dir = join(root, name);
  const world = await createLiveWorld({ seed: 21, dir: join(dir, 'world') });
  const events: WorldEvent[] = [];
  world.onEvent((event) => events.push(event));
  const simulator = await startSimulator({
    world,
    gitRoot: world.gitRoot,
    canPush: world.canPush,
    tokens: new Set(['t']),
  });
  const workDir = await mkdtemp(join(dir, 'work-'));
  const actors = new Actors({
    world,
    ci: createLiveCi(world, { workDir }),
    plan: { seed: 21, reviewDelayMs: 0, closeUnmergedRate: 0 },
  });
  try {
    const pulls = [];
    for (const [repoName, issue] of [
      ['durafmt', 3],
      ['rangeset', 3],
    ] as const) {
      const { repo, fix } = fixFor(world, repoName, issue);
      await pushFix(world, fix, `${simulator.gitUrl}/${SOLVER_LOGIN}/${repoName}.git`, workDir);
      pulls.push({ repo, number: openFixPull(world, repo, fix).number, breaks: fix.breaks.length > 0 });
    }
    // The actors take up both open pull requests in the world's order, one at a time.
    actors.start();
    await actors.idle();
    return {
      decisions: actors.log(),
      events,
      mergeCommits: pulls.map(({ repo, number }) => world.pull(repo, number)?.mergeCommitOid ?? null),
      pullStates: pulls.map(
        ({ repo, number, breaks }) =>
          `${repo.name}#${number} breaks=${breaks} ${world.pull(repo, number)?.state} checks=${world.pull(repo, number)?.checks}`,
      ),
    };
  } finally {
    actors.stop();
    await simulator.close();
  }
}

describe('issue authors', () => {
  it('close a seeded share of open issues, questions as not planned, and the same seed closes the same ones', async () => {
    const closedBy = async (name: string, seed: number) => {
      const world = await createLiveWorld({ seed: 21, dir: join(root, name) });
      const actors = new Actors({
        world,
        ci: () => Promise.resolve('SUCCESS'),
        plan: { seed, reviewDelayMs: 0, closeUnmergedRate: 0, issueCloseRate: 0.5 },
      });
      actors.start();
      await actors.idle();
      actors.stop();
      const closed = actors.log().filter((decision) => decision.action === 'issue-closed');
      for (const decision of closed) {
        const [owner = '', repoName = ''] = decision.repo.split('/');
        const repo = world.repoByName(owner, repoName);
        const issue = repo && world.issue(repo, decision.number);
        expect(issue?.state).toBe('CLOSED');
        expect(issue?.stateReason).toBe(
          issue?.kind === 'question' || issue?.kind === 'feature-debate' ? 'NOT_PLANNED' : 'COMPLETED',
        );
      }
      return closed.map((decision) => `${decision.repo}#${decision.number}`);
    };
    const first = await closedBy('authors-a', 1);
    expect(first.length).toBeGreaterThan(0);
    expect(await closedBy('authors-b', 1)).toEqual(first);
    expect(await closedBy('authors-c', 2)).not.toEqual(first);
  });
});

describe('actors of a live world', () => {
  let first: Story;
  beforeAll(async () => {
    first = await playScenario('first');
  });

  it('runs the real suites, merges the green pull request and leaves the red one open', () => {
    expect(first.pullStates).toEqual([
      expect.stringMatching(/^durafmt#\d+ breaks=false MERGED checks=SUCCESS$/),
      expect.stringMatching(/^rangeset#\d+ breaks=true OPEN checks=FAILURE$/),
    ]);
    expect(first.decisions.map((decision) => `${decision.repo.split('/')[1]} ${decision.action}`)).toEqual(
      expect.arrayContaining(['durafmt checks', 'durafmt merged', 'rangeset checks']),
    );
    expect(first.mergeCommits[0]).toMatch(/^[0-9a-f]{40}$/);
    expect(first.mergeCommits[1]).toBeNull();
    // The merge closed the issue the pull request fixes, after the check that allowed it.
    const kinds = first.events
      .filter(
        (event) =>
          event.repoId === first.events.find((e) => e.type === 'pull_request' && e.action === 'closed')?.repoId,
      )
      .map((event) => `${event.type}.${event.action}`);
    expect(kinds).toEqual(['pull_request.opened', 'check_run.completed', 'pull_request.closed', 'issues.closed']);
  });

  it('replays the same outcomes, events and merge commits from the same seed', async () => {
    const second = await playScenario('second');
    expect(second).toEqual(first);
  });
});
