// The `abp` command: its command tree, and the one place where errors become exit codes
// (0 ok, 1 the command failed, 2 it was used wrongly).
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_SCHEDULED_ROTATION } from '../schemas/rotation.js';
import { CommandFailed } from './output.js';
import type { AuditDrawOptions, AuditLogOptions } from './audit.js';
import type { ExportTrainingOptions } from './export.js';
import type { BaselineCommandOptions, GateOptions } from './gate.js';
import type { FreezeCommandOptions } from './freeze.js';
import type { RotateOptions } from './registry.js';
import type { ServeCommandOptions } from './serve.js';
import type { OpenPrOptions, TasksCommandOptions } from './task.js';
import type { PullCommandOptions } from './pull.js';
import type { VerifyOptions } from './signing.js';
import type { RunCommandOptions } from './run.js';
import type { StartOptions } from './start.js';
import { DEFAULT_MAIN_JOB } from '../pipeline/options.js';
import type { WorldOptions } from './sim.js';

// Command modules load on use: `abp --help` should not pay for the Temporal SDK or every schema.
const dev = () => import('./dev.js');
const sim = () => import('./sim.js');

function wholeNumber(label: string, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 0 || value > max) throw new InvalidArgumentError(`${label} must be a whole number from 0 to ${max}, got "${raw}"`);
    return value;
  };
}

// A non-negative number such as a growth fraction (0.15 is +15 %) or a significance level, up to `max`.
function fraction(label: string, max = Number.POSITIVE_INFINITY) {
  return (raw: string): number => {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > max) {
      throw new InvalidArgumentError(`${label} must be a number from 0${max === Number.POSITIVE_INFINITY ? '' : ` to ${max}`}, e.g. 0.15, got "${raw}"`);
    }
    return value;
  };
}

function withWorldOptions(command: Command): Command {
  return command
    .addOption(new Option('--world <kind>', 'scale: many generated repositories, read-only; small: live repositories with real git, CI and maintainers').choices(['scale', 'small']).default('scale'))
    .addOption(new Option('--seed <n>', 'seed of the world: the same seed gives the same world').argParser(wholeNumber('--seed')).default(1))
    .addOption(new Option('--repos <n>', 'repositories in a scale world').argParser(wholeNumber('--repos', 5_000)).default(5_000))
    .addOption(new Option('--issues <n>', 'issues in a scale world').argParser(wholeNumber('--issues', 1_000_000)).default(1_000_000))
    .addOption(new Option('--port <n>', 'TCP port on 127.0.0.1 (0: any free port)').argParser(wholeNumber('--port', 65_535)).default(0))
    .addOption(new Option('--review-delay-ms <n>', 'small world: how long maintainers wait before merging a green pull request').argParser(wholeNumber('--review-delay-ms')).default(1_000))
    .addOption(new Option('--webhook-url <url>', 'small world: deliver webhooks here, signed with ABP_SIM_WEBHOOK_SECRET'))
    .addOption(new Option('--world-date <YYYY-MM-DD>', 'small world: the day its clock starts, 00:00 UTC; its history lies in the 30 days before (default: today)'))
    .addOption(new Option('--faults <file>', 'inject seeded faults: a JSON fault plan (5xx bursts, slow answers, secondary limits, drifting search, dropped webhooks)'));
}

const jsonOption = () => new Option('--json', 'print the result as JSON on stdout');

export function buildProgram(): Command {
  const program = new Command('abp')
    .description('The live task pipeline and replay grader of the Agent Benchmark Protocol.')
    .showHelpAfterError('(run `abp --help` for usage)')
    .exitOverride()
    .addHelpText(
      'after',
      '\nEnvironment: ABP_HOME (data directory, default ./.abp), TEMPORAL_ADDRESS (use an existing cluster),\n' +
        'TEMPORAL_NAMESPACE, ABP_TEMPORAL_PORT, ABP_TEMPORAL_UI_PORT, DATABASE_URL (Postgres instead of PGlite),\n' +
        'GITHUB_TOKEN and GITHUB_API_URL (GitHub or the simulator), ABP_WEBHOOK_SECRET (abp serve: enables the webhook route).',
    );

  program
    .command('start')
    .description('run the whole live pipeline once on the embedded default: stack, rotation, seeded draw, reference fixes, merges, freeze, pull, grade, gate')
    .addOption(new Option('--seed <n>', `the draw's published seed (default ${DEFAULT_MAIN_JOB.seed})`).argParser(wholeNumber('--seed')))
    .addOption(new Option('--count <n>', `tasks to draw (default ${DEFAULT_MAIN_JOB.count}: every eligible issue of the small world)`).argParser(wholeNumber('--count', 10_000)))
    .addOption(new Option('--trials <n>', `trials per task and engine in the grading run (default ${DEFAULT_MAIN_JOB.trials})`).argParser(wholeNumber('--trials', 100)))
    .addOption(new Option('--world-seed <n>', `seed of the simulator's small live world (default ${DEFAULT_MAIN_JOB.worldSeed})`).argParser(wholeNumber('--world-seed')))
    .addOption(new Option('--review-delay-ms <n>', `how long the simulator's maintainers wait before merging a green pull request (default ${DEFAULT_MAIN_JOB.reviewDelayMs})`).argParser(wholeNumber('--review-delay-ms')))
    .addOption(new Option('--merge-timeout <seconds>', 'longest wait for CI and the maintainers (default 600)').argParser(wholeNumber('--merge-timeout')))
    .addOption(new Option('--freeze-timeout <seconds>', 'longest wait for the freezes (default 900)').argParser(wholeNumber('--freeze-timeout')))
    .addOption(new Option('--json', 'print one JSON object per progress event on stdout, the summary last'))
    .action(async (options: StartOptions) => (await import('./start.js')).startCommand(options));
  program
    .command('stop')
    .description('stop what `abp start` runs: abp serve, the simulator, the worker and the Temporal dev server')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./start.js')).stopCommand(options));

  const devGroup = program.command('dev').description('start, stop and inspect the embedded stack (Temporal dev server, worker)');
  devGroup
    .command('up')
    .description('start the Temporal dev server (unless TEMPORAL_ADDRESS is set) and the abp worker in the background')
    .option('--check', 'then run the wiring check workflow')
    .addOption(jsonOption())
    .action(async (options: { check?: boolean; json?: boolean }) => (await dev()).devUpCommand(options));
  devGroup
    .command('down')
    .description('stop the worker and the Temporal dev server; remove their pid files')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await dev()).devDownCommand(options));
  devGroup
    .command('status')
    .description('what runs where: pids, addresses, the Web UI, log files')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await dev()).devStatusCommand(options));
  devGroup
    .command('check')
    .description('run the wiring check workflow on the running stack')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await dev()).devCheckCommand(options));

  const simGroup = program.command('sim').description('the local GitHub simulator (REST, GraphQL, git over HTTP) over a generated world');
  withWorldOptions(simGroup.command('up').description('start the simulator in the background; prints GITHUB_API_URL and GITHUB_TOKEN'))
    .addOption(jsonOption())
    .action(async (options: WorldOptions & { json?: boolean }) => (await sim()).simUpCommand(options));
  simGroup
    .command('down')
    .description('stop the simulator')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await sim()).simDownCommand(options));
  simGroup
    .command('status')
    .description('whether the simulator runs, where, and over which world')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await sim()).simStatusCommand(options));
  withWorldOptions(simGroup.command('serve').description('serve in the foreground (what `sim up` starts); needs ABP_SIM_TOKEN'))
    .action(async (options: WorldOptions) => (await sim()).simServeCommand(options));

  program
    .command('run')
    .description('grade agent engines on frozen tasks: ABBA-ordered trials, held-out verification, verdict with receipts')
    .requiredOption('--config <file>', 'the abp-run/v1 configuration')
    .option('--adapters <file>', 'the abp-adapters/v1 file (default: abp-adapters.json beside the config)')
    .option('--tasks <dir>', 'folder of task folders, one per task id (default: tasks/ beside the config)')
    .requiredOption('-o, --output <dir>', 'results folder: the run writes <dir>/<run id>/ and <dir>/run-latest')
    .option('--resume-progress <journal>', 'continue an interrupted matrix from its progress.jsonl (or run folder)')
    .option('--lock-file <path>', 'lock against overlapping runs (default: <output>/.abp-run.lock)')
    .addOption(new Option('--concurrency <n>', 'trials in flight at once').argParser(wholeNumber('--concurrency', 64)).default(1))
    .option('--keep-workspaces', 'keep each trial folder for diagnosis')
    .option('--run-unsupported', 'run trials even when the adapter lacks a capability the task requires')
    .option('--strict-comparison', 'refuse to start when comparison metadata (model, provider, sampling, tool policy) is missing or differs')
    .addOption(jsonOption())
    .action(async (options: RunCommandOptions) => (await import('./run.js')).runCommand(options));

  program
    .command('gate')
    .description('compare a run with the committed baseline (CI): exit 1 when it got worse, 3 when the two cannot be compared')
    .argument('<run>', 'the run folder abp run wrote, e.g. results/run-latest')
    .requiredOption('--baseline <file>', 'the committed abp-baseline/v1 file')
    .option('--engine <name>', "the run's engine to gate (default: the baseline's engine)")
    .option('--require-significant', 'fail the resolve rate only on a drop the exact McNemar test finds significant at the baseline alpha')
    .addOption(jsonOption())
    .action(async (run: string, options: GateOptions) => (await import('./gate.js')).gateCommand(run, options));

  program
    .command('baseline')
    .description('write the baseline `abp gate` compares with, from one engine of a finished run; commit the file')
    .argument('<run>', 'the run folder abp run wrote, e.g. results/run-latest')
    .requiredOption('--engine <name>', 'the engine to take the baseline of')
    .requiredOption('-o, --output <file>', 'where to write it, e.g. abp-baseline.json')
    .addOption(new Option('--max-diff-growth <fraction>', 'allowed growth of the median normalized diff size (default 0.25)').argParser(fraction('--max-diff-growth')))
    .addOption(new Option('--max-tokens-growth <fraction>', 'allowed growth of the median tokens (default 0.15)').argParser(fraction('--max-tokens-growth')))
    .addOption(new Option('--max-wall-clock-growth <fraction>', 'allowed growth of the median wall clock (default 0.5)').argParser(fraction('--max-wall-clock-growth')))
    .addOption(new Option('--max-cost-growth <fraction>', 'allowed growth of the median cost (default 0.15)').argParser(fraction('--max-cost-growth')))
    .addOption(new Option('--alpha <p>', 'significance level for --require-significant (default 0.05)').argParser(fraction('--alpha', 1)))
    .addOption(jsonOption())
    .action(async (run: string, options: BaselineCommandOptions) => (await import('./gate.js')).baselineCommand(run, options));

  const auditGroup = program.command('audit').description('re-derive published records offline, without trusting the operator or reaching GitHub');
  auditGroup
    .command('draw')
    .description('re-derive an abp-draw/v1 record from its backlog snapshot and opt-out list: prints match, or the first difference (exit 1)')
    .argument('<record>', 'the abp-draw/v1 record')
    .requiredOption('--snapshot <file>', 'the abp-backlog/v1 snapshot the record names (canonical JSONL)')
    .option('--opt-outs <file>', 'JSON array of the "owner/name" opt-outs in force when the draw was made (default: none)')
    .option('--registry <file>', 'the abp-registry/v1 document, to check the registry digest the record carries')
    .addOption(jsonOption())
    .action(async (record: string, options: AuditDrawOptions) => (await import('./audit.js')).auditDrawCommand(record, options));
  auditGroup
    .command('log')
    .description('check the transparency log: every entry re-hashed, every checkpoint signed by a trusted key and consistent (exit 1 with the first problem)')
    .addOption(new Option('--log <dir>', "the log folder (default: the data directory's log/)").conflicts('from'))
    .option('--from <url>', "audit the log a registry's abp serve serves, downloaded into a temporary folder, e.g. https://registry.example.org")
    .option('--save <dir>', 'with --from: hold the log against the checkpoints kept of this registry in <dir> (as `abp pull --checkpoints`), then keep the downloaded ones there')
    .option('--trust-root <file>', "the pinned trust root; with --from, newer versions the registry offers are taken only when it vouches for them (default: the data directory's trust-root.json)")
    .option('--known <file...>', 'signed checkpoints kept from earlier (from `abp pull` or an earlier audit): the log must be consistent with them')
    .option('--entry <index>', 'also prove this entry included in the newest checkpoint, as a consumer holding only that checkpoint checks it', wholeNumber('--entry'))
    .option('--consistency <old:new>', 'also prove the stored checkpoint of size new extends the one of size old')
    .addOption(jsonOption())
    .action(async (options: AuditLogOptions) => (await import('./audit.js')).auditLogCommand(options));

  const registryGroup = program.command('registry').description('the quarterly repository registry: rotate, schedule, show, diff; opt-outs');
  registryGroup
    .command('rotate')
    .description("rotate a registry version now (on the worker): discover, judge by the criteria, publish with its diff and API cost")
    .option('--version <version>', 'abp-registry/YYYYQn to publish (default: the current quarter)')
    .option('--top <n>', 'the most starred repositories to judge', wholeNumber('--top', 100_000), DEFAULT_SCHEDULED_ROTATION.top)
    .option('--size <n>', 'entries to keep at most', wholeNumber('--size', 500), DEFAULT_SCHEDULED_ROTATION.size)
    .option('--batch-size <n>', 'repositories per GraphQL batch (default 100)', wholeNumber('--batch-size', 100))
    .addOption(jsonOption())
    .action(async (options: RotateOptions) => (await import('./registry.js')).registryRotateCommand(options));
  registryGroup
    .command('schedule')
    .description('create or update the quarterly rotation Schedule (00:00 UTC on the first day of each quarter)')
    .option('--top <n>', 'the most starred repositories to judge', wholeNumber('--top', 100_000), DEFAULT_SCHEDULED_ROTATION.top)
    .option('--size <n>', 'entries to keep at most', wholeNumber('--size', 500), DEFAULT_SCHEDULED_ROTATION.size)
    .option('--batch-size <n>', 'repositories per GraphQL batch (default 100)', wholeNumber('--batch-size', 100))
    .addOption(jsonOption())
    .action(async (options: { top: number; size: number; batchSize?: number; json?: boolean }) => (await import('./registry.js')).registryScheduleCommand(options));
  registryGroup
    .command('show')
    .description('print a published registry version (default: the latest) after checking its digest')
    .argument('[version]', 'abp-registry/YYYYQn')
    .addOption(jsonOption())
    .action(async (version: string | undefined, options: { json?: boolean }) => (await import('./registry.js')).registryShowCommand(version, options));
  registryGroup
    .command('diff')
    .description('what changed between two published registry versions, with the reason for each removal')
    .argument('<from>', 'abp-registry/YYYYQn')
    .argument('<to>', 'abp-registry/YYYYQn')
    .addOption(jsonOption())
    .action(async (from: string, to: string, options: { json?: boolean }) => (await import('./registry.js')).registryDiffCommand(from, to, options));
  registryGroup
    .command('opt-out')
    .description('opt a repository out: left out of the next rotation, and of every draw from now on')
    .argument('<repo>', 'owner/name')
    .requiredOption('--reason <text>', 'why, as the maintainers put it')
    .option('--by <who>', 'who asked: a GitHub login or an email address', 'operator')
    .addOption(jsonOption())
    .action(async (repo: string, options: { reason: string; by: string; json?: boolean }) => (await import('./registry.js')).registryOptOutCommand(repo, options));

  program
    .command('draw')
    .description('draw tasks from the registry backlog with a published seed (on the worker): snapshot, record, one task workflow per pick')
    .requiredOption('--seed <n>', 'the published seed', wholeNumber('--seed'))
    .requiredOption('--count <n>', 'how many tasks', wholeNumber('--count', 10_000))
    .option('--registry-version <version>', 'abp-registry/YYYYQn (default: the latest stored)')
    .addOption(jsonOption())
    .action(async (options: { seed: number; count: number; registryVersion?: string; json?: boolean }) => (await import('./registry.js')).drawCommand(options));

  const taskGroup = program.command('task').description('tasks from draw to maintainer merge: list, show, and submitting fixes');
  taskGroup
    .command('list')
    .description('tasks with their state, pull request and last change (from the database, through the worker)')
    .option('--state <state>', 'only tasks in this state (drawn, solving, tracking, freezing, scored, practice, withdrawn, rejected)')
    .option('--limit <n>', 'at most this many', wholeNumber('--limit', 100_000), 1_000)
    .addOption(jsonOption())
    .action(async (options: { state?: string; limit: number; json?: boolean }) => (await import('./task.js')).taskListCommand(options));
  taskGroup
    .command('show')
    .description("one task: state, pull request, merge, bundle, timings and its event log")
    .argument('<task>', 'the task id, e.g. gh-owner-name-42')
    .addOption(jsonOption())
    .action(async (task: string, options: { json?: boolean }) => (await import('./task.js')).taskShowCommand(task, options));
  taskGroup
    .command('submit-fix')
    .description('tell a task about a fix opened upstream by a person or another engine; the task follows it to its merge')
    .argument('<task>', 'the task id')
    .requiredOption('--pr <url>', 'the pull request')
    .addOption(jsonOption())
    .action(async (task: string, options: { pr: string; json?: boolean }) => (await import('./task.js')).taskSubmitFixCommand(task, options));
  taskGroup
    .command('open-pr')
    .description("open the fix's pull request upstream (GITHUB_TOKEN) with the disclosure spec §4.5 requires, then follow it")
    .argument('<task>', 'the task id')
    .requiredOption('--branch <forkOwner:branch>', 'the branch carrying the fix, in your fork')
    .requiredOption('--summary <text>', 'what the change does, for the body')
    .option('--title <text>', 'the pull request title (default: "Fix #<issue>")')
    .option('--engine <name>', 'the engine that made the fix, named in the disclosure', 'abp-reference@0.1.0')
    .option('--base <branch>', 'the branch to merge into', 'main')
    .option('--contributing <file|url>', "the repository's contribution rules, quoted or linked in the body")
    .addOption(jsonOption())
    .action(async (task: string, options: OpenPrOptions) => (await import('./task.js')).taskOpenPrCommand(task, options));

  program
    .command('tasks')
    .description('tasks from the database (through the worker); --scored: the scored set as of a date, with sourcedAt, cutoffsVerified and bundle digest')
    .option('--scored', 'only tasks in the scored set (spec §4.4): frozen at or before --as-of, and scored until after it')
    .addOption(new Option('--as-of <date>', 'the date of the scored set: a day (2026-07-02, UTC) or an RFC 3339 time (default: now); implies --scored').implies({ scored: true }))
    .option('--limit <n>', 'at most this many', wholeNumber('--limit', 100_000), 1_000)
    .addOption(jsonOption())
    .action(async (options: TasksCommandOptions) => (await import('./task.js')).tasksCommand(options));

  program
    .command('export')
    .description('export what the registry froze')
    .command('training')
    .description('frozen tasks as abp-training/v1 JSONL: issue, repository state and verified diff with bundle digests; practice tasks only unless --include-scored')
    .requiredOption('-o, --output <file>', 'the JSONL file to write (replaced atomically)')
    .option('--trust-root <file>', "the pinned abp-trust-root/v1 document every bundle must verify against (default: the data directory's trust-root.json)")
    .option('--include-scored', 'also export tasks still in the scored set (contaminates the benchmark for models trained on them)')
    .addOption(jsonOption())
    .action(async (options: ExportTrainingOptions) => (await import('./export.js')).exportTrainingCommand(options));

  program
    .command('serve')
    .description('serve the read-only distribution API under /v1 (docs/api.md) and, with ABP_WEBHOOK_SECRET set, receive GitHub webhooks at /webhooks/github and signal the task workflows they concern')
    .addOption(new Option('--port <n>', 'TCP port (0: any free port)').argParser(wholeNumber('--port', 65_535)).default(8080))
    .option('--host <address>', 'address to listen on (0.0.0.0 to accept deliveries from other machines)', '127.0.0.1')
    .action(async (options: ServeCommandOptions) => (await import('./serve.js')).serveCommand(options));

  const keysGroup = program.command('keys').description("the operator's signing keys: rotate the signing key, list the keys the trust root lists");
  keysGroup
    .command('rotate')
    .description('create a new signing key and retire the current one in a new trust root version the old key signs (what it signed stays valid); completes a rotation a crash interrupted')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./keys.js')).keysRotateCommand(options));
  keysGroup
    .command('list')
    .description('list the keys of the trust root with their validity windows and states (active, retired, expired, pending)')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./keys.js')).keysListCommand(options));

  program
    .command('status')
    .description("the operators' view: the stack, the latest registry version, draws, tasks by state, bundles, the transparency log and the next rotation (read-only)")
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./status.js')).statusCommand(options));

  program
    .command('init')
    .description("create the operator's signing key (mode 0600) and the trust root listing it; a second run keeps both")
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./signing.js')).initCommand(options));

  program
    .command('freeze')
    .description('freeze a merged fix into a signed, content-addressed task bundle: FAIL_TO_PASS from repeated runs, then bundle, store, sign')
    .requiredOption('--repo <owner/name>', 'the repository')
    .requiredOption('--base <commit>', 'the pre-fix commit (the base the fix merged onto)')
    .requiredOption('--fix <commit|patch>', 'the fix: a commit in the repository (a merge commit is diffed against --base), or a patch file')
    .requiredOption('--issue <file>', 'the issue as JSON {number, title, body} (gh issue view N --json number,title,body)')
    .requiredOption('--pr <url>', 'the maintainer-merged pull request')
    .option('--git-dir <dir>', 'a local clone holding --base and --fix', '.')
    .option('--recipe <file>', 'the runner recipe {runner, ecosystem, install, test, report} (default: the criteria override, else detected)')
    .option('--registry-version <version>', 'the registry version the issue was drawn from (default: the current quarter)')
    .option('--draw-seed <n>', 'the seed of the draw that picked the issue', wholeNumber('--draw-seed'), 0)
    .option('--sourced-at <time>', 'when the issue was drawn, RFC 3339 UTC (default: now)')
    .option('--runs <n>', 'runs per state (at least 3)', wholeNumber('--runs', 20), 3)
    .addOption(jsonOption())
    .action(async (options: FreezeCommandOptions) => (await import('./freeze.js')).freezeCommand(options));

  program
    .command('verify')
    .description('verify a task bundle: its digests, the signed statement and the key against a trust root (exit 1 with the reason code)')
    .argument('<bundle>', 'the bundle archive (<sha256>.tar)')
    .option('--signature <file>', 'the Sigstore bundle (default: <bundle without .tar>.sigstore.json beside it)')
    .option('--trust-root <file>', 'the pinned abp-trust-root/v1 document (default: the data directory\'s trust-root.json)')
    .addOption(jsonOption())
    .action(async (bundle: string, options: VerifyOptions) => (await import('./signing.js')).verifyCommand(bundle, options));


  program
    .command('pull')
    .description("download a frozen task from a registry's abp serve, check its digest and signature against a pinned trust root, and unpack what the agent sees and the held-out part into separate folders (exit 1 with the reason code; nothing is left behind)")
    .argument('<task>', 'the task id, e.g. gh-acme-widgets-42')
    .requiredOption('--from <url>', "the registry's abp serve address, e.g. https://registry.example.org")
    .option('--trust-root <file>', "the pinned abp-trust-root/v1 document; newer versions are taken only when it vouches for them (default: the data directory's trust-root.json)")
    .option('-o, --output <dir>', 'where <task>/task and <task>/held-out are made (default: the current folder)')
    .option('--checkpoints <dir>', "where the log checkpoints seen of each registry are kept; the log must extend the newest one kept (default: the data directory's kept-checkpoints/)")
    .addOption(jsonOption())
    .action(async (task: string, options: PullCommandOptions) => (await import('./pull.js')).pullCommand(task, options));
  program
    .command('conformance')
    .description('run the adversarial conformance suite through the real `abp run` and report the level it demonstrates')
    .option('-o, --output <dir>', 'where the suite, its results and conformance.json go (default: a new temporary folder)')
    .addOption(jsonOption())
    .action(async (options: { output?: string; json?: boolean }) => (await import('./conformance.js')).conformanceCommand(options));

  program
    .command('worker')
    .description('run the abp worker in the foreground (what `abp dev up` starts in the background)')
    .action(async () => (await import('./worker.js')).workerCommand());

  program
    .command('validate')
    .description('validate ABP documents (by their "schema" field) and abp-trace/v1 JSONL files')
    .argument('<files...>', 'documents (.json) or traces (.jsonl)')
    .option('--all', 'report every file instead of stopping at the first invalid one')
    .addOption(jsonOption())
    .action(async (files: string[], options: { all?: boolean; json?: boolean }) => (await import('./validate.js')).validateCommand(files, options));

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit through here too, with code 0.
      return error.exitCode === 0 ? 0 : 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    const code = errorCode(error);
    // With --json a failure is data too, so a script reads the code instead of parsing prose.
    const reported = error instanceof CommandFailed && error.reportedAsData;
    if (argv.includes('--json') && !reported) process.stdout.write(`${JSON.stringify({ error: { code: code ?? 'failed', message } }, null, 2)}\n`);
    process.stderr.write(`abp: ${message}\n`);
    if (process.env.ABP_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    // A malformed setting in the environment is a usage error, like a malformed flag.
    if (error instanceof CommandFailed) return error.exitCode;
    return code === 'invalid-setting' ? 2 : 1;
  }
}

function errorCode(error: unknown): string | undefined {
  const code: unknown = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' ? code : undefined;
}
