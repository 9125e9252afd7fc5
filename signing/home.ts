// Where the operator's signing material lives in the data directory: the private key (mode 0600, in a 0700 folder)
// and the trust root that lists its public half. `abp init` creates both; consumers pin a copy of the trust root.
import { join } from 'node:path';

export function signingPaths(home: string) {
  return {
    keyDir: join(home, 'keys'),
    trustRoot: join(home, 'trust-root.json'),
    /** The content-addressed bundle store (freeze/bundle/store.ts). */
    bundles: join(home, 'bundles'),
  };
}
