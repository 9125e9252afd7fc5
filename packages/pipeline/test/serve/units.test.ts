// The pure parts of `abp serve`: closing references in pull request bodies, the signals a delivery calls for, the
// bounded memory of handled delivery ids, byte ranges, conditional request validators and request paths.
import { describe, expect, it } from 'vitest';
import { noneMatch, parseRange, rangeAllowed } from '../../src/serve/ranges.js';
import { RecentIds } from '../../src/serve/recent-ids.js';
import { requestPath } from '../../src/serve/router.js';
import { closingReferences, planDelivery } from '../../src/serve/task-signals.js';

const repo = 'acme/widgets';

describe('closingReferences', () => {
  it.each([
    ['Fixes #12', [12]],
    ['fixes #1, closes #2 and resolves #3', [1, 2, 3]],
    ['FIXED #4. Closed #5; RESOLVED #6', [4, 5, 6]],
    ['close #7\nfix #8\nresolve #9', [7, 8, 9]],
    ['Fixes: #10', [10]],
    ['fixes\t#11', [11]],
    ['Fixes acme/widgets#13', [13]],
    ['Fixes ACME/Widgets#14', [14]],
    ['(fixes #15)', [15]],
    ['Fixes #16 and fixes #16 again', [16]],
    // GitHub wants a keyword before each issue: the second number of a list is a plain mention.
    ['Fixes #17, #18', [17]],
  ])('%j closes %j', (body, expected) => {
    expect(closingReferences(body, repo)).toEqual(expected);
  });

  it.each([
    ['See #12', 'a plain mention'],
    ['prefixes #3 and encloses #4', 'keywords inside longer words'],
    ['fixing #5, closing #6, resolving #7', 'other forms of the verbs'],
    ['Fixes other/widgets#8', 'an issue of another repository'],
    ['Fixes acme/widgets-two#9', 'a repository whose name only starts like this one'],
    ['Fixes #10a and fixes #', 'something that is not an issue number'],
    ['fixes#11', 'no space after the keyword'],
    ['', 'an empty body'],
  ])('%j closes nothing (%s)', (body) => {
    expect(closingReferences(body, repo)).toEqual([]);
  });
});

const pullRequest = (action: string, body: string | null, extra: Record<string, unknown> = {}) => ({
  action,
  number: 30,
  pull_request: { number: 30, html_url: 'https://github.com/Acme/widgets/pull/30', body, merged: false },
  repository: { id: 7, full_name: 'Acme/widgets' },
  sender: { login: 'solver' },
  ...extra,
});

describe('planDelivery', () => {
  it('signals every task a pull request body closes, with the pull request and the delivery', () => {
    expect(planDelivery('pull_request', 'd-1', pullRequest('closed', 'Fixes #3 and resolves Acme/widgets#5'))).toEqual({
      $case: 'signal',
      action: 'closed',
      signals: [3, 5].map((issue) => ({
        taskId: `gh-Acme-widgets-${issue}`,
        name: 'pullRequestChanged',
        payload: { prUrl: 'https://github.com/Acme/widgets/pull/30', action: 'closed', deliveryId: 'd-1' },
      })),
    });
  });

  it.each(['opened', 'closed', 'reopened', 'synchronize', 'edited'])('follows pull_request.%s', (action) => {
    expect(planDelivery('pull_request', 'd', pullRequest(action, 'Fixes #3'))).toMatchObject({
      $case: 'signal',
      action,
    });
  });

  it('on an edit, also signals the tasks the body named before it', () => {
    const plan = planDelivery(
      'pull_request',
      'd',
      pullRequest('edited', 'Fixes #4', { changes: { body: { from: 'Fixes #3' } } }),
    );
    expect(plan.$case === 'signal' && plan.signals.map((signal) => signal.taskId)).toEqual([
      'gh-Acme-widgets-4',
      'gh-Acme-widgets-3',
    ]);
  });

  it('ignores pull requests that close no issue, and actions the lifecycle does not follow', () => {
    expect(planDelivery('pull_request', 'd', pullRequest('opened', null))).toEqual({
      $case: 'ignore',
      action: 'opened',
      reason: 'no-task',
    });
    expect(planDelivery('pull_request', 'd', pullRequest('opened', 'See #3'))).toEqual({
      $case: 'ignore',
      action: 'opened',
      reason: 'no-task',
    });
    expect(planDelivery('pull_request', 'd', pullRequest('labeled', 'Fixes #3'))).toEqual({
      $case: 'ignore',
      action: 'labeled',
      reason: 'action',
    });
    expect(planDelivery('pull_request', 'd', { action: 'review_requested' })).toEqual({
      $case: 'ignore',
      action: 'review_requested',
      reason: 'action',
    });
  });

  it('signals the issue’s task when an issue closes or reopens, naming who did it', () => {
    const issue = (action: string, sender: unknown) => ({
      action,
      issue: { number: 9 },
      repository: { full_name: 'acme/widgets' },
      sender,
    });
    expect(planDelivery('issues', 'd-2', issue('closed', { login: 'maria' }))).toEqual({
      $case: 'signal',
      action: 'closed',
      signals: [
        {
          taskId: 'gh-acme-widgets-9',
          name: 'issueChanged',
          payload: { action: 'closed', by: 'maria', deliveryId: 'd-2' },
        },
      ],
    });
    expect(planDelivery('issues', 'd-3', issue('reopened', null))).toMatchObject({
      signals: [{ payload: { action: 'reopened', by: null } }],
    });
    expect(planDelivery('issues', 'd', issue('opened', { login: 'maria' }))).toEqual({
      $case: 'ignore',
      action: 'opened',
      reason: 'action',
    });
  });

  it('ignores other events', () => {
    expect(planDelivery('check_run', 'd', { action: 'completed' })).toEqual({
      $case: 'ignore',
      action: 'completed',
      reason: 'event',
    });
    expect(planDelivery('push', 'd', { ref: 'refs/heads/main' })).toEqual({
      $case: 'ignore',
      action: null,
      reason: 'event',
    });
  });

  it('calls a followed action invalid when its payload lacks what the plan needs', () => {
    expect(
      planDelivery('pull_request', 'd', { action: 'closed', repository: { full_name: 'acme/widgets' } }),
    ).toMatchObject({ $case: 'invalid', problem: expect.stringContaining('pull_request') as string });
    expect(
      planDelivery('issues', 'd', {
        action: 'closed',
        issue: { number: 0 },
        repository: { full_name: 'acme/widgets' },
      }),
    ).toMatchObject({ $case: 'invalid', problem: expect.stringContaining('issue.number') as string });
    expect(planDelivery('issues', 'd', [])).toMatchObject({ $case: 'invalid' });
  });
});

describe('RecentIds', () => {
  it('remembers up to its capacity and forgets the oldest first', () => {
    const ids = new RecentIds(2);
    ids.add('a');
    ids.add('b');
    ids.add('a');
    expect([ids.has('a'), ids.has('b')]).toEqual([true, true]);
    ids.add('c');
    expect([ids.has('a'), ids.has('b'), ids.has('c')]).toEqual([false, true, true]);
  });
});

describe('parseRange', () => {
  it('reads one byte range against the size, clamping its end', () => {
    expect(parseRange('bytes=0-0', 10)).toEqual({ $case: 'part', start: 0, end: 0 });
    expect(parseRange('bytes=5-', 10)).toEqual({ $case: 'part', start: 5, end: 9 });
    expect(parseRange(' Bytes = 2-400', 10)).toEqual({ $case: 'part', start: 2, end: 9 });
    expect(parseRange('bytes=-3', 10)).toEqual({ $case: 'part', start: 7, end: 9 });
    expect(parseRange('bytes=-30', 10)).toEqual({ $case: 'part', start: 0, end: 9 });
  });

  it('calls a range outside the representation unsatisfiable, and an empty one too', () => {
    expect(parseRange('bytes=10-', 10)).toEqual({ $case: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 10)).toEqual({ $case: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0)).toEqual({ $case: 'unsatisfiable' });
    expect(parseRange('bytes=-5', 0)).toEqual({ $case: 'unsatisfiable' });
  });

  it('answers with the whole representation when it cannot or will not serve a part', () => {
    for (const header of [
      undefined,
      'bytes=0-1,3-4',
      'lines=0-1',
      'bytes=4-2',
      'bytes=-',
      'bytes=a-b',
      'bytes 0-1',
      `bytes=${'9'.repeat(20)}-`,
    ]) {
      expect(parseRange(header, 10), String(header)).toEqual({ $case: 'whole' });
    }
  });
});

describe('conditional request validators', () => {
  it('matches If-None-Match weakly, lists and * included', () => {
    expect(noneMatch('"a"', '"a"')).toBe(true);
    expect(noneMatch('W/"a"', '"a"')).toBe(true);
    expect(noneMatch('"b", "a"', '"a"')).toBe(true);
    expect(noneMatch('*', '"a"')).toBe(true);
    expect(noneMatch('"b"', '"a"')).toBe(false);
    expect(noneMatch(undefined, '"a"')).toBe(false);
  });

  it('lets If-Range allow a part only for the exact strong tag', () => {
    expect(rangeAllowed(undefined, '"a"')).toBe(true);
    expect(rangeAllowed('"a"', '"a"')).toBe(true);
    expect(rangeAllowed('W/"a"', '"a"')).toBe(false);
    expect(rangeAllowed('Wed, 21 Oct 2026 07:28:00 GMT', '"a"')).toBe(false);
  });
});

describe('requestPath', () => {
  it('decodes segments and refuses dot segments and encoded separators', () => {
    expect(requestPath('/v1/bundles/sha256%3Aab?x=1')).toEqual({
      $case: 'path',
      segments: ['v1', 'bundles', 'sha256:ab'],
    });
    expect(requestPath('http://host:80/v1/tasks')).toEqual({ $case: 'path', segments: ['v1', 'tasks'] });
    for (const target of [
      '/v1/../x',
      '/v1/%2E%2e/x',
      '/v1/./x',
      '/v1/a%2Fb',
      '/v1/a%5Cb',
      '/v1/a%00',
      '/v1/%E0%A4%A',
      '*',
    ]) {
      expect(requestPath(target).$case, target).toBe('refused');
    }
  });
});
