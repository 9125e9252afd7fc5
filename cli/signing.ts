// `abp init` (the operator's signing key and trust root) and `abp verify <bundle>` (a task bundle against a pinned
// trust root). Verification failures keep the signing module's codes, so each tampering has its own in --json output.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { readBundleSubjects } from '../freeze/bundle/index.js';
import { signingPaths } from '../signing/home.js';
import { createSigningKey, loadSigningKey } from '../signing/keys.js';
import { TASK_BUNDLE_PREDICATE, taskBundleSubjectNames } from '../signing/statement.js';
import { createTrustRoot, loadTrustRoot, saveTrustRoot } from '../signing/trust-root.js';
import { verifyStatementBundle } from '../signing/verify.js';
import { SigningError } from '../signing/errors.js';
import { resolveStackConfig } from '../stack/config.js';
import { createOutput, type OutputOptions } from './output.js';

const exists = (path: string) => stat(path).then(() => true, () => false);

export async function initCommand(options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const paths = signingPaths(resolveStackConfig().home);
  // Idempotent: a second init keeps the key and the trust root (a replaced key would orphan what it signed).
  const created = !(await exists(`${paths.keyDir}/signing-key.pem`));
  const key = created ? await createSigningKey(paths.keyDir) : await loadSigningKey(paths.keyDir);
  if (!(await exists(paths.trustRoot))) await saveTrustRoot(paths.trustRoot, createTrustRoot(key, `${new Date().toISOString().slice(0, 19)}Z`));
  const trustRoot = await loadTrustRoot(paths.trustRoot);
  out.line(`${created ? 'created' : 'kept'} signing key ${key.keyId} (${paths.keyDir}, mode 0600)`);
  out.line(`trust root ${paths.trustRoot} (version ${trustRoot.version}, ${trustRoot.keys.length} key${trustRoot.keys.length === 1 ? '' : 's'}): publish it; consumers pin it`);
  out.data({ keyId: key.keyId, created, trustRoot: paths.trustRoot, trustRootVersion: trustRoot.version });
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
  out.line(`signed by key ${verified.keyId} at ${verified.signedAt}, valid then in ${trustRootPath}`);
  out.data({ verified: true, taskId, digest: `sha256:${subjects.archive}`, heldOutDigest: `sha256:${subjects.heldOut}`, keyId: verified.keyId, signedAt: verified.signedAt });
}
