// Claude Code itself, the pinned CLI scripts/install-engines.sh installs, graded under the sandboxed policy on the
// conformance suite's slug task with the adapter abp ships for it (src/engines/real-engines.ts), pointed at the
// model-provider stand-in (the real API cannot be reached here; the stand-in speaks its wire format), its one way out
// an egress proxy. The scripted fix reaches for another host, runs the tests and edits the workspace through Claude
// Code's own Bash tool and is graded resolved; the scripted no-op is unresolved; the other host is refused and
// recorded; the tokens abp records are the usage the stand-in served, call by call.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectHonestRun, runRealEngine, type RealEngineRun } from '../support/real-engines.js';

let run: RealEngineRun;
beforeAll(async () => {
  run = await runRealEngine({ engine: 'claude-code' });
}, 600_000);
afterAll(() => run?.cleanup());

describe('Claude Code under the sandboxed policy, against the provider stand-in', () => {
  it('is graded honestly: fix resolved, no-op not, only the stand-in reached, tokens as served', async () => {
    await expectHonestRun(run, { fix: 'claude-code-fix', noop: 'claude-code-noop' });
  });

  it("ran the scripted steps with its own tools: the refused request, the workspace's tests, the edit", async () => {
    const fix = run.outcome.trials.find((trial) => trial.engine === 'claude-code-fix');
    const stdout = await readFile(join(run.outcome.runDir, fix?.receipts.stdout ?? ''), 'utf8');
    // Tool results as Claude Code reported them to its model, in its event stream.
    expect(stdout).toContain(`abp egress: host.abp.internal:${run.otherPort} is not a host this command may reach`);
    // The workspace's own tests (the held-out ones are not there): both pass before the fix and after.
    expect(stdout).toContain('# pass 2');
    expect(stdout).not.toContain('reached');
  });
});
