// `abp init`: the operator's signing key and the trust root, published and logged as version 1. Idempotent, and the
// place a key rotation that a crash interrupted is completed.
import { signingPaths } from '../signing/home.js';
import { initSigning } from '../signing/key-rotation.js';
import { resolveStackConfig } from '../worker/config.js';
import { createOutput, type OutputOptions } from '@abp/grader/cli';

export async function initCommand(options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const home = resolveStackConfig().home;
  const paths = signingPaths(home);
  // Idempotent: a second init keeps the key and the trust root (a replaced key would orphan what it signed), publishes
  // version 1 for a data directory made before versions were, and completes a key rotation a crash interrupted.
  const { key, created, trustRoot, completedRotation } = await initSigning(home);
  if (completedRotation !== null) {
    out.line(
      `completed the key rotation an earlier run left unfinished: key ${completedRotation.to} replaces ${completedRotation.from} (trust root version ${completedRotation.version})`,
    );
  }
  out.line(`${created ? 'created' : 'kept'} signing key ${key.keyId} (${paths.keyDir}, mode 0600)`);
  out.line(
    `trust root ${paths.trustRoot} (version ${trustRoot.version}, ${trustRoot.keys.length} key${trustRoot.keys.length === 1 ? '' : 's'}): publish it; consumers pin it`,
  );
  out.line(`every version, signed: ${paths.trustRoots}/v<N>.json and v<N>.sigstore.json, each in the transparency log`);
  out.data({
    keyId: key.keyId,
    created,
    trustRoot: paths.trustRoot,
    trustRootVersion: trustRoot.version,
    trustRoots: paths.trustRoots,
    completedRotation,
  });
}
