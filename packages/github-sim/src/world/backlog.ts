// One repository's issue and pull-request backlog as compact typed arrays, derived from the seed and
// the repository's plan. The plan fixes the counts and the registry-relevant facts (open issues,
// labeled open issues, a bug label in use, when the last pull request was merged); this module
// realises exactly those, so the ground truth holds by construction. Titles, bodies and comments are
// not stored: scale.ts derives them per record from hash(seed, repository, number).

import type { IssueKind } from './model.js';
import type { LabelConvention } from './labels.js';
import { hash4, Rng, unit, Weighted } from './random.js';

export interface BacklogPlan {
  seed: number;
  repoId: number;
  /** Seconds since the epoch. */
  repoCreatedAt: number;
  /** When the newest issue or pull request was opened. */
  lastOpenedAt: number;
  generatedAt: number;
  issueCount: number;
  openIssueCount: number;
  pullCount: number;
  /** Exactly one pull request is merged at this second and none later; null: none is ever merged. */
  lastMergedAt: number | null;
  labeledOpenIssueCount: number;
  /** Chance that a closed issue is labeled. */
  closedLabeledRate: number;
  /** Whether open issues carry the convention's bug label (at least one does when true, none when false). */
  bugLabelInUse: boolean;
  convention: LabelConvention;
}

/** Issue states in `meta` bits 1–2. */
export const ISSUE_OPEN = 0;
export const ISSUE_REOPENED = 1;
export const ISSUE_COMPLETED = 2;
export const ISSUE_NOT_PLANNED = 3;
/** Pull states in `meta` bits 1–2. */
export const PULL_OPEN = 0;
export const PULL_CLOSED = 1;
export const PULL_MERGED = 2;

export const ISSUE_KINDS: readonly IssueKind[] = ['bug', 'feature', 'question', 'feature-debate', 'chore'];

/** Arrays indexed by number - 1; times in seconds since the epoch, 0 for "none". */
export interface Backlog {
  total: number;
  /** Bit 0: pull request; bits 1–2: state; bits 3–5: index into ISSUE_KINDS (issues only). */
  meta: Uint8Array;
  createdAt: Uint32Array;
  updatedAt: Uint32Array;
  /** closedAt; for a merged pull request also its mergedAt, as GitHub sets both. */
  closedAt: Uint32Array;
  commentCount: Uint16Array;
  /** Bit i: the convention's label i. */
  labelMask: Uint16Array;
  issueNumbers: Int32Array;
  pullNumbers: Int32Array;
}

export function isPull(backlog: Backlog, number: number): boolean {
  return ((backlog.meta[number - 1] ?? 0) & 1) === 1;
}

export function stateOf(backlog: Backlog, number: number): number {
  return ((backlog.meta[number - 1] ?? 0) >> 1) & 3;
}

export function kindOf(backlog: Backlog, number: number): IssueKind {
  return ISSUE_KINDS[((backlog.meta[number - 1] ?? 0) >> 3) & 7] ?? 'bug';
}

const DAY = 86_400;

// Streams keep the draws of different facts independent of each other.
const Stream = { Time: 1, Type: 2, State: 3, Kind: 4, Label: 5, Extra: 6, Comments: 7, Close: 8, Pull: 9 } as const;

const kindWeights = new Weighted<number>([
  [0, 45],
  [1, 22],
  [2, 13],
  [3, 8],
  [4, 12],
]);
const meanComments: Readonly<Record<IssueKind, number>> = {
  bug: 3,
  feature: 4,
  question: 2,
  'feature-debate': 14,
  chore: 0.6,
};
const maxComments = 400;

/** Selection sampling: keep exactly `wanted` of `available`, each decided by its own draw `u`. */
function selects(u: number, wanted: number, available: number, boost = 1): boolean {
  return wanted > 0 && u * available < wanted * boost;
}

export function buildBacklog(plan: BacklogPlan): Backlog {
  const { seed, repoId, generatedAt } = plan;
  const total = plan.issueCount + plan.pullCount;
  const meta = new Uint8Array(total);
  const createdAt = new Uint32Array(total);
  const updatedAt = new Uint32Array(total);
  const closedAt = new Uint32Array(total);
  const commentCount = new Uint16Array(total);
  const labelMask = new Uint16Array(total);
  const rng = new Rng(0);

  // Opening times: monotonic in the number, denser towards the present as projects grow.
  const start = plan.repoCreatedAt + DAY;
  const span = Math.max(1, plan.lastOpenedAt - start);
  for (let n = 1; n <= total; n++) {
    const jitter = n === 1 ? 0 : unit(hash4(seed, Stream.Time, repoId, n));
    createdAt[n - 1] = start + Math.floor(span * Math.pow((n - 1 + jitter) / total, 0.6));
  }

  // Which numbers are pull requests: exactly pullCount of them.
  let pullsLeft = plan.pullCount;
  for (let n = 1; n <= total; n++) {
    if (selects(unit(hash4(seed, Stream.Type, repoId, n)), pullsLeft, total - n + 1)) {
      meta[n - 1] = 1;
      pullsLeft--;
    }
  }
  // The last merge needs a pull request opened before it: move one there if the draw left none.
  let lastMergedNumber = 0;
  if (plan.lastMergedAt !== null) {
    let before = 0;
    while (before < total && (createdAt[before] ?? 0) < plan.lastMergedAt) before++;
    for (let n = before; n >= 1 && lastMergedNumber === 0; n--)
      if (((meta[n - 1] ?? 0) & 1) === 1) lastMergedNumber = n;
    if (lastMergedNumber === 0 && before >= 1) {
      for (let n = before + 1; n <= total; n++) {
        if (((meta[n - 1] ?? 0) & 1) === 1) {
          meta[n - 1] = 0;
          meta[before - 1] = 1;
          lastMergedNumber = before;
          break;
        }
      }
    }
    if (lastMergedNumber === 0) throw new Error(`repository ${repoId}: no pull request can carry the last merge`);
  }

  const issueNumbers = new Int32Array(plan.issueCount);
  const pullNumbers = new Int32Array(plan.pullCount);
  for (let n = 1, i = 0, p = 0; n <= total; n++) {
    if (((meta[n - 1] ?? 0) & 1) === 1) pullNumbers[p++] = n;
    else issueNumbers[i++] = n;
  }

  // Issues: exactly openIssueCount open, favouring recent ones; kinds; closing and comment times.
  let openLeft = plan.openIssueCount;
  for (let i = plan.issueCount - 1; i >= 0; i--) {
    const n = issueNumbers[i] ?? 0;
    rng.reseed(hash4(seed, Stream.State, repoId, n));
    const open = selects(rng.float(), openLeft, i + 1, 1.5) || openLeft === i + 1;
    if (open) openLeft--;
    const kind = kindWeights.at(unit(hash4(seed, Stream.Kind, repoId, n)));
    const kindName = ISSUE_KINDS[kind] ?? 'bug';
    let state: number;
    if (open) state = rng.chance(0.03) ? ISSUE_REOPENED : ISSUE_OPEN;
    else
      state = rng.chance(kindName === 'question' || kindName === 'feature-debate' ? 0.5 : 0.15)
        ? ISSUE_NOT_PLANNED
        : ISSUE_COMPLETED;
    meta[n - 1] = (kind << 3) | (state << 1);
    fillTimes(n, open ? null : 20 * DAY, meanComments[kindName]);
  }

  // Pull requests: the planned last merge, earlier merges before it, nothing merged after it.
  for (let p = 0; p < plan.pullCount; p++) {
    const n = pullNumbers[p] ?? 0;
    rng.reseed(hash4(seed, Stream.Pull, repoId, n));
    const opened = createdAt[n - 1] ?? 0;
    const roll = rng.float();
    let state: number;
    let closed = 0;
    if (n === lastMergedNumber && plan.lastMergedAt !== null) {
      state = PULL_MERGED;
      closed = plan.lastMergedAt;
    } else if (n < lastMergedNumber && plan.lastMergedAt !== null && roll < 0.72) {
      state = PULL_MERGED;
      const delay = 60 + Math.floor(rng.exponential(3 * DAY));
      closed =
        opened + delay < plan.lastMergedAt
          ? opened + delay
          : opened + Math.floor((plan.lastMergedAt - opened) * rng.float());
    } else {
      const stillOpen = opened > generatedAt - 180 * DAY ? roll > 0.45 : roll > 0.93;
      state = stillOpen ? PULL_OPEN : PULL_CLOSED;
      if (!stillOpen) closed = Math.min(generatedAt, opened + 60 + Math.floor(rng.exponential(10 * DAY)));
    }
    meta[n - 1] = 1 | (state << 1);
    closedAt[n - 1] = closed;
    const comments = Math.min(maxComments, Math.floor(rng.exponential(1.5)));
    commentCount[n - 1] = comments;
    const lastComment = comments > 0 ? Math.min(generatedAt, opened + Math.floor(rng.exponential(4 * DAY))) : opened;
    updatedAt[n - 1] = Math.max(closed, lastComment, opened);
  }

  assignLabels();

  return { total, meta, createdAt, updatedAt, closedAt, commentCount, labelMask, issueNumbers, pullNumbers };

  function fillTimes(n: number, meanCloseDelay: number | null, meanCommentCount: number): void {
    const opened = createdAt[n - 1] ?? 0;
    rng.reseed(hash4(seed, Stream.Close, repoId, n));
    const closed =
      meanCloseDelay === null ? 0 : Math.min(generatedAt, opened + 60 + Math.floor(rng.exponential(meanCloseDelay)));
    closedAt[n - 1] = closed;
    rng.reseed(hash4(seed, Stream.Comments, repoId, n));
    const comments = Math.min(maxComments, Math.floor(rng.exponential(meanCommentCount)));
    commentCount[n - 1] = comments;
    const lastComment =
      comments > 0 ? Math.min(generatedAt, opened + 60 + Math.floor(rng.exponential(7 * DAY))) : opened;
    updatedAt[n - 1] = Math.max(closed, lastComment, opened);
  }

  function bit(name: string): number {
    const index = plan.convention.labels.findIndex((label) => label.name === name);
    if (index < 0) throw new Error(`label ${name} is not in the ${plan.convention.style} convention`);
    return 1 << index;
  }

  function assignLabels(): void {
    const { convention } = plan;
    const bugBit = convention.bug === null ? 0 : bit(convention.bug);
    const fallbackBit = bit(convention.bugFallback);
    const kindBits = ISSUE_KINDS.map((kind) => bit(convention.byKind[kind]));
    const extraBits = convention.extras.map(bit);
    let openIssuesLeft = plan.openIssueCount;
    let labeledLeft = plan.labeledOpenIssueCount;
    let bugLabeledOpen = 0;
    let newestLabeledOpen = 0;
    for (let i = 0; i < plan.issueCount; i++) {
      const n = issueNumbers[i] ?? 0;
      const state = ((meta[n - 1] ?? 0) >> 1) & 3;
      const open = state === ISSUE_OPEN || state === ISSUE_REOPENED;
      rng.reseed(hash4(seed, Stream.Label, repoId, n));
      const u = rng.float();
      let labeled: boolean;
      if (open) {
        labeled = selects(u, labeledLeft, openIssuesLeft);
        openIssuesLeft--;
        if (labeled) labeledLeft--;
      } else {
        labeled = u < plan.closedLabeledRate;
      }
      if (!labeled) continue;
      const kind = ((meta[n - 1] ?? 0) >> 3) & 7;
      let mask = kindBits[kind] ?? 0;
      // Open bugs keep off an unused bug label; closed ones may carry it from the past.
      if (open && mask === bugBit && !plan.bugLabelInUse) mask = fallbackBit;
      rng.reseed(hash4(seed, Stream.Extra, repoId, n));
      for (const extra of extraBits) if (rng.chance(0.12)) mask |= extra;
      labelMask[n - 1] = mask;
      if (open) {
        newestLabeledOpen = n;
        if (bugBit !== 0 && (mask & bugBit) !== 0) bugLabeledOpen++;
      }
    }
    if (plan.bugLabelInUse && bugLabeledOpen === 0) {
      if (newestLabeledOpen === 0 || bugBit === 0)
        throw new Error(`repository ${repoId}: a bug label in use needs a labeled open issue and a bug label`);
      const state = ((meta[newestLabeledOpen - 1] ?? 0) >> 1) & 3;
      meta[newestLabeledOpen - 1] = (0 << 3) | (state << 1);
      labelMask[newestLabeledOpen - 1] = bugBit;
    }
  }
}
