// The eligibility rules `abp-eligibility/1` (spec §4.1): which open issues of a backlog snapshot a draw may pick, and
// for every other one the reason, as data. Rules read only the snapshot (labels, title, body signals, claims) and the
// opt-out list, so an auditor re-derives the pool offline; docs/eligibility.md states them for re-implementation.
import { SIGNAL_RULES } from './body-signals.js';
import { BacklogError } from './errors.js';
import type { BacklogIssue, BacklogSnapshot, EligiblePool } from './types.js';

export const ELIGIBILITY_RULES = 'abp-eligibility/1';

/** Why an issue is not in the pool. The rules are checked in this order; the first that applies is the reason. */
export const ELIGIBILITY_REASONS = {
  'opted-out': 'The repository is on the opt-out list (spec §4.5): none of its issues is drawn.',
  'out-of-scope':
    "A label says no code change will come of it: documentation only, duplicate, invalid, won't fix, not a bug.",
  'feature-debate':
    'A debate about what to build: a discussion or RFC label, or a title that opens one ("RFC: …", "Discussion: …", "Should we …").',
  question:
    'A request for help: a question or support label, or question signals with neither a reproduction nor a bug label.',
  'feature-request':
    'A request for new behaviour: a feature or enhancement label, or proposal signals with neither a reproduction nor a bug label.',
  'not-reproducible': 'Neither a reproduction in the body nor a bug label: no defect to turn into a failing test.',
  claimed: 'An open pull request already claims the issue with a closing reference; a draw would race it.',
} as const;
export type EligibilityReason = keyof typeof ELIGIBILITY_REASONS;

export interface EligibilityResult {
  /** Repositories with at least one eligible issue, and those issues, in snapshot order. */
  pool: EligiblePool;
  /** Every other issue of the snapshot, in snapshot order. */
  rejected: Array<{ repo: string; number: number; reason: EligibilityReason }>;
  /** ELIGIBILITY_RULES: the draw record names it. */
  rules: string;
}

/** What a label says about an issue, for these rules. */
export type LabelClass = 'bug' | 'out-of-scope' | 'debate' | 'question' | 'feature';

/** Label names after normalization (see `normalizeLabel`), and what a maintainer says by applying them. */
export const LABEL_CLASSES: Readonly<Record<string, LabelClass>> = {
  // A defect: "bug", "type: bug", "kind/bug", "🐛 Bug", "regression".
  bug: 'bug',
  defect: 'bug',
  regression: 'bug',
  crash: 'bug',
  'confirmed bug': 'bug',
  'bug report': 'bug',
  // No code change will follow: documentation work, a duplicate, an invalid report, a declined one, intended behaviour.
  documentation: 'out-of-scope',
  docs: 'out-of-scope',
  duplicate: 'out-of-scope',
  invalid: 'out-of-scope',
  wontfix: 'out-of-scope',
  "won't fix": 'out-of-scope',
  'wont fix': 'out-of-scope',
  'not planned': 'out-of-scope',
  'not a bug': 'out-of-scope',
  'working as intended': 'out-of-scope',
  'works as intended': 'out-of-scope',
  spam: 'out-of-scope',
  // A debate: "discussion", "type: discussion", "RFC", "needs discussion".
  discussion: 'debate',
  rfc: 'debate',
  'needs discussion': 'debate',
  // A request for help: "question", "kind/support", "usage".
  question: 'question',
  support: 'question',
  usage: 'question',
  'how to': 'question',
  // New behaviour: "enhancement", "type: feature", "kind/feature", "feature request", "proposal".
  enhancement: 'feature',
  feature: 'feature',
  'feature request': 'feature',
  'new feature': 'feature',
  proposal: 'feature',
  idea: 'feature',
};

/**
 * The form LABEL_CLASSES is keyed by: lower case; leading symbols and a `:emoji:` code dropped; one category prefix
 * dropped ("type: ", "kind/", "t-", "status: ", "resolution/" …); runs of spaces, hyphens and underscores made one space.
 */
export function normalizeLabel(name: string): string {
  return name
    .toLowerCase()
    .replace(/^\s*(?::[a-z0-9_+-]{1,40}:)?[^\p{L}\p{N}]*/u, '')
    .replace(/^(?:type|kind|t|category|issue type|status|resolution)\s*[:/-]\s*/, '')
    .replace(/[\s_-]+/g, ' ')
    .trim();
}

/** Titles that open a debate rather than report a defect; checked against the snapshot's title. */
export const DEBATE_TITLE_PATTERNS: readonly RegExp[] = [
  // Tagged as a request for comments or a discussion: "RFC: …", "[RFC] …", "Discussion: …", "[Discuss] …".
  /^\W{0,3}(?:rfc|discussion|discuss|debate)\b/i,
  // Spelled out anywhere in the title: "Request for comments: …".
  /\brequest for comments?\b/i,
  // Asks the project whether to change course: "Should we …".
  /^\W{0,3}should we\b/i,
];

/** The reason an issue is not eligible (the opt-out aside), or null when it is. */
export function issueVerdict(issue: BacklogIssue): EligibilityReason | null {
  return verdict(issue, classifyLabel);
}

function verdict(issue: BacklogIssue, classify: (label: string) => LabelClass | undefined): EligibilityReason | null {
  const classes = new Set(issue.labels.map(classify));
  const { reproduction, question, proposal } = issue.signals;
  const bug = classes.has('bug');
  if (classes.has('out-of-scope')) return 'out-of-scope';
  if (classes.has('debate') || DEBATE_TITLE_PATTERNS.some((pattern) => pattern.test(issue.title)))
    return 'feature-debate';
  // A maintainer's bug label or a reproduction outweighs a question's or a proposal's wording.
  if (classes.has('question') || (question && !reproduction && !bug)) return 'question';
  if (classes.has('feature') || (proposal && !reproduction && !bug)) return 'feature-request';
  if (!reproduction && !bug) return 'not-reproducible';
  if (issue.claimedBy.length > 0) return 'claimed';
  return null;
}

function classifyLabel(label: string): LabelClass | undefined {
  return LABEL_CLASSES[normalizeLabel(label)];
}

/**
 * Splits a snapshot into the pool a draw picks from and the rejected issues with their reasons. Opt-outs match
 * "owner/name" case-insensitively, as GitHub resolves names.
 */
export function eligiblePool(snapshot: BacklogSnapshot, options: { optOuts: ReadonlySet<string> }): EligibilityResult {
  if (snapshot.signalRules !== SIGNAL_RULES) {
    throw new BacklogError(
      'signal-rules-mismatch',
      `the snapshot's body signals follow ${snapshot.signalRules}, but ${ELIGIBILITY_RULES} is defined over ${SIGNAL_RULES}; take a full snapshot (not a refresh) with the current rules`,
      { field: 'signalRules' },
    );
  }
  const optedOut = new Set([...options.optOuts].map((name) => name.toLowerCase()));
  // Registries reuse a few dozen label names across a million issues: classify each name once.
  const classes = new Map<string, LabelClass | undefined>();
  const classify = (label: string): LabelClass | undefined => {
    if (!classes.has(label)) classes.set(label, classifyLabel(label));
    return classes.get(label);
  };
  const pool: EligiblePool = { repos: [] };
  const rejected: EligibilityResult['rejected'] = [];
  for (const { repo, issues } of snapshot.repos) {
    if (optedOut.has(repo.toLowerCase())) {
      for (const issue of issues) rejected.push({ repo, number: issue.number, reason: 'opted-out' });
      continue;
    }
    const eligible: EligiblePool['repos'][number]['issues'] = [];
    for (const issue of issues) {
      const reason = verdict(issue, classify);
      if (reason === null) eligible.push({ number: issue.number, title: issue.title });
      else rejected.push({ repo, number: issue.number, reason });
    }
    if (eligible.length > 0) pool.repos.push({ repo, issues: eligible });
  }
  return { pool, rejected, rules: ELIGIBILITY_RULES };
}
