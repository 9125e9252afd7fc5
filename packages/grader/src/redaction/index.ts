// What the grader hides before it stores or publishes anything (spec §6, §12.1): the published list and the redactor.
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
