// Where the reference solver finds a fix: a branch `fix/<issue>` in the solver's fork of the issue's repository, whose
// head commit says what the change is (subject: the pull request title; body: its description). On the simulator's
// small world the forks carry one per known fix; against GitHub, push them to your fork (README, "Real GitHub").
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GithubClient } from '@abp/pipeline/github/client';
import { SolverError } from './errors.js';
import { git as runGit } from '@abp/grader/execution';

/** The branch of the solver's fork that carries its fix for `issue`. */
export function fixBranchOf(issue: number): string {
  return `fix/${issue}`;
}

export interface ForkFix {
  /** `forkOwner/name`. */
  fork: string;
  branch: string;
  /** `forkOwner:branch`, as a pull request names its head. */
  head: string;
  headOid: string;
  /** The head commit's subject. */
  title: string;
  /** The head commit's body, without lines that close issues (the pull request body names the issue itself). */
  summary: string;
}

export type ForkFixLookup = { $case: 'found'; fix: ForkFix } | { $case: 'missing'; reason: string };

// GitHub's closing keywords: a summary that kept them would close the issue twice over, or a wrong one.
const CLOSING_LINE = /^\s*(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+(?:[\w.-]+\/[\w.-]+)?#\d+\s*\.?\s*$/i;

function httpStatus(error: unknown): number | undefined {
  return typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number'
    ? error.status
    : undefined;
}

async function git(args: string[], cwd: string): Promise<string> {
  // The fork is reached over http(s); git never prompts for credentials: a fork that needs them is reported.
  return (await runGit(args, { cwd, transport: 'network' })).stdout.toString('utf8');
}

/** Splits a commit message into the pull request's title and summary. */
export function titleAndSummary(message: string): { title: string; summary: string } {
  const [subject = '', ...rest] = message.replace(/\r\n?/g, '\n').trim().split('\n');
  const summary = rest
    .filter((line) => !CLOSING_LINE.test(line))
    .join('\n')
    .trim();
  return { title: subject.trim(), summary };
}

/**
 * Looks for the fix of `repo`#`issue` in `forkOwner`'s fork: the fork must exist (and be a fork), and carry
 * `fix/<issue>`. Reading it costs one REST request and two git round trips (ls-remote, a one-commit fetch).
 */
export async function findForkFix(
  github: GithubClient,
  input: { repo: string; issue: number; forkOwner: string },
): Promise<ForkFixLookup> {
  const name = input.repo.split('/')[1] ?? '';
  const fork = `${input.forkOwner}/${name}`;
  let cloneUrl: string;
  try {
    const { data } = await github.rest.repos.get({ owner: input.forkOwner, repo: name });
    if (!data.fork) return { $case: 'missing', reason: `${fork} is not a fork of ${input.repo}` };
    cloneUrl = data.clone_url;
  } catch (error) {
    if (httpStatus(error) === 404)
      return { $case: 'missing', reason: `${input.forkOwner} has no fork of ${input.repo}` };
    throw error;
  }
  const branch = fixBranchOf(input.issue);
  const scratch = await mkdtemp(join(tmpdir(), 'abp-solver-'));
  try {
    let listed: string;
    try {
      listed = await git(['ls-remote', '--heads', cloneUrl, `refs/heads/${branch}`], scratch);
    } catch (error) {
      throw new SolverError(
        'git-failed',
        `git ls-remote ${cloneUrl} failed: ${(error as Error).message.trim()}; check that the fork is readable`,
        { cause: error },
      );
    }
    const headOid = listed
      .split('\n')
      .find((line) => line.endsWith(`\trefs/heads/${branch}`))
      ?.split('\t')[0];
    if (headOid === undefined) return { $case: 'missing', reason: `${fork} has no branch ${branch}` };
    let message: string;
    try {
      await git(['init', '--quiet', '--bare', scratch], scratch);
      await git(['fetch', '--quiet', '--no-tags', '--depth=1', cloneUrl, `refs/heads/${branch}`], scratch);
      message = await git(['log', '-1', '--format=%B', headOid], scratch);
    } catch (error) {
      throw new SolverError(
        'git-failed',
        `fetching ${branch} from ${cloneUrl} failed: ${(error as Error).message.trim()}`,
        { cause: error },
      );
    }
    const { title, summary } = titleAndSummary(message);
    return {
      $case: 'found',
      fix: {
        fork,
        branch,
        head: `${input.forkOwner}:${branch}`,
        headOid,
        title: title || `Fix #${input.issue}`,
        summary,
      },
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
