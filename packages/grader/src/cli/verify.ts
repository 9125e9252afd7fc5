// `abp verify <bundle>`: a task bundle against a pinned trust root. Verification failures keep the signing module's
// codes, so each tampering has its own in --json output.
import { createHash } from 'node:crypto';
import { MAX_BUNDLE_BYTES, MAX_JSON_INPUT_BYTES } from '../input-limits.js';
import { readBoundedFile } from '@abp/protocol/files/bounded-read';
import { readBundleSubjects } from '../bundle/unpack.js';
import { TASK_BUNDLE_PREDICATE, taskBundleSubjectNames } from '@abp/protocol/signing/statement';
import { loadTrustRoot } from '@abp/protocol/signing/trust-root';
import { verifyStatementBundle } from '../trust/verify.js';
import { SigningError } from '@abp/protocol/signing/errors';
import { homePaths, resolveHome } from '../home.js';
import { createOutput, type OutputOptions } from './output.js';

export interface VerifyOptions extends OutputOptions {
  signature?: string;
  trustRoot?: string;
}

export async function verifyCommand(archive: string, options: VerifyOptions): Promise<void> {
  const out = createOutput(options);
  const signaturePath = options.signature ?? archive.replace(/\.tar$/, '') + '.sigstore.json';
  const trustRootPath = options.trustRoot ?? homePaths(resolveHome()).trustRoot;
  const bytes = await readBoundedFile(archive, { maxBytes: MAX_BUNDLE_BYTES, what: 'a task bundle' });
  // The archive's digest is taken over its bytes before anything parses them: a tampered archive is a digest mismatch.
  const archiveHex = createHash('sha256').update(bytes).digest('hex');
  const text = (
    await readBoundedFile(signaturePath, {
      maxBytes: MAX_JSON_INPUT_BYTES,
      what: "the bundle's signature (--signature)",
    })
  ).toString('utf8');
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
  if (
    verified.statement.subject.find((subject) => subject.name === names.bundle)?.digest.sha256 !== archiveHex ||
    signedHeldOut !== subjects.heldOut
  ) {
    throw new SigningError(
      'digest-mismatch',
      `the statement does not name this archive as ${names.bundle} and its held-out part (sha256:${subjects.heldOut}) as ${names.heldOut}`,
    );
  }
  out.line(
    `verified: ${archive} is task ${taskId}, sha256:${subjects.archive}, held-out part sha256:${subjects.heldOut}`,
  );
  const signer =
    verified.signer.kind === 'keyed'
      ? `key ${verified.signer.keyId}`
      : `${verified.signer.identity} (${verified.signer.issuer})`;
  out.line(`signed by ${signer} at ${verified.signedAt}, trusted then by ${trustRootPath}`);
  out.data({
    verified: true,
    taskId,
    digest: `sha256:${subjects.archive}`,
    heldOutDigest: `sha256:${subjects.heldOut}`,
    signer: verified.signer,
    keyId: verified.keyId,
    signedAt: verified.signedAt,
  });
}
