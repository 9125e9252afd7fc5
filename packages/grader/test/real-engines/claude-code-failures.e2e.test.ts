// How a real engine's failures are scored (spec §3.4): Claude Code without its key, with its provider's host left out
// of the egress list, and with nothing listening at its provider, each fails its preflight with the reason in the
// trial's record, so every trial is an engine error, excluded from rates rather than counted as a loss, and the run
// reports that no trial could be scored. A crash before acting and a timeout are scored by the same code for every
// engine (test/run/run-matrix.integration.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderStandIn } from '@abp/provider-sim/server';
import { describeUnscoredRun } from '../../src/run/unscored.js';
import type { Endpoint } from '../../src/engines/real-engines.js';
import { runRealEngine, type RealEngineRun } from '../support/real-engines.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** One run of the fix and no-op engines, the adapter's way to its provider chosen by the case. */
async function runWith(options: {
  keyValue?: string | null;
  provider(standIn: ProviderStandIn, otherPort: number): Endpoint;
  /** Claude Code retries an unreachable API for minutes; a short preflight ends that case sooner. */
  preflightSeconds?: number;
}): Promise<RealEngineRun> {
  const done = [{ text: 'done', usage: { input: 10, output: 1 } }];
  const run = await runRealEngine({
    engine: 'claude-code',
    ...(options.keyValue === undefined ? {} : { keyValue: options.keyValue }),
    turns: () => ({
      preflight: [{ text: 'ABP-PREFLIGHT-OK', usage: { input: 40, output: 6 } }],
      fix: done,
      noop: done,
    }),
    endpoint: (standIn, otherPort) => options.provider(standIn, otherPort),
    ...(options.preflightSeconds === undefined ? {} : { preflightSeconds: options.preflightSeconds }),
  });
  cleanups.push(() => run.cleanup());
  return run;
}

function expectExcluded(run: RealEngineRun, detail: RegExp): void {
  expect(run.outcome.trials.map((trial) => [trial.outcome, trial.reason])).toEqual([
    ['engine-error', 'failed-preflight'],
    ['engine-error', 'failed-preflight'],
  ]);
  for (const trial of run.outcome.trials) expect(trial.detail).toMatch(detail);
  expect(describeUnscoredRun(run.outcome.verdict, run.outcome.trials)).toMatch(/^no trial could be scored/);
}

describe('Claude Code that cannot reach its model', () => {
  it('without its key: the provider refuses it, and the preflight records why', async () => {
    const run = await runWith({
      keyValue: null,
      provider: (standIn) => ({
        url: `http://host.abp.internal:${standIn.port}`,
        host: 'host.abp.internal',
        port: standIn.port,
      }),
    });
    expectExcluded(run, /expected exactly "ABP-PREFLIGHT-OK"/);
    // The stand-in saw the attempts and refused each: no key, no answer.
    expect(run.standIn.served().every((call) => call.refused !== null)).toBe(true);
  });

  it("with its provider's host left out of the egress list: refused by the proxy, named in the preflight", async () => {
    const run = await runWith({
      // The list names another port; the base URL names the stand-in's.
      provider: (standIn, otherPort) => ({
        url: `http://host.abp.internal:${standIn.port}`,
        host: 'host.abp.internal',
        port: otherPort,
      }),
    });
    expectExcluded(run, new RegExp(`the egress allow-list refused host\\.abp\\.internal:${run.standIn.port}`));
    expect(run.standIn.served()).toEqual([]);
  });

  it('with nothing listening at its provider: unreachable, and the preflight says so', async () => {
    let dead = 0;
    const run = await runWith({
      // Long enough for the first request on a loaded machine; Claude Code then retries the dead port until cut off.
      preflightSeconds: 15,
      // Allowed, but closed: a port next to the other service's, where nothing listens, is a provider that is down.
      provider: (_standIn, otherPort) => {
        dead = otherPort + 1;
        return { url: `http://host.abp.internal:${dead}`, host: 'host.abp.internal', port: dead };
      },
    });
    expectExcluded(
      run,
      new RegExp(`the egress proxy could not reach host\\.abp\\.internal:${dead} \\(ECONNREFUSED\\)`),
    );
  });
});
