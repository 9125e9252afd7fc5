// Backlog snapshots for the audit tests: real abp-backlog/v1 snapshots that the real eligibility rules turn into a pool.
import { SIGNAL_RULES } from '../../src/backlog/body-signals.js';
import type { BacklogIssue, BacklogSnapshot } from '../../src/backlog/types.js';
import { BACKLOG_SCHEMA_ID } from '../../src/backlog/types.js';

function issue(number: number, overrides: Partial<BacklogIssue> = {}): BacklogIssue {
  return {
    number,
    title: `Crash when parsing input ${number}`,
    labels: ['bug'],
    author: `reporter${number % 17}`,
    createdAt: '2026-09-01T12:00:00Z',
    updatedAt: '2026-09-20T08:30:00Z',
    comments: number % 5,
    claimedBy: [],
    signals: { reproduction: true, question: false, proposal: false },
    ...overrides,
  };
}

/**
 * Repositories "org<i>/project" with `sizes[i]` open issues each; every fourth issue is not eligible (a question, a
 * claimed one, a feature request, in turn), so the pool is a strict subset of the snapshot.
 */
export function backlogSnapshot(sizes: readonly number[]): BacklogSnapshot {
  return {
    schema: BACKLOG_SCHEMA_ID,
    registryVersion: 'abp-registry/2026Q4',
    takenAt: '2026-10-02T00:00:00Z',
    signalRules: SIGNAL_RULES,
    repos: sizes.map((size, index) => ({
      repo: `org${String(index).padStart(3, '0')}/project`,
      issues: Array.from({ length: size }, (_, position) => {
        const number = 10 + position * 2;
        switch (position % 12) {
          case 3:
            return issue(number, {
              labels: ['question'],
              signals: { reproduction: false, question: true, proposal: false },
            });
          case 7:
            return issue(number, { claimedBy: [5000 + number] });
          case 11:
            return issue(number, { labels: ['enhancement'] });
          default:
            return issue(number);
        }
      }),
    })),
  };
}
