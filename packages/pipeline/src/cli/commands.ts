// The operators' commands, one registration per command: the embedded stack and the worker, the registry and its
// draws, tasks, the freeze, signing keys, the read-only API, status and the training export.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { envGroup, jsonOption, wholeNumber, type CommandGroup } from '@abp/grader/cli';
import { DEFAULT_SCHEDULED_ROTATION } from '../contracts/rotation-defaults.js';
import type { ExportTrainingOptions } from './export.js';
import type { FreezeCommandOptions } from './freeze.js';
import type { EnvBuildOptions } from './env-build.js';
import type { RotateOptions } from './registry.js';
import type { ServeCommandOptions } from './serve.js';
import type { OpenPrOptions, TasksCommandOptions } from './task.js';
import type { WorkerCommandOptions } from './worker.js';

function registerDev(program: Command): void {
  const devGroup = program
    .command('dev')
    .description('start, stop and inspect the embedded stack (Temporal dev server, worker)');
  devGroup
    .command('up')
    .description('start the Temporal dev server (unless TEMPORAL_ADDRESS is set) and the abp worker in the background')
    .option('--check', 'then run the wiring check workflow')
    .addOption(jsonOption())
    .action(async (options: { check?: boolean; json?: boolean }) => (await import('./dev.js')).devUpCommand(options));
  devGroup
    .command('down')
    .description('stop the worker and the Temporal dev server; remove their pid files')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./dev.js')).devDownCommand(options));
  devGroup
    .command('status')
    .description('what runs where: pids, addresses, the Web UI, log files')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./dev.js')).devStatusCommand(options));
  devGroup
    .command('check')
    .description('run the wiring check workflow on the running stack')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./dev.js')).devCheckCommand(options));
}

function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run the abp worker in the foreground (what `abp dev up` starts in the background)')
    .option(
      '--queues <kinds>',
      'the task queues to serve, comma-separated: main (workflows, webhooks, polling), freeze, trials (default: all three)',
    )
    .option(
      '--max-concurrent <n|queue=n,…>',
      'activities run at once, for every queue served or per queue (default main=100, freeze=1, trials=1)',
    )
    .action(async (options: WorkerCommandOptions) => (await import('./worker.js')).workerCommand(options));
}

function registerRegistry(program: Command): void {
  const registryGroup = program
    .command('registry')
    .description('the quarterly repository registry: rotate, schedule, show, diff; opt-outs');
  registryGroup
    .command('rotate')
    .description(
      'rotate a registry version now (on the worker): discover, judge by the criteria, publish with its diff and API cost',
    )
    .option('--version <version>', 'abp-registry/YYYYQn to publish (default: the current quarter)')
    .option(
      '--top <n>',
      'the most starred repositories to judge',
      wholeNumber('--top', 100_000),
      DEFAULT_SCHEDULED_ROTATION.top,
    )
    .option('--size <n>', 'entries to keep at most', wholeNumber('--size', 500), DEFAULT_SCHEDULED_ROTATION.size)
    .option('--batch-size <n>', 'repositories per GraphQL batch (default 100)', wholeNumber('--batch-size', 100))
    .addOption(jsonOption())
    .action(async (options: RotateOptions) => (await import('./registry.js')).registryRotateCommand(options));
  registryGroup
    .command('schedule')
    .description('create or update the quarterly rotation Schedule (00:00 UTC on the first day of each quarter)')
    .option(
      '--top <n>',
      'the most starred repositories to judge',
      wholeNumber('--top', 100_000),
      DEFAULT_SCHEDULED_ROTATION.top,
    )
    .option('--size <n>', 'entries to keep at most', wholeNumber('--size', 500), DEFAULT_SCHEDULED_ROTATION.size)
    .option('--batch-size <n>', 'repositories per GraphQL batch (default 100)', wholeNumber('--batch-size', 100))
    .addOption(jsonOption())
    .action(async (options: { top: number; size: number; batchSize?: number; json?: boolean }) =>
      (await import('./registry.js')).registryScheduleCommand(options),
    );
  registryGroup
    .command('show')
    .description('print a published registry version (default: the latest) after checking its digest')
    .argument('[version]', 'abp-registry/YYYYQn')
    .addOption(jsonOption())
    .action(async (version: string | undefined, options: { json?: boolean }) =>
      (await import('./registry.js')).registryShowCommand(version, options),
    );
  registryGroup
    .command('diff')
    .description('what changed between two published registry versions, with the reason for each removal')
    .argument('<from>', 'abp-registry/YYYYQn')
    .argument('<to>', 'abp-registry/YYYYQn')
    .addOption(jsonOption())
    .action(async (from: string, to: string, options: { json?: boolean }) =>
      (await import('./registry.js')).registryDiffCommand(from, to, options),
    );
  registryGroup
    .command('opt-out')
    .description('opt a repository out: left out of the next rotation, and of every draw from now on')
    .argument('<repo>', 'owner/name')
    .requiredOption('--reason <text>', 'why, as the maintainers put it')
    .option('--by <who>', 'who asked: a GitHub login or an email address', 'operator')
    .addOption(jsonOption())
    .action(async (repo: string, options: { reason: string; by: string; json?: boolean }) =>
      (await import('./registry.js')).registryOptOutCommand(repo, options),
    );
}

function registerDraw(program: Command): void {
  program
    .command('draw')
    .description(
      'draw tasks from the registry backlog with a published seed (on the worker): snapshot, record, one task workflow per pick',
    )
    .requiredOption('--seed <n>', 'the published seed', wholeNumber('--seed'))
    .requiredOption('--count <n>', 'how many tasks', wholeNumber('--count', 10_000))
    .option('--registry-version <version>', 'abp-registry/YYYYQn (default: the latest stored)')
    .addOption(jsonOption())
    .action(async (options: { seed: number; count: number; registryVersion?: string; json?: boolean }) =>
      (await import('./registry.js')).drawCommand(options),
    );
}

function registerTask(program: Command): void {
  const taskGroup = program
    .command('task')
    .description('tasks from draw to maintainer merge: list, show, submitting fixes and their golden traces');
  taskGroup
    .command('list')
    .description('tasks with their state, pull request and last change (from the database, through the worker)')
    .option(
      '--state <state>',
      'only tasks in this state (drawn, solving, tracking, freezing, scored, practice, withdrawn, rejected)',
    )
    .option('--limit <n>', 'at most this many', wholeNumber('--limit', 100_000), 1_000)
    .addOption(jsonOption())
    .action(async (options: { state?: string; limit: number; json?: boolean }) =>
      (await import('./task.js')).taskListCommand(options),
    );
  taskGroup
    .command('show')
    .description('one task: state, pull request, merge, bundle, timings and its event log')
    .argument('<task>', 'the task id, e.g. gh-owner-name-42')
    .addOption(jsonOption())
    .action(async (task: string, options: { json?: boolean }) =>
      (await import('./task.js')).taskShowCommand(task, options),
    );
  taskGroup
    .command('submit-fix')
    .description(
      'tell a task about a fix opened upstream by a person or another engine; the task follows it to its merge',
    )
    .argument('<task>', 'the task id')
    .requiredOption('--pr <url>', 'the pull request')
    .addOption(jsonOption())
    .action(async (task: string, options: { pr: string; json?: boolean }) =>
      (await import('./task.js')).taskSubmitFixCommand(task, options),
    );
  taskGroup
    .command('attach-trace')
    .description(
      "attach the abp-trace/v1 file the solving engine printed to a task before its freeze: checked, kept in the data directory, and published beside the task's bundle (spec §4.2)",
    )
    .argument('<task>', 'the task id')
    .argument('<file>', 'the trace, e.g. the receipt traces/<trial>.abp-trace.jsonl of abp run')
    .addOption(jsonOption())
    .action(async (task: string, file: string, options: { json?: boolean }) =>
      (await import('./task.js')).taskAttachTraceCommand(task, file, options),
    );
  taskGroup
    .command('open-pr')
    .description(
      "open the fix's pull request upstream (GITHUB_TOKEN) with the disclosure spec §4.5 requires, then follow it",
    )
    .argument('<task>', 'the task id')
    .requiredOption('--branch <forkOwner:branch>', 'the branch carrying the fix, in your fork')
    .requiredOption('--summary <text>', 'what the change does, for the body')
    .option('--title <text>', 'the pull request title (default: "Fix #<issue>")')
    .option('--engine <name>', 'the engine that made the fix, named in the disclosure', 'abp-reference@0.1.0')
    .option('--base <branch>', 'the branch to merge into', 'main')
    .option('--contributing <file|url>', "the repository's contribution rules, quoted or linked in the body")
    .addOption(jsonOption())
    .action(async (task: string, options: OpenPrOptions) =>
      (await import('./task.js')).taskOpenPrCommand(task, options),
    );
}

function registerTasks(program: Command): void {
  program
    .command('tasks')
    .description(
      'tasks from the database (through the worker); --scored: the scored set as of a date, with sourcedAt, cutoffsVerified and bundle digest',
    )
    .option(
      '--scored',
      'only tasks in the scored set (spec §4.4): frozen at or before --as-of, and scored until after it',
    )
    .addOption(
      new Option(
        '--as-of <date>',
        'the date of the scored set: a day (2026-07-02, UTC) or an RFC 3339 time (default: now); implies --scored',
      ).implies({ scored: true }),
    )
    .option('--limit <n>', 'at most this many', wholeNumber('--limit', 100_000), 1_000)
    .addOption(jsonOption())
    .action(async (options: TasksCommandOptions) => (await import('./task.js')).tasksCommand(options));
}

function registerFreeze(program: Command): void {
  program
    .command('freeze')
    .description(
      'freeze a merged fix into a signed, content-addressed task bundle: FAIL_TO_PASS from repeated runs, then bundle, store, sign',
    )
    .requiredOption('--repo <owner/name>', 'the repository')
    .requiredOption('--base <commit>', 'the pre-fix commit (the base the fix merged onto)')
    .requiredOption(
      '--fix <commit|patch>',
      'the fix: a commit in the repository (a merge commit is diffed against --base), or a patch file',
    )
    .requiredOption(
      '--issue <file>',
      'the issue as JSON {number, title, body} (gh issue view N --json number,title,body)',
    )
    .requiredOption('--pr <url>', 'the maintainer-merged pull request')
    .option('--git-dir <dir>', 'a local clone holding --base and --fix', '.')
    .option(
      '--recipe <file>',
      'the runner recipe {runner, ecosystem, install, test, report} (default: the criteria override, else detected)',
    )
    .option(
      '--sourced-at <time>',
      'required: when the issue was drawn from the live backlog, RFC 3339 UTC, e.g. 2026-07-02T14:11:09Z',
      utcTime('--sourced-at'),
    )
    .option(
      '--registry-version <version>',
      'required: the registry version the issue was drawn from, e.g. abp-registry/2026Q3',
      registryVersionFlag,
    )
    .option(
      '--draw-seed <n>',
      'required: the published seed of the draw that picked the issue',
      wholeNumber('--draw-seed'),
    )
    .option('--runs <n>', 'runs per state (at least 3)', wholeNumber('--runs', 20), 3)
    .option(
      '--golden-trace <file>',
      'the abp-trace/v1 file the solving engine printed (spec §4.2), e.g. the receipt traces/<trial>.abp-trace.jsonl of abp run: checked first, published beside the bundle and named by the manifest',
    )
    .option(
      '--host',
      "run the suites on this machine's toolchains instead of in the task's environment (the default, abp env build); the task then names no image",
    )
    .addOption(jsonOption())
    .action(async (options: FreezeFlags, command: Command) => {
      // Checked here, all at once and before any work: a missing one used to be filled in (now, this quarter, seed 0),
      // which published an old fix as unseen by every model trained after it.
      const missing = PROVENANCE_FLAGS.filter(({ key }) => options[key] === undefined).map(({ flag }) => flag);
      const { sourcedAt, registryVersion, drawSeed } = options;
      if (sourcedAt === undefined || registryVersion === undefined || drawSeed === undefined)
        return command.error(
          `error: abp freeze needs the task's provenance and never guesses it; missing ${missing.join(', ')} (${PROVENANCE_FLAGS.map(({ flag, what }) => `${flag}: ${what}`).join('; ')})`,
          { exitCode: 2, code: 'abp.missing-provenance' },
        );
      return (await import('./freeze.js')).freezeCommand({ ...options, sourcedAt, registryVersion, drawSeed });
    });
}

type ProvenanceKey = 'sourcedAt' | 'registryVersion' | 'drawSeed';
type FreezeFlags = Omit<FreezeCommandOptions, ProvenanceKey> & Partial<Pick<FreezeCommandOptions, ProvenanceKey>>;

/** The draw's facts a task carries (spec §4.1, §4.4), which `abp freeze` takes only from its operator. */
const PROVENANCE_FLAGS: ReadonlyArray<{ key: ProvenanceKey; flag: string; what: string }> = [
  { key: 'sourcedAt', flag: '--sourced-at', what: 'when the issue was drawn, e.g. 2026-07-02T14:11:09Z' },
  {
    key: 'registryVersion',
    flag: '--registry-version',
    what: 'the registry it was drawn from, e.g. abp-registry/2026Q3',
  },
  { key: 'drawSeed', flag: '--draw-seed', what: "that draw's published seed, e.g. 424242" },
];

/** A flag's parser for an RFC 3339 UTC time; the schema checks it again (utcTimestamp), this only fails it early. */
function utcTime(label: string) {
  return (raw: string): string => {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/.test(raw) || Number.isNaN(Date.parse(raw)))
      throw new InvalidArgumentError(`${label} must be an RFC 3339 UTC time ending in Z, e.g. 2026-07-02T14:11:09Z`);
    return raw;
  };
}

function registryVersionFlag(raw: string): string {
  if (!/^abp-registry\/\d{4}Q[1-4]$/.test(raw))
    throw new InvalidArgumentError(
      '--registry-version must be abp-registry/YYYYQn with n from 1 to 4, e.g. abp-registry/2026Q3',
    );
  return raw;
}

function registerEnvBuild(program: Command): void {
  envGroup(program)
    .command('build')
    .description(
      "build a repository's environment at a commit: a Debian base with the toolchain it names, then its install step with the registries reachable",
    )
    .requiredOption('--repo <owner/name>', 'the repository (for its criteria override)')
    .requiredOption('--base <commit>', 'the commit to build for')
    .option('--git-dir <dir>', 'a local clone holding --base', '.')
    .option(
      '--recipe <file>',
      'the runner recipe {runner, ecosystem, install, test, report, toolchain?} (default: the criteria override, else detected)',
    )
    .option('--base-image <digest>', 'build on this imported base (abp env import) instead of a Debian base')
    .option('--store <dir>', 'the environment store (default: $ABP_HOME/environments)')
    .addOption(jsonOption())
    .action(async (options: EnvBuildOptions) => (await import('./env-build.js')).envBuildCommand(options));
}

function registerInit(program: Command): void {
  program
    .command('init')
    .description("create the operator's signing key (mode 0600) and the trust root listing it; a second run keeps both")
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./init.js')).initCommand(options));
}

function registerKeys(program: Command): void {
  const keysGroup = program
    .command('keys')
    .description("the operator's signing keys: rotate the signing key, list the keys the trust root lists");
  keysGroup
    .command('rotate')
    .description(
      'create a new signing key and retire the current one in a new trust root version the old key signs (what it signed stays valid); completes a rotation a crash interrupted',
    )
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./keys.js')).keysRotateCommand(options));
  keysGroup
    .command('list')
    .description(
      'list the keys of the trust root with their validity windows and states (active, retired, expired, pending)',
    )
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./keys.js')).keysListCommand(options));
}

function registerServe(program: Command): void {
  program
    .command('serve')
    .description(
      'serve the read-only distribution API under /v1 (docs/api.md) and, with ABP_WEBHOOK_SECRET set, receive GitHub webhooks at /webhooks/github and signal the task workflows they concern',
    )
    .addOption(
      new Option('--port <n>', 'TCP port (0: any free port)').argParser(wholeNumber('--port', 65_535)).default(8080),
    )
    .option('--host <address>', 'address to listen on (0.0.0.0 to accept deliveries from other machines)', '127.0.0.1')
    .option(
      '--published-only',
      'serve the published files and the tasks `abp freeze` published alone: the tasks the pipeline tracks are not served, and there is no webhook route',
    )
    .option(
      '--log-file <file>',
      'write the request log (one JSON line per request) to this file, moved to <file>.1 past 64 MiB and kept 4 deep, rather than to stdout',
    )
    .action(async (options: ServeCommandOptions) => (await import('./serve.js')).serveCommand(options));
}

function registerStatus(program: Command): void {
  program
    .command('status')
    .description(
      "the operators' view: the stack, the latest registry version, draws, tasks by state, bundles, the transparency log and the next rotation (read-only)",
    )
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./status.js')).statusCommand(options));
}

function registerExport(program: Command): void {
  program
    .command('export')
    .description('export what the registry froze')
    .command('training')
    .description(
      'frozen tasks as abp-training/v1 JSONL: issue, repository state and verified diff with bundle digests; practice tasks only unless --include-scored',
    )
    .requiredOption('-o, --output <file>', 'the JSONL file to write (replaced atomically)')
    .option(
      '--trust-root <file>',
      "the pinned abp-trust-root/v1 document every bundle must verify against (default: the data directory's trust-root.json)",
    )
    .option(
      '--include-scored',
      'also export tasks still in the scored set (contaminates the benchmark for models trained on them)',
    )
    .addOption(jsonOption())
    .action(async (options: ExportTrainingOptions) => (await import('./export.js')).exportTrainingCommand(options));
}

/** Everything the operators' `abp` adds to the grader's commands, in the order `abp --help` lists it. */
export const pipelineCommands: CommandGroup = (program) => {
  for (const register of [
    registerDev,
    registerWorker,
    registerRegistry,
    registerDraw,
    registerTask,
    registerTasks,
    registerFreeze,
    registerEnvBuild,
    registerInit,
    registerKeys,
    registerServe,
    registerStatus,
    registerExport,
  ])
    register(program);
};
