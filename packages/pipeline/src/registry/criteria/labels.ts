// Which of a repository's labels are bug labels, by the criteria's patterns: what issue hygiene counts.
import type { CriteriaDocument } from './schema.js';

/** Whether a label name is a bug label: its trimmed name matches a pattern, ignoring case. */
export function bugLabelMatcher(document: Pick<CriteriaDocument, 'bugLabelPatterns'>): (name: string) => boolean {
  const patterns = document.bugLabelPatterns.map((source) => new RegExp(source, 'i'));
  return (name) => patterns.some((pattern) => pattern.test(name.trim()));
}
