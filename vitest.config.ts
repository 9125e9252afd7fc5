// Three tiers, told apart by file name: `*.test.ts` unit (no child processes, no servers: test-support/no-processes.ts
// fails one that tries), `*.integration.test.ts` (real git, Temporal, Postgres, the simulator, the built CLI) and
// `*.e2e.test.ts` (the main job, four-ecosystem freezes). Sources are imported as TypeScript through the "source"
// export condition; processes the tests start run the build, which test-support/build.ts brings up to date first.
import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test-support/summary-reporter.js';

const tier = (
  name: string,
  include: string,
  extra: {
    setupFiles?: string[];
    globalSetup?: string[];
    exclude?: string[];
    isolate?: boolean;
    maxWorkers?: number;
  } = {},
) => ({
  extends: true as const,
  test: {
    name,
    include: [`packages/*/test/**/${include}`, `test/**/${include}`],
    exclude: ['**/node_modules/**', ...(extra.exclude ?? [])],
    ...(extra.setupFiles ? { setupFiles: extra.setupFiles } : {}),
    ...(extra.globalSetup ? { globalSetup: extra.globalSetup } : {}),
    ...(extra.isolate === false ? { isolate: false } : {}),
    ...(extra.maxWorkers === undefined ? {} : { maxWorkers: extra.maxWorkers }),
  },
});

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    pool: 'forks',
    // Integration suites start real servers (Temporal, Postgres); give them room on a loaded 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', new SummaryReporter()],
    projects: [
      tier('unit', '*.test.ts', {
        exclude: ['**/*.integration.test.ts', '**/*.e2e.test.ts'],
        setupFiles: ['test-support/no-processes.ts'],
        // Unit files share a worker's module cache instead of a fresh process each (about 40 s → 28 s here): they mock
        // no modules and touch no environment or timers, so nothing one file does is seen by the next.
        isolate: false,
      }),
      tier('integration', '*.integration.test.ts', {
        globalSetup: ['test-support/build.ts'],
        setupFiles: ['test-support/toolchain-caches.ts'],
        // Two files at once even on 2 cores (where vitest would run one): these mostly wait on servers and child
        // processes. Measured here on 2 cores: 1180 s one at a time, 651 s two at a time, every test passing.
        maxWorkers: 2,
      }),
      tier('e2e', '*.e2e.test.ts', {
        globalSetup: ['test-support/build.ts'],
        setupFiles: ['test-support/toolchain-caches.ts'],
        // Two files at once, as for integration: much of an e2e file is waiting on registries (Debian, npm, PyPI, the
        // module proxy) while environments build, and the main job's file alone takes a quarter of the tier.
        maxWorkers: 2,
      }),
    ],
  },
});
