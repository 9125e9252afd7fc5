// What the grader hides before it stores or publishes anything (spec §6, §12.1): the published list, the redactor, and
// the scan that finds what the list hides in text published as it is.
export {
  loadRedactionList,
  parseRedactionList,
  redactionListPath,
  redactionListSchema,
  redactionRuleKinds,
  RedactionError,
  type RedactionErrorCode,
  type RedactionList,
  type RedactionRule,
  type RedactionRuleKind,
} from './redaction-list.js';
export { createRedactor, type RedactionContext, type Redactor } from './redactor.js';
export { secretRulesMatching } from './secret-scan.js';
