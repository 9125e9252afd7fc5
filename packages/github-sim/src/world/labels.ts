// Label conventions a scale-world repository can follow, and which label each kind of issue gets
// under them. The spellings are the ones projects use (GitHub's defaults, `type: bug`, `kind/bug`,
// `Type: Bug`); one convention has no bug label at all, so "bug label in use" can fail.

import type { IssueKind, SimLabel } from './model.js';

export type LabelStyle = 'github-default' | 'prefixed' | 'kubernetes' | 'title-case' | 'no-bug-label';

export interface LabelConvention {
  style: LabelStyle;
  labels: readonly SimLabel[];
  /** The label each kind gets when its issue is labeled. */
  byKind: Readonly<Record<IssueKind, string>>;
  /** The bug label, or null when the convention has none. */
  bug: string | null;
  /** What a bug gets instead of the bug label in a repository that leaves its bug label unused. */
  bugFallback: string;
  /** Extra labels sometimes added next to the kind's label. */
  extras: readonly string[];
}

function label(name: string, color: string, description: string | null = null): SimLabel {
  return { name, color, description };
}

export const LABEL_CONVENTIONS: Readonly<Record<LabelStyle, LabelConvention>> = {
  'github-default': {
    style: 'github-default',
    labels: [
      label('bug', 'd73a4a', "Something isn't working"),
      label('documentation', '0075ca', 'Improvements or additions to documentation'),
      label('duplicate', 'cfd3d7', 'This issue or pull request already exists'),
      label('enhancement', 'a2eeef', 'New feature or request'),
      label('good first issue', '7057ff', 'Good for newcomers'),
      label('help wanted', '008672', 'Extra attention is needed'),
      label('invalid', 'e4e669', "This doesn't seem right"),
      label('question', 'd876e3', 'Further information is requested'),
      label('wontfix', 'ffffff', 'This will not be worked on'),
    ],
    byKind: {
      bug: 'bug',
      feature: 'enhancement',
      question: 'question',
      'feature-debate': 'enhancement',
      chore: 'documentation',
    },
    bug: 'bug',
    bugFallback: 'help wanted',
    extras: ['good first issue', 'help wanted'],
  },
  prefixed: {
    style: 'prefixed',
    labels: [
      label('type: bug', 'e11d21'),
      label('type: feature', '84b6eb'),
      label('type: question', 'cc317c'),
      label('type: discussion', 'fef2c0'),
      label('type: chore', 'c5def5'),
      label('status: needs triage', 'fbca04'),
      label('good first issue', '7057ff'),
      label('help wanted', '008672'),
    ],
    byKind: {
      bug: 'type: bug',
      feature: 'type: feature',
      question: 'type: question',
      'feature-debate': 'type: discussion',
      chore: 'type: chore',
    },
    bug: 'type: bug',
    bugFallback: 'status: needs triage',
    extras: ['good first issue', 'help wanted'],
  },
  kubernetes: {
    style: 'kubernetes',
    labels: [
      label('kind/bug', 'e11d21', 'Categorizes issue or PR as related to a bug.'),
      label('kind/feature', 'c7def8', 'Categorizes issue or PR as related to a new feature.'),
      label('kind/support', 'd455d0', 'Categorizes issue or PR as a support question.'),
      label('kind/design', 'c7def8', 'Categorizes issue or PR as related to design.'),
      label('kind/cleanup', 'c7def8', 'Categorizes issue or PR as related to cleaning up code.'),
      label('triage/accepted', '8fc951', 'Indicates an issue or PR is ready to be actively worked on.'),
      label('good first issue', '7057ff'),
      label('help wanted', '006b75'),
      label('lifecycle/stale', '795548'),
    ],
    byKind: {
      bug: 'kind/bug',
      feature: 'kind/feature',
      question: 'kind/support',
      'feature-debate': 'kind/design',
      chore: 'kind/cleanup',
    },
    bug: 'kind/bug',
    bugFallback: 'triage/accepted',
    extras: ['good first issue', 'help wanted', 'lifecycle/stale'],
  },
  'title-case': {
    style: 'title-case',
    labels: [
      label('Type: Bug', 'ee0701'),
      label('Type: Enhancement', '84b6eb'),
      label('Type: Question', 'cc317c'),
      label('Type: Discussion', 'fbca04'),
      label('Type: Maintenance', 'c2e0c6'),
      label('Good First Issue', '7057ff'),
      label('Help Wanted', '128a0c'),
    ],
    byKind: {
      bug: 'Type: Bug',
      feature: 'Type: Enhancement',
      question: 'Type: Question',
      'feature-debate': 'Type: Discussion',
      chore: 'Type: Maintenance',
    },
    bug: 'Type: Bug',
    bugFallback: 'Help Wanted',
    extras: ['Good First Issue', 'Help Wanted'],
  },
  'no-bug-label': {
    style: 'no-bug-label',
    labels: [
      label('enhancement', 'a2eeef'),
      label('question', 'd876e3'),
      label('discussion', 'fbca04'),
      label('documentation', '0075ca'),
      label('needs triage', 'e99695'),
      label('confirmed', '0e8a16'),
      label('help wanted', '008672'),
    ],
    byKind: {
      bug: 'confirmed',
      feature: 'enhancement',
      question: 'question',
      'feature-debate': 'discussion',
      chore: 'documentation',
    },
    bug: null,
    bugFallback: 'needs triage',
    extras: ['help wanted'],
  },
};
