// `abp init` (the operator's signing key and the trust root, published and logged as version 1) and `abp verify <bundle>`
// (a task bundle against a pinned trust root). Verification failures keep the signing module's codes, so each tampering
// has its own in --json output.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { readBundleSubjects } from '../freeze/bundle/index.js';
import { signingPaths } from '../signing/home.js';
import { initSigning } from '../signing/key-rotation.js';
import { TASK_BUNDLE_PREDICATE, taskBundleSubjectNames } from '../signing/statement.js';
import { loadTrustRoot } from '../signing/trust-root.js';
import { verifyStatementBundle } from '../signing/verify.js';
import { SigningError } from '../signing/errors.js';
import { resolveStackConfig } from '../stack/config.js';
import { createOutput, type OutputOptions } from './output.js';

export async function initCommand(options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const home = resolveStackConfig().home;
  const paths = signingPaths(home);
  // Idempotent: a second init keeps the key and the trust root (a replaced key would orphan what it signed), publishes
  // version 1 for a data directory made before versions were, and completes a key rotation a crash interrupted.
  const { key, created, trustRoot, completedRotation } = await initSigning(home);
  if (completedRotation !== null) {
    out.line(`completed the key rotation an earlier run left unfinished: key ${completedRotation.to} replaces ${completedRotation.from} (trust root version ${completedRotation.version})`);
  }
  out.line(`${created ? 'created' : 'kept'} signing key ${key.keyId} (${paths.keyDir}, mode 0600)`);
  out.line(`trust root ${paths.trustRoot} (version ${trustRoot.version}, ${trustRoot.keys.length} key${trustRoot.keys.length === 1 ? '' : 's'}): publish it; consumers pin it`);
  out.line(`every version, signed: ${paths.trustRoots}/v<N>.json and v<N>.sigstore.json, each in the transparency log`);
  out.data({ keyId: key.keyId, created, trustRoot: paths.trustRoot, trustRootVersion: trustRoot.version, trustRoots: paths.trustRoots, completedRotation });
}

export interface VerifyOptions extends OutputOptions {
  signature?: string;
  trustRoot?: string;
}

export async function verifyCommand(archive: string, options: VerifyOptions): Promise<void> {
  const out = createOutput(options);
  const signaturePath = options.signature ?? archive.replace(/\.tar$/, '') + '.sigstore.json';
  const trustRootPath = options.trustRoot ?? signingPaths(resolveStackConfig().home).trustRoot;
  const bytes = await readFile(archive).catch((error: NodeJS.ErrnoException) => {
    throw new SigningError('digest-mismatch', `${archive}: cannot read the bundle (${error.code ?? error.message})`);
  });
  // The archive's digest is taken over its bytes before anything parses them: a tampered archive is a digest mismatch.
  const archiveHex = createHash('sha256').update(bytes).digest('hex');
  const text = await readFile(signaturePath, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new SigningError('malformed-bundle', `${signaturePath}: cannot read the signature (${error.code ?? error.message}); pass it with --signature`);
  });
  let signature: unknown;
  try {
    signature = JSON.parse(text);
  } catch (error) {
    throw new SigningError('malformed-bundle', `${signaturePath} is not JSON: ${(error as Error).message}`);
  }
  const verified = await verifyStatementBundle(signature, await loadTrustRoot(trustRootPath), {
    subjects: [{ sha256: archiveHex }],
    predicateType: TASK_BUNDLE_PREDICATE,
  });
  const taskId = String((verified.statement.predicate as { taskId?: unknown }).taskId);
  const names = taskBundleSubjectNames(taskId);
  const subjects = await readBundleSubjects(bytes);
  const signedHeldOut = verified.statement.subject.find((subject) => subject.name === names.heldOut)?.digest.sha256;
  if (verified.statement.subject.find((subject) => subject.name === names.bundle)?.digest.sha256 !== archiveHex || signedHeldOut !== subjects.heldOut) {
    throw new SigningError('digest-mismatch', `the statement does not name this archive as ${names.bundle} and its held-out part (sha256:${subjects.heldOut}) as ${names.heldOut}`);
  }
  out.line(`verified: ${archive} is task ${taskId}, sha256:${subjects.archive}, held-out part sha256:${subjects.heldOut}`);
  const signer = verified.signer.kind === 'keyed' ? `key ${verified.signer.keyId}` : `${verified.signer.identity} (${verified.signer.issuer})`;
  out.line(`signed by ${signer} at ${verified.signedAt}, trusted then by ${trustRootPath}`);
  out.data({ verified: true, taskId, digest: `sha256:${subjects.archive}`, heldOutDigest: `sha256:${subjects.heldOut}`, signer: verified.signer, keyId: verified.keyId, signedAt: verified.signedAt });
}
