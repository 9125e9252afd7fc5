import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration suites start real servers (Temporal, Postgres); give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default', new SummaryReporter()],
  },
});
