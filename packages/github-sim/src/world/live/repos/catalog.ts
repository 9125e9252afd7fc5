// The live world's repositories, in id order: one per ecosystem that needs only its toolchain, then one per ecosystem
// whose tests need third-party packages from the registries (installed by CI, and by the freeze into the environment).

import type { LiveRepoSpec } from '../spec.js';
import { durafmt } from './durafmt.js';
import { rangeset } from './rangeset.js';
import { semverLite } from './semver-lite.js';
import { textkit } from './textkit.js';
import { batchkit } from './batchkit.js';
import { mdanchor } from './mdanchor.js';
import { tallyho } from './tallyho.js';
import { wordwrap } from './wordwrap.js';

export const LIVE_REPO_SPECS: readonly LiveRepoSpec[] = [
  textkit,
  rangeset,
  durafmt,
  semverLite,
  mdanchor,
  batchkit,
  wordwrap,
  tallyho,
];

/** Who reports issues and sends pull requests; each repository draws three of them from the seed. */
export const CONTRIBUTORS: readonly string[] = [
  'kenji-dev',
  'sofia-lab',
  'omar-codes',
  'lena-ops',
  'ravi-io',
  'noor-hq',
  'tomas-bytes',
  'yuki-writes',
];

/** The solver's account: it owns a fork of every repository and opens pull requests from them. */
export const SOLVER_LOGIN = 'abp-solver';
