// Execution environments: OCI images built once per repository and its dependency files, stored by digest, unpacked
// and run with bubblewrap, exported for docker. The freeze and the grader both run through here. Only re-exports.

export { EnvironmentError, type EnvironmentErrorCode } from './errors.js';
export {
  buildEnvironment,
  fileDigest,
  ENVIRONMENT_BUILDER,
  type BuildInput,
  type EnvironmentBuild,
  type EnvironmentRequest,
} from './build.js';
export {
  EnvironmentStore,
  checkDigest,
  MEDIA_TYPES,
  type Descriptor,
  type Image,
  type ImageConfig,
  type ImageManifest,
} from './store.js';
export {
  CHECKOUT,
  LABELS,
  offlineVariables,
  pinnedVariables,
  WORK_FOLDERS,
  ENV_PREFIX,
  ENGINE_ROOT,
  checkoutMounts,
  environmentArgv,
  environmentVariables,
  type EnvironmentRun,
  type Mount,
} from './runtime.js';
export { checkEnvironmentFits, filesAtCommit, recordedDependencyFiles } from './fit.js';
export { registryAccess, type RegistryAccess } from './registry-access.js';
export {
  basePlan,
  requestedToolchain,
  satisfiesPython,
  TOOLCHAIN_FILES,
  type Ecosystem,
  type ToolchainRequest,
} from './toolchains.js';
export { unpackLayer, writeLayer } from './layer-tar.js';
