// Building a live world: each repository spec and the seed become a plan (pure: timeline, authors,
// the fast-import stream, the issue and pull request records), then the plan is applied (git:
// import into a scratch repository, derive the known fixes' patches there, and fetch only the
// default branch and the merged pull request's head into `<dir>/<owner>/<name>.git`, so no fix
// object ever reaches an upstream repository). The solver's fork is a second bare repository; it
// carries the known fixes as `fix/<issue>` branches only when the world is built for a solver.

import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimComment, SimIssue, SimPull, SimRepo, SimUser } from '../model.js';
import { hash3, hash4, Rng } from '../random.js';
import { isoSeconds } from '../scale.js';
import type { GitIdentity } from './git.js';
import { FastImport, git, GITHUB_COMMITTER, numstat, parseMarks, userIdentity } from './git.js';
import { CONTRIBUTORS, LIVE_REPO_SPECS, SOLVER_LOGIN } from './repos/catalog.js';
import type { LiveRunnerId } from './runners.js';
import { LIVE_RUNNERS } from './runners.js';
import type { FileTree, LiveRepoSpec } from './spec.js';
import { applyEdits } from './spec.js';

const DAY = 86_400;
const HOUR = 3_600;
// Streams keep independent facts on independent draws.
const Stream = { Time: 201, Contributors: 202, Stars: 203, Comments: 204 } as const;
const USER_ID_BASE = 8_100_000;

/** A fix known to resolve an issue, as the reference solver applies it. */
export interface KnownFix {
  /** `owner/name` of the upstream repository. */
  repo: string;
  issue: number;
  branch: string;
  title: string;
  body: string;
  commitMessage: string;
  /** The upstream default-branch commit the patch was made against. */
  baseOid: string;
  /** `git diff` output; applies with `git apply` at `baseOid`. */
  patch: string;
  /** Paths of the patch that are tests (the runner's split rule); the rest is the code part. */
  testFiles: string[];
  failToPass: string[];
  /** Tests the fix turns from passing to failing; non-empty means the pull request's CI goes red. */
  breaks: string[];
  /** Issues of the same repository whose known fixes conflict with this one once either is merged. */
  conflictsWith: number[];
}

export interface FlakyTest {
  repo: string;
  test: string;
  env: string;
  passingValue: string;
  failingValue: string;
  why: string;
}

/** Where an open pull request's head lives, so a push there can move it. */
export interface PullHead {
  repoId: number;
  number: number;
  /** The repository the head branch is in, or null for history pull requests from forks outside the world. */
  sourceRepoId: number | null;
  branch: string;
}

export interface BuiltRepo {
  repo: SimRepo;
  fork: SimRepo;
  runner: LiveRunnerId;
  /** The spec's install step, run before the suite with the network; null when the toolchain is enough. */
  install: string | null;
  upstreamPath: string;
  forkPath: string;
  issues: SimIssue[];
  pulls: SimPull[];
  comments: SimComment[];
  heads: PullHead[];
  fixes: KnownFix[];
  flaky: FlakyTest[];
}

export interface BuiltWorld {
  users: SimUser[];
  repos: BuiltRepo[];
}

export interface BuildInput {
  /** The world seed folded to 32 bits. */
  seed32: number;
  /** The world clock, seconds since the epoch. */
  now: number;
  dir: string;
  /** Push each known fix to the solver's fork as `fix/<issue>` (see LiveWorldOptions.solverFixBranches). */
  solverFixBranches?: boolean;
}

/** The branch of the solver's fork that carries the known fix of `issue` in a world built with solverFixBranches. */
export function solverFixBranch(issue: number): string {
  return `fix/${issue}`;
}

/**
 * The fix commit's message: the pull request title it proposes, then its description (which names the issue with
 * "Fixes #n"), as a contributor writes a commit that a pull request is opened from.
 */
function fixCommitMessage(fix: { title: string; body: string }): string {
  return `${fix.title}\n\n${fix.body.trim()}\n`;
}

/** Users in a fixed order with fixed ids: maintainers, contributors, the solver. */
function worldUsers(): SimUser[] {
  const maintained = new Map<string, number[]>();
  LIVE_REPO_SPECS.forEach((spec, index) => {
    for (const login of spec.maintainers) maintained.set(login, [...(maintained.get(login) ?? []), index + 1]);
  });
  // The solver owns the forks, whose ids follow the upstream repositories'.
  maintained.set(
    SOLVER_LOGIN,
    LIVE_REPO_SPECS.map((_, index) => LIVE_REPO_SPECS.length + index + 1),
  );
  const logins = [...maintained.keys()].filter((login) => login !== SOLVER_LOGIN);
  return [...logins, ...CONTRIBUTORS, SOLVER_LOGIN].map((login, index): SimUser => ({
    id: USER_ID_BASE + index,
    login,
    type: 'User',
    maintainerOf: maintained.get(login) ?? [],
  }));
}

// ---- planning (pure) ------------------------------------------------------------------------

interface RepoPlan {
  spec: LiveRepoSpec;
  index: number;
  id: number;
  forkId: number;
  owner: string;
  stars: number;
  stream: string;
  mainMark: number;
  firstCommitAt: number;
  lastCommitAt: number;
  /** The history pull request's base, head and merge commits (marks), with its record minus oids. */
  merged: { number: number; baseMark: number; headMark: number; mergeMark: number; record: SimPull }[];
  fixMarks: Map<number, number>;
  finalTree: FileTree;
  issues: SimIssue[];
  comments: SimComment[];
}

function planRepo(
  spec: LiveRepoSpec,
  index: number,
  input: BuildInput,
  identities: (login: string) => GitIdentity,
): RepoPlan {
  const { seed32, now } = input;
  const id = index + 1;
  const owner = spec.maintainers[0] ?? 'ghost';
  // Every event sits on its spec day plus up to 12 hours, so distinct days never swap order.
  const at = (day: number): number => now - day * DAY + (hash4(seed32, Stream.Time, index, day) % (12 * HOUR));
  const picks = [...CONTRIBUTORS];
  const shuffle = new Rng(hash3(seed32, Stream.Contributors, index));
  for (let i = picks.length - 1; i > 0; i--) {
    const j = shuffle.int(i + 1);
    [picks[i], picks[j]] = [picks[j] ?? '', picks[i] ?? ''];
  }
  const login = (name: string): string => {
    const placeholder = /^\{c(\d)\}$/.exec(name);
    return placeholder ? (picks[Number(placeholder[1])] ?? 'ghost') : name;
  };

  const stream = new FastImport();
  let tree: FileTree = new Map();
  let mainMark: number | null = null;
  let firstCommitAt = 0;
  let lastCommitAt = 0;
  const merged: RepoPlan['merged'] = [];
  const closedAt = new Map<number, { at: number }>();
  for (const step of spec.history) {
    if (step.type === 'commit') {
      const when = at(step.day);
      tree = applyEdits(tree, step.commit.edits);
      const author = identities(login(step.commit.author));
      mainMark = stream.commit({
        ref: 'refs/heads/main',
        from: mainMark,
        author,
        authorAt: when,
        committer: author,
        committerAt: when,
        message: `${step.commit.message}\n`,
        files: tree,
      });
      if (firstCommitAt === 0) firstCommitAt = when;
      lastCommitAt = when;
      continue;
    }
    if (mainMark === null) throw new RangeError(`${spec.name}: a merged pull request needs a commit before it`);
    const openedAt = at(step.openedDay);
    const mergedAt = at(step.mergedDay);
    const baseMark = mainMark;
    let branchTree = tree;
    let headMark = baseMark;
    step.commits.forEach((commit, k) => {
      branchTree = applyEdits(branchTree, commit.edits);
      const author = identities(login(commit.author));
      const when = openedAt - (step.commits.length - k) * 600;
      headMark = stream.commit({
        ref: `refs/heads/pull/${step.number}`,
        from: headMark,
        author,
        authorAt: when,
        committer: author,
        committerAt: when,
        message: `${commit.message}\n`,
        files: branchTree,
      });
    });
    // The default branch did not move since the branch point, so the merge's tree is the branch's.
    tree = branchTree;
    const authorLogin = login(step.author);
    const mergedBy = login(step.mergedBy);
    mainMark = stream.commit({
      ref: 'refs/heads/main',
      from: mainMark,
      merge: headMark,
      author: identities(mergedBy),
      authorAt: mergedAt,
      committer: GITHUB_COMMITTER,
      committerAt: mergedAt,
      message: `Merge pull request #${step.number} from ${authorLogin}/${step.branch}\n\n${step.title}\n`,
      files: tree,
    });
    lastCommitAt = mergedAt;
    const closes = [...step.body.matchAll(/\bFixes #(\d+)/g)].map((match) => Number(match[1]));
    for (const number of closes) closedAt.set(number, { at: mergedAt });
    merged.push({
      number: step.number,
      baseMark,
      headMark,
      mergeMark: mainMark,
      record: {
        repoId: id,
        number: step.number,
        title: step.title,
        body: step.body,
        state: 'MERGED',
        authorLogin,
        createdAt: isoSeconds(openedAt),
        updatedAt: isoSeconds(mergedAt),
        closedAt: isoSeconds(mergedAt),
        mergedAt: isoSeconds(mergedAt),
        mergedByLogin: mergedBy,
        baseRefName: 'main',
        baseRefOid: '',
        headRefName: step.branch,
        headRefOid: '',
        mergeCommitOid: '',
        additions: 0,
        deletions: 0,
        changedFiles: 0,
        checks: null,
        closesIssues: closes,
      },
    });
  }
  if (mainMark === null) throw new RangeError(`${spec.name}: the history has no commit`);

  const fixMarks = new Map<number, number>();
  for (const issue of spec.issues) {
    if (!issue.fix) continue;
    const solver = identities(SOLVER_LOGIN);
    fixMarks.set(
      issue.number,
      stream.commit({
        ref: `refs/heads/${solverFixBranch(issue.number)}`,
        from: mainMark,
        author: solver,
        authorAt: now,
        committer: solver,
        committerAt: now,
        message: fixCommitMessage(issue.fix),
        files: applyEdits(tree, issue.fix.edits),
      }),
    );
  }

  const issues: SimIssue[] = [];
  const comments: SimComment[] = [];
  for (const issue of spec.issues) {
    const openedAt = at(issue.openedDay);
    const rng = new Rng(hash4(seed32, Stream.Comments, index, issue.number));
    let last = openedAt;
    issue.comments.forEach((comment, k) => {
      last = Math.min(now - 60, last + HOUR + rng.int(20 * HOUR));
      comments.push({
        id: id * 10_000_000_000 + issue.number * 1_000 + k,
        repoId: id,
        issueNumber: issue.number,
        authorLogin: login(comment.author),
        body: comment.body,
        createdAt: isoSeconds(last),
        updatedAt: isoSeconds(last),
      });
    });
    const closed = issue.closedByPull !== undefined ? closedAt.get(issue.number) : undefined;
    if (issue.closedByPull !== undefined && closed === undefined)
      throw new RangeError(
        `${spec.name}#${issue.number}: pull #${issue.closedByPull} does not say "Fixes #${issue.number}"`,
      );
    issues.push({
      repoId: id,
      number: issue.number,
      title: issue.title,
      body: issue.body,
      state: closed ? 'CLOSED' : 'OPEN',
      stateReason: closed ? 'COMPLETED' : null,
      labels: [...issue.labels],
      authorLogin: login(issue.author),
      createdAt: isoSeconds(openedAt),
      updatedAt: isoSeconds(Math.max(last, closed?.at ?? 0)),
      closedAt: closed ? isoSeconds(closed.at) : null,
      commentCount: issue.comments.length,
      kind: issue.kind,
    });
  }
  const stars = Math.round(spec.stars * (0.8 + 0.4 * new Rng(hash3(seed32, Stream.Stars, index)).float()));
  return {
    spec,
    index,
    id,
    forkId: LIVE_REPO_SPECS.length + index + 1,
    owner,
    stars,
    stream: stream.stream(),
    mainMark,
    firstCommitAt,
    lastCommitAt,
    merged,
    fixMarks,
    finalTree: tree,
    issues,
    comments,
  };
}

// ---- applying (git) -------------------------------------------------------------------------

async function applyRepo(plan: RepoPlan, input: BuildInput): Promise<BuiltRepo> {
  const { spec } = plan;
  const scratch = await mkdtemp(join(tmpdir(), 'abp-live-'));
  try {
    await git(['init', '--quiet', '--bare', '--initial-branch=main', scratch], { cwd: scratch });
    const marksFile = join(scratch, 'abp-marks');
    await git(['fast-import', '--quiet', `--export-marks=${marksFile}`], { cwd: scratch, input: plan.stream });
    const marks = parseMarks(await readFile(marksFile, 'utf8'));
    const oid = (mark: number): string => {
      const found = marks.get(mark);
      if (found === undefined) throw new RangeError(`${spec.name}: fast-import did not report mark :${mark}`);
      return found;
    };
    const headOid = oid(plan.mainMark);

    const pulls: SimPull[] = [];
    for (const merged of plan.merged) {
      const size = numstat(
        (await git(['diff', '--numstat', oid(merged.baseMark), oid(merged.headMark)], { cwd: scratch })).stdout,
      );
      pulls.push({
        ...merged.record,
        ...size,
        baseRefOid: oid(merged.baseMark),
        headRefOid: oid(merged.headMark),
        mergeCommitOid: oid(merged.mergeMark),
      });
    }

    const fullName = `${plan.owner}/${spec.name}`;
    const runner = LIVE_RUNNERS[spec.runner];
    const fixes: KnownFix[] = [];
    for (const issue of spec.issues) {
      const mark = plan.fixMarks.get(issue.number);
      if (!issue.fix || mark === undefined) continue;
      const patch = (await git(['diff', '--no-color', '--no-ext-diff', headOid, oid(mark)], { cwd: scratch })).stdout;
      const paths = (await git(['diff', '--name-only', headOid, oid(mark)], { cwd: scratch })).stdout
        .split('\n')
        .filter(Boolean);
      fixes.push({
        repo: fullName,
        issue: issue.number,
        branch: issue.fix.branch,
        title: issue.fix.title,
        body: issue.fix.body,
        commitMessage: issue.fix.commitMessage,
        baseOid: headOid,
        patch,
        testFiles: paths.filter((path) => runner.isTestPath(path)),
        failToPass: [...issue.fix.failToPass],
        breaks: [...issue.fix.breaks],
        conflictsWith: [],
      });
    }
    // Two fixes conflict when git cannot merge one on top of the other.
    for (const fix of fixes) {
      for (const other of fixes) {
        if (other.issue <= fix.issue) continue;
        const merge = await git(
          [
            'merge-tree',
            '--write-tree',
            '--no-messages',
            oid(plan.fixMarks.get(fix.issue) ?? 0),
            oid(plan.fixMarks.get(other.issue) ?? 0),
          ],
          { cwd: scratch, allowExit: [1] },
        );
        if (merge.exitCode === 1) {
          fix.conflictsWith.push(other.issue);
          other.conflictsWith.push(fix.issue);
        }
      }
    }

    const upstreamPath = join(input.dir, plan.owner, `${spec.name}.git`);
    const forkPath = join(input.dir, SOLVER_LOGIN, `${spec.name}.git`);
    await mkdir(join(input.dir, plan.owner), { recursive: true });
    await mkdir(join(input.dir, SOLVER_LOGIN), { recursive: true });
    await git(['init', '--quiet', '--bare', '--initial-branch=main', upstreamPath], { cwd: input.dir });
    const pullRefs = plan.merged.map((merged) => `refs/heads/pull/${merged.number}:refs/pull/${merged.number}/head`);
    await git(['fetch', '--quiet', '--no-tags', scratch, 'refs/heads/main:refs/heads/main', ...pullRefs], {
      cwd: upstreamPath,
    });
    await git(['init', '--quiet', '--bare', '--initial-branch=main', forkPath], { cwd: input.dir });
    await git(['fetch', '--quiet', '--no-tags', upstreamPath, 'refs/heads/main:refs/heads/main'], { cwd: forkPath });
    if (input.solverFixBranches) {
      // As if the solver had pushed its fixes: one branch per known fix, made on the default branch's head.
      const branches = [...plan.fixMarks.keys()].map(
        (issue) => `refs/heads/${solverFixBranch(issue)}:refs/heads/${solverFixBranch(issue)}`,
      );
      if (branches.length > 0) await git(['fetch', '--quiet', '--no-tags', scratch, ...branches], { cwd: forkPath });
    }

    const files = [...plan.finalTree]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([path, content]) => ({ path, content }));
    const lastActivity = Math.max(plan.lastCommitAt, ...plan.issues.map((issue) => Date.parse(issue.updatedAt) / 1000));
    const openIssueCount = plan.issues.filter((issue) => issue.state === 'OPEN').length;
    const lastMerged =
      pulls
        .map((pull) => pull.mergedAt ?? '')
        .sort()
        .pop() ?? '';
    const repo: SimRepo = {
      id: plan.id,
      owner: plan.owner,
      name: spec.name,
      description: spec.description,
      stargazerCount: plan.stars,
      forkCount: 1,
      primaryLanguage: spec.language,
      licenseSpdxId: spec.licenseSpdxId,
      isArchived: false,
      isFork: false,
      mirrorUrl: null,
      createdAt: isoSeconds(plan.firstCommitAt - HOUR),
      updatedAt: isoSeconds(lastActivity),
      pushedAt: isoSeconds(plan.lastCommitAt),
      defaultBranch: 'main',
      headOid,
      labels: spec.labels.map((label) => ({ ...label })),
      files,
      openIssueCount,
      closedIssueCount: plan.issues.length - openIssueCount,
      pullRequestCount: pulls.length,
      lastMergedPullAt: lastMerged === '' ? null : lastMerged,
    };
    // The solver forked every repository an hour before the world's clock.
    const forkedAt = isoSeconds(input.now - HOUR);
    const fork: SimRepo = {
      ...repo,
      id: plan.forkId,
      owner: SOLVER_LOGIN,
      description: spec.description,
      stargazerCount: 0,
      forkCount: 0,
      isFork: true,
      createdAt: forkedAt,
      updatedAt: forkedAt,
      pushedAt: repo.pushedAt,
      labels: [],
      files: files.map((file) => ({ ...file })),
      openIssueCount: 0,
      closedIssueCount: 0,
      pullRequestCount: 0,
      lastMergedPullAt: null,
    };
    return {
      repo,
      fork,
      runner: spec.runner,
      install: spec.install ?? null,
      upstreamPath,
      forkPath,
      issues: plan.issues,
      pulls,
      comments: plan.comments,
      heads: pulls.map((pull) => ({
        repoId: plan.id,
        number: pull.number,
        sourceRepoId: null,
        branch: pull.headRefName,
      })),
      fixes,
      flaky: spec.flaky.map((flaky) => ({ repo: fullName, ...flaky })),
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export async function buildLiveRepos(input: BuildInput): Promise<BuiltWorld> {
  const users = worldUsers();
  const byLogin = new Map(users.map((user) => [user.login, user]));
  const identities = (login: string): GitIdentity => userIdentity(login, byLogin.get(login)?.id ?? 0);
  const plans = LIVE_REPO_SPECS.map((spec, index) => planRepo(spec, index, input, identities));
  const repos = await Promise.all(plans.map((plan) => applyRepo(plan, input)));
  return { users, repos };
}
