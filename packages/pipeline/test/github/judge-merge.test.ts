// The merge verdict of spec §4.2 as a pure function, condition by condition, and the parsing of
// pull request URLs that readPullByUrl relies on.
import { describe, expect, it } from 'vitest';
import { judgeMerge, parsePullUrl, PullRequestError } from '../../src/github/pulls.js';
import type { PullStatus } from '../../src/github/pulls.js';

const merged: PullStatus = {
  nodeId: 'PR_x',
  url: 'https://github.com/octo/repo/pull/12',
  repo: 'octo/repo',
  number: 12,
  state: 'MERGED',
  merged: true,
  mergedAt: '2026-11-02T10:00:00Z',
  mergedBy: 'octo',
  baseRefName: 'main',
  defaultBranch: 'main',
  repoArchived: false,
  headOid: 'a'.repeat(40),
  mergeCommitOid: 'b'.repeat(40),
  checks: 'SUCCESS',
  closesIssues: [7],
  updatedAt: '2026-11-02T10:00:00Z',
};

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof PullRequestError ? error.code : 'not a PullRequestError';
  }
  return undefined;
}

describe('judgeMerge', () => {
  it('accepts a merge into the default branch, by a writer, with green checks', () => {
    expect(judgeMerge(merged, true)).toEqual({ accepted: true });
  });

  it('rejects an open or closed-unmerged pull request as not merged', () => {
    expect(
      judgeMerge(
        { ...merged, state: 'OPEN', merged: false, mergedAt: null, mergedBy: null, mergeCommitOid: null },
        true,
      ),
    ).toMatchObject({ accepted: false, reason: 'not-merged', detail: expect.stringContaining('open') as string });
    expect(
      judgeMerge(
        { ...merged, state: 'CLOSED', merged: false, mergedAt: null, mergedBy: null, mergeCommitOid: null },
        true,
      ),
    ).toMatchObject({ accepted: false, reason: 'not-merged' });
  });

  it('rejects a merge into another branch than the default one', () => {
    expect(judgeMerge({ ...merged, baseRefName: 'release-1.x' }, true)).toMatchObject({
      accepted: false,
      reason: 'not-default-branch',
      detail: expect.stringContaining('release-1.x') as string,
    });
    expect(judgeMerge({ ...merged, defaultBranch: null }, true)).toMatchObject({
      accepted: false,
      reason: 'not-default-branch',
    });
  });

  it('rejects a merger without write access, a deleted account included', () => {
    expect(judgeMerge(merged, false)).toMatchObject({
      accepted: false,
      reason: 'merger-without-write-access',
      detail: expect.stringContaining('octo') as string,
    });
    expect(judgeMerge({ ...merged, mergedBy: null }, false)).toMatchObject({
      accepted: false,
      reason: 'merger-without-write-access',
      detail: expect.stringContaining('deleted account') as string,
    });
  });

  it('rejects checks that were not green: failing, pending, errored, expected or never run', () => {
    for (const checks of ['FAILURE', 'PENDING', 'ERROR', 'EXPECTED', null] as const) {
      expect(judgeMerge({ ...merged, checks }, true)).toMatchObject({ accepted: false, reason: 'checks-not-green' });
    }
  });

  it('names the first condition that fails, in the order of spec §4.2', () => {
    const everythingWrong: PullStatus = { ...merged, baseRefName: 'dev', checks: 'FAILURE' };
    expect(judgeMerge(everythingWrong, false)).toMatchObject({ reason: 'not-default-branch' });
    expect(judgeMerge({ ...everythingWrong, baseRefName: 'main' }, false)).toMatchObject({
      reason: 'merger-without-write-access',
    });
  });
});

describe('parsePullUrl', () => {
  it('reads owner, name and number from a web URL, on github.com or another host', () => {
    expect(parsePullUrl('https://github.com/octo/my.repo/pull/12')).toEqual({
      owner: 'octo',
      name: 'my.repo',
      number: 12,
    });
    expect(parsePullUrl('http://127.0.0.1:4567/mira-quill/textkit/pull/6/')).toEqual({
      owner: 'mira-quill',
      name: 'textkit',
      number: 6,
    });
  });

  it('refuses what is not a pull request URL', () => {
    for (const url of [
      'github.com/octo/repo/pull/12',
      'https://github.com/octo/repo/issues/12',
      'https://github.com/octo/repo/pull/0',
      'https://github.com/octo/repo/pull/12/files',
      'ftp://github.com/octo/repo/pull/12',
      'https://github.com/octo/repo/pull/99999999999999999999',
    ]) {
      expect(
        codeOf(() => parsePullUrl(url)),
        url,
      ).toBe('malformed-pull-url');
    }
  });
});
