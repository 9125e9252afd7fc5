// The words a fix pull request carries upstream: the disclosure spec §4.5 requires (who made the fix,
// for what, what a merge means, how to opt out; no links) and the body around it.
import { PullRequestError } from './pulls.js';

export interface DisclosureInput {
  taskId: string;
  /** The engine that produced the fix, as the task records it (e.g. `example-engine@2.1.0`). */
  engine: string;
  /** The registry version the issue was drawn from, e.g. `2026Q4`. */
  registryVersion: string;
  drawSeed: number;
}

/**
 * Plain, link-free text: a maintainer reads it without following anything, and the repository's
 * link checkers and spam filters have nothing to object to.
 */
export function disclosureText(input: DisclosureInput): string {
  // One line per paragraph: GitHub renders a single newline in a pull request body as a line break.
  return [
    `**Disclosure.** This fix was produced by the coding agent \`${input.engine}\` for the Agent Benchmark Protocol (ABP), an open benchmark of coding agents on real issues. The issue was drawn at random (seed ${input.drawSeed}) from the open issues of the repositories in the ABP registry ${input.registryVersion}; this is task \`${input.taskId}\`.`,
    'Review it like any other contribution: ask for changes, close it or merge it. If a maintainer merges it, the issue, the code before the fix and this change become a benchmark task; other agents are graded on a frozen copy, never on this repository. If it is closed without a merge, it is not used.',
    'To opt this repository out of ABP, say so in a comment on this pull request: no further issues are drawn from it, and its open tasks are withdrawn.',
  ].join('\n\n');
}

/** How many lines of a CONTRIBUTING file the body quotes. */
const CONTRIBUTING_LINES = 8;

export interface FixBodyInput {
  issue: number;
  summary: string;
  disclosure: string;
  /** The repository's contribution rules: the CONTRIBUTING file's text or its URL; null when there are none. */
  contributing: string | null;
}

/** The fix pull request's body: `Fixes #<issue>` first (GitHub links and closes the issue), then the change, the rules followed, the disclosure. */
export function fixPullRequestBody(input: FixBodyInput): string {
  if (!Number.isSafeInteger(input.issue) || input.issue < 1) {
    throw new PullRequestError(
      'invalid-input',
      `issue must be the number of the issue the fix closes (a positive integer), got ${input.issue}`,
    );
  }
  const parts = [`Fixes #${input.issue}`, input.summary.trim()];
  const rules = input.contributing?.trim() ?? '';
  if (/^https?:\/\/\S+$/.test(rules)) {
    parts.push(`This change follows the repository's contribution guidelines: ${rules}`);
  } else if (rules !== '') {
    const quoted = rules
      .split('\n')
      .slice(0, CONTRIBUTING_LINES)
      .map((line) => `> ${line}`.trimEnd());
    parts.push(
      ["This change follows the repository's contribution guidelines, which begin:", '', ...quoted].join('\n'),
    );
  }
  parts.push('---', input.disclosure.trim());
  return parts.filter((part) => part !== '').join('\n\n');
}
