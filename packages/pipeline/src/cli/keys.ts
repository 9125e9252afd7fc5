// `abp keys rotate` (a new signing key, the old one retired in a new trust root version it signs itself) and
// `abp keys list` (every key the trust root lists, with its window and state). The work is signing/key-rotation.ts.
import { stat } from 'node:fs/promises';
import { signingPaths } from '../signing/home.js';
import { readRotationRecord, retiredKeyPath, rotateSigningKey, rotationPaths } from '../signing/key-rotation.js';
import { loadSigningKey } from '../signing/keys.js';
import { keyStateAt, loadTrustRoot, type KeyState } from '@abp/protocol/signing/trust-root';
import { resolveStackConfig } from '../worker/config.js';
import { createOutput, type OutputOptions } from '@abp/grader/cli';

export async function keysRotateCommand(options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const home = resolveStackConfig().home;
  const paths = signingPaths(home);
  const rotated = await rotateSigningKey(home);
  if (rotated.resumed)
    out.line('completed the key rotation an earlier run left unfinished; no new rotation was started');
  out.line(`key ${rotated.to} signs from now on (valid from ${rotated.validFrom})`);
  out.line(`key ${rotated.from} retired at ${rotated.retiredAt}: what it signed until then stays valid`);
  out.line(
    `trust root version ${rotated.version}, signed by the retired key: ${paths.trustRoots}/v${rotated.version}.json, now ${paths.trustRoot}; consumers advance to it from the version they pinned`,
  );
  out.line(
    `the retired private key is ${rotated.retiredKey} (mode 0600): nothing needs it any more, so destroy it or move it offline`,
  );
  out.data(rotated);
}

export interface ListedKey {
  keyId: string;
  state: KeyState;
  validFrom: string;
  validUntil: string | null;
  retiredAt: string | null;
  /** The key in keys/signing-key.pem: the one that signs now. */
  signing: boolean;
  /** Where its private key is on this machine, or null (destroyed, offline, or never here). */
  privateKey: string | null;
}

const present = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

export async function keysListCommand(options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const home = resolveStackConfig().home;
  const paths = signingPaths(home);
  const trustRoot = await loadTrustRoot(paths.trustRoot);
  const signingKeyId = (await loadSigningKey(paths.keyDir).catch(() => null))?.keyId ?? null;
  const rotation = await readRotationRecord(home);
  const now = new Date();
  const keys: ListedKey[] = [];
  for (const key of trustRoot.keys) {
    const retired = retiredKeyPath(home, key.keyId);
    const signing = key.keyId === signingKeyId;
    keys.push({
      keyId: key.keyId,
      state: keyStateAt(key, now),
      validFrom: key.validFrom,
      validUntil: key.validUntil,
      retiredAt: key.retiredAt ?? null,
      signing,
      privateKey: signing ? rotationPaths(home).activeKey : (await present(retired)) ? retired : null,
    });
  }
  out.line(
    `trust root version ${trustRoot.version} (${paths.trustRoot}): ${keys.length} key${keys.length === 1 ? '' : 's'}`,
  );
  for (const key of keys) {
    const end = key.retiredAt !== null ? `retired ${key.retiredAt}` : (key.validUntil ?? 'open end');
    const note = key.signing
      ? '  signs now'
      : key.privateKey !== null
        ? `  private key still at ${key.privateKey}: destroy it or move it offline`
        : '';
    out.line(`  ${key.keyId}  ${key.state.padEnd(7)}  ${key.validFrom} .. ${end}${note}`);
  }
  if (signingKeyId !== null && !keys.some((key) => key.signing))
    out.line(
      `the signing key ${signingKeyId} is not in this trust root: run \`abp keys rotate\` or \`abp init\` to finish a rotation`,
    );
  if (rotation !== null)
    out.line(
      `a rotation from ${rotation.from} to ${rotation.to} is unfinished: run \`abp keys rotate\` (or \`abp init\`) to complete it`,
    );
  out.data({
    trustRoot: paths.trustRoot,
    version: trustRoot.version,
    signingKeyId,
    rotationInProgress: rotation,
    keys,
  });
}
