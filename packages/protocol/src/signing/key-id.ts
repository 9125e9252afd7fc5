// The id of a signing key, as trust roots, statements and log checkpoints name it: the lowercase hex sha256 of the
// public key's SPKI DER encoding, so an id always names exactly one key.
import { createHash, type KeyObject } from 'node:crypto';

export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}
