// The REST write and diff routes over a live world, driven through the real server with abp's own
// Octokit: a fix pushed to the solver's fork over HTTP (async git: the server runs in this process)
// becomes a pull request through `pulls.create`; its files match `git diff`, its diff media type
// applies to a base checkout, its check runs follow `setChecks`, and refusals are GitHub's 422s.
// Every JSON body is checked against GitHub's OpenAPI description. The client's throttling spaces
// pull request creations 3 s apart, as it does against GitHub: these suites take a while.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGithubClient } from '../../../../src/github/client.js';
import type { GithubClient } from '../../../../src/github/client.js';
import { startSimulator } from '@abp/github-sim/server';
import type { RunningSimulator } from '@abp/github-sim/server';
import { applyPatch } from '@abp/github-sim/world/live/ci';
import { git, userIdentity } from '@abp/github-sim/world/live/git';
import type { KnownFix, LiveWorld } from '@abp/github-sim/world/live/world';
import { createLiveWorld, knownFixes, SOLVER_LOGIN } from '@abp/github-sim/world/live/world';
import { createScaleWorld } from '@abp/github-sim/world/scale';
import type { SimRepo } from '@abp/github-sim/world/model';
import { loadGitHubOpenApi } from '../../../../../github-sim/test/rest/openapi.js';

const token = 'rest-live-token';
const openapi = loadGitHubOpenApi();
let root: string;
let clones = 0;

interface HttpFailure {
  status: number;
  response: { headers: Record<string, string | undefined>; data: unknown };
}

async function rejection(promise: Promise<unknown>): Promise<HttpFailure> {
  try {
    await promise;
  } catch (error) {
    return error as HttpFailure;
  }
  throw new Error('expected the request to fail');
}

function conforms(path: string, method: 'get' | 'post', status: number, body: unknown): void {
  expect(openapi.check(path, method, status, body)).toEqual([]);
}

function client(apiUrl: string, events: string[] = [], as = token): GithubClient {
  return createGithubClient(
    {
      baseUrl: apiUrl,
      token: as,
      maxRateLimitRetries: 0,
      retryAfterBaseMs: 10,
      onLimit: (event) => events.push(`${event.kind} ${event.method}`),
    },
    {},
  );
}

function fixFor(world: LiveWorld, repoName: string, issue: number): { repo: SimRepo; fix: KnownFix } {
  const fix = knownFixes(world).find(
    (candidate) => candidate.repo.endsWith(`/${repoName}`) && candidate.issue === issue,
  );
  const repo = fix && world.repoByName(fix.repo.split('/')[0] ?? '', repoName);
  if (!fix || !repo) throw new Error(`no known fix for ${repoName}#${issue}`);
  return { repo, fix };
}

async function cloneOver(url: string): Promise<string> {
  const dir = join(root, `clone-${clones++}`);
  await git(['clone', '--quiet', url, dir], { cwd: root, transport: 'network' });
  return dir;
}

/** Commits everything in `dir` as the solver and pushes `branch` to origin. */
async function commitAndPush(world: LiveWorld, dir: string, branch: string, message: string): Promise<string> {
  const solver = {
    identity: userIdentity(SOLVER_LOGIN, world.userByLogin(SOLVER_LOGIN)?.id ?? 0),
    at: Date.parse(world.generatedAt) / 1000 + 7_200,
  };
  await git(['add', '-A'], { cwd: dir });
  await git(['commit', '--quiet', '-m', message], { cwd: dir, author: solver, committer: solver });
  await git(['push', '--quiet', 'origin', branch], { cwd: dir, transport: 'network' });
  return (await git(['rev-parse', 'HEAD'], { cwd: dir })).stdout.trim();
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-rest-live-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('REST writes and diffs over a live world', () => {
  let world: LiveWorld;
  let sim: RunningSimulator;
  let octokit: GithubClient;

  beforeAll(async () => {
    world = await createLiveWorld({ seed: 7, dir: join(root, 'world') });
    sim = await startSimulator({ world, gitRoot: world.gitRoot, canPush: world.canPush, tokens: new Set([token]) });
    octokit = client(sim.apiUrl);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('opens a pull request from the fork, lists its files as git does, serves its diff, and reports its checks', async () => {
    const { repo, fix } = fixFor(world, 'textkit', 3);
    const clone = await cloneOver(`${sim.gitUrl}/${SOLVER_LOGIN}/textkit.git`);
    await git(['checkout', '--quiet', '-b', fix.branch], { cwd: clone });
    await applyPatch(clone, fix.patch);
    const head = await commitAndPush(world, clone, fix.branch, fix.commitMessage);

    const created = await octokit.rest.pulls.create({
      owner: repo.owner,
      repo: 'textkit',
      title: fix.title,
      body: fix.body,
      head: `${SOLVER_LOGIN}:${fix.branch}`,
      base: 'main',
    });
    expect(created.status).toBe(201);
    conforms('/repos/{owner}/{repo}/pulls', 'post', 201, created.data);
    const number = created.data.number;
    expect(created.headers.location).toBe(`${sim.apiUrl}/repos/${repo.owner}/textkit/pulls/${number}`);
    expect(created.data).toMatchObject({
      state: 'open',
      title: fix.title,
      user: { login: SOLVER_LOGIN },
      base: { ref: 'main', sha: repo.headOid, repo: { full_name: `${repo.owner}/textkit` } },
    });
    // The head lives in the fork, as on GitHub.
    expect(created.data.head).toMatchObject({
      label: `${SOLVER_LOGIN}:${fix.branch}`,
      ref: fix.branch,
      sha: head,
      user: { login: SOLVER_LOGIN },
      repo: { full_name: `${SOLVER_LOGIN}/textkit`, fork: true },
    });
    expect(created.headers['x-ratelimit-used']).toBe('1');

    const fetched = await octokit.rest.pulls.get({ owner: repo.owner, repo: 'textkit', pull_number: number });
    conforms('/repos/{owner}/{repo}/pulls/{pull_number}', 'get', 200, fetched.data);
    expect(fetched.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(fetched.data.head.repo?.full_name).toBe(`${SOLVER_LOGIN}/textkit`);
    const listed = await octokit.rest.pulls.list({
      owner: repo.owner,
      repo: 'textkit',
      head: `${SOLVER_LOGIN}:${fix.branch}`,
    });
    expect(listed.data.map((pull) => pull.number)).toEqual([number]);

    // Files: what `git diff --numstat` says between the merge base and the head.
    const files = await octokit.rest.pulls.listFiles({ owner: repo.owner, repo: 'textkit', pull_number: number });
    conforms('/repos/{owner}/{repo}/pulls/{pull_number}/files', 'get', 200, files.data);
    const numstat = (await git(['diff', '--numstat', `${repo.headOid}...HEAD`], { cwd: clone })).stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(files.data.map((file) => [String(file.additions), String(file.deletions), file.filename])).toEqual(numstat);
    for (const file of files.data) {
      expect(file.changes).toBe(file.additions + file.deletions);
      expect(file.patch).toMatch(/^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/);
      expect(file.sha).toBe((await git(['rev-parse', `HEAD:${file.filename}`], { cwd: clone })).stdout.trim());
      expect(file.raw_url).toBe(`${sim.apiUrl}/${repo.owner}/textkit/raw/${head}/${file.filename}`);
    }
    expect(fetched.data.changed_files).toBe(files.data.length);

    // The diff media type: text that `git apply --check` accepts on a checkout of the base.
    const diff = await octokit.rest.pulls.get({
      owner: repo.owner,
      repo: 'textkit',
      pull_number: number,
      mediaType: { format: 'diff' },
    });
    expect(diff.headers['content-type']).toBe('application/vnd.github.v3.diff; charset=utf-8');
    expect(diff.headers['x-github-media-type']).toBe('github.v3; param=diff');
    const diffText = diff.data as unknown as string;
    expect(diffText).toBe((await git(['diff', `${repo.headOid}...HEAD`], { cwd: clone })).stdout);
    const base = await cloneOver(`${sim.gitUrl}/${repo.owner}/textkit.git`);
    await git(['apply', '--check', '-'], { cwd: base, input: diffText });
    const patch = await octokit.rest.pulls.get({
      owner: repo.owner,
      repo: 'textkit',
      pull_number: number,
      mediaType: { format: 'patch' },
    });
    expect(patch.headers['content-type']).toBe('application/vnd.github.v3.patch; charset=utf-8');
    expect(patch.data as unknown as string).toMatch(new RegExp(`^From ${head} `));
    // The diff is conditional like any read: its ETag answers 304.
    const again = await fetch(`${sim.apiUrl}/repos/${repo.owner}/textkit/pulls/${number}`, {
      headers: {
        authorization: `token ${token}`,
        accept: 'application/vnd.github.diff',
        'if-none-match': diff.headers.etag ?? '',
      },
    });
    expect(again.status).toBe(304);

    // Checks: none until CI reports; then one completed `test` run on the head commit.
    const before = await octokit.rest.checks.listForRef({ owner: repo.owner, repo: 'textkit', ref: head });
    expect(before.data).toEqual({ total_count: 0, check_runs: [] });
    world.setChecks(repo, number, 'FAILURE');
    world.setChecks(repo, number, 'SUCCESS');
    const runs = await octokit.rest.checks.listForRef({ owner: repo.owner, repo: 'textkit', ref: head });
    conforms('/repos/{owner}/{repo}/commits/{ref}/check-runs', 'get', 200, runs.data);
    expect(runs.data.total_count).toBe(1);
    expect(runs.data.check_runs[0]).toMatchObject({
      name: 'test',
      status: 'completed',
      conclusion: 'success',
      head_sha: head,
      app: { slug: 'github-actions' },
    });
    // GitHub does not link a check run to a pull request whose head is in a fork.
    expect(runs.data.check_runs[0]?.pull_requests).toEqual([]);
    const byRef = await octokit.rest.checks.listForRef({
      owner: repo.owner,
      repo: 'textkit',
      ref: `pull/${number}/head`,
      check_name: 'test',
      status: 'completed',
    });
    expect(byRef.data.check_runs.map((run) => run.id)).toEqual(runs.data.check_runs.map((run) => run.id));
    const onBase = await octokit.rest.checks.listForRef({ owner: repo.owner, repo: 'textkit', ref: 'main' });
    expect(onBase.data.total_count).toBe(0);

    // GitHub Actions reports check runs only: the legacy combined status has no contexts.
    const status = await octokit.rest.repos.getCombinedStatusForRef({ owner: repo.owner, repo: 'textkit', ref: head });
    conforms('/repos/{owner}/{repo}/commits/{ref}/status', 'get', 200, status.data);
    expect(status.data).toMatchObject({ state: 'pending', total_count: 0, statuses: [], sha: head });

    const unknown = await rejection(
      octokit.rest.checks.listForRef({ owner: repo.owner, repo: 'textkit', ref: 'no-such-branch' }),
    );
    expect([unknown.status, unknown.response.data]).toEqual([
      422,
      {
        message: 'No commit found for SHA: no-such-branch',
        documentation_url: 'https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference',
        status: '422',
      },
    ]);
  });

  it('answers invalid pull requests with GitHub 422 bodies', async () => {
    const { repo, fix } = fixFor(world, 'durafmt', 3);
    const clone = await cloneOver(`${sim.gitUrl}/${SOLVER_LOGIN}/durafmt.git`);
    await git(['checkout', '--quiet', '-b', fix.branch], { cwd: clone });
    await applyPatch(clone, fix.patch);
    await commitAndPush(world, clone, fix.branch, fix.commitMessage);
    const create = (fields: { title?: string; head: string; base: string }) =>
      rejection(octokit.rest.pulls.create({ owner: repo.owner, repo: 'durafmt', ...fields }));
    const documentation_url = 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request';
    const failed = (errors: unknown[]) => ({ message: 'Validation Failed', errors, documentation_url, status: '422' });

    const cases = [
      [
        { title: 'Fix', head: `${SOLVER_LOGIN}:no-such-branch`, base: 'main' },
        failed([{ resource: 'PullRequest', field: 'head', code: 'invalid' }]),
      ],
      [
        { title: 'Fix', head: 'main', base: 'main' },
        failed([{ resource: 'PullRequest', code: 'custom', message: 'No commits between main and main' }]),
      ],
      [
        { title: 'Fix', head: `${SOLVER_LOGIN}:main`, base: 'main' },
        failed([
          { resource: 'PullRequest', code: 'custom', message: `No commits between main and ${SOLVER_LOGIN}:main` },
        ]),
      ],
      [
        { head: `${SOLVER_LOGIN}:${fix.branch}`, base: 'main' },
        failed([{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]),
      ],
      [
        { title: 'Fix', head: `${SOLVER_LOGIN}:${fix.branch}`, base: 'develop' },
        failed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]),
      ],
    ] as const;
    for (const [fields, body] of cases) {
      const error = await create(fields);
      expect([error.status, error.response.data]).toEqual([422, body]);
      conforms('/repos/{owner}/{repo}/pulls', 'post', 422, error.response.data);
    }

    const opened = await octokit.rest.pulls.create({
      owner: repo.owner,
      repo: 'durafmt',
      title: fix.title,
      head: `${SOLVER_LOGIN}:${fix.branch}`,
      base: 'main',
    });
    const twice = await create({ title: fix.title, head: `${SOLVER_LOGIN}:${fix.branch}`, base: 'main' });
    expect(twice.response.data).toEqual(
      failed([
        {
          resource: 'PullRequest',
          code: 'custom',
          message: `A pull request already exists for ${SOLVER_LOGIN}:${fix.branch}.`,
        },
      ]),
    );
    const open = world
      .pulls(repo, { states: ['OPEN'] }, 0, 100)
      .items.filter((pull) => pull.headRefName === fix.branch);
    expect(open.map((pull) => pull.number)).toEqual([opened.data.number]);

    const raw = await fetch(`${sim.apiUrl}/repos/${repo.owner}/durafmt/pulls`, {
      method: 'POST',
      headers: { authorization: `token ${token}` },
      body: '{"title": ',
    });
    expect([raw.status, await raw.json()]).toEqual([
      400,
      { message: 'Problems parsing JSON', documentation_url, status: '400' },
    ]);
    const missing = await fetch(`${sim.apiUrl}/repos/${repo.owner}/durafmt/pulls`, {
      method: 'POST',
      headers: { authorization: `token ${token}` },
      body: '{"title": "x"}',
    });
    expect([missing.status, await missing.json()]).toEqual([
      422,
      { message: 'Invalid request.\n\n"head", "base" weren\'t supplied.', documentation_url, status: '422' },
    ]);
  });

  it('lists renamed and removed files, pages them, and caps the listing at 3,000 files and the diff at 300', async () => {
    const upstream = world.repoByName('hal-gopher', 'durafmt') as SimRepo;
    const clone = await cloneOver(`${sim.gitUrl}/${SOLVER_LOGIN}/durafmt.git`);
    await git(['checkout', '--quiet', '-b', 'reshape'], { cwd: clone });
    const tracked = (await git(['ls-files'], { cwd: clone })).stdout.trim().split('\n');
    const [moved = '', removed = ''] = tracked.filter((path) => path.endsWith('.go'));
    await git(['mv', moved, moved.replace(/\.go$/, '_moved.go')], { cwd: clone });
    await git(['rm', '--quiet', removed], { cwd: clone });
    await writeFile(join(clone, 'NOTES.md'), 'Reshaped.\n');
    await commitAndPush(world, clone, 'reshape', 'Reshape the tree');
    const reshaped = await octokit.rest.pulls.create({
      owner: upstream.owner,
      repo: 'durafmt',
      title: 'Reshape',
      head: `${SOLVER_LOGIN}:reshape`,
      base: 'main',
    });
    const files = await octokit.paginate(octokit.rest.pulls.listFiles, {
      owner: upstream.owner,
      repo: 'durafmt',
      pull_number: reshaped.data.number,
      per_page: 1,
    });
    conforms('/repos/{owner}/{repo}/pulls/{pull_number}/files', 'get', 200, files);
    const nameStatus = (await git(['diff', '--name-status', '-M', `${upstream.headOid}...HEAD`], { cwd: clone })).stdout
      .trim()
      .split('\n');
    const letter = { added: 'A', removed: 'D', modified: 'M', renamed: 'R100' } as Record<string, string>;
    expect(
      files.map((file) =>
        [letter[file.status], ...(file.previous_filename ? [file.previous_filename] : []), file.filename].join('\t'),
      ),
    ).toEqual(nameStatus);
    expect(files.find((file) => file.status === 'renamed')).not.toHaveProperty('patch');
    const diffText = (
      await octokit.rest.pulls.get({
        owner: upstream.owner,
        repo: 'durafmt',
        pull_number: reshaped.data.number,
        mediaType: { format: 'diff' },
      })
    ).data as unknown as string;
    await git(['apply', '--check', '-'], {
      cwd: await cloneOver(`${sim.gitUrl}/${upstream.owner}/durafmt.git`),
      input: diffText,
    });

    // 3,010 new files: the listing stops at 3,000, and the diff is too large to serve.
    await git(['checkout', '--quiet', '-b', 'many', 'origin/main'], { cwd: clone });
    await mkdir(join(clone, 'many'));
    await Promise.all(
      Array.from({ length: 3_010 }, (_, i) =>
        writeFile(join(clone, 'many', `f${String(i).padStart(4, '0')}.txt`), `${i}\n`),
      ),
    );
    await commitAndPush(world, clone, 'many', 'Many files');
    const many = await octokit.rest.pulls.create({
      owner: upstream.owner,
      repo: 'durafmt',
      title: 'Many',
      head: `${SOLVER_LOGIN}:many`,
      base: 'main',
    });
    expect(many.data.changed_files).toBe(3_010);
    const last = await octokit.rest.pulls.listFiles({
      owner: upstream.owner,
      repo: 'durafmt',
      pull_number: many.data.number,
      per_page: 100,
      page: 30,
    });
    expect(last.data.map((file) => file.filename).at(-1)).toBe('many/f2999.txt');
    expect(last.headers.link).not.toContain('rel="next"');
    const beyond = await octokit.rest.pulls.listFiles({
      owner: upstream.owner,
      repo: 'durafmt',
      pull_number: many.data.number,
      per_page: 100,
      page: 31,
    });
    expect(beyond.data).toEqual([]);
    const tooLarge = await rejection(
      octokit.rest.pulls.get({
        owner: upstream.owner,
        repo: 'durafmt',
        pull_number: many.data.number,
        mediaType: { format: 'diff' },
      }),
    );
    expect(tooLarge.status).toBe(406);
    expect(tooLarge.response.data).toMatchObject({
      message: expect.stringContaining('maximum number of files (300)') as unknown,
      errors: [{ resource: 'PullRequest', field: 'diff', code: 'too_large' }],
    });
  });
});

describe('REST writes against the secondary limits and a read-only world', () => {
  it('counts a pull request against content creation, and a write as 5 points', async () => {
    const world = await createLiveWorld({ seed: 7, dir: join(root, 'limits') });
    const tokens = new Set(['content-token', 'points-token']);
    const sim = await startSimulator({
      world,
      gitRoot: world.gitRoot,
      canPush: world.canPush,
      tokens,
      secondaryLimits: { contentPerMinute: 1, pointsPerMinute: 10 },
    });
    try {
      const { owner } = fixFor(world, 'textkit', 3).repo;
      const same = { owner, repo: 'textkit', title: 'x', head: 'main', base: 'main' };
      const contentEvents: string[] = [];
      const content = client(sim.apiUrl, contentEvents, 'content-token');
      // A refused pull request is content creation all the same.
      expect((await rejection(content.rest.pulls.create(same))).status).toBe(422);
      const blocked = await rejection(content.rest.pulls.create(same));
      expect(blocked.status).toBe(403);
      expect(blocked.response.data).toMatchObject({
        message: expect.stringContaining('temporarily blocked from content creation') as unknown,
      });
      expect(blocked.response.headers['retry-after']).toMatch(/^\d+$/);
      expect(contentEvents).toEqual(['secondary POST']);

      // A read (1 point) and a write (5) leave 4 of a 10-point budget: too few for a second write.
      const pointEvents: string[] = [];
      const points = client(sim.apiUrl, pointEvents, 'points-token');
      await points.rest.repos.get({ owner, repo: 'textkit' });
      expect((await rejection(points.rest.pulls.create(same))).status).toBe(422);
      const spent = await rejection(points.rest.pulls.create(same));
      expect(spent.status).toBe(403);
      expect(spent.response.data).toMatchObject({
        message: expect.stringMatching(/^You have exceeded a secondary rate limit\. Please wait/) as unknown,
      });
      expect(pointEvents).toEqual(['secondary POST']);
    } finally {
      await sim.close();
    }
  });

  it('refuses to create a pull request in a scale world as GitHub refuses a token without write access', async () => {
    const world = createScaleWorld({ seed: 3, repos: 20, issues: 200 });
    const sim = await startSimulator({ world, tokens: new Set([token]) });
    try {
      const octokit = client(sim.apiUrl);
      const repo = world.repoAt(0) as SimRepo;
      const refused = await rejection(
        octokit.rest.pulls.create({
          owner: repo.owner,
          repo: repo.name,
          title: 'Fix',
          head: 'fix',
          base: repo.defaultBranch,
        }),
      );
      expect([refused.status, refused.response.data]).toEqual([
        403,
        {
          message: 'Resource not accessible by integration',
          documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
          status: '403',
        },
      ]);
      conforms('/repos/{owner}/{repo}/pulls', 'post', 403, refused.response.data);
      const missing = await rejection(
        octokit.rest.pulls.create({ owner: repo.owner, repo: 'no-such-repo', title: 'Fix', head: 'fix', base: 'main' }),
      );
      expect(missing.status).toBe(404);
    } finally {
      await sim.close();
    }
  });
});
