// One warm Go build cache for every test of a run that starts toolchains, under .cache/ in the repository (kept
// between the integration and e2e tiers, and between runs on a developer's machine). Go's cache is content-addressed
// and safe to share between concurrent builds, so each standard library compiles once instead of once per test.
// Cargo's target folder is not shared: its freshness check compares file times, so two checkouts of one crate built
// into one target folder a second apart can each run the other's test binary.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const sharedGoBuildCache = fileURLToPath(new URL('../.cache/test-toolchains/go-build', import.meta.url));

mkdirSync(sharedGoBuildCache, { recursive: true });
// What the simulator's CI and the runners' own tests inherit; the freeze and the grader set theirs explicitly.
process.env.GOCACHE = sharedGoBuildCache;

/**
 * One environment store for every test that builds an environment: layers are cached by their inputs, so the Debian
 * base and each toolchain are built once per machine rather than once per test (about 40 s each).
 */
export const sharedEnvironmentStore = fileURLToPath(new URL('../.cache/test-toolchains/environments', import.meta.url));
mkdirSync(sharedEnvironmentStore, { recursive: true });
