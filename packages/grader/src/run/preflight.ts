// The preflight health check (harness spec): before the first scored trial, every adapter answers a bounded prompt with an
// exact sentinel. An engine that fails it has all its trials recorded as engine-error, excluded rather than lost.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Adapter } from '@abp/protocol/schemas/abp-adapters';
import { runBounded } from '../execution/bounded-command.js';
import { reducedEnvironment } from '../execution/environment.js';
import { expandPlaceholders } from '../execution/placeholders.js';
import { hostEngineSandbox } from './engine-placement.js';
import { openEngineEgress } from './engine-egress.js';
import { redactorFor, type PreflightResult, type TrialContext } from './trial.js';

export async function runPreflight(
  adapter: Adapter,
  context: Pick<TrialContext, 'workRoot' | 'hostEnv' | 'adaptersDir' | 'policy' | 'hiddenPaths' | 'namespaces' | 'run'>,
): Promise<PreflightResult> {
  const root = join(context.workRoot, `preflight--${adapter.engine}`);
  await rm(root, { recursive: true, force: true });
  const [workspace, state, tmp, out] = ['workspace', 'state', 'tmp', 'out'].map((name) => join(root, name)) as [
    string,
    string,
    string,
    string,
  ];
  await Promise.all([workspace, state, tmp, out].map((dir) => mkdir(dir, { recursive: true })));
  const { prompt, sentinel, timeoutSeconds } = adapter.preflight;
  const promptFile = join(state, 'prompt.md');
  const inputFile = join(state, 'input.json');
  const traceFile = join(out, 'trace.abp-trace.jsonl');
  await writeFile(promptFile, prompt);
  await writeFile(
    inputFile,
    `${JSON.stringify({ schema: 'abp-agent-input/v1', preflight: true, task: null, trialId: `preflight--${adapter.engine}`, prompt, model: context.run.model, workspace, state, traceFile, promptFile }, null, 2)}\n`,
  );
  const redactor = redactorFor(adapter, context, workspace);
  // The same way out as a trial's: an engine that must reach its model passes only if its allow-list lets it.
  const egress = await openEngineEgress({ adapter, policy: context.policy, hostEnv: context.hostEnv });
  try {
    const argv = expandPlaceholders(adapter.preflight.command ?? adapter.command, {
      repo: context.adaptersDir,
      workspace,
      state,
      promptFile,
      inputFile,
      prompt,
      trialId: `preflight--${adapter.engine}`,
      traceFile,
    });
    const result = await runBounded({
      argv,
      cwd: workspace,
      env: reducedEnvironment({
        hostEnv: context.hostEnv,
        allow: adapter.env.allow,
        set: adapter.env.set,
        home: state,
        tmp,
      }).env,
      timeoutMs: timeoutSeconds * 1000,
      maxOutputBytes: 64 * 1024,
      sandbox: hostEngineSandbox({
        adapter,
        adaptersDir: context.adaptersDir,
        policy: context.policy,
        namespaces: context.namespaces,
        hiddenPaths: context.hiddenPaths,
        writable: [workspace, state, tmp, out],
        readOnly: [],
        egress: egress?.socket ?? null,
      }),
    });
    const seen = await egress?.close();
    // What the way out saw: hosts the list refused, and listed hosts that could not be reached (a provider down).
    const attempts = seen?.attempts ?? [];
    const refused = attempts.filter((attempt) => !attempt.allowed).map((a) => `${a.host}:${a.port}`);
    const unreachable = attempts
      .filter((attempt) => attempt.allowed && attempt.error !== null)
      .map((a) => `${a.host}:${a.port} (${a.error ?? ''})`);
    const egressNote = [
      refused.length > 0 && `the egress allow-list refused ${[...new Set(refused)].join(', ')}`,
      unreachable.length > 0 && `the egress proxy could not reach ${[...new Set(unreachable)].join(', ')}`,
    ]
      .filter(Boolean)
      .map((note) => `; ${String(note)}`)
      .join('');
    if (result.spawnError)
      return { passed: false, detail: `could not invoke ${adapter.command[0] ?? ''}: ${result.spawnError.code}` };
    if (result.timedOut) return { passed: false, detail: `no answer within ${timeoutSeconds} s${egressNote}` };
    const answer = result.stdout.toString('utf8').trim();
    if (answer !== sentinel) {
      const shown = redactor.redactText(answer.length > 120 ? `${answer.slice(0, 117)}...` : answer);
      const stderr = redactor.redactText(result.stderr.toString('utf8').trim().split('\n').slice(-12).join(' | '));
      return {
        passed: false,
        detail: `expected exactly ${JSON.stringify(sentinel)} (trimmed), got ${JSON.stringify(shown)} with exit ${String(result.exitCode ?? result.signal)}${egressNote}${stderr ? `; stderr: ${stderr.slice(0, 1200)}` : ''}`,
      };
    }
    return { passed: true, detail: `answered the sentinel in ${Math.round(result.durationMs)} ms` };
  } finally {
    await egress?.close();
    await rm(root, { recursive: true, force: true });
  }
}
