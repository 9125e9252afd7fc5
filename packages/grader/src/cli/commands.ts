// The grader's commands, one registration per command: what a task consumer runs in CI (run, gate, baseline,
// conformance, validate) and what an auditor runs without trusting the operator (verify, pull, unpack, audit).
import { Option, type Command } from 'commander';
import type { AuditDrawOptions, AuditLogOptions } from './audit.js';
import type { EnvStoreOptions } from './env.js';
import type { BaselineCommandOptions, GateOptions } from './gate.js';
import { fraction, jsonOption, sha256Flag, wholeNumber, type CommandGroup } from './program.js';
import type { PullCommandOptions } from './pull.js';
import type { RunCommandOptions } from './run.js';
import type { RemoteTrials } from '../run/remote-trials.js';
import type { UnpackCommandOptions } from './unpack.js';
import type { VerifyOptions } from './verify.js';

/**
 * Where `abp run --on <name>` runs trials besides here: the operators' abp adds `temporal` (the pipeline's workers);
 * the grader alone runs them on this machine.
 */
export type TrialPlaces = Readonly<Record<string, () => Promise<RemoteTrials>>>;

function registerRun(program: Command, places: TrialPlaces): void {
  program
    .command('run')
    .description(
      'grade agent engines on frozen tasks: ABBA-ordered trials, held-out verification, verdict with receipts (exit 4 when no trial could be scored)',
    )
    .requiredOption('--config <file>', 'the abp-run/v1 configuration')
    .option('--adapters <file>', 'the abp-adapters/v1 file (default: abp-adapters.json beside the config)')
    .option('--tasks <dir>', 'folder of task folders, one per task id (default: tasks/ beside the config)')
    .requiredOption('-o, --output <dir>', 'results folder: the run writes <dir>/<run id>/ and <dir>/run-latest')
    .option('--resume-progress <journal>', 'continue an interrupted matrix from its progress.jsonl (or run folder)')
    .option('--lock-file <path>', 'lock against overlapping runs (default: <output>/.abp-run.lock)')
    .option(
      '--environments <dir>',
      "the store holding the tasks' environments (default: $ABP_HOME/environments, where abp pull puts them)",
    )
    .addOption(
      new Option('--concurrency <n>', 'trials in flight at once')
        .argParser(wholeNumber('--concurrency', 64))
        .default(1),
    )
    .option(
      '--on <place>',
      `where the trials run: local (this machine, the default)${Object.keys(places)
        .map((place) => `, ${place}`)
        .join('')}`,
      'local',
    )
    .option('--keep-workspaces', 'keep each trial folder for diagnosis')
    .option('--run-unsupported', 'run trials even when the adapter lacks a capability the task requires')
    .option(
      '--strict-comparison',
      'refuse to start when comparison metadata (model, provider, sampling, tool policy) is missing or differs',
    )
    .addOption(jsonOption())
    .action(async (options: RunCommandOptions) => (await import('./run.js')).runCommand(options, places));
}

function registerGate(program: Command): void {
  program
    .command('gate')
    .description(
      'compare a run with the committed baseline (CI): exit 1 when it got worse, 3 when the two cannot be compared',
    )
    .argument('<run>', 'the run folder abp run wrote, e.g. results/run-latest')
    .requiredOption('--baseline <file>', 'the committed abp-baseline/v1 file')
    .option('--engine <name>', "the run's engine to gate (default: the baseline's engine)")
    .option(
      '--require-significant',
      'fail the resolve rate only on a drop the exact McNemar test finds significant at the baseline alpha',
    )
    .addOption(
      new Option(
        '--journal-digest <sha256>',
        'the journal digest `abp run` printed: refuse the run unless its progress.jsonl still has it',
      ).argParser(sha256Flag('--journal-digest')),
    )
    .addOption(jsonOption())
    .action(async (run: string, options: GateOptions) => (await import('./gate.js')).gateCommand(run, options));
}

function registerBaseline(program: Command): void {
  program
    .command('baseline')
    .description('write the baseline `abp gate` compares with, from one engine of a finished run; commit the file')
    .argument('<run>', 'the run folder abp run wrote, e.g. results/run-latest')
    .requiredOption('--engine <name>', 'the engine to take the baseline of')
    .requiredOption('-o, --output <file>', 'where to write it, e.g. abp-baseline.json')
    .addOption(
      new Option(
        '--max-diff-growth <fraction>',
        'allowed growth of the median normalized diff size (default 0.25)',
      ).argParser(fraction('--max-diff-growth')),
    )
    .addOption(
      new Option('--max-tokens-growth <fraction>', 'allowed growth of the median tokens (default 0.15)').argParser(
        fraction('--max-tokens-growth'),
      ),
    )
    .addOption(
      new Option(
        '--max-wall-clock-growth <fraction>',
        'allowed growth of the median wall clock (default 0.5)',
      ).argParser(fraction('--max-wall-clock-growth')),
    )
    .addOption(
      new Option('--max-cost-growth <fraction>', 'allowed growth of the median cost (default 0.15)').argParser(
        fraction('--max-cost-growth'),
      ),
    )
    .addOption(
      new Option('--alpha <p>', 'significance level for --require-significant (default 0.05)').argParser(
        fraction('--alpha', 1),
      ),
    )
    .addOption(jsonOption())
    .action(async (run: string, options: BaselineCommandOptions) =>
      (await import('./gate.js')).baselineCommand(run, options),
    );
}

interface ConformanceCommandOptions {
  output?: string;
  json?: boolean;
  realEngines?: string;
  enginesDir?: string;
  providerUrl: string[];
}

function registerConformance(program: Command): void {
  program
    .command('conformance')
    .description(
      'run the adversarial conformance suite through the real `abp run` and report the level it demonstrates',
    )
    .option(
      '-o, --output <dir>',
      'where the suite, its results and conformance.json go (default: a new temporary folder)',
    )
    .option(
      '--real-engines <names>',
      'run the real-engine leg instead: these engines (comma-separated, or "all") on their real providers with your keys',
    )
    .option(
      '--engines-dir <dir>',
      'where the real engines are installed, as scripts/install-engines.sh lays them out (default: ./.tools/engines)',
    )
    .option(
      '--provider-url <provider=url>',
      "the real-engine leg's endpoint for a provider's engines instead of its API (anthropic=… or openai=…: a gateway)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .addOption(jsonOption())
    .action(async (options: ConformanceCommandOptions) =>
      (await import('./conformance.js')).conformanceCommand(options),
    );
}

function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('validate ABP documents (by their "schema" field) and abp-trace/v1 JSONL files')
    .argument('<files...>', 'documents (.json) or traces (.jsonl)')
    .option('--all', 'report every file instead of stopping at the first invalid one')
    .addOption(jsonOption())
    .action(async (files: string[], options: { all?: boolean; json?: boolean }) =>
      (await import('./validate.js')).validateCommand(files, options),
    );
}

function registerVerify(program: Command): void {
  program
    .command('verify')
    .description(
      'verify a task bundle: its digests, the signed statement and the key against a trust root (exit 1 with the reason code)',
    )
    .argument('<bundle>', 'the bundle archive (<sha256>.tar)')
    .option('--signature <file>', 'the Sigstore bundle (default: <bundle without .tar>.sigstore.json beside it)')
    .option(
      '--trust-root <file>',
      "the pinned abp-trust-root/v1 document (default: the data directory's trust-root.json)",
    )
    .addOption(jsonOption())
    .action(async (bundle: string, options: VerifyOptions) =>
      (await import('./verify.js')).verifyCommand(bundle, options),
    );
}

function registerPull(program: Command): void {
  program
    .command('pull')
    .description(
      "download a frozen task from a registry's abp serve, check its digest and signature against a pinned trust root, and unpack what the agent sees and the held-out part into separate folders (exit 1 with the reason code; nothing is left behind)",
    )
    .argument('<task>', 'the task id, e.g. gh-acme-widgets-42')
    .requiredOption('--from <url>', "the registry's abp serve address, e.g. https://registry.example.org")
    .option(
      '--trust-root <file>',
      "the pinned abp-trust-root/v1 document; newer versions are taken only when it vouches for them (default: the data directory's trust-root.json)",
    )
    .option('-o, --output <dir>', 'where <task>/task and <task>/held-out are made (default: the current folder)')
    .option(
      '--checkpoints <dir>',
      "where the log checkpoints seen of each registry are kept; the log must extend the newest one kept (default: the data directory's kept-checkpoints/)",
    )
    .option(
      '--environments <dir>',
      "where the task's environment is fetched, layers shared with other tasks once (default: the data directory's environments/)",
    )
    .addOption(
      new Option(
        '--max-bytes <n>',
        'the most bytes one bundle or environment blob may have (default: 8 GiB)',
      ).argParser(wholeNumber('--max-bytes')),
    )
    .addOption(
      new Option(
        '--idle-timeout <seconds>',
        'give a download up after this long without a byte (default: 60)',
      ).argParser(wholeNumber('--idle-timeout', 86_400)),
    )
    .addOption(
      new Option('--deadline <seconds>', 'the longest one download may take (default: 7200)').argParser(
        wholeNumber('--deadline', 7 * 86_400),
      ),
    )
    .addOption(jsonOption())
    .action(async (task: string, options: PullCommandOptions) =>
      (await import('./pull.js')).pullCommand(task, options),
    );
}

function registerUnpack(program: Command): void {
  program
    .command('unpack')
    .description(
      'unpack a task bundle read from a file into the task folder abp run reads, as abp pull lays it out, once its signature verifies against a pinned trust root (and, with --from, its log entry against the registry): exit 1 with the reason code abp pull gives; nothing is left behind',
    )
    .argument('<bundle>', 'the bundle archive (<sha256>.tar)')
    .requiredOption('-o, --output <dir>', 'where <task>/task and <task>/held-out are made (abp run --tasks <dir>)')
    .option('--signature <file>', 'the Sigstore bundle (default: <bundle without .tar>.sigstore.json beside it)')
    .option(
      '--trust-root <file>',
      "the pinned abp-trust-root/v1 document (default: the data directory's trust-root.json)",
    )
    .option(
      '--from <url>',
      "the registry's abp serve: prove the signature logged in its transparency log and fetch a missing environment, as abp pull does (default: the log is not consulted, the environment must be in the store)",
    )
    .option(
      '--checkpoints <dir>',
      "with --from: where the log checkpoints seen of each registry are kept (default: the data directory's kept-checkpoints/)",
    )
    .option(
      '--environments <dir>',
      "the environment store the task's environment must be in (default: the data directory's environments/)",
    )
    .addOption(jsonOption())
    .action(async (bundle: string, options: UnpackCommandOptions) =>
      (await import('./unpack.js')).unpackCommand(bundle, options),
    );
}

function registerAudit(program: Command): void {
  const audit = program
    .command('audit')
    .description('re-derive published records offline, without trusting the operator or reaching GitHub');
  audit
    .command('draw')
    .description(
      're-derive an abp-draw/v1 record from its backlog snapshot and opt-out list: prints match, or the first difference (exit 1)',
    )
    .argument('<record>', 'the abp-draw/v1 record')
    .requiredOption('--snapshot <file>', 'the abp-backlog/v1 snapshot the record names (canonical JSONL)')
    .option(
      '--opt-outs <file>',
      'JSON array of the "owner/name" opt-outs in force when the draw was made (default: none)',
    )
    .option('--registry <file>', 'the abp-registry/v1 document, to check the registry digest the record carries')
    .addOption(jsonOption())
    .action(async (record: string, options: AuditDrawOptions) =>
      (await import('./audit.js')).auditDrawCommand(record, options),
    );
  audit
    .command('log')
    .description(
      'check the transparency log: every entry re-hashed, every checkpoint signed by a trusted key and consistent (exit 1 with the first problem)',
    )
    .addOption(new Option('--log <dir>', "the log folder (default: the data directory's log/)").conflicts('from'))
    .option(
      '--from <url>',
      "audit the log a registry's abp serve serves, downloaded into a temporary folder, e.g. https://registry.example.org",
    )
    .option(
      '--save <dir>',
      'with --from: hold the log against the checkpoints kept of this registry in <dir> (as `abp pull --checkpoints`), then keep the downloaded ones there',
    )
    .option(
      '--trust-root <file>',
      "the pinned trust root; with --from, newer versions the registry offers are taken only when it vouches for them (default: the data directory's trust-root.json)",
    )
    .option(
      '--known <file...>',
      'signed checkpoints kept from earlier (from `abp pull` or an earlier audit): the log must be consistent with them',
    )
    .option(
      '--entry <index>',
      'also prove this entry included in the newest checkpoint, as a consumer holding only that checkpoint checks it',
      wholeNumber('--entry'),
    )
    .option('--consistency <old:new>', 'also prove the stored checkpoint of size new extends the one of size old')
    .addOption(jsonOption())
    .action(async (options: AuditLogOptions) => (await import('./audit.js')).auditLogCommand(options));
}

/** `abp env`, made by whichever package registers its subcommands first (the pipeline adds `build`). */
export function envGroup(program: Command): Command {
  return (
    program.commands.find((command) => command.name() === 'env') ??
    program.command('env').description("task environments: the OCI images a task's suites and trials run in")
  );
}

function registerEnv(program: Command): void {
  const env = envGroup(program);
  const storeOption = () => new Option('--store <dir>', 'the environment store (default: $ABP_HOME/environments)');
  env
    .command('inspect')
    .description('show an environment: its layers (each checked against its digest), toolchains and install step')
    .argument('<environment>', 'its digest (sha256:…) or a task image reference (abp-env/…@sha256:…)')
    .addOption(storeOption())
    .addOption(jsonOption())
    .action(async (reference: string, options: EnvStoreOptions) =>
      (await import('./env.js')).envInspectCommand(reference, options),
    );
  env
    .command('import')
    .description(
      'import an OCI archive as a base to build environments on (skopeo copy docker://…@sha256:… oci-archive:base.tar)',
    )
    .argument('<archive>', 'the OCI archive, e.g. base.tar')
    .addOption(storeOption())
    .addOption(jsonOption())
    .action(async (archive: string, options: EnvStoreOptions) =>
      (await import('./env.js')).envImportCommand(archive, options),
    );
  env
    .command('export')
    .description('write an environment as an OCI archive, for skopeo, podman or docker load')
    .argument('<environment>', 'its digest (sha256:…) or a task image reference (abp-env/…@sha256:…)')
    .requiredOption('-o, --output <file>', 'the archive to write, e.g. image.tar')
    .option('--name <reference>', 'the name the archive tags the image with (default: the reference before @)')
    .addOption(storeOption())
    .addOption(jsonOption())
    .action(async (reference: string, options: EnvStoreOptions & { output: string; name?: string }) =>
      (await import('./env.js')).envExportCommand(reference, options),
    );
}

/** Everything the grader's `abp` does, in the order `abp --help` lists it. */
/** The grader's commands, with `abp run --on` offering `places` besides this machine. */
export function graderCommandsWith(places: TrialPlaces): CommandGroup {
  return (program) => {
    registerRun(program, places);
    graderCommandsBesideRun(program);
  };
}

const graderCommandsBesideRun: CommandGroup = (program) => {
  for (const register of [
    registerGate,
    registerBaseline,
    registerConformance,
    registerValidate,
    registerVerify,
    registerPull,
    registerUnpack,
    registerAudit,
    registerEnv,
  ])
    register(program);
};

export const graderCommands: CommandGroup = graderCommandsWith({});
