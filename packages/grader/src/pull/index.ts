// Pulling a frozen task from a registry's `abp serve` as a consumer, or unpacking a bundle read from a file with the
// same checks: the client, the checks (trust root chain, digest, signature, log inclusion and consistency), the
// checkpoints kept between pulls, and the provenance.json left beside the task. This file only re-exports.

export { PullError, type PullErrorCode } from './errors.js';
export {
  PULLED_HELD_OUT_DIR,
  PULLED_TASK_DIR,
  loadPinnedTrustRoot,
  pullTask,
  walkTrustRoot,
  type PullOptions,
  type PulledGoldenTrace,
  type PulledTask,
} from './pull.js';
export { unpackTask, type UnpackOptions, type UnpackedTask } from './unpack.js';
export { createRegistryClient, registryName, type RegistryClient } from './client.js';
export { readCappedBody } from './capped-body.js';
export { keepCheckpoints, keptCheckpointsFile, readKeptCheckpoints } from './kept-checkpoints.js';
export { logKeysOf } from './log-proof.js';
export { downloadLog } from './remote-log.js';
export {
  PROVENANCE_FILE,
  ProvenanceError,
  TASK_PROVENANCE_SCHEMA_ID,
  parseServeUrl,
  provenanceOf,
  readTaskProvenance,
  readTasksProvenance,
  taskProvenanceSchema,
  writeTaskProvenance,
  type ProvenanceErrorCode,
  type TaskProvenance,
  type VerifiedBundle,
} from './provenance.js';
