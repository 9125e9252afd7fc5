// Where the operator's signing material lives in the data directory: the private key (mode 0600, in a 0700 folder),
// the trust root that lists its public half (`abp init` creates both; consumers pin a copy), the bundle store and the log.
import { join } from 'node:path';

/** The origin line of this registry's transparency log: checkpoints name it, so two logs cannot be confused. */
export const LOG_ORIGIN = 'abp-log/registry';

export function signingPaths(home: string) {
  return {
    keyDir: join(home, 'keys'),
    trustRoot: join(home, 'trust-root.json'),
    /** The content-addressed bundle store (freeze/bundle/store.ts). */
    bundles: join(home, 'bundles'),
    /** The transparency log every signed statement is appended to (transparency/). */
    log: join(home, 'log'),
    /** Signed statements other than bundles': `<kind>/<url-encoded subject>.sigstore.json` (signing/attestor.ts). */
    statements: join(home, 'statements'),
    /** Every version of the trust root, `v<N>.json`, each with its signed statement `v<N>.sigstore.json`. */
    trustRoots: join(home, 'trust-roots'),
  };
}
