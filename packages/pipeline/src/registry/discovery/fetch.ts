// Reads every criterion's inputs for a batch of candidates: one aliased GraphQL query for up to 100 repositories
// (license, flags, merged pull requests by recency, open issues, labels), then one follow-up query for the batch's
// labeled and bug-labeled open-issue counts, which need the label names the first query returned (rarely, a further
// follow-up reads more labels or merged pull requests); then each repository's tree and the manifests suite detection
// reads in it (suite-files.ts).
import { z } from 'zod';
import type { GithubClient } from '../../github/client.js';
import { repoFullName } from '@abp/protocol/schemas/primitives';
import { bugLabelMatcher } from '../criteria/labels.js';
import type { CandidateFacts } from '../criteria/facts.js';
import type { CriteriaDocument } from '../criteria/schema.js';
import { DiscoveryError } from './errors.js';
import type { DiscoveryCost } from './graphql.js';
import { AliasedQuery, readAnswer, runQuery } from './graphql.js';
import { readSuiteFiles } from './suite-files.js';

/** Repositories per query: GitHub's page size, and 3 connections each keeps the first query at 3 points. */
export const CANDIDATE_BATCH_SIZE = 100;
/**
 * Merged pull requests read first, most recently updated first. The latest merge is known once a pull request's
 * updatedAt is no later than the latest mergedAt seen (merging updates a pull request); ten settle nearly all.
 */
const FIRST_MERGED_PULLS = 10;
const PAGE_SIZE = 100;

export interface BatchResult {
  /** In the order the names were given, without the missing ones. */
  candidates: CandidateFacts[];
  /** Names GitHub does not resolve (deleted, renamed away, made private). */
  missing: string[];
  cost: DiscoveryCost;
}

/** The names in batches of `batchSize`, in order, for a caller that fetches (and persists) one batch at a time. */
export function planBatches(names: readonly string[], batchSize: number = CANDIDATE_BATCH_SIZE): string[][] {
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > PAGE_SIZE) {
    throw new DiscoveryError(
      'invalid-options',
      `batchSize must be an integer from 1 to ${PAGE_SIZE}, got ${batchSize}; the default is ${CANDIDATE_BATCH_SIZE}`,
    );
  }
  const batches: string[][] = [];
  for (let start = 0; start < names.length; start += batchSize) batches.push(names.slice(start, start + batchSize));
  return batches;
}

const pageInfo = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() });
const mergedPulls = z.object({
  pageInfo,
  nodes: z.array(z.object({ mergedAt: z.string().nullable(), updatedAt: z.string() }).nullable()),
});
const labels = z.object({ pageInfo, nodes: z.array(z.object({ name: z.string() }).nullable()) });
const count = z.object({ totalCount: z.int().nonnegative() });

const firstAnswer = z.object({
  nameWithOwner: z.string(),
  stargazerCount: z.int().nonnegative(),
  isArchived: z.boolean(),
  isFork: z.boolean(),
  isMirror: z.boolean(),
  defaultBranchRef: z.object({ name: z.string() }).nullable(),
  primaryLanguage: z.object({ name: z.string() }).nullable(),
  licenseInfo: z.object({ spdxId: z.string().nullable() }).nullable(),
  mergedPulls: mergedPulls.extend({ totalCount: z.int().nonnegative() }),
  openIssues: count,
  labels: labels.nullable(),
});
const followUpAnswer = z.object({
  mergedPulls: mergedPulls.optional(),
  labels: labels.optional(),
  labeled: count.optional(),
  bug: count.optional(),
});

const MERGED_PULLS = 'pullRequests(states: [MERGED], orderBy: {field: UPDATED_AT, direction: DESC}';
const PAGE_INFO = 'pageInfo { hasNextPage endCursor }';

/** The fields of the first query. */
function candidateFragment(): string {
  return [
    'fragment Candidate on Repository {',
    '  nameWithOwner stargazerCount isArchived isFork isMirror',
    '  defaultBranchRef { name }',
    '  primaryLanguage { name }',
    '  licenseInfo { spdxId }',
    `  mergedPulls: ${MERGED_PULLS}, first: ${FIRST_MERGED_PULLS}) { totalCount ${PAGE_INFO} nodes { mergedAt updatedAt } }`,
    '  openIssues: issues(states: [OPEN]) { totalCount }',
    `  labels(first: ${PAGE_SIZE}) { ${PAGE_INFO} nodes { name } }`,
    '}',
  ].join('\n');
}

/** One candidate while its batch is read. */
interface Reading {
  name: string;
  facts: Omit<
    CandidateFacts,
    | 'labeledOpenIssues'
    | 'bugLabels'
    | 'bugLabeledOpenIssues'
    | 'lastMergedPullAt'
    | 'paths'
    | 'texts'
    | 'treeTruncated'
  >;
  labels: string[];
  /** Where the next page of labels starts; null once all are read. */
  labelsAfter: string | null;
  lastMergedPullAt: string | null;
  /** Where the next page of merged pull requests starts; null once the latest merge is certain. */
  mergesAfter: string | null;
  /** The open-issue counts by label, once known. */
  hygiene: Pick<CandidateFacts, 'labeledOpenIssues' | 'bugLabels' | 'bugLabeledOpenIssues'> | null;
}

/** What a batch reads for the criteria at hand. */
interface ReadPlan {
  isBugLabel: (name: string) => boolean;
}

/** Where the next page starts, or null after the last; a cursor that does not move would read the same page forever. */
function nextCursor(previous: string | null, page: z.infer<typeof pageInfo>, what: string): string | null {
  if (!page.hasNextPage) return null;
  if (page.endCursor === null || page.endCursor === previous) {
    throw new DiscoveryError(
      'unexpected-answer',
      `GitHub said more ${what} follow but gave no new cursor (${JSON.stringify(page.endCursor)})`,
    );
  }
  return page.endCursor;
}

/** Folds a page of merged pull requests (most recently updated first) into the latest merge seen. */
function readMerges(reading: Reading, page: z.infer<typeof mergedPulls>): void {
  let latest = reading.lastMergedPullAt === null ? null : Date.parse(reading.lastMergedPullAt);
  for (const node of page.nodes) {
    if (node === null || node.mergedAt === null) continue;
    if (latest === null || Date.parse(node.mergedAt) > latest) {
      latest = Date.parse(node.mergedAt);
      reading.lastMergedPullAt = node.mergedAt;
    }
    // Every later pull request was updated, so merged, no later than this one: the latest merge is known.
    if (Date.parse(node.updatedAt) <= latest) {
      reading.mergesAfter = null;
      return;
    }
  }
  reading.mergesAfter = nextCursor(reading.mergesAfter, page.pageInfo, `merged pull requests of ${reading.name}`);
}

function readLabels(reading: Reading, page: z.infer<typeof labels>, isBugLabel: (name: string) => boolean): void {
  for (const node of page.nodes) if (node !== null) reading.labels.push(node.name);
  reading.labelsAfter = nextCursor(reading.labelsAfter, page.pageInfo, `labels of ${reading.name}`);
  // Without labels or open issues there is nothing to count (and an empty label filter would match every issue).
  if (reading.labelsAfter === null && (reading.labels.length === 0 || reading.facts.openIssues === 0)) {
    reading.hygiene = { labeledOpenIssues: 0, bugLabels: reading.labels.filter(isBugLabel), bugLabeledOpenIssues: 0 };
  }
}

function startReading(name: string, data: Record<string, unknown>, plan: ReadPlan, what: string): Reading {
  const answer = readAnswer(firstAnswer, data, what);
  const reading: Reading = {
    name,
    facts: {
      nameWithOwner: answer.nameWithOwner,
      stargazerCount: answer.stargazerCount,
      defaultBranch: answer.defaultBranchRef?.name ?? null,
      primaryLanguage: answer.primaryLanguage?.name ?? null,
      // A license GitHub found but cannot name carries no SPDX id: the same as NOASSERTION.
      licenseSpdxId: answer.licenseInfo === null ? null : (answer.licenseInfo.spdxId ?? 'NOASSERTION'),
      isArchived: answer.isArchived,
      isFork: answer.isFork,
      isMirror: answer.isMirror,
      mergedPullCount: answer.mergedPulls.totalCount,
      openIssues: answer.openIssues.totalCount,
    },
    labels: [],
    labelsAfter: null,
    lastMergedPullAt: null,
    mergesAfter: null,
    hygiene: null,
  };
  readMerges(reading, answer.mergedPulls);
  readLabels(
    reading,
    answer.labels ?? { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] },
    plan.isBugLabel,
  );
  return reading;
}

/** The fields a reading still needs. Counts by label wait until every label is known. */
function followUpFields(
  reading: Reading,
  plan: ReadPlan,
  variable: (name: string, type: string, value: unknown) => string,
): string {
  const fields: string[] = [];
  if (reading.mergesAfter !== null) {
    fields.push(
      `mergedPulls: ${MERGED_PULLS}, first: ${PAGE_SIZE}, after: ${variable('m', 'String', reading.mergesAfter)}) { ${PAGE_INFO} nodes { mergedAt updatedAt } }`,
    );
  }
  if (reading.labelsAfter !== null) {
    fields.push(
      `labels(first: ${PAGE_SIZE}, after: ${variable('a', 'String', reading.labelsAfter)}) { ${PAGE_INFO} nodes { name } }`,
    );
  } else if (reading.hygiene === null) {
    fields.push(
      `labeled: issues(states: [OPEN], labels: ${variable('l', '[String!]!', reading.labels)}) { totalCount }`,
    );
    const bugLabels = reading.labels.filter(plan.isBugLabel);
    if (bugLabels.length > 0)
      fields.push(`bug: issues(states: [OPEN], labels: ${variable('b', '[String!]!', bugLabels)}) { totalCount }`);
  }
  return fields.join(' ');
}

function checkNames(names: readonly string[]): void {
  if (names.length > PAGE_SIZE)
    throw new DiscoveryError(
      'invalid-options',
      `a batch holds at most ${PAGE_SIZE} repositories, got ${names.length}; split the names with planBatches`,
    );
  names.forEach((name, index) => {
    if (!repoFullName.safeParse(name).success) {
      throw new DiscoveryError(
        'invalid-options',
        `${JSON.stringify(name)} is not a GitHub repository "owner/name"; pass names as search returned them`,
      );
    }
    if (names.findIndex((other) => other.toLowerCase() === name.toLowerCase()) !== index) {
      throw new DiscoveryError('invalid-options', `${name} is listed twice in one batch; list each repository once`);
    }
  });
}

/**
 * Reads the criteria's inputs for up to 100 repositories: two queries as a rule, one more per extra page of labels or
 * merged pull requests any of them needs. Reading the same batch again costs the same and gives the same.
 */
export async function fetchBatch(
  octokit: GithubClient,
  names: readonly string[],
  criteria: CriteriaDocument,
): Promise<BatchResult> {
  checkNames(names);
  const cost: DiscoveryCost = { requests: 0, points: 0 };
  const missing = new Set<string>();
  if (names.length === 0) return { candidates: [], missing: [], cost };
  const plan: ReadPlan = { isBugLabel: bugLabelMatcher(criteria) };
  const what = `the candidate query for ${names.length} repositories from ${names[0]}`;

  const first = new AliasedQuery();
  const aliases = names.map((name) => first.add(name, () => '...Candidate'));
  const { data, unresolved } = await runQuery(
    octokit,
    first.text('RegistryCandidates', candidateFragment()),
    first.variables,
    cost,
    what,
  );
  const readings: Reading[] = [];
  names.forEach((name, index) => {
    const alias = aliases[index] ?? '';
    const answer = data[alias];
    if (unresolved.has(alias) || answer === null || typeof answer !== 'object') missing.add(name);
    else readings.push(startReading(name, answer as Record<string, unknown>, plan, `${what} (${name})`));
  });

  for (let round = 1; ; round++) {
    const query = new AliasedQuery();
    const asked = new Map<string, Reading>();
    for (const reading of readings) {
      const complete = reading.mergesAfter === null && reading.labelsAfter === null && reading.hygiene !== null;
      if (!complete && !missing.has(reading.name))
        asked.set(
          query.add(reading.name, (variable) => followUpFields(reading, plan, variable)),
          reading,
        );
    }
    if (query.size === 0) break;
    const roundWhat = `follow-up ${round} of ${what}`;
    const answered = await runQuery(octokit, query.text('RegistryCandidateCounts'), query.variables, cost, roundWhat);
    for (const [alias, reading] of asked) {
      if (answered.unresolved.has(alias) || answered.data[alias] === null) {
        missing.add(reading.name);
        continue;
      }
      const answer = readAnswer(followUpAnswer, answered.data[alias], `${roundWhat} (${reading.name})`);
      if (answer.mergedPulls !== undefined) readMerges(reading, answer.mergedPulls);
      if (answer.labels !== undefined) readLabels(reading, answer.labels, plan.isBugLabel);
      if (answer.labeled !== undefined) {
        reading.hygiene = {
          labeledOpenIssues: answer.labeled.totalCount,
          bugLabels: reading.labels.filter(plan.isBugLabel),
          bugLabeledOpenIssues: answer.bug?.totalCount ?? 0,
        };
      }
    }
  }

  const read = readings.filter((reading) => !missing.has(reading.name) && reading.hygiene !== null);
  const suites = await readSuiteFiles(
    octokit,
    read.flatMap((reading) =>
      reading.facts.defaultBranch === null ? [] : [{ name: reading.name, branch: reading.facts.defaultBranch }],
    ),
    cost,
  );
  for (const name of suites.missing) missing.add(name);
  const candidates = read.flatMap((reading): CandidateFacts[] => {
    if (missing.has(reading.name) || reading.hygiene === null) return [];
    // An empty repository has no tree to list.
    const suite = suites.files.get(reading.name) ?? { paths: [], texts: {}, treeTruncated: false };
    return [{ ...reading.facts, lastMergedPullAt: reading.lastMergedPullAt, ...reading.hygiene, ...suite }];
  });
  return { candidates, missing: names.filter((name) => missing.has(name)), cost };
}
