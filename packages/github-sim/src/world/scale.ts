// Scale worlds: up to thousands of repositories and a million issues, generated from a seed for
// cost and load work. Repositories, users and each repository's plan (the registry-relevant facts,
// decided first) are built eagerly; a repository's backlog is derived on first use as compact typed
// arrays (backlog.ts) and its issues, pull requests and comments are materialised per page from
// hash(seed, repository, number), so every listing yields the same bytes whatever was asked before.
//
// Orders: ties break by id (repositories) or number (issues, pulls) in the direction of the sort,
// so CREATED_AT DESC is exactly number order reversed. Search includes archived repositories and
// excludes forks unless asked, as GitHub's search does.

import type { Backlog, BacklogPlan } from './backlog.js';
import {
  buildBacklog,
  ISSUE_COMPLETED,
  ISSUE_NOT_PLANNED,
  ISSUE_OPEN,
  ISSUE_REOPENED,
  isPull,
  kindOf,
  PULL_CLOSED,
  PULL_MERGED,
  stateOf,
} from './backlog.js';
import type { Ecosystem, RunnerId } from './criteria.js';
import { MERGED_PULL_WINDOW_DAYS } from './criteria.js';
import type { LabelStyle } from './labels.js';
import { LABEL_CONVENTIONS } from './labels.js';
import type {
  CheckConclusion,
  IssueQuery,
  Page,
  PullQuery,
  PullState,
  RepoSearch,
  SimComment,
  SimIssue,
  SimPull,
  SimRepo,
  SimUser,
  WorldReader,
} from './model.js';
import { commentBody, describeRepo, issueText, makeLogin, makeRepoName, nouns, pullText } from './names.js';
import { hash2, hash3, hash4, mix32, objectId, Rng, Weighted } from './random.js';
import { repoFiles } from './repo-files.js';

export const DEFAULT_GENERATED_AT = '2026-11-01T00:00:00Z';

export interface ScaleWorldOptions {
  seed: number;
  repos: number;
  /** Issues in the whole world (pull requests come on top), spread over repositories with a heavy tail. */
  issues: number;
  generatedAt?: string;
}

export type MergeActivity = 'recent' | 'stale' | 'never';
export type HygienePlan = 'tidy' | 'sparse' | 'unlabeled';

/** The facts a repository was generated from; the ground truth reads its verdicts from these. */
export interface RepoPlan {
  index: number;
  id: number;
  owner: string;
  name: string;
  topic: string;
  language: string | null;
  /** The ecosystem with a runner recipe, or null (C, Ruby, docs, …). */
  ecosystem: Ecosystem | null;
  /** The planted test runner; null when the repository has no runnable test suite. */
  runner: RunnerId | null;
  hasCi: boolean;
  licenseSpdxId: string | null;
  isArchived: boolean;
  isFork: boolean;
  isMirror: boolean;
  mergeActivity: MergeActivity;
  /** Seconds since the epoch. */
  lastMergedAt: number | null;
  hygiene: HygienePlan;
  labelStyle: LabelStyle;
  issueCount: number;
  openIssueCount: number;
  pullCount: number;
  labeledOpenIssueCount: number;
  bugLabelInUse: boolean;
  maintainers: readonly number[];
  backlog: BacklogPlan;
}

const DAY = 86_400;
/** Sort keys pack (primary, number) into one float: numbers stay below 2^22 per repository. */
const NUMBER_SPACE = 4_194_304;
const KEY_EPOCH = 946_684_800;
const QUERY_CACHE_SIZE = 128;
const BOTS: readonly SimUser[] = [
  { id: 49_699_333, login: 'dependabot[bot]', type: 'Bot', maintainerOf: [] },
  { id: 41_898_282, login: 'github-actions[bot]', type: 'Bot', maintainerOf: [] },
  { id: 29_139_614, login: 'renovate[bot]', type: 'Bot', maintainerOf: [] },
];

// Streams keep independent facts on independent draws.
const Stream = {
  Users: 101,
  Stars: 102,
  Repo: 103,
  Plan: 104,
  IssueText: 105,
  PullText: 106,
  Comment: 107,
  Name: 108,
} as const;

const languages = new Weighted<string | null>([
  ['TypeScript', 17],
  ['JavaScript', 14],
  ['Python', 19],
  ['Go', 10],
  ['Rust', 8],
  ['Java', 8],
  ['Kotlin', 2],
  ['C++', 6],
  ['C', 4],
  ['Ruby', 3],
  ['PHP', 3],
  ['C#', 3],
  ['Swift', 1],
  ['Shell', 1],
  [null, 2],
]);
const licenses = new Weighted<string | null>([
  ['MIT', 38],
  ['Apache-2.0', 17],
  ['BSD-3-Clause', 5],
  ['BSD-2-Clause', 2],
  ['GPL-3.0-only', 4],
  ['GPL-2.0-only', 1.5],
  ['AGPL-3.0-only', 1.5],
  ['LGPL-2.1-only', 1],
  ['MPL-2.0', 2],
  ['ISC', 2],
  ['Unlicense', 1],
  ['0BSD', 0.5],
  ['EPL-2.0', 0.5],
  ['Zlib', 0.3],
  ['BSL-1.0', 0.3],
  ['BUSL-1.1', 1.5],
  ['SSPL-1.0', 0.8],
  ['CC-BY-NC-4.0', 0.8],
  ['CC0-1.0', 1.2],
  ['WTFPL', 0.5],
  ['Elastic-2.0', 0.5],
  ['NOASSERTION', 6],
  [null, 9],
]);
const labelStyles = new Weighted<LabelStyle>([
  ['github-default', 45],
  ['prefixed', 20],
  ['kubernetes', 10],
  ['title-case', 15],
  ['no-bug-label', 10],
]);
const nodeRunners = new Weighted<RunnerId>([
  ['vitest', 45],
  ['jest', 40],
  ['mocha', 15],
]);
const openPullChecks = new Weighted<CheckConclusion>([
  ['SUCCESS', 70],
  ['FAILURE', 20],
  ['PENDING', 10],
]);
const mirrorHosts = ['gitlab.com', 'codeberg.org', 'git.savannah.gnu.org', 'gitbox.apache.org', 'git.sr.ht'];

function ecosystemOf(language: string | null): Ecosystem | null {
  switch (language) {
    case 'TypeScript':
    case 'JavaScript':
      return 'node';
    case 'Python':
      return 'python';
    case 'Go':
      return 'go';
    case 'Rust':
      return 'rust';
    case 'Java':
    case 'Kotlin':
      return 'jvm';
    case null:
    default:
      return null;
  }
}

function runnerFor(rng: Rng, language: string | null, ecosystem: Ecosystem | null): RunnerId | null {
  switch (ecosystem) {
    case 'node':
      return nodeRunners.sample(rng);
    case 'python':
      return 'pytest';
    case 'go':
      return 'go-test';
    case 'rust':
      return 'cargo-test';
    case 'jvm':
      return language === 'Kotlin' || rng.chance(0.35) ? 'gradle' : 'maven';
    case null:
      return null;
  }
}

/** GitHub's timestamp format: second precision, 'Z'. */
export function isoSeconds(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
}

function parseSeconds(value: string, what: string): number {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms))
    throw new RangeError(`${what} is not a timestamp: ${JSON.stringify(value)} (expected e.g. '2026-11-01T00:00:00Z')`);
  return Math.floor(ms / 1000);
}

function checkPage(offset: number, limit: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`offset and limit must be non-negative integers, got ${offset} and ${limit}`);
  }
}

/** Split `total` over `weights` exactly: floors, then the largest remainders (ties to the lower index). */
function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum <= 0) return weights.map((_, index) => (index === 0 ? total : 0));
  const shares = weights.map((weight) => (total * weight) / sum);
  const counts = shares.map(Math.floor);
  let left = total - counts.reduce((a, b) => a + b, 0);
  const order = shares
    .map((share, index) => ({ index, rest: share - Math.floor(share) }))
    .sort((a, b) => b.rest - a.rest || a.index - b.index);
  for (const { index } of order) {
    if (left <= 0) break;
    counts[index] = (counts[index] ?? 0) + 1;
    left--;
  }
  return counts;
}

export class ScaleWorld implements WorldReader {
  readonly kind = 'scale' as const;
  readonly seed: number;
  readonly generatedAt: string;
  /** The world clock in seconds since the epoch. */
  readonly now: number;
  private readonly seed32: number;
  private readonly plans: RepoPlan[] = [];
  private readonly repos: SimRepo[] = [];
  private readonly repoIndexById = new Map<number, number>();
  private readonly repoIndexByName = new Map<string, number>();
  private readonly users: SimUser[] = [];
  private readonly usersByLogin = new Map<string, SimUser>();
  private readonly usersById = new Map<number, SimUser>();
  private readonly backlogs = new Map<number, Backlog>();
  private readonly listings = new Map<string, Int32Array>();
  private readonly searchOrders = new Map<string, number[]>();

  constructor(options: ScaleWorldOptions) {
    const { seed, repos, issues } = options;
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
    if (!Number.isSafeInteger(repos) || repos < 1)
      throw new RangeError(`repos must be a positive integer, got ${repos}`);
    if (!Number.isSafeInteger(issues) || issues < 0)
      throw new RangeError(`issues must be a non-negative integer, got ${issues}`);
    this.seed = seed;
    this.seed32 = mix32((seed >>> 0) ^ mix32(Math.floor(seed / 0x1_0000_0000) >>> 0));
    this.now = parseSeconds(options.generatedAt ?? DEFAULT_GENERATED_AT, 'generatedAt');
    this.generatedAt = isoSeconds(this.now);
    this.createUsers(Math.min(40_000, Math.max(300, repos * 6)));
    this.planRepos(repos, issues);
  }

  // ---- generation -------------------------------------------------------------------------

  private createUsers(count: number): void {
    const rng = new Rng(hash2(this.seed32, Stream.Users));
    for (let index = 0; index < count; index++) {
      let login = makeLogin(rng);
      while (this.usersByLogin.has(login.toLowerCase())) login = `${login}${rng.int(10)}`;
      const user: SimUser = { id: 1_000_000 + index, login, type: 'User', maintainerOf: [] };
      this.users.push(user);
      this.usersByLogin.set(login.toLowerCase(), user);
      this.usersById.set(user.id, user);
    }
    for (const bot of BOTS) {
      this.usersByLogin.set(bot.login.toLowerCase(), bot);
      this.usersById.set(bot.id, bot);
    }
  }

  private planRepos(count: number, issueTotal: number): void {
    const seed = this.seed32;
    const now = this.now;
    // Stars: a Pareto tail over stratified quantiles, so every world of a size has the same shape
    // (a handful of huge repositories, a long tail of small ones) whatever the seed.
    const quantiles = Array.from({ length: count }, (_, index) => index);
    const shuffle = new Rng(hash2(seed, Stream.Stars));
    for (let index = count - 1; index > 0; index--) {
      const other = shuffle.int(index + 1);
      [quantiles[index], quantiles[other]] = [quantiles[other] ?? 0, quantiles[index] ?? 0];
    }

    interface Draft {
      owner: number;
      name: string;
      topic: string;
      stars: number;
      language: string | null;
      license: string | null;
      runner: RunnerId | null;
      hasCi: boolean;
      isArchived: boolean;
      isFork: boolean;
      isMirror: boolean;
      weight: number;
      variant: number;
    }
    const drafts: Draft[] = [];
    const taken = new Set<string>();
    for (let index = 0; index < count; index++) {
      const rng = new Rng(hash3(seed, Stream.Repo, index));
      const isFork = index >= 10 && rng.chance(0.08);
      const parent = isFork ? drafts[rng.int(index)] : undefined;
      const base = parent !== undefined && !parent.isFork ? parent : undefined;
      const topic = base?.topic ?? rng.pick(nouns);
      const language = base?.language ?? languages.sample(rng);
      const ecosystem = ecosystemOf(language);
      const hasTests = base !== undefined ? base.runner !== null : ecosystem !== null && rng.chance(0.82);
      const runner = base !== undefined ? base.runner : hasTests ? runnerFor(rng, language, ecosystem) : null;
      const hasCi = rng.chance(runner !== null ? 0.8 : 0.3);
      const u = ((quantiles[index] ?? 0) + rng.float()) / count;
      const stars = isFork
        ? Math.floor(Math.pow(rng.float(), 3) * 40)
        : Math.min(500_000, Math.floor(15 * (Math.pow(u, -1.1) - 1)));
      let owner = Math.floor(this.users.length * Math.pow(rng.float(), 2));
      let name = base?.name ?? makeRepoName(rng, topic);
      while (taken.has(`${this.users[owner]?.login.toLowerCase()}/${name.toLowerCase()}`)) {
        if (base !== undefined) owner = rng.int(this.users.length);
        else name = `${name}-${rng.between(2, 99)}`;
      }
      taken.add(`${this.users[owner]?.login.toLowerCase()}/${name.toLowerCase()}`);
      const noIssues = rng.chance(0.03);
      drafts.push({
        owner,
        name,
        topic,
        stars,
        language,
        license: base !== undefined && rng.chance(0.9) ? base.license : licenses.sample(rng),
        runner,
        hasCi,
        isArchived: rng.chance(0.06),
        isFork: base !== undefined,
        isMirror: base === undefined && rng.chance(0.02),
        weight: noIssues
          ? 0
          : (base !== undefined ? 0.1 : 1) * Math.pow(stars + 5, 0.55) * Math.exp(2 * rng.float() - 1),
        variant: rng.int(1_000),
      });
    }

    const issueCounts = apportion(
      issueTotal,
      drafts.map((draft) => draft.weight),
    );
    const maintained = new Map<number, number[]>();
    for (let index = 0; index < count; index++) {
      const draft = drafts[index] as Draft;
      const id = index + 1;
      const rng = new Rng(hash3(seed, Stream.Plan, index));
      const ageDays = 90 + Math.floor(Math.pow(rng.float(), 1.6) * 4_900);
      const createdAt = now - ageDays * DAY - rng.int(DAY);

      // Merge recency first: it bounds every pull request's history.
      let mergeActivity: MergeActivity;
      if (draft.isArchived) mergeActivity = rng.chance(0.8) ? 'stale' : 'never';
      else {
        const roll = rng.float();
        const recent = 0.5 + 0.3 * Math.min(1, Math.log10(draft.stars + 1) / 5);
        mergeActivity = roll < 0.06 ? 'never' : roll < 0.06 + recent * 0.94 ? 'recent' : 'stale';
      }
      const windowStart = now - MERGED_PULL_WINDOW_DAYS * DAY;
      let lastMergedAt: number | null = null;
      // A few repositories sit within hours of the window's edge, to catch off-by-one clocks.
      const nearEdge = rng.chance(0.04);
      if (mergeActivity === 'recent')
        lastMergedAt = nearEdge ? windowStart + 60 + rng.int(6 * 3600) : now - 3600 - rng.int(27 * DAY);
      else if (mergeActivity === 'stale')
        lastMergedAt = nearEdge
          ? windowStart - 60 - rng.int(6 * 3600)
          : now - 31 * DAY - rng.int(Math.min(ageDays - 34, 900) * DAY);

      let lastOpenedAt: number;
      if (mergeActivity === 'recent') lastOpenedAt = now - 60 - rng.int(3 * DAY);
      else if (lastMergedAt !== null)
        lastOpenedAt =
          rng.chance(0.5) && !draft.isArchived ? now - 60 - rng.int(20 * DAY) : lastMergedAt - rng.int(20 * DAY);
      else lastOpenedAt = now - rng.int(Math.floor(ageDays * 0.8) * DAY);
      lastOpenedAt = Math.min(now - 60, Math.max(createdAt + 30 * DAY, lastOpenedAt));

      const issueCount = issueCounts[index] ?? 0;
      const allClosed = issueCount > 0 && rng.chance(0.03);
      const openIssueCount =
        issueCount === 0 || allClosed ? 0 : Math.max(1, Math.round(issueCount * (0.1 + 0.45 * rng.float())));
      let pullCount = Math.round(issueCount * (0.15 + 0.65 * rng.float())) + (issueCount === 0 ? rng.int(20) : 0);
      if (mergeActivity !== 'never') pullCount = Math.max(1, pullCount);
      else if (rng.chance(0.5)) pullCount = 0;

      // Issue hygiene: the labeled share of open issues lands clearly on one side of the threshold.
      const labelStyle = labelStyles.sample(rng);
      const convention = LABEL_CONVENTIONS[labelStyle];
      const hygieneRoll = rng.float();
      const hygiene: HygienePlan = hygieneRoll < 0.12 ? 'unlabeled' : hygieneRoll < 0.22 ? 'sparse' : 'tidy';
      const share =
        hygiene === 'unlabeled' ? 0 : hygiene === 'sparse' ? 0.02 + 0.45 * rng.float() : 0.5 + 0.5 * rng.float();
      const labeledOpenIssueCount =
        hygiene === 'tidy'
          ? Math.min(openIssueCount, Math.ceil(share * openIssueCount))
          : Math.floor(share * openIssueCount);
      const bugLabelInUse = convention.bug !== null && labeledOpenIssueCount >= 1 && rng.chance(0.93);

      const others = draft.isFork ? rng.int(2) : rng.between(1, 3);
      const maintainers = [draft.owner];
      for (let k = 0; k < others; k++) {
        const user = rng.int(this.users.length);
        if (!maintainers.includes(user)) maintainers.push(user);
      }
      for (const user of maintainers) maintained.set(user, [...(maintained.get(user) ?? []), id]);

      const owner = this.users[draft.owner]?.login ?? 'ghost';
      const pushedAt = Math.max(lastOpenedAt, lastMergedAt ?? 0);
      const updatedAt = draft.isArchived
        ? Math.min(now, pushedAt + rng.int(10 * DAY))
        : Math.min(now, Math.max(pushedAt, now - rng.int(20 * DAY)));
      const backlog: BacklogPlan = {
        seed,
        repoId: id,
        repoCreatedAt: createdAt,
        lastOpenedAt,
        generatedAt: now,
        issueCount,
        openIssueCount,
        pullCount,
        lastMergedAt,
        labeledOpenIssueCount,
        closedLabeledRate: hygiene === 'unlabeled' ? 0.05 : share,
        bugLabelInUse,
        convention,
      };
      const plan: RepoPlan = {
        index,
        id,
        owner,
        name: draft.name,
        topic: draft.topic,
        language: draft.language,
        ecosystem: ecosystemOf(draft.language),
        runner: draft.runner,
        hasCi: draft.hasCi,
        licenseSpdxId: draft.license,
        isArchived: draft.isArchived,
        isFork: draft.isFork,
        isMirror: draft.isMirror,
        mergeActivity,
        lastMergedAt,
        hygiene,
        labelStyle,
        issueCount,
        openIssueCount,
        pullCount,
        labeledOpenIssueCount,
        bugLabelInUse,
        maintainers,
        backlog,
      };
      const branchRoll = rng.float();
      const repo: SimRepo = {
        id,
        owner,
        name: draft.name,
        description: describeRepo(rng, draft.topic, draft.language),
        stargazerCount: draft.stars,
        forkCount: Math.floor(draft.stars * (0.03 + 0.15 * rng.float())),
        primaryLanguage: draft.language,
        licenseSpdxId: draft.license,
        isArchived: draft.isArchived,
        isFork: draft.isFork,
        mirrorUrl: draft.isMirror ? `https://${rng.pick(mirrorHosts)}/${owner}/${draft.name}.git` : null,
        createdAt: isoSeconds(createdAt),
        updatedAt: isoSeconds(updatedAt),
        pushedAt: isoSeconds(pushedAt),
        defaultBranch: branchRoll < 0.78 ? 'main' : branchRoll < 0.98 ? 'master' : 'develop',
        headOid: objectId(seed, id, 0, 0),
        labels: convention.labels,
        files: repoFiles({
          owner,
          name: draft.name,
          language: draft.language,
          licenseSpdxId: draft.license,
          ecosystem: plan.ecosystem,
          runner: draft.runner,
          hasCi: draft.hasCi,
          variant: draft.variant,
        }),
        openIssueCount,
        closedIssueCount: issueCount - openIssueCount,
        pullRequestCount: pullCount,
        lastMergedPullAt: lastMergedAt === null ? null : isoSeconds(lastMergedAt),
      };
      this.plans.push(plan);
      this.repos.push(repo);
      this.repoIndexById.set(id, index);
      this.repoIndexByName.set(`${owner.toLowerCase()}/${draft.name.toLowerCase()}`, index);
    }
    for (const [user, repoIds] of maintained) {
      const record = this.users[user];
      if (record !== undefined) record.maintainerOf = repoIds;
    }
  }

  // ---- plans and backlogs -----------------------------------------------------------------

  /** The facts a repository was generated from (the ground truth's source). */
  planOf(repoId: number): RepoPlan | undefined {
    const index = this.repoIndexById.get(repoId);
    return index === undefined ? undefined : this.plans[index];
  }

  /** Total issues and pull requests in the world, from the plans (no backlog is built). */
  totals(): { repos: number; issues: number; openIssues: number; pulls: number } {
    let issues = 0;
    let openIssues = 0;
    let pulls = 0;
    for (const plan of this.plans) {
      issues += plan.issueCount;
      openIssues += plan.openIssueCount;
      pulls += plan.pullCount;
    }
    return { repos: this.plans.length, issues, openIssues, pulls };
  }

  private backlogOf(plan: RepoPlan): Backlog {
    let backlog = this.backlogs.get(plan.id);
    if (backlog === undefined) {
      backlog = buildBacklog(plan.backlog);
      this.backlogs.set(plan.id, backlog);
    }
    return backlog;
  }

  private resolve(repo: SimRepo): { plan: RepoPlan; backlog: Backlog } | undefined {
    const plan = this.planOf(repo.id);
    return plan === undefined ? undefined : { plan, backlog: this.backlogOf(plan) };
  }

  /** A cached listing (numbers in order); listings are pure functions of the backlog, so caching cannot change results. */
  private listing(key: string, compute: () => Int32Array): Int32Array {
    const cached = this.listings.get(key);
    if (cached !== undefined) {
      this.listings.delete(key);
      this.listings.set(key, cached);
      return cached;
    }
    const fresh = compute();
    this.listings.set(key, fresh);
    if (this.listings.size > QUERY_CACHE_SIZE) {
      const oldest = this.listings.keys().next().value;
      if (oldest !== undefined) this.listings.delete(oldest);
    }
    return fresh;
  }

  private sorted(
    backlog: Backlog,
    numbers: number[],
    field: 'CREATED_AT' | 'UPDATED_AT' | 'COMMENTS' | undefined,
    direction: 'ASC' | 'DESC',
  ): Int32Array {
    const keys = new Float64Array(numbers.length);
    for (let i = 0; i < numbers.length; i++) {
      const n = numbers[i] ?? 0;
      const primary =
        field === 'UPDATED_AT'
          ? (backlog.updatedAt[n - 1] ?? 0) - KEY_EPOCH
          : field === 'COMMENTS'
            ? (backlog.commentCount[n - 1] ?? 0)
            : 0;
      keys[i] = primary * NUMBER_SPACE + n;
    }
    keys.sort();
    if (direction === 'DESC') keys.reverse();
    const ordered = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) ordered[i] = (keys[i] ?? 0) % NUMBER_SPACE;
    return ordered;
  }

  // ---- WorldReader ------------------------------------------------------------------------

  repoCount(): number {
    return this.repos.length;
  }

  repoAt(index: number): SimRepo | undefined {
    return this.repos[index];
  }

  repoById(id: number): SimRepo | undefined {
    const index = this.repoIndexById.get(id);
    return index === undefined ? undefined : this.repos[index];
  }

  repoByName(owner: string, name: string): SimRepo | undefined {
    const index = this.repoIndexByName.get(`${owner.toLowerCase()}/${name.toLowerCase()}`);
    return index === undefined ? undefined : this.repos[index];
  }

  searchRepos(query: RepoSearch, offset: number, limit: number): Page<SimRepo> {
    checkPage(offset, limit);
    const orderKey = `${query.sort}:${query.direction}`;
    let order = this.searchOrders.get(orderKey);
    if (order === undefined) {
      const key = (repo: SimRepo): number =>
        query.sort === 'stars' ? repo.stargazerCount : Date.parse(repo.updatedAt);
      const sign = query.direction === 'asc' ? 1 : -1;
      order = this.repos
        .map((_, index) => index)
        .sort((a, b) => {
          const left = this.repos[a] as SimRepo;
          const right = this.repos[b] as SimRepo;
          return sign * (key(left) - key(right) || left.id - right.id);
        });
      this.searchOrders.set(orderKey, order);
    }
    const language = query.language?.toLowerCase();
    const matches: SimRepo[] = [];
    for (const index of order) {
      const repo = this.repos[index] as SimRepo;
      if (query.minStars !== undefined && repo.stargazerCount < query.minStars) continue;
      if (query.maxStars !== undefined && repo.stargazerCount > query.maxStars) continue;
      if (language !== undefined && repo.primaryLanguage?.toLowerCase() !== language) continue;
      if (repo.isArchived && query.includeArchived === false) continue;
      if (repo.isFork && query.includeForks !== true) continue;
      matches.push(repo);
    }
    return { total: matches.length, items: matches.slice(offset, offset + limit) };
  }

  issues(repo: SimRepo, query: IssueQuery, offset: number, limit: number): Page<SimIssue> {
    checkPage(offset, limit);
    const resolved = this.resolve(repo);
    if (resolved === undefined) return { total: 0, items: [] };
    const { plan, backlog } = resolved;
    const states = query.states ?? [];
    const labels = query.labels ?? [];
    const since = query.since === undefined ? null : parseSeconds(query.since, 'since');
    const field = query.orderBy?.field;
    const direction = query.orderBy?.direction ?? 'ASC';
    const key = `i|${plan.id}|${[...states].sort().join(',')}|${labels
      .map((name) => name.toLowerCase())
      .sort()
      .join('\u0000')}|${since ?? ''}|${field ?? ''}|${direction}`;
    const numbers = this.listing(key, () => {
      const wantOpen = states.length === 0 || states.includes('OPEN');
      const wantClosed = states.length === 0 || states.includes('CLOSED');
      const wanted = new Set(labels.map((name) => name.toLowerCase()));
      let labelBits = 0;
      plan.backlog.convention.labels.forEach((label, index) => {
        if (wanted.has(label.name.toLowerCase())) labelBits |= 1 << index;
      });
      const matching: number[] = [];
      for (const n of backlog.issueNumbers) {
        const state = stateOf(backlog, n);
        const open = state === ISSUE_OPEN || state === ISSUE_REOPENED;
        if (open ? !wantOpen : !wantClosed) continue;
        if (labels.length > 0 && ((backlog.labelMask[n - 1] ?? 0) & labelBits) === 0) continue;
        if (since !== null && (backlog.updatedAt[n - 1] ?? 0) < since) continue;
        matching.push(n);
      }
      return this.sorted(backlog, matching, field, direction);
    });
    const items: SimIssue[] = [];
    for (const n of numbers.subarray(offset, offset + limit)) items.push(this.materializeIssue(plan, backlog, n));
    return { total: numbers.length, items };
  }

  issue(repo: SimRepo, number: number): SimIssue | undefined {
    const resolved = this.resolve(repo);
    if (resolved === undefined || !Number.isSafeInteger(number) || number < 1 || number > resolved.backlog.total)
      return undefined;
    if (isPull(resolved.backlog, number)) return undefined;
    return this.materializeIssue(resolved.plan, resolved.backlog, number);
  }

  pulls(repo: SimRepo, query: PullQuery, offset: number, limit: number): Page<SimPull> {
    checkPage(offset, limit);
    const resolved = this.resolve(repo);
    if (resolved === undefined) return { total: 0, items: [] };
    const { plan, backlog } = resolved;
    const states = query.states ?? [];
    const field = query.orderBy?.field;
    const direction = query.orderBy?.direction ?? 'ASC';
    const key = `p|${plan.id}|${[...states].sort().join(',')}|${field ?? ''}|${direction}`;
    const numbers = this.listing(key, () => {
      const matching: number[] = [];
      for (const n of backlog.pullNumbers)
        if (states.length === 0 || states.includes(pullState(stateOf(backlog, n)))) matching.push(n);
      return this.sorted(backlog, matching, field, direction);
    });
    const items: SimPull[] = [];
    for (const n of numbers.subarray(offset, offset + limit)) items.push(this.materializePull(plan, backlog, n));
    return { total: numbers.length, items };
  }

  pull(repo: SimRepo, number: number): SimPull | undefined {
    const resolved = this.resolve(repo);
    if (resolved === undefined || !Number.isSafeInteger(number) || number < 1 || number > resolved.backlog.total)
      return undefined;
    if (!isPull(resolved.backlog, number)) return undefined;
    return this.materializePull(resolved.plan, resolved.backlog, number);
  }

  comments(repo: SimRepo, number: number, offset: number, limit: number): Page<SimComment> {
    checkPage(offset, limit);
    const resolved = this.resolve(repo);
    if (resolved === undefined || !Number.isSafeInteger(number) || number < 1 || number > resolved.backlog.total)
      return { total: 0, items: [] };
    const { plan, backlog } = resolved;
    const count = backlog.commentCount[number - 1] ?? 0;
    const opened = backlog.createdAt[number - 1] ?? 0;
    const updated = backlog.updatedAt[number - 1] ?? 0;
    const kind = isPull(backlog, number) ? 'chore' : kindOf(backlog, number);
    const items: SimComment[] = [];
    const rng = new Rng(0);
    for (let k = offset; k < Math.min(count, offset + limit); k++) {
      rng.reseed(hash4(this.seed32, Stream.Comment, plan.id, number * 1_000 + k));
      const byMaintainer = rng.chance(0.3);
      const author = byMaintainer ? this.users[rng.pick(plan.maintainers)] : this.users[this.authorIndex(rng)];
      // Spaced over the thread's life; the last one is what last updated it.
      const at = isoSeconds(opened + Math.floor(((updated - opened) * (k + 1)) / count));
      items.push({
        id: plan.id * 10_000_000_000 + number * 1_000 + k,
        repoId: plan.id,
        issueNumber: number,
        authorLogin: author?.login ?? 'ghost',
        body: commentBody(rng, kind, byMaintainer),
        createdAt: at,
        updatedAt: at,
      });
    }
    return { total: count, items };
  }

  userByLogin(login: string): SimUser | undefined {
    return this.usersByLogin.get(login.toLowerCase());
  }

  userById(id: number): SimUser | undefined {
    return this.usersById.get(id);
  }

  // ---- records ------------------------------------------------------------------------------

  /** Authors skew towards a core of frequent reporters. */
  private authorIndex(rng: Rng): number {
    return Math.floor(this.users.length * Math.pow(rng.float(), 1.4));
  }

  private materializeIssue(plan: RepoPlan, backlog: Backlog, n: number): SimIssue {
    const rng = new Rng(hash4(this.seed32, Stream.IssueText, plan.id, n));
    const kind = kindOf(backlog, n);
    const text = issueText(rng, kind, plan.topic);
    const state = stateOf(backlog, n);
    const mask = backlog.labelMask[n - 1] ?? 0;
    const labels: string[] = [];
    plan.backlog.convention.labels.forEach((label, index) => {
      if ((mask & (1 << index)) !== 0) labels.push(label.name);
    });
    const closed = backlog.closedAt[n - 1] ?? 0;
    return {
      repoId: plan.id,
      number: n,
      title: text.title,
      body: text.body,
      state: state === ISSUE_OPEN || state === ISSUE_REOPENED ? 'OPEN' : 'CLOSED',
      stateReason:
        state === ISSUE_COMPLETED
          ? 'COMPLETED'
          : state === ISSUE_NOT_PLANNED
            ? 'NOT_PLANNED'
            : state === ISSUE_REOPENED
              ? 'REOPENED'
              : null,
      labels,
      authorLogin: this.users[this.authorIndex(rng)]?.login ?? 'ghost',
      createdAt: isoSeconds(backlog.createdAt[n - 1] ?? 0),
      updatedAt: isoSeconds(backlog.updatedAt[n - 1] ?? 0),
      closedAt: closed === 0 ? null : isoSeconds(closed),
      commentCount: backlog.commentCount[n - 1] ?? 0,
      kind,
    };
  }

  private materializePull(plan: RepoPlan, backlog: Backlog, n: number): SimPull {
    const rng = new Rng(hash4(this.seed32, Stream.PullText, plan.id, n));
    const state = pullState(stateOf(backlog, n));
    const roll = rng.float();
    const kind = roll < 0.15 ? 'bump' : roll < 0.65 ? 'fix' : roll < 0.9 ? 'feature' : 'docs';
    const text = pullText(rng, kind, plan.topic);
    const bot = BOTS[rng.chance(0.8) ? 0 : 2] as SimUser;
    const author = kind === 'bump' ? bot.login : (this.users[this.authorIndex(rng)]?.login ?? 'ghost');
    const closed = backlog.closedAt[n - 1] ?? 0;
    const merged = state === 'MERGED';
    let checks: CheckConclusion | null = null;
    if (plan.hasCi)
      checks = merged
        ? 'SUCCESS'
        : state === 'OPEN'
          ? openPullChecks.sample(rng)
          : rng.chance(0.5)
            ? 'SUCCESS'
            : 'FAILURE';
    // "Fixes #k": a merged fix closes an earlier completed issue, an open one claims an open issue.
    const closesIssues: number[] = [];
    if (kind === 'fix' && state !== 'CLOSED' && rng.chance(0.7)) {
      const wantOpen = state === 'OPEN';
      for (let k = n - 1 - rng.int(Math.min(n, 40)), steps = 0; k >= 1 && steps < 60; k--, steps++) {
        if (isPull(backlog, k)) continue;
        const issueState = stateOf(backlog, k);
        if (wantOpen ? issueState === ISSUE_OPEN || issueState === ISSUE_REOPENED : issueState === ISSUE_COMPLETED) {
          closesIssues.push(k);
          break;
        }
      }
    }
    const additions = 1 + Math.floor(rng.exponential(kind === 'bump' ? 8 : 60));
    return {
      repoId: plan.id,
      number: n,
      title: text.title,
      body: closesIssues.length > 0 ? `${text.body}\n\nFixes #${closesIssues[0]}` : text.body,
      state,
      authorLogin: author,
      createdAt: isoSeconds(backlog.createdAt[n - 1] ?? 0),
      updatedAt: isoSeconds(backlog.updatedAt[n - 1] ?? 0),
      closedAt: closed === 0 ? null : isoSeconds(closed),
      mergedAt: merged ? isoSeconds(closed) : null,
      mergedByLogin: merged ? (this.users[rng.pick(plan.maintainers)]?.login ?? 'ghost') : null,
      baseRefName: this.repos[plan.index]?.defaultBranch ?? 'main',
      baseRefOid: objectId(this.seed32, plan.id, n, 1),
      headRefName: text.branch,
      headRefOid: objectId(this.seed32, plan.id, n, 2),
      mergeCommitOid: merged ? objectId(this.seed32, plan.id, n, 3) : null,
      additions,
      deletions: Math.floor(rng.exponential(additions / 2)),
      changedFiles: 1 + Math.floor(rng.exponential(kind === 'bump' ? 0.5 : 3)),
      checks,
      closesIssues,
    };
  }
}

function pullState(state: number): PullState {
  return state === PULL_MERGED ? 'MERGED' : state === PULL_CLOSED ? 'CLOSED' : 'OPEN';
}

export function createScaleWorld(options: ScaleWorldOptions): ScaleWorld {
  return new ScaleWorld(options);
}
