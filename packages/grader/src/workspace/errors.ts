// Owns the one error type the grader's git isolation throws, so the trial runner branches on a
// stable `code` (a missing base commit is a task defect, a failed git call is a harness error).
import { AbpError } from '@abp/protocol/errors';

export type WorkspaceErrorCode =
  | 'invalid-base-commit'
  | 'missing-base-commit'
  | 'source-not-a-repository'
  | 'invalid-trial-root'
  | 'workspace-missing'
  | 'workspace-too-large'
  | 'verification-dir-exists'
  | 'git-failed';

export class WorkspaceError extends AbpError<WorkspaceErrorCode> {}
