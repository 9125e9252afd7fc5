// The freeze core: a merged fix in, FAIL_TO_PASS / PASS_TO_PASS from repeated real runs out.
// Each concept lives in its own module; this file only re-exports.

export { FreezeError, type FreezeErrorCode } from './errors.js';
export { parseFreezeInput, type FreezeInput } from './inputs.js';
export {
  classifyRuns,
  type Classification,
  type ClassificationRejection,
  type FlakyTest,
  type RunResults,
  type TestOutcome,
} from './classify.js';
export { verificationCommands, type VerificationCommands } from './commands.js';
export { splitFix, type FixSplit, type RecordedFile } from './split.js';
export type { RunRecord, RunState } from './suite-runs.js';
export {
  freezeFix,
  type FreezeOptions,
  type FreezeOutcome,
  type FrozenFix,
  type RejectedFix,
  type RejectionReason,
} from './freeze.js';
export {
  BUILDER,
  buildTask,
  cutoffsBefore,
  freezeInputOf,
  freezeTask,
  planFreeze,
  publishTask,
  verifiedCutoffs,
  type BuiltTask,
  type FreezePlan,
  type PublishedTask,
  type TaskBuildDependencies,
  type TaskFreezeDependencies,
  type TaskPublishDependencies,
  type TaskRejection,
  type TaskFreezeInput,
  type TaskFreezeOutcome,
} from './task.js';
export { recipeFor } from './recipe.js';
