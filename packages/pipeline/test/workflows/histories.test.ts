// Every committed workflow history replays under today's workflow code. Tasks live for months and the poller and the
// quarterly rotation for years: a change that makes a running workflow take another path than its history recorded
// breaks it at deploy time, and fails here first. The histories come from the integration tests that run each scenario
// for real (support/histories.ts; `npm run histories:record`); a deliberate change branches on patched(), so that
// histories recorded before it replay the old path (the second describe shows both).
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  DefaultLogger,
  makeTelemetryFilterString,
  Runtime,
  Worker,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { savedHistories } from '../support/histories.js';

const workflowsPath = fileURLToPath(new URL('../../src/workflows/index.ts', import.meta.url));
const quiet = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
};
const histories = savedHistories();
// Replays start and stop a worker each, and the refused ones fail a workflow task on purpose: neither is news.
Runtime.install({
  logger: new DefaultLogger('ERROR'),
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }) } },
});
const byName = (name: string) => {
  const saved = histories.find((history) => history.name === name);
  if (saved === undefined) throw new Error(`no committed history ${name}.json in test/fixtures/histories`);
  return saved;
};

describe('the committed workflow histories', () => {
  let bundle: WorkflowBundleWithSourceMap;
  beforeAll(async () => {
    bundle = await bundleWorkflowCode({ workflowsPath, logger: quiet });
  });

  it('cover the task lifecycle, the pull request poller, the draw and the rotation', () => {
    expect(histories.map((history) => history.name)).toEqual(
      expect.arrayContaining([
        'task-webhook-merge',
        'task-polled-merge',
        'task-closed-then-resubmitted',
        'task-force-pushed',
        'task-withdrawn-issue-closed',
        'task-withdrawn-opted-out',
        'task-merge-not-accepted',
        'task-before-continue-as-new',
        'task-aged-out',
        'pull-poller-continued-as-new',
        'draw',
        'registry-rotation',
        'wiring-check',
      ]),
    );
  });

  it.each(histories.map((history) => [history.name, history] as const))('replay: %s', async (_, saved) => {
    await expect(
      Worker.runReplayHistory({ workflowBundle: bundle }, saved.history, saved.workflowId),
    ).resolves.toBeUndefined();
  });
});

/** The workflows bundled with task-decisions.ts replaced by `replacement` (a module under test/fixtures/workflow-changes). */
async function bundleWithDecisions(replacement: string): Promise<WorkflowBundleWithSourceMap> {
  // The bundler's own webpack, so the plugin is one its compiler knows.
  type ReplacementPlugin = new (
    pattern: RegExp,
    replace: (resource: { request: string; context: string }) => void,
  ) => object;
  const webpack = createRequire(createRequire(import.meta.url).resolve('@temporalio/worker'))('webpack') as {
    NormalModuleReplacementPlugin: ReplacementPlugin;
  };
  const fixtures = fileURLToPath(new URL('../fixtures/workflow-changes/', import.meta.url));
  const target = `${fixtures}${replacement}`;
  return bundleWorkflowCode({
    workflowsPath,
    logger: quiet,
    webpackConfigHook: (config) => {
      const replace = (resource: { request: string; context: string }) => {
        // The replacement imports the real module itself; only the workflows' imports of it are redirected.
        if (!resource.context.startsWith(dirname(target))) resource.request = target;
      };
      config.plugins = [
        ...(config.plugins ?? []),
        new webpack.NormalModuleReplacementPlugin(/task-decisions\.js$/, replace) as never,
      ];
      return config;
    },
  });
}

describe('a change to a branch of the task lifecycle', () => {
  const resubmitted = () => byName('task-closed-then-resubmitted');

  it('fails the replay of a task that took the old branch when it is made without patched()', async () => {
    const bundle = await bundleWithDecisions('closed-fix-withdraws.ts');
    const saved = resubmitted();
    await expect(
      Worker.runReplayHistory({ workflowBundle: bundle }, saved.history, saved.workflowId),
    ).rejects.toMatchObject({ name: 'DeterminismViolationError' });
  });

  it('replays that task on its old path when it is made behind patched()', async () => {
    const bundle = await bundleWithDecisions('closed-fix-withdraws-patched.ts');
    const saved = resubmitted();
    await expect(
      Worker.runReplayHistory({ workflowBundle: bundle }, saved.history, saved.workflowId),
    ).resolves.toBeUndefined();
  });
});
