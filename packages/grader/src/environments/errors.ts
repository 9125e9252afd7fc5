// Owns the failures of building, storing, moving and running an environment. `environment-build-failed` is the
// repository's (its install needs what the registries cannot give) and rejects a freeze; the others are abp's inputs
// or a store that is not what it claims, and fail closed.
import { AbpError } from '@abp/protocol/errors';

export type EnvironmentErrorCode =
  | 'invalid-environment-spec'
  | 'environment-build-failed'
  | 'base-build-failed'
  | 'toolchain-unavailable'
  | 'environment-missing'
  | 'environment-mismatch'
  | 'layer-tampered'
  | 'layer-missing'
  | 'unsafe-layer'
  | 'layer-source-changed'
  | 'invalid-image'
  /** An imported base's layer (or its index, manifest or config) larger than stated, compressed or not. */
  | 'image-too-large'
  | 'environment-unavailable';

export class EnvironmentError extends AbpError<EnvironmentErrorCode> {}
