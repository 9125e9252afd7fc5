// Owns the one error type of grader/diff: a patch (or the file contents behind it) that
// cannot be read as git's diff output. Callers branch on `code`, never on the message.
import { AbpError } from '@abp/protocol/errors';

export type PatchErrorCode =
  | 'unexpected-line'
  | 'bad-file-header'
  | 'bad-quoted-path'
  | 'bad-hunk-header'
  | 'hunk-length-mismatch'
  | 'bad-binary-patch'
  | 'unsupported-copy'
  | 'missing-content';

export class PatchError extends AbpError<PatchErrorCode> {}
