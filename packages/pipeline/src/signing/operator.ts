// The operator's attestor as the worker and the CLI build it from the data directory: the keyed signer over
// `<home>/keys`, signed statements under `<home>/statements`, and the transparency log in `<home>/log`.
import { createAttestor, type Attestor } from './attestor.js';
import { LOG_ORIGIN } from '@abp/protocol/transparency/formats';
import { signingPaths } from './home.js';
import { loadSigningKey } from './keys.js';
import { createSigner } from './signer.js';

/** Fails with SigningError key-missing until `abp init` has created the key. */
export async function loadOperatorAttestor(home: string): Promise<Attestor> {
  const paths = signingPaths(home);
  const signer = await createSigner({ keyDir: paths.keyDir });
  const key = async () => {
    const { privateKey, keyId } = await loadSigningKey(paths.keyDir);
    return { privateKey, keyId };
  };
  return createAttestor({ signer, statementsDir: paths.statements, log: { dir: paths.log, origin: LOG_ORIGIN, key } });
}
