// The grader's git isolation: per-task caches of base's history only, per-trial workspaces,
// diff capture through a grader-private git dir, and fresh verification checkouts.

export { WorkspaceError, type WorkspaceErrorCode } from './errors.js';
export {
  cacheDigest,
  cacheProblem,
  prepareTaskRepo,
  prepareFixtureRepo,
  readBlobAtBase,
  type TaskRepo,
} from './task-repo.js';
export {
  CAPTURE_LIMITS,
  createTrialWorkspace,
  captureDiff,
  readCapturedBlob,
  snapshotWorkspace,
  type TrialWorkspace,
} from './trial.js';
export { writeGitDir } from './git-dir.js';
export {
  applyForVerification,
  checkOutForVerification,
  createVerificationCheckout,
  type GuardedPaths,
  type VerificationCheckout,
} from './verification.js';
