// A task bundle's git side and its unpacking: base's object stream (written from a repository, rehydrated into one)
// and the task folder the grader loads. The archive format itself is @abp/protocol's bundle/. This file only re-exports.

export {
  OBJECT_STREAM_HEADER,
  REHYDRATED_BRANCH,
  parseObjectStream,
  rehydrateRepository,
  writeObjectStream,
  type GitObject,
  type GitObjectType,
} from './git-objects.js';
export { readBundleSubjects, unpackBundle, type UnpackTarget, type UnpackedBundle } from './unpack.js';
