// The task bundle: deterministic archives, base's object stream, building, unpacking and the content-addressed store.
// Each concept lives in its own module; this file only re-exports.

export { BundleError, type BundleErrorCode } from './errors.js';
export { buildBundle, sha256Hex, type BuiltBundle, type BundleInput } from './build.js';
export { EXPECTED_RESULTS_SCHEMA_ID, expectedResultsSchema, parseExpectedResults, serializeExpectedResults, testOutcomes, type ExpectedResults } from './expected-results.js';
export { OBJECT_STREAM_HEADER, REHYDRATED_BRANCH, parseObjectStream, rehydrateRepository, writeObjectStream, type GitObject, type GitObjectType } from './git-objects.js';
export { BundleStore } from './store.js';
export { readTar, writeTar, type TarEntry } from './tar.js';
export { readBundleSubjects, unpackBundle, type UnpackTarget, type UnpackedBundle } from './unpack.js';
