// Where the operator's signing material lives in the data directory: the private key (mode 0600, in a 0700 folder),
// the trust root that lists its public half (`abp init` creates both; consumers pin a copy), the bundle store, the golden
// traces signed with the bundles, and the log.
import { join } from 'node:path';
import { homePaths } from '@abp/grader/home';

export function signingPaths(home: string) {
  const { trustRoot, log } = homePaths(home);
  return {
    keyDir: join(home, 'keys'),
    trustRoot,
    /** The content-addressed bundle store (freeze/bundle/store.ts). */
    bundles: join(home, 'bundles'),
    /** The golden traces signed with their bundles, by digest, and those attached to tasks before their freeze (freeze/golden-trace-store.ts). */
    goldenTraces: join(home, 'traces'),
    /** The transparency log every signed statement is appended to (transparency/). */
    log,
    /** Signed statements other than bundles': `<kind>/<url-encoded subject>.sigstore.json` (signing/attestor.ts). */
    statements: join(home, 'statements'),
    /** Every version of the trust root, `v<N>.json`, each with its signed statement `v<N>.sigstore.json`. */
    trustRoots: join(home, 'trust-roots'),
  };
}
