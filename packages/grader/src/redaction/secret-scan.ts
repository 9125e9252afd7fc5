// Finding, without rewriting, what the published redaction list hides: for text meant to be published as it is, such as
// the golden trace a solver contributes (spec §4.2), where rewriting would change the evidence and a refusal names the
// rule to redact by. Only the list's pattern rules apply: its env-value rules need the environment the text was written
// in, which a scanner handed the text alone does not have, and its path rule describes how the redactor writes paths.
import { committedRedactionList, REDACTION_PATTERN_FLAGS } from './redaction-list.js';

// What the redactor leaves in place of a secret. A pattern whose secret part may hold brackets and colons (a URL's
// password) matches its own label again; a label is what redaction already did, not a secret.
const REDACTION_LABEL = /^\[REDACTED:[^\]]*\]$/;

let compiled: Array<{ id: string; pattern: RegExp }> | undefined;
function patternRules(): Array<{ id: string; pattern: RegExp }> {
  compiled ??= committedRedactionList().rules.flatMap((rule) =>
    rule.kind === 'pattern' && rule.pattern !== undefined
      ? [{ id: rule.id, pattern: new RegExp(rule.pattern, REDACTION_PATTERN_FLAGS) }]
      : [],
  );
  return compiled;
}

/** The ids of the committed list's pattern rules that find a secret in `text`, in list order; empty when none does. */
export function secretRulesMatching(text: string): string[] {
  return patternRules().flatMap(({ id, pattern }) => {
    for (const match of text.matchAll(pattern)) {
      if (!REDACTION_LABEL.test(match.groups?.secret ?? match[0])) return [id];
    }
    return [];
  });
}
