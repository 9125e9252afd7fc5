// The whole small world through `abp sim up`: a solver pushes a known fix to its fork over HTTP
// and opens a pull request with abp's GitHub client; CI runs the real tests, a maintainer merges,
// and signed webhooks tell the story. The same seed tells the same story twice.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGithubClient } from '@abp/pipeline/github/client';
import { createLiveWorld, SOLVER_LOGIN } from '@abp/github-sim/world/live/world';
import type { SimStatus } from '@abp/pipeline/dev-stack/sim-state';
import { runAbp } from '../support/cli.js';
import { startReceiver } from '../../../github-sim/test/webhooks/receiver.js';
import { fixFor, pushFix } from '../../../github-sim/test/support/solver.js';

const seed = 5;
const secret = 'scenario-webhook-secret';
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-sim-scenario-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(200);
  }
}

interface Story {
  deliveries: string[];
  mergeCommit: string;
  issueState: string;
}

async function play(name: string): Promise<Story> {
  const receiver = await startReceiver(secret);
  const env = { ABP_HOME: join(root, name, 'home'), ABP_SIM_WEBHOOK_SECRET: secret };
  try {
    const up = await runAbp(
      [
        'sim',
        'up',
        '--world',
        'small',
        '--seed',
        String(seed),
        '--review-delay-ms',
        '0',
        '--webhook-url',
        receiver.url,
        '--json',
      ],
      env,
    );
    expect(up.code, up.stderr).toBe(0);
    const status = JSON.parse(up.stdout) as SimStatus;
    const github = createGithubClient({ baseUrl: status.sim?.apiUrl ?? '', token: status.token ?? '' });

    // The same seed builds the same world here: the solver's copy of the known fixes.
    const local = await createLiveWorld({ seed, dir: join(root, name, 'solver-world') });
    const { repo, fix } = fixFor(local, 'durafmt', 3);
    await pushFix(local, fix, `${status.sim?.gitUrl}/${SOLVER_LOGIN}/durafmt.git`, join(root, name));
    const { data: opened } = await github.rest.pulls.create({
      owner: repo.owner,
      repo: repo.name,
      title: fix.title,
      body: fix.body,
      head: `${SOLVER_LOGIN}:${fix.branch}`,
      base: 'main',
    });

    const merged = await until('the merge', async () => {
      const { data } = await github.rest.pulls.get({ owner: repo.owner, repo: repo.name, pull_number: opened.number });
      return data.merged ? data : undefined;
    });
    const { data: issue } = await github.rest.issues.get({ owner: repo.owner, repo: repo.name, issue_number: 3 });
    await until('the webhooks of the merge', () =>
      Promise.resolve(
        receiver.accepted().some((entry) => entry.headers['x-github-event'] === 'issues') ? true : undefined,
      ),
    );
    expect(receiver.received.every((entry) => entry.verified)).toBe(true);
    return {
      deliveries: receiver.accepted().map((entry) => {
        const payload = JSON.parse(entry.body) as { action: string; pull_request?: { merged: boolean } };
        return `${String(entry.headers['x-github-delivery'])} ${String(entry.headers['x-github-event'])}.${payload.action}${payload.pull_request ? ` merged=${payload.pull_request.merged}` : ''}`;
      }),
      mergeCommit: merged.merge_commit_sha ?? '',
      issueState: `${issue.state} ${issue.state_reason ?? ''}`,
    };
  } finally {
    await runAbp(['sim', 'down'], env);
    await receiver.close();
  }
}

describe('a small-world scenario through abp sim', () => {
  let first: Story;
  beforeAll(async () => {
    first = await play('first');
  });

  it('goes from a pushed fix to a merge with a real merge commit, told by verified webhooks in order', () => {
    expect(first.mergeCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(first.issueState).toBe('closed completed');
    expect(first.deliveries.map((line) => line.split(' ').slice(1).join(' '))).toEqual([
      'pull_request.opened merged=false',
      'check_run.completed',
      'check_suite.completed',
      'pull_request.closed merged=true',
      'issues.closed',
    ]);
  });

  it('replays the same webhook sequence and merge commit from the same seed', async () => {
    expect(await play('second')).toEqual(first);
  });
});
