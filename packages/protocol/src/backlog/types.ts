// The shapes a draw reads: a registry version's open-issue backlog as a snapshot, and the eligible pool the seeded
// selection draws from. Shared by the backlog (snapshot, eligibility) and draw (selection, record, audit) modules.

export const BACKLOG_SCHEMA_ID = 'abp-backlog/v1';

/** One open issue with exactly the fields eligibility reads; nothing else enters the snapshot or its digest. */
export interface BacklogIssue {
  number: number;
  title: string;
  /** Label names, sorted in code-unit order. */
  labels: string[];
  author: string;
  /** RFC 3339 UTC. */
  createdAt: string;
  updatedAt: string;
  comments: number;
  /** Open pull requests that claim the issue (closing references), sorted ascending. */
  claimedBy: number[];
  /** Facts derived from the issue body by the snapshot's documented body-signal rules; the body itself is not kept. */
  signals: BodySignals;
}

export interface BodySignals {
  /** Steps to reproduce, an error message or a stack trace, or a code block with a failing example. */
  reproduction: boolean;
  /** The body asks how to do something rather than reporting a defect. */
  question: boolean;
  /** The body proposes or debates a feature rather than reporting a defect. */
  proposal: boolean;
}

export interface BacklogRepo {
  /** "owner/name" as the registry lists it. */
  repo: string;
  /** Sorted by number ascending. */
  issues: BacklogIssue[];
}

export interface BacklogSnapshot {
  schema: typeof BACKLOG_SCHEMA_ID;
  registryVersion: string;
  /** When the snapshot's data was read; for an incremental refresh, the time of the refresh. */
  takenAt: string;
  /** Version of the body-signal rules that produced every issue's `signals`. */
  signalRules: string;
  /** Sorted by repo in code-unit order. */
  repos: BacklogRepo[];
}

/** What the seeded selection draws from: eligible issues per repository, both sorted as in the snapshot. */
export interface EligiblePool {
  repos: Array<{ repo: string; issues: Array<{ number: number; title: string }> }>;
}
