// How a task is verified: its one-line commands read without a shell, each runner made to leave a machine-readable
// report and its verdict read from it, and the deterministic assertions of fixture tasks. This file only re-exports.

export {
  CommandLineError,
  parseCommandLine,
  splitCommandLine,
  type CommandLineErrorCode,
  type ParsedCommandLine,
} from './command-line.js';
export {
  RunnerPlanError,
  planRunner,
  summarizeRun,
  type CommandVerdict,
  type RunnerName,
  type RunnerPlan,
  type RunnerPlanErrorCode,
} from './runner-recipes.js';
export {
  ASSERTIONS_SCHEMA_ID,
  assertionsSchema,
  evaluateAssertion,
  type AssertionContext,
  type AssertionResult,
  type FixtureAssertion,
} from './assertions.js';
export {
  MAX_REPORT_BYTES,
  matchingReportFiles,
  PlannedReportError,
  readPlannedReport,
  type PlannedReportErrorCode,
  type ReportPlace,
  type RunOutput,
} from './planned-report.js';
export { isCanary, planCanaries, readCanaries, type CanaryNames, type CanaryPlan } from './canaries.js';
export { MACHINERY, machineryRule, type MachineryRule } from './machinery.js';
export { OPTIONS_WITH_VALUE, positionals } from './runner-options.js';
