// Real Temporal servers for tests, from the binaries scripts/install-temporal.sh put in .tools/.
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findTemporalBinary } from '../../src/worker/config.js';

// Worker state changes at INFO drown test output; warnings and errors still show.
Runtime.install({ logger: new DefaultLogger('WARN') });

/** Temporal's time-skipping test server (Java), for workflows whose timers run for days or months. */
export function startTimeSkippingServer(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: findTemporalBinary('temporal-test-server') } },
  });
}

/** The full Temporal dev server (the official CLI's start-dev), in memory. */
export function startDevServer(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: findTemporalBinary('temporal') } },
  });
}
