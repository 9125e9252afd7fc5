// The eligibility rules abp-eligibility/1: one case per reason, the order between them, label normalization, opt-outs,
// the pool's shape and order, the refusal of other signal rules, and the documentation that states them.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SIGNAL_RULES } from '../../src/backlog/body-signals.js';
import {
  DEBATE_TITLE_PATTERNS,
  ELIGIBILITY_REASONS,
  ELIGIBILITY_RULES,
  eligiblePool,
  issueVerdict,
  LABEL_CLASSES,
  normalizeLabel,
  type EligibilityReason,
} from '../../src/backlog/eligibility.js';
import { BacklogError } from '../../src/backlog/errors.js';
import type { BacklogIssue, BacklogSnapshot, BodySignals } from '../../src/backlog/types.js';

const NONE: BodySignals = { reproduction: false, question: false, proposal: false };
const REPRO: BodySignals = { reproduction: true, question: false, proposal: false };

function issue(number: number, overrides: Partial<BacklogIssue> = {}): BacklogIssue {
  return {
    number,
    title: `Issue ${number}`,
    labels: [],
    author: 'ada',
    createdAt: '2026-10-02T09:00:00Z',
    updatedAt: '2026-10-30T17:45:12Z',
    comments: 0,
    claimedBy: [],
    signals: REPRO,
    ...overrides,
  };
}

function snapshot(repos: BacklogSnapshot['repos']): BacklogSnapshot {
  return {
    schema: 'abp-backlog/v1',
    registryVersion: 'abp-registry/2026Q4',
    takenAt: '2026-11-01T00:01:00Z',
    signalRules: SIGNAL_RULES,
    repos,
  };
}

describe('issueVerdict', () => {
  const cases: Array<[string, Partial<BacklogIssue>, EligibilityReason | null]> = [
    ['a reproduced defect', {}, null],
    ['a bug label without a reproduction', { labels: ['bug'], signals: NONE }, null],
    ['a claimed defect', { claimedBy: [40] }, 'claimed'],
    ['a documentation task', { labels: ['documentation'] }, 'out-of-scope'],
    ['a declined report, even with a bug label', { labels: ['Type: Bug', 'wontfix'] }, 'out-of-scope'],
    ['a debate by label', { labels: ['type: discussion'] }, 'feature-debate'],
    [
      'a debate by title, even labeled enhancement',
      { title: 'RFC: should we retry by default?', labels: ['enhancement'], signals: { ...NONE, proposal: true } },
      'feature-debate',
    ],
    ['a question by label, even with a reproduction', { labels: ['kind/support'] }, 'question'],
    ['a question by wording', { title: 'How do I retry?', signals: { ...NONE, question: true } }, 'question'],
    ['a question worded with a reproduction: a defect', { signals: { ...REPRO, question: true } }, null],
    ['a question worded with a bug label: a defect', { labels: ['bug'], signals: { ...NONE, question: true } }, null],
    ['a feature by label', { labels: ['enhancement'] }, 'feature-request'],
    ['a feature by wording', { signals: { ...NONE, proposal: true } }, 'feature-request'],
    ['a proposal wording with a reproduction: a defect', { signals: { ...REPRO, proposal: true } }, null],
    ['nothing to reproduce', { signals: NONE }, 'not-reproducible'],
    ['a chore with a maintenance label', { labels: ['kind/cleanup'], signals: NONE }, 'not-reproducible'],
    ['out of scope before a debate', { labels: ['duplicate', 'discussion'] }, 'out-of-scope'],
    ['a debate before a question', { labels: ['question'], title: 'Discussion: retries' }, 'feature-debate'],
    ['a question before a feature', { labels: ['enhancement', 'question'] }, 'question'],
    ['a claimed question is a question', { labels: ['question'], claimedBy: [3] }, 'question'],
  ];
  for (const [name, overrides, reason] of cases) {
    it(`${name}: ${reason ?? 'eligible'}`, () => {
      expect(issueVerdict(issue(1, overrides))).toBe(reason);
    });
  }

  it('covers every reason', () => {
    expect(new Set(cases.map(([, , reason]) => reason).filter((reason) => reason !== null))).toEqual(
      new Set(Object.keys(ELIGIBILITY_REASONS).filter((reason) => reason !== 'opted-out')),
    );
  });
});

describe('normalizeLabel', () => {
  it('reads the spellings projects use', () => {
    const cases: Array<[string, string]> = [
      ['bug', 'bug'],
      ['Type: Bug', 'bug'],
      ['type:bug', 'bug'],
      ['kind/bug', 'bug'],
      ['T-bug', 'bug'],
      ['🐛 Bug', 'bug'],
      [':bug: bug', 'bug'],
      ['status: wontfix', 'wontfix'],
      ['resolution/duplicate', 'duplicate'],
      ['feature-request', 'feature request'],
      ['Feature_Request', 'feature request'],
      ["Won't Fix", "won't fix"],
      ['good first issue', 'good first issue'],
      ['triage/accepted', 'triage/accepted'],
    ];
    for (const [name, normalized] of cases) expect(normalizeLabel(name), name).toBe(normalized);
  });

  it('classifies only names in normalized form', () => {
    for (const name of Object.keys(LABEL_CLASSES)) expect(normalizeLabel(name), name).toBe(name);
  });
});

describe('eligiblePool', () => {
  const subject = snapshot([
    { repo: 'acme/empty', issues: [] },
    { repo: 'acme/questions', issues: [issue(1, { labels: ['question'] }), issue(2, { signals: NONE })] },
    { repo: 'Acme/Widget', issues: [issue(3), issue(5, { labels: ['enhancement'] }), issue(8, { title: 'Eight' })] },
    { repo: 'zeta/tool', issues: [issue(2, { claimedBy: [9] }), issue(4, { title: 'Four' })] },
  ]);

  it('keeps repositories with an eligible issue, and rejects every other issue with its reason, in snapshot order', () => {
    const result = eligiblePool(subject, { optOuts: new Set() });
    expect(result.rules).toBe(ELIGIBILITY_RULES);
    expect(result.pool).toEqual({
      repos: [
        {
          repo: 'Acme/Widget',
          issues: [
            { number: 3, title: 'Issue 3' },
            { number: 8, title: 'Eight' },
          ],
        },
        { repo: 'zeta/tool', issues: [{ number: 4, title: 'Four' }] },
      ],
    });
    expect(result.rejected).toEqual([
      { repo: 'acme/questions', number: 1, reason: 'question' },
      { repo: 'acme/questions', number: 2, reason: 'not-reproducible' },
      { repo: 'Acme/Widget', number: 5, reason: 'feature-request' },
      { repo: 'zeta/tool', number: 2, reason: 'claimed' },
    ]);
  });

  it('rejects every issue of an opted-out repository, matching the name without regard to case', () => {
    const result = eligiblePool(subject, { optOuts: new Set(['acme/widget', 'nobody/else']) });
    expect(result.pool.repos.map((entry) => entry.repo)).toEqual(['zeta/tool']);
    expect(result.rejected.filter((entry) => entry.repo === 'Acme/Widget')).toEqual(
      [3, 5, 8].map((number) => ({ repo: 'Acme/Widget', number, reason: 'opted-out' })),
    );
  });

  it('refuses a snapshot whose signals follow other rules', () => {
    const error = (() => {
      try {
        eligiblePool({ ...subject, signalRules: 'abp-body-signals/0' }, { optOuts: new Set() });
      } catch (thrown) {
        return thrown;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(BacklogError);
    expect((error as BacklogError).code).toBe('signal-rules-mismatch');
  });
});

describe('the documentation', () => {
  it('states the version, every reason, every label name and every debate title pattern', async () => {
    const doc = await readFile(new URL('../../../../docs/eligibility.md', import.meta.url), 'utf8');
    expect(doc).toContain(`\`${ELIGIBILITY_RULES}\``);
    for (const reason of Object.keys(ELIGIBILITY_REASONS)) expect(doc, reason).toContain(`\`${reason}\``);
    for (const name of Object.keys(LABEL_CLASSES)) expect(doc, name).toContain(`\`${name}\``);
    for (const pattern of DEBATE_TITLE_PATTERNS) expect(doc).toContain(`\`/${pattern.source}/${pattern.flags}\``);
  });
});
