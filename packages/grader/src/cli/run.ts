// `abp run`: grade engines on frozen tasks and leave receipts (spec §3, §7, §8).
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { killRunningCommands } from '../execution/index.js';
import { runMatrix, type RunEvent } from '../run/run-matrix.js';
import { describeUnscoredRun } from '../run/unscored.js';
import { CommandFailed, createOutput } from './output.js';
import type { TrialPlaces } from './commands.js';

export interface RunCommandOptions {
  config: string;
  adapters?: string;
  tasks?: string;
  output: string;
  resumeProgress?: string;
  lockFile?: string;
  concurrency?: number;
  keepWorkspaces?: boolean;
  runUnsupported?: boolean;
  strictComparison?: boolean;
  environments?: string;
  on?: string;
  json?: boolean;
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

export async function runCommand(options: RunCommandOptions, places: TrialPlaces = {}): Promise<void> {
  const out = createOutput(options);
  const place = options.on ?? 'local';
  const opened = place === 'local' ? undefined : places[place];
  if (place !== 'local' && opened === undefined)
    throw new CommandFailed(
      'invalid-usage',
      `--on ${place}: this abp runs trials here only (--on local)${Object.keys(places).length > 0 ? ` or on ${Object.keys(places).join(', ')}` : "; the operators' abp (@abp/pipeline) adds --on temporal, which spreads them over Temporal workers"}`,
      options.json === true,
    );
  if (opened !== undefined && options.concurrency !== undefined && options.concurrency !== 1)
    throw new CommandFailed(
      'invalid-usage',
      `--concurrency ${options.concurrency} with --on ${place}: how many trials run at once is each worker's --max-concurrent, not the run's`,
      options.json === true,
    );
  const remote = opened === undefined ? undefined : await opened();
  let workRoot: string | null = null;
  const describe = (event: RunEvent) => {
    switch (event.kind) {
      case 'started':
        for (const warning of event.warnings) out.line(`warning: ${warning}`);
        workRoot = event.keptWorkspaces ? null : event.workRoot;
        if (event.keptWorkspaces) out.line(`trial folders are kept in ${event.workRoot}`);
        out.line(
          `${event.resumed ? 'resuming' : 'starting'} ${event.runId}: ${event.total} trials${event.done > 0 ? `, ${event.done} already done` : ''} → ${relative(process.cwd(), event.runDir) || '.'}`,
        );
        break;
      case 'preflight':
        out.line(`preflight ${event.engine}: ${event.result.passed ? 'ok' : 'FAILED'} (${event.result.detail})`);
        break;
      case 'trial': {
        const { trial } = event;
        const seconds =
          trial.metrics.wallClockMs === null ? '' : ` in ${(trial.metrics.wallClockMs / 1000).toFixed(1)} s`;
        out.line(
          `[${event.done}/${event.total}] ${trial.task} × ${trial.engine} #${trial.trial}: ${trial.outcome}${trial.reason ? ` (${trial.reason})` : ''}${seconds}`,
        );
        break;
      }
    }
  };
  // Engines run in process groups of their own, out of reach of the terminal's Ctrl-C: end them with us.
  // The journal keeps every finished trial and the lock is left as stale-lock evidence for --resume-progress.
  const interrupted = (signal: NodeJS.Signals) => {
    killRunningCommands();
    // Trial folders hold workspaces and held-out verification checkouts: none may outlive the run.
    if (workRoot !== null) rmSync(workRoot, { recursive: true, force: true });
    out.error(`abp run: interrupted by ${signal}; resume with --resume-progress <run folder>`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const result = await runMatrix({
    config: options.config,
    adapters: options.adapters,
    tasks: options.tasks,
    output: options.output,
    resumeProgress: options.resumeProgress,
    lockFile: options.lockFile,
    concurrency: options.concurrency,
    keepWorkspaces: options.keepWorkspaces,
    runUnsupported: options.runUnsupported,
    strictComparison: options.strictComparison,
    environments: options.environments,
    remote,
    onEvent: describe,
  });
  const { verdict } = result;
  if (verdict.matchedModels === false)
    out.line('\nWARNING: matchedModels is false; this run cannot back engine-vs-engine conclusions.');
  out.line('');
  for (const engine of verdict.perEngine) {
    const rate = engine.resolveRate
      ? `${percent(engine.resolveRate.point)} [${percent(engine.resolveRate.wilson95[0])}, ${percent(engine.resolveRate.wilson95[1])}]`
      : 'none (no trial could be scored)';
    out.line(
      `${engine.engine}: resolved ${engine.resolvedTrials ?? 0}/${engine.scoredTrials} scored, rate ${rate}; excluded ${engine.excludedEngineErrors} engine errors, ${engine.excludedHarnessErrors ?? 0} harness errors; ${engine.unsupportedTrials ?? 0} unsupported`,
    );
  }
  for (const pair of verdict.pairwise)
    out.line(
      `${pair.a} vs ${pair.b}: discordant ${pair.mcnemar.discordant.join('/')}, McNemar exact p = ${pair.mcnemar.pExact}`,
    );
  const where = relative(process.cwd(), result.runDir) || '.';
  out.line(
    `\nverdict: ${join(where, 'verdict.json')}\nreport:  ${join(where, 'report.html')}\nreproduce: ${(await readFile(join(result.runDir, 'reproduce.txt'), 'utf8')).trim()}`,
  );
  // The one figure that cannot be kept in the folder it seals: printed for CI to keep, and for `abp gate` to check.
  out.line(
    `journal: ${result.journalDigest}  (abp gate --journal-digest ${result.journalDigest} refuses a rewritten folder)`,
  );
  // The run ended and sealed its receipts, but with nothing scored it is no evidence: a CI job must not read it as one.
  const unscored = describeUnscoredRun(verdict, result.trials);
  const failure = unscored === null ? null : new CommandFailed('no-trial-scored', unscored, options.json === true);
  out.data({
    runId: result.runId,
    runDir: result.runDir,
    journalDigest: result.journalDigest,
    verdict,
    ...(failure === null ? {} : { error: { code: failure.code, message: failure.message } }),
  });
  if (failure !== null) throw failure;
}
