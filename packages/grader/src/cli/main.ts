// The grader's `abp`: what engine teams install to grade in CI, and auditors to check what a registry published.
import { graderCommands } from './commands.js';
import { createProgram, runProgram } from './program.js';

export const GRADER_ENVIRONMENT =
  'ABP_HOME (data directory: the pinned trust root, kept log checkpoints; default ./.abp).';

export function main(argv: readonly string[]): Promise<number> {
  const program = createProgram(
    {
      packageJson: new URL('../../package.json', import.meta.url),
      description:
        'The replay grader of the Agent Benchmark Protocol: grade engines on frozen tasks, gate CI on the verdict, verify and audit what a registry publishes.',
      environment: GRADER_ENVIRONMENT,
    },
    [graderCommands],
  );
  return runProgram(program, argv);
}
