// Live worlds: a handful of small repositories with real git history in four ecosystems, their
// solver forks, and mutable issues and pull requests. Reads follow the scale world's semantics
// (orders, filters, numbers shared by issues and pull requests); writes change real bare
// repositories (pull request heads fetched as refs/pull/<n>/head, merges as real merge commits)
// and are recorded as WorldEvents, in order, with times from an injected clock.

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readdir, mkdir } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import type {
  CheckConclusion,
  IssueQuery,
  Page,
  PullQuery,
  RepoSearch,
  SimComment,
  SimIssue,
  SimPull,
  SimRepo,
  SimUser,
  WorldEvent,
  WorldReader,
  WorldWriter,
} from '../model.js';
import { mix32 } from '../random.js';
import { DEFAULT_GENERATED_AT, isoSeconds } from '../scale.js';
import type { BuiltWorld, FlakyTest, KnownFix, PullHead } from './build.js';
import { buildLiveRepos } from './build.js';
import { GITHUB_COMMITTER, gitSync, isSafeBranchName, numstat, readTreeSync, userIdentity } from './git.js';
import type { LiveRunnerId } from './runners.js';
import { AbpError } from '@abp/protocol/errors';

export type { FlakyTest, KnownFix } from './build.js';
export { solverFixBranch } from './build.js';
export { SOLVER_LOGIN } from './repos/catalog.js';

export interface LiveWorldOptions {
  seed: number;
  /** An empty (or missing) folder; bare repositories are written to `<dir>/<owner>/<name>.git`. */
  dir: string;
  /** The world's clock at generation; history lies before it. Default: 2026-11-01T00:00:00Z. */
  generatedAt?: string;
  /** Milliseconds since the epoch for writes; default: generatedAt plus one minute per reading. */
  now?: () => number;
  /**
   * Give the solver's forks a `fix/<issue>` branch per known fix, as if a solver had pushed them: what the reference
   * solver (solver/) looks for. Off by default, so the forks start as bare copies of upstream and tests push their own.
   */
  solverFixBranches?: boolean;
  /**
   * Save the world's state beside its repositories (SAVED_STATE_FILE) after every change, so `resumeLiveWorld` takes
   * it up again after a restart: pull requests opened, checked and merged stay, as they do on GitHub.
   */
  keepState?: boolean;
}

/** Where a kept live world saves its issues, pull requests and clock, in its folder. */
export const SAVED_STATE_FILE = 'world-state.json';
const SAVED_FORMAT = 'abp-sim-live-world/1';

/** A kept world's state file: what it was built as, and its data now, with repository paths relative to its folder. */
interface SavedLiveWorld {
  format: typeof SAVED_FORMAT;
  seed: number;
  generatedAt: string;
  /** The clock's last reading: a resumed world's times go on from there. */
  clockMs: number;
  world: BuiltWorld;
}

/** `YYYY-MM-DD`: the day a served small world's clock starts, 00:00 UTC. */
const WORLD_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The generation time of a live world dated `date` (`YYYY-MM-DD`): 00:00 UTC that day. The same day gives the same
 * repositories and commits; a world dated today keeps its history (merges up to 30 days back) recent to the registry.
 */
export function worldDateClock(date: string): string {
  const match = WORLD_DATE.exec(date);
  const at = `${date}T00:00:00Z`;
  if (!match || Number.isNaN(Date.parse(at)) || new Date(at).toISOString().slice(0, 10) !== date) {
    throw new LiveWorldError(
      'bad-option',
      `world date ${JSON.stringify(date)} is not a calendar day: write it as YYYY-MM-DD, e.g. 2026-11-01`,
    );
  }
  return at;
}

/** Today's date in UTC (`YYYY-MM-DD`), the default date of a served small world. */
export function utcDate(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export type LiveWorldErrorCode =
  | 'bad-option'
  | 'dir-not-empty'
  | 'not-found'
  | 'base-not-found'
  | 'head-not-found'
  | 'pull-exists'
  | 'no-commits'
  | 'not-open'
  | 'merge-conflict'
  | 'saved-state-invalid';

export class LiveWorldError extends AbpError<LiveWorldErrorCode> {}

/** The data a live world is made of, without its folder: equal for equal seeds. */
export interface LiveWorldSnapshot {
  seed: number;
  kind: 'live';
  generatedAt: string;
  repos: SimRepo[];
  users: SimUser[];
  issues: SimIssue[];
  pulls: SimPull[];
  comments: SimComment[];
  runners: Record<string, LiveRunnerId>;
  knownFixes: KnownFix[];
  flakyTests: FlakyTest[];
}

const CLOSING_KEYWORDS = /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+#(\d+)\b/gi;

function checkPage(offset: number, limit: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`offset and limit must be non-negative integers, got ${offset} and ${limit}`);
  }
}

function parseSeconds(value: string, what: string): number {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms))
    throw new LiveWorldError(
      'bad-option',
      `${what} is not a timestamp: ${JSON.stringify(value)} (expected e.g. '2026-11-01T00:00:00Z')`,
    );
  return Math.floor(ms / 1000);
}

/** Orders by a primary key, ties by number, both in the query's direction (the scale world's rule). */
function ordered<T extends { number: number }>(items: T[], key: (item: T) => number, direction: 'ASC' | 'DESC'): T[] {
  const sign = direction === 'DESC' ? -1 : 1;
  return items.sort((a, b) => sign * (key(a) - key(b) || a.number - b.number));
}

const keyOf = (repoId: number, number: number) => `${repoId}#${number}`;

export class LiveWorld implements WorldReader, WorldWriter {
  readonly kind = 'live' as const;
  readonly seed: number;
  readonly generatedAt: string;
  /** The folder served as git's project root: `startSimulator({ gitRoot: world.gitRoot })`. */
  readonly gitRoot: string;
  private readonly repos: SimRepo[] = [];
  private readonly reposById = new Map<number, SimRepo>();
  private readonly reposByName = new Map<string, SimRepo>();
  private readonly paths = new Map<number, string>();
  private readonly runners = new Map<number, LiveRunnerId>();
  private readonly installs = new Map<number, string>();
  private readonly upstreamOf = new Map<number, number>();
  private readonly users: SimUser[];
  private readonly usersByLogin = new Map<string, SimUser>();
  private readonly usersById = new Map<number, SimUser>();
  private readonly issuesOf = new Map<number, SimIssue[]>();
  private readonly pullsOf = new Map<number, SimPull[]>();
  private readonly commentsOf = new Map<string, SimComment[]>();
  private readonly heads = new Map<string, PullHead>();
  private readonly fixes: KnownFix[];
  private readonly flaky: FlakyTest[];
  private readonly listeners = new Set<(event: WorldEvent) => void>();
  private readonly log: WorldEvent[] = [];
  private readonly clock: () => number;
  private lastClockMs: number;
  private readonly saveTo: string | null;

  constructor(input: {
    seed: number;
    generatedAt: string;
    dir: string;
    now: () => number;
    built: BuiltWorld;
    /** The state file to keep current, or null for a world that lives only in memory. */
    saveTo: string | null;
  }) {
    this.seed = input.seed;
    this.generatedAt = input.generatedAt;
    this.gitRoot = input.dir;
    this.clock = input.now;
    this.lastClockMs = Date.parse(input.generatedAt);
    this.saveTo = input.saveTo;
    this.users = input.built.users;
    for (const user of this.users) {
      this.usersByLogin.set(user.login.toLowerCase(), user);
      this.usersById.set(user.id, user);
    }
    const built = input.built.repos;
    // Upstream repositories first, then forks: ids are dense and in that order.
    for (const entry of [
      ...built.map((b) => ({ repo: b.repo, path: b.upstreamPath, b })),
      ...built.map((b) => ({ repo: b.fork, path: b.forkPath, b })),
    ]) {
      this.repos.push(entry.repo);
      this.reposById.set(entry.repo.id, entry.repo);
      this.reposByName.set(`${entry.repo.owner}/${entry.repo.name}`.toLowerCase(), entry.repo);
      this.paths.set(entry.repo.id, entry.path);
      this.runners.set(entry.repo.id, entry.b.runner);
      if (entry.b.install !== null) this.installs.set(entry.repo.id, entry.b.install);
      this.issuesOf.set(entry.repo.id, []);
      this.pullsOf.set(entry.repo.id, []);
    }
    this.repos.sort((a, b) => a.id - b.id);
    for (const b of built) {
      this.upstreamOf.set(b.fork.id, b.repo.id);
      this.issuesOf.set(b.repo.id, [...b.issues]);
      this.pullsOf.set(b.repo.id, [...b.pulls]);
      for (const comment of b.comments) {
        const key = keyOf(comment.repoId, comment.issueNumber);
        this.commentsOf.set(key, [...(this.commentsOf.get(key) ?? []), comment]);
      }
      for (const head of b.heads) this.heads.set(keyOf(head.repoId, head.number), head);
    }
    this.fixes = built.flatMap((b) => b.fixes);
    this.flaky = built.flatMap((b) => b.flaky);
  }

  // ---- extras beyond WorldReader --------------------------------------------------------------

  /** The git server's push rule: the solver's forks take pushes, upstream repositories do not. */
  readonly canPush = (owner: string, name: string): boolean => this.repoByName(owner, name)?.isFork === true;

  /** The bare repository of a world repository. */
  gitPathOf(repo: Pick<SimRepo, 'id'>): string {
    const path = this.paths.get(repo.id);
    if (path === undefined) throw new LiveWorldError('not-found', `repository ${repo.id} is not in this world`);
    return path;
  }

  runnerOf(repo: Pick<SimRepo, 'id'>): LiveRunnerId | undefined {
    return this.runners.get(repo.id);
  }

  /** What CI runs before the suite (with the network), or undefined for a repository that needs only its toolchain. */
  installOf(repo: Pick<SimRepo, 'id'>): string | undefined {
    return this.installs.get(repo.id);
  }

  /** The upstream repository of a fork, or undefined for an upstream repository. */
  parentOf(repo: Pick<SimRepo, 'id'>): SimRepo | undefined {
    const id = this.upstreamOf.get(repo.id);
    return id === undefined ? undefined : this.repoById(id);
  }

  /** The repository and branch a pull request's head comes from (GitHub's `head.repo`); null repo for forks outside the world. */
  headOf(repo: SimRepo, number: number): { repo: SimRepo | null; branch: string } | undefined {
    const head = this.heads.get(keyOf(repo.id, number));
    if (head === undefined) return undefined;
    return {
      repo: head.sourceRepoId === null ? null : (this.repoById(head.sourceRepoId) ?? null),
      branch: head.branch,
    };
  }

  knownFixes(): readonly KnownFix[] {
    return this.fixes;
  }

  flakyTests(): readonly FlakyTest[] {
    return this.flaky;
  }

  /** Every event so far, in order. */
  eventLog(): readonly WorldEvent[] {
    return this.log;
  }

  /** A deep copy of the world's data (no folder paths), e.g. for `JSON.stringify(world)`. */
  toJSON(): LiveWorldSnapshot {
    const all = <T>(of: Map<number, T[]>) => this.repos.flatMap((repo) => of.get(repo.id) ?? []);
    return structuredClone({
      seed: this.seed,
      kind: this.kind,
      generatedAt: this.generatedAt,
      repos: this.repos,
      users: this.users,
      issues: all(this.issuesOf),
      pulls: all(this.pullsOf),
      comments: [...this.commentsOf.values()].flat().sort((a, b) => a.id - b.id),
      runners: Object.fromEntries(
        this.repos
          .filter((repo) => !repo.isFork)
          .map((repo) => [`${repo.owner}/${repo.name}`, this.runners.get(repo.id) as LiveRunnerId]),
      ),
      knownFixes: this.fixes,
      flakyTests: this.flaky,
    });
  }

  // ---- WorldReader ----------------------------------------------------------------------------

  repoCount(): number {
    return this.repos.length;
  }

  repoAt(index: number): SimRepo | undefined {
    const repo = this.repos[index];
    return repo && { ...repo };
  }

  repoById(id: number): SimRepo | undefined {
    const repo = this.reposById.get(id);
    return repo && { ...repo };
  }

  repoByName(owner: string, name: string): SimRepo | undefined {
    const repo = this.reposByName.get(`${owner}/${name}`.toLowerCase());
    return repo && { ...repo };
  }

  searchRepos(query: RepoSearch, offset: number, limit: number): Page<SimRepo> {
    checkPage(offset, limit);
    const language = query.language?.toLowerCase();
    const sign = query.direction === 'asc' ? 1 : -1;
    const key = (repo: SimRepo): number => (query.sort === 'stars' ? repo.stargazerCount : Date.parse(repo.updatedAt));
    const matches = this.repos
      .filter((repo) => {
        if (query.minStars !== undefined && repo.stargazerCount < query.minStars) return false;
        if (query.maxStars !== undefined && repo.stargazerCount > query.maxStars) return false;
        if (language !== undefined && repo.primaryLanguage?.toLowerCase() !== language) return false;
        if (repo.isArchived && query.includeArchived === false) return false;
        return !repo.isFork || query.includeForks === true;
      })
      .sort((a, b) => sign * (key(a) - key(b) || a.id - b.id));
    return { total: matches.length, items: matches.slice(offset, offset + limit).map((repo) => ({ ...repo })) };
  }

  issues(repo: SimRepo, query: IssueQuery, offset: number, limit: number): Page<SimIssue> {
    checkPage(offset, limit);
    const states = query.states ?? [];
    const wanted = new Set((query.labels ?? []).map((name) => name.toLowerCase()));
    const since = query.since === undefined ? null : parseSeconds(query.since, 'since') * 1000;
    const matching = (this.issuesOf.get(repo.id) ?? []).filter(
      (issue) =>
        (states.length === 0 || states.includes(issue.state)) &&
        (wanted.size === 0 || issue.labels.some((name) => wanted.has(name.toLowerCase()))) &&
        (since === null || Date.parse(issue.updatedAt) >= since),
    );
    const field = query.orderBy?.field;
    const key = (issue: SimIssue): number =>
      field === 'UPDATED_AT' ? Date.parse(issue.updatedAt) : field === 'COMMENTS' ? issue.commentCount : 0;
    const sorted = ordered(matching, key, query.orderBy?.direction ?? 'ASC');
    return { total: sorted.length, items: sorted.slice(offset, offset + limit).map((issue) => ({ ...issue })) };
  }

  issue(repo: SimRepo, number: number): SimIssue | undefined {
    const found = this.issuesOf.get(repo.id)?.find((issue) => issue.number === number);
    return found && { ...found };
  }

  pulls(repo: SimRepo, query: PullQuery, offset: number, limit: number): Page<SimPull> {
    checkPage(offset, limit);
    const states = query.states ?? [];
    const matching = (this.pullsOf.get(repo.id) ?? []).filter(
      (pull) => states.length === 0 || states.includes(pull.state),
    );
    const key = (pull: SimPull): number => (query.orderBy?.field === 'UPDATED_AT' ? Date.parse(pull.updatedAt) : 0);
    const sorted = ordered(matching, key, query.orderBy?.direction ?? 'ASC');
    return { total: sorted.length, items: sorted.slice(offset, offset + limit).map((pull) => ({ ...pull })) };
  }

  pull(repo: SimRepo, number: number): SimPull | undefined {
    const found = this.pullsOf.get(repo.id)?.find((pull) => pull.number === number);
    return found && { ...found };
  }

  comments(repo: SimRepo, number: number, offset: number, limit: number): Page<SimComment> {
    checkPage(offset, limit);
    const all = this.commentsOf.get(keyOf(repo.id, number)) ?? [];
    return { total: all.length, items: all.slice(offset, offset + limit).map((comment) => ({ ...comment })) };
  }

  userByLogin(login: string): SimUser | undefined {
    return this.usersByLogin.get(login.toLowerCase());
  }

  userById(id: number): SimUser | undefined {
    return this.usersById.get(id);
  }

  // ---- WorldWriter ----------------------------------------------------------------------------

  openPull(
    repo: SimRepo,
    input: { title: string; body: string; head: string; base: string; authorLogin: string },
  ): SimPull {
    const upstream = this.own(repo);
    const upstreamPath = this.gitPathOf(upstream);
    const colon = input.head.indexOf(':');
    const [headOwner, branch] =
      colon === -1 ? [upstream.owner, input.head] : [input.head.slice(0, colon), input.head.slice(colon + 1)];
    if (!isSafeBranchName(branch) || !isSafeBranchName(input.base))
      throw new LiveWorldError(
        'head-not-found',
        `not a branch name: ${JSON.stringify(input.head)} / ${JSON.stringify(input.base)}`,
      );
    const source =
      headOwner.toLowerCase() === upstream.owner.toLowerCase()
        ? upstream
        : this.repos.find(
            (r) => this.upstreamOf.get(r.id) === upstream.id && r.owner.toLowerCase() === headOwner.toLowerCase(),
          );
    if (source === undefined)
      throw new LiveWorldError('head-not-found', `${headOwner} has no fork of ${upstream.owner}/${upstream.name}`);
    const baseOid = this.branchOid(upstreamPath, input.base);
    if (baseOid === null)
      throw new LiveWorldError('base-not-found', `${upstream.owner}/${upstream.name} has no branch ${input.base}`);
    const headOid = this.branchOid(this.gitPathOf(source), branch);
    if (headOid === null)
      throw new LiveWorldError('head-not-found', `${source.owner}/${source.name} has no branch ${branch}`);
    const pulls = this.pullsOf.get(upstream.id) ?? [];
    for (const pull of pulls) {
      const head = this.heads.get(keyOf(upstream.id, pull.number));
      if (
        pull.state === 'OPEN' &&
        head?.sourceRepoId === source.id &&
        head.branch === branch &&
        pull.baseRefName === input.base
      ) {
        throw new LiveWorldError(
          'pull-exists',
          `A pull request already exists for ${source.owner}:${branch} (#${pull.number})`,
        );
      }
    }

    const number = this.nextNumber(upstream.id);
    const ref = `refs/pull/${number}/head`;
    this.fetchHead(upstreamPath, source, branch, ref, headOid);
    // GitHub refuses a pull request whose head is already in the base: nothing to merge.
    if (
      gitSync(['merge-base', '--is-ancestor', headOid, baseOid], { cwd: upstreamPath, allowExit: [1] }).exitCode === 0
    ) {
      gitSync(['update-ref', '-d', ref], { cwd: upstreamPath });
      throw new LiveWorldError('no-commits', `No commits between ${input.base} and ${headOwner}:${branch}`);
    }
    const at = this.now();
    const issueNumbers = new Set((this.issuesOf.get(upstream.id) ?? []).map((issue) => issue.number));
    const closesIssues = [
      ...new Set([...input.body.matchAll(CLOSING_KEYWORDS)].map((match) => Number(match[1]))),
    ].filter((n) => issueNumbers.has(n));
    const pull: SimPull = {
      repoId: upstream.id,
      number,
      title: input.title,
      body: input.body,
      state: 'OPEN',
      authorLogin: input.authorLogin,
      createdAt: at,
      updatedAt: at,
      closedAt: null,
      mergedAt: null,
      mergedByLogin: null,
      baseRefName: input.base,
      baseRefOid: baseOid,
      headRefName: branch,
      headRefOid: headOid,
      mergeCommitOid: null,
      ...this.diffSize(upstreamPath, baseOid, headOid),
      checks: null,
      closesIssues,
    };
    pulls.push(pull);
    this.heads.set(keyOf(upstream.id, number), { repoId: upstream.id, number, sourceRepoId: source.id, branch });
    upstream.pullRequestCount++;
    this.emit({ type: 'pull_request', action: 'opened', repoId: upstream.id, number, at });
    return { ...pull };
  }

  notePush(owner: string, name: string): void {
    const pushed = this.reposByName.get(`${owner}/${name}`.toLowerCase());
    if (pushed === undefined) return;
    const pushedPath = this.gitPathOf(pushed);
    const defaultOid = this.branchOid(pushedPath, pushed.defaultBranch);
    if (defaultOid !== null && defaultOid !== pushed.headOid) {
      pushed.headOid = defaultOid;
      pushed.files = readTreeSync(pushedPath, defaultOid);
      pushed.pushedAt = this.now();
    }
    for (const upstream of this.repos) {
      for (const pull of this.pullsOf.get(upstream.id) ?? []) {
        const head = this.heads.get(keyOf(upstream.id, pull.number));
        if (pull.state !== 'OPEN' || head?.sourceRepoId !== pushed.id) continue;
        const headOid = this.branchOid(pushedPath, head.branch);
        // A deleted head branch leaves the pull request where it was.
        if (headOid === null || headOid === pull.headRefOid) continue;
        const upstreamPath = this.gitPathOf(upstream);
        this.fetchHead(upstreamPath, pushed, head.branch, `refs/pull/${pull.number}/head`, headOid);
        Object.assign(pull, this.diffSize(upstreamPath, pull.baseRefOid, headOid), {
          headRefOid: headOid,
          checks: null,
          updatedAt: this.now(),
        });
        this.emit({
          type: 'pull_request',
          action: 'synchronize',
          repoId: upstream.id,
          number: pull.number,
          at: pull.updatedAt,
        });
      }
    }
    this.save();
  }

  setChecks(repo: SimRepo, number: number, conclusion: CheckConclusion): SimPull {
    const pull = this.ownPull(repo, number);
    pull.checks = conclusion;
    this.emit({
      type: 'check_run',
      action: 'completed',
      repoId: pull.repoId,
      number,
      headOid: pull.headRefOid,
      conclusion,
      at: this.now(),
    });
    return { ...pull };
  }

  mergePull(repo: SimRepo, number: number, mergedByLogin: string): SimPull {
    const upstream = this.own(repo);
    const pull = this.ownPull(repo, number);
    if (pull.state !== 'OPEN') throw new LiveWorldError('not-open', `#${number} is ${pull.state.toLowerCase()}`);
    const path = this.gitPathOf(upstream);
    const baseOid = this.branchOid(path, pull.baseRefName);
    if (baseOid === null)
      throw new LiveWorldError(
        'base-not-found',
        `${upstream.owner}/${upstream.name} has no branch ${pull.baseRefName}`,
      );
    const merge = gitSync(['merge-tree', '--write-tree', '--name-only', baseOid, pull.headRefOid], {
      cwd: path,
      allowExit: [1],
    });
    const [tree = '', ...rest] = merge.stdout.split('\n');
    if (merge.exitCode === 1) {
      const conflicted = rest.slice(0, rest.indexOf('')).filter(Boolean);
      throw new LiveWorldError(
        'merge-conflict',
        `#${number} conflicts with ${pull.baseRefName} in ${conflicted.join(', ') || 'some files'}`,
      );
    }
    const at = this.now();
    const seconds = Date.parse(at) / 1000;
    const head = this.heads.get(keyOf(upstream.id, number));
    const headOwner =
      head?.sourceRepoId === null || head === undefined
        ? upstream.owner
        : (this.reposById.get(head.sourceRepoId)?.owner ?? upstream.owner);
    const mergedBy = userIdentity(mergedByLogin, this.userByLogin(mergedByLogin)?.id ?? 0);
    const message = `Merge pull request #${number} from ${headOwner}/${pull.headRefName}\n\n${pull.title}\n`;
    const commit = gitSync(['commit-tree', tree.trim(), '-p', baseOid, '-p', pull.headRefOid, '-F', '-'], {
      cwd: path,
      input: message,
      author: { identity: mergedBy, at: seconds },
      committer: { identity: GITHUB_COMMITTER, at: seconds },
    }).stdout.trim();
    // Compare-and-swap: a concurrent change of the base branch fails here instead of being lost.
    gitSync(['update-ref', `refs/heads/${pull.baseRefName}`, commit, baseOid], { cwd: path });

    Object.assign(pull, {
      state: 'MERGED',
      mergedAt: at,
      closedAt: at,
      updatedAt: at,
      mergedByLogin,
      mergeCommitOid: commit,
    });
    if (pull.baseRefName === upstream.defaultBranch) {
      upstream.headOid = commit;
      upstream.files = readTreeSync(path, commit);
    }
    upstream.pushedAt = at;
    upstream.updatedAt = at;
    upstream.lastMergedPullAt = at;
    this.emit({ type: 'pull_request', action: 'closed', repoId: upstream.id, number, at });
    for (const issueNumber of pull.closesIssues) {
      const issue = this.issuesOf.get(upstream.id)?.find((candidate) => candidate.number === issueNumber);
      if (issue?.state === 'OPEN') this.setIssueState(upstream, issue, 'CLOSED', 'COMPLETED', at);
    }
    return { ...pull };
  }

  closePull(repo: SimRepo, number: number): SimPull {
    const pull = this.ownPull(repo, number);
    if (pull.state !== 'OPEN') throw new LiveWorldError('not-open', `#${number} is ${pull.state.toLowerCase()}`);
    const at = this.now();
    Object.assign(pull, { state: 'CLOSED', closedAt: at, updatedAt: at });
    this.emit({ type: 'pull_request', action: 'closed', repoId: pull.repoId, number, at });
    return { ...pull };
  }

  closeIssue(repo: SimRepo, number: number, reason: 'COMPLETED' | 'NOT_PLANNED'): SimIssue {
    const upstream = this.own(repo);
    const issue = this.ownIssue(upstream, number);
    // Closing a closed issue is a no-op on GitHub too: no event, no new timestamp.
    if (issue.state === 'OPEN') this.setIssueState(upstream, issue, 'CLOSED', reason, this.now());
    return { ...issue };
  }

  reopenIssue(repo: SimRepo, number: number): SimIssue {
    const upstream = this.own(repo);
    const issue = this.ownIssue(upstream, number);
    if (issue.state === 'CLOSED') this.setIssueState(upstream, issue, 'OPEN', 'REOPENED', this.now());
    return { ...issue };
  }

  onEvent(listener: (event: WorldEvent) => void): () => void {
    // A wrapper per subscription, so the same function subscribed twice is two subscriptions.
    const subscription = (event: WorldEvent) => listener(event);
    this.listeners.add(subscription);
    return () => this.listeners.delete(subscription);
  }

  // ---- internals ----------------------------------------------------------------------------

  private now(): string {
    this.lastClockMs = this.clock();
    return isoSeconds(Math.floor(this.lastClockMs / 1000));
  }

  private emit(event: WorldEvent): void {
    this.log.push(event);
    // Saved before anyone hears of it: a webhook or a maintainer never acts on a change a restart would forget.
    this.save();
    for (const listener of [...this.listeners]) listener(event);
  }

  /** Writes the state file of a kept world whole (a temporary file, then a rename): a crash leaves the last one. */
  save(): void {
    if (this.saveTo === null) return;
    const saved: SavedLiveWorld = {
      format: SAVED_FORMAT,
      seed: this.seed,
      generatedAt: this.generatedAt,
      clockMs: this.lastClockMs,
      world: this.builtNow(),
    };
    writeFileSync(`${this.saveTo}.partial`, JSON.stringify(saved));
    renameSync(`${this.saveTo}.partial`, this.saveTo);
  }

  /** The world's data now in the shape it was built in, one entry per upstream repository with its fork. */
  private builtNow(): BuiltWorld {
    const comments = [...this.commentsOf.values()].flat();
    const heads = [...this.heads.values()];
    const repos = this.repos
      .filter((repo) => !repo.isFork)
      .map((repo) => {
        const fork = this.repos.find((candidate) => this.upstreamOf.get(candidate.id) === repo.id);
        const runner = this.runners.get(repo.id);
        if (fork === undefined || runner === undefined)
          throw new LiveWorldError('not-found', `${repo.owner}/${repo.name} has no fork or runner in this world`);
        const fullName = `${repo.owner}/${repo.name}`;
        return {
          repo,
          fork,
          runner,
          install: this.installs.get(repo.id) ?? null,
          upstreamPath: relative(this.gitRoot, this.gitPathOf(repo)),
          forkPath: relative(this.gitRoot, this.gitPathOf(fork)),
          issues: this.issuesOf.get(repo.id) ?? [],
          pulls: this.pullsOf.get(repo.id) ?? [],
          comments: comments.filter((comment) => comment.repoId === repo.id),
          heads: heads.filter((head) => head.repoId === repo.id),
          fixes: this.fixes.filter((fix) => fix.repo === fullName),
          flaky: this.flaky.filter((test) => test.repo === fullName),
        };
      });
    return { users: this.users, repos };
  }

  private own(repo: Pick<SimRepo, 'id'>): SimRepo {
    const found = this.reposById.get(repo.id);
    if (found === undefined) throw new LiveWorldError('not-found', `repository ${repo.id} is not in this world`);
    return found;
  }

  private ownPull(repo: Pick<SimRepo, 'id'>, number: number): SimPull {
    const pull = this.pullsOf.get(repo.id)?.find((candidate) => candidate.number === number);
    if (pull === undefined)
      throw new LiveWorldError('not-found', `repository ${repo.id} has no pull request #${number}`);
    return pull;
  }

  private ownIssue(repo: SimRepo, number: number): SimIssue {
    const issue = this.issuesOf.get(repo.id)?.find((candidate) => candidate.number === number);
    if (issue === undefined)
      throw new LiveWorldError('not-found', `${repo.owner}/${repo.name} has no issue #${number}`);
    return issue;
  }

  private setIssueState(
    repo: SimRepo,
    issue: SimIssue,
    state: 'OPEN' | 'CLOSED',
    reason: SimIssue['stateReason'],
    at: string,
  ): void {
    Object.assign(issue, { state, stateReason: reason, closedAt: state === 'CLOSED' ? at : null, updatedAt: at });
    const open = (this.issuesOf.get(repo.id) ?? []).filter((candidate) => candidate.state === 'OPEN').length;
    repo.openIssueCount = open;
    repo.closedIssueCount = (this.issuesOf.get(repo.id)?.length ?? 0) - open;
    repo.updatedAt = at;
    this.emit({
      type: 'issues',
      action: state === 'CLOSED' ? 'closed' : 'reopened',
      repoId: repo.id,
      number: issue.number,
      at,
    });
  }

  private nextNumber(repoId: number): number {
    let highest = 0;
    for (const item of [...(this.issuesOf.get(repoId) ?? []), ...(this.pullsOf.get(repoId) ?? [])])
      highest = Math.max(highest, item.number);
    return highest + 1;
  }

  private branchOid(path: string, branch: string): string | null {
    const found = gitSync(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], {
      cwd: path,
      allowExit: [1, 128],
    });
    return found.exitCode === 0 ? found.stdout.trim() : null;
  }

  /** Copies a head branch into the upstream repository as GitHub's refs/pull/<n>/head. */
  private fetchHead(upstreamPath: string, source: SimRepo, branch: string, ref: string, headOid: string): void {
    const sourcePath = this.gitPathOf(source);
    if (sourcePath === upstreamPath) gitSync(['update-ref', ref, headOid], { cwd: upstreamPath });
    else gitSync(['fetch', '--quiet', '--no-tags', sourcePath, `+refs/heads/${branch}:${ref}`], { cwd: upstreamPath });
  }

  /** The size GitHub shows: the diff from the merge base to the head (three dots). */
  private diffSize(
    path: string,
    baseOid: string,
    headOid: string,
  ): { additions: number; deletions: number; changedFiles: number } {
    return numstat(gitSync(['diff', '--numstat', `${baseOid}...${headOid}`], { cwd: path }).stdout);
  }
}

/** A clock that starts at `start` (seconds) and moves one minute each time it is read. */
function tickingClock(start: number): () => number {
  let ms = start * 1000;
  return () => (ms += 60_000);
}

export async function createLiveWorld(options: LiveWorldOptions): Promise<LiveWorld> {
  const { seed, dir } = options;
  if (!Number.isSafeInteger(seed)) throw new LiveWorldError('bad-option', `seed must be a safe integer, got ${seed}`);
  const now = parseSeconds(options.generatedAt ?? DEFAULT_GENERATED_AT, 'generatedAt');
  await mkdir(dir, { recursive: true });
  if ((await readdir(dir)).length > 0)
    throw new LiveWorldError(
      'dir-not-empty',
      `${dir} is not empty; a live world is written to a fresh folder (e.g. one from mkdtemp)`,
    );
  const seed32 = mix32((seed >>> 0) ^ mix32(Math.floor(seed / 0x1_0000_0000) >>> 0));
  const built = await buildLiveRepos({ seed32, now, dir, solverFixBranches: options.solverFixBranches ?? false });
  const world = new LiveWorld({
    seed,
    generatedAt: isoSeconds(now),
    dir,
    now: options.now ?? tickingClock(now),
    built,
    saveTo: options.keepState === true ? join(dir, SAVED_STATE_FILE) : null,
  });
  world.save();
  return world;
}

/** The day (`YYYY-MM-DD`) of the kept world in `dir`, or null when `dir` holds none. */
export function savedLiveWorldDate(dir: string): string | null {
  const file = join(dir, SAVED_STATE_FILE);
  return existsSync(file) ? readSavedWorld(file).generatedAt.slice(0, 10) : null;
}

/**
 * The kept world in `dir` as it was last saved, its repositories as they are on disk, its clock going on from its last
 * reading (or `now`), still saving every change.
 */
export function resumeLiveWorld(options: { dir: string; now?: () => number }): LiveWorld {
  const file = join(options.dir, SAVED_STATE_FILE);
  const saved = readSavedWorld(file);
  const built: BuiltWorld = {
    users: saved.world.users,
    repos: saved.world.repos.map((entry) => ({
      ...entry,
      upstreamPath: gitFolder(options.dir, file, entry.upstreamPath),
      forkPath: gitFolder(options.dir, file, entry.forkPath),
    })),
  };
  return new LiveWorld({
    seed: saved.seed,
    generatedAt: saved.generatedAt,
    dir: options.dir,
    now: options.now ?? tickingClock(Math.floor(saved.clockMs / 1000)),
    built,
    saveTo: file,
  });
}

function savedStateInvalid(file: string, problem: string): LiveWorldError {
  return new LiveWorldError(
    'saved-state-invalid',
    `${file}: ${problem}; remove its folder to build the world again from its seed (its pull requests are then gone)`,
  );
}

function readSavedWorld(file: string): SavedLiveWorld {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw savedStateInvalid(file, `not readable as JSON (${(error as Error).message})`);
  }
  const saved = value as Partial<SavedLiveWorld> | null;
  if (saved?.format !== SAVED_FORMAT)
    throw savedStateInvalid(
      file,
      `format is ${JSON.stringify(saved?.format)}, expected ${JSON.stringify(SAVED_FORMAT)}`,
    );
  if (
    !Number.isSafeInteger(saved.seed) ||
    typeof saved.generatedAt !== 'string' ||
    !Number.isFinite(Date.parse(saved.generatedAt)) ||
    !Number.isFinite(saved.clockMs) ||
    !Array.isArray(saved.world?.users) ||
    !Array.isArray(saved.world.repos)
  )
    throw savedStateInvalid(
      file,
      'seed, generatedAt, clockMs, world.users or world.repos is missing or of the wrong type',
    );
  return saved as SavedLiveWorld;
}

/** A saved repository path, which must name a bare repository inside the world's folder. */
function gitFolder(dir: string, file: string, saved: unknown): string {
  if (typeof saved !== 'string' || saved === '' || isAbsolute(saved) || saved.split(/[\\/]/).includes('..'))
    throw savedStateInvalid(file, `repository path ${JSON.stringify(saved)} is not a folder inside ${dir}`);
  const path = join(dir, saved);
  if (!existsSync(join(path, 'HEAD'))) throw savedStateInvalid(file, `${path} is not a bare git repository`);
  return path;
}

/** The known fixes of a live world, one per fixable open issue. */
export function knownFixes(world: LiveWorld): readonly KnownFix[] {
  return world.knownFixes();
}

/** The world's planted flaky tests and the environment values that make each pass or fail. */
export function flakyTests(world: LiveWorld): readonly FlakyTest[] {
  return world.flakyTests();
}
