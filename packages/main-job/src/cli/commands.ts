// The main job's commands: `abp start` and `abp stop` (the whole pipeline once on the embedded stack), and `abp sim`
// (the local GitHub they run against).
import { Option, type Command } from 'commander';
import { jsonOption, wholeNumber, type CommandGroup } from '@abp/grader/cli';
import { DEFAULT_MAIN_JOB } from '../options.js';
import type { WorldOptions } from './sim.js';
import type { StartOptions } from './start.js';

function withWorldOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--world <kind>',
        'scale: many generated repositories, read-only; small: live repositories with real git, CI and maintainers',
      )
        .choices(['scale', 'small'])
        .default('scale'),
    )
    .addOption(
      new Option('--seed <n>', 'seed of the world: the same seed gives the same world')
        .argParser(wholeNumber('--seed'))
        .default(1),
    )
    .addOption(
      new Option('--repos <n>', 'repositories in a scale world')
        .argParser(wholeNumber('--repos', 5_000))
        .default(5_000),
    )
    .addOption(
      new Option('--issues <n>', 'issues in a scale world')
        .argParser(wholeNumber('--issues', 1_000_000))
        .default(1_000_000),
    )
    .addOption(
      new Option('--port <n>', 'TCP port on 127.0.0.1 (0: any free port)')
        .argParser(wholeNumber('--port', 65_535))
        .default(0),
    )
    .addOption(
      new Option('--review-delay-ms <n>', 'small world: how long maintainers wait before merging a green pull request')
        .argParser(wholeNumber('--review-delay-ms'))
        .default(1_000),
    )
    .addOption(
      new Option('--webhook-url <url>', 'small world: deliver webhooks here, signed with ABP_SIM_WEBHOOK_SECRET'),
    )
    .addOption(
      new Option(
        '--world-date <YYYY-MM-DD>',
        'small world: the day its clock starts, 00:00 UTC; its history lies in the 30 days before (default: today)',
      ),
    )
    .addOption(
      new Option(
        '--faults <file>',
        'inject seeded faults: a JSON fault plan (5xx bursts, slow answers, secondary limits, drifting search, dropped webhooks)',
      ),
    );
}

function registerStart(program: Command): void {
  program
    .command('start')
    .description(
      'run the whole live pipeline once on the embedded default: stack, rotation, seeded draw, reference fixes, merges, freeze, pull, grade, gate',
    )
    .addOption(
      new Option('--seed <n>', `the draw's published seed (default ${DEFAULT_MAIN_JOB.seed})`).argParser(
        wholeNumber('--seed'),
      ),
    )
    .addOption(
      new Option(
        '--count <n>',
        `tasks to draw (default ${DEFAULT_MAIN_JOB.count}: every eligible issue of the small world)`,
      ).argParser(wholeNumber('--count', 10_000)),
    )
    .addOption(
      new Option(
        '--trials <n>',
        `trials per task and engine in the grading run (default ${DEFAULT_MAIN_JOB.trials})`,
      ).argParser(wholeNumber('--trials', 100)),
    )
    .addOption(
      new Option(
        '--world-seed <n>',
        `seed of the simulator's small live world (default ${DEFAULT_MAIN_JOB.worldSeed})`,
      ).argParser(wholeNumber('--world-seed')),
    )
    .addOption(
      new Option(
        '--review-delay-ms <n>',
        `how long the simulator's maintainers wait before merging a green pull request (default ${DEFAULT_MAIN_JOB.reviewDelayMs})`,
      ).argParser(wholeNumber('--review-delay-ms')),
    )
    .addOption(
      new Option('--merge-timeout <seconds>', 'longest wait for CI and the maintainers (default 600)').argParser(
        wholeNumber('--merge-timeout'),
      ),
    )
    .addOption(
      new Option('--freeze-timeout <seconds>', 'longest wait for the freezes (default 900)').argParser(
        wholeNumber('--freeze-timeout'),
      ),
    )
    .addOption(new Option('--json', 'print one JSON object per progress event on stdout, the summary last'))
    .action(async (options: StartOptions) => (await import('./start.js')).startCommand(options));
  program
    .command('stop')
    .description('stop what `abp start` runs: abp serve, the simulator, the worker and the Temporal dev server')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./start.js')).stopCommand(options));
}

function registerSim(program: Command): void {
  const simGroup = program
    .command('sim')
    .description('the local GitHub simulator (REST, GraphQL, git over HTTP) over a generated world');
  withWorldOptions(
    simGroup.command('up').description('start the simulator in the background; prints GITHUB_API_URL and GITHUB_TOKEN'),
  )
    .addOption(jsonOption())
    .action(async (options: WorldOptions & { json?: boolean }) => (await import('./sim.js')).simUpCommand(options));
  simGroup
    .command('down')
    .description('stop the simulator')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./sim.js')).simDownCommand(options));
  simGroup
    .command('status')
    .description('whether the simulator runs, where, and over which world')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => (await import('./sim.js')).simStatusCommand(options));
  withWorldOptions(
    simGroup.command('serve').description('serve in the foreground (what `sim up` starts); needs ABP_SIM_TOKEN'),
  ).action(async (options: WorldOptions) => (await import('./sim.js')).simServeCommand(options));
}

/** What the main job's `abp` adds to the operators' commands, first in `abp --help`. */
export const mainJobCommands: CommandGroup = (program) => {
  registerStart(program);
  registerSim(program);
};
