// The operators' `abp`: the grader's commands and the pipeline's (registry, draws, tasks, freeze, signing, serve).
import { graderCommandsWith } from '@abp/grader/cli';
import { GRADER_ENVIRONMENT } from '@abp/grader/cli';
import { createProgram, runProgram, type CommandGroup, type ProgramAbout } from '@abp/grader/cli';
import { pipelineCommands } from './commands.js';

export const PIPELINE_ABOUT: Omit<ProgramAbout, 'packageJson'> = {
  description: 'The live task pipeline and replay grader of the Agent Benchmark Protocol.',
  environment:
    `${GRADER_ENVIRONMENT}\n` +
    'TEMPORAL_ADDRESS (use an existing cluster), TEMPORAL_NAMESPACE, ABP_TEMPORAL_PORT, ABP_TEMPORAL_UI_PORT,\n' +
    'ABP_RUN_STORE (abp run --on temporal: a shared folder or s3://bucket/prefix; AWS_ENDPOINT_URL for S3),\n' +
    'DATABASE_URL (Postgres instead of PGlite), GITHUB_TOKEN and GITHUB_API_URL (GitHub or the simulator),\n' +
    'ABP_WEBHOOK_SECRET (abp serve: enables the webhook route).',
};

/** The operators' command groups after `before` (the main job's), then the grader's. */
export function operatorProgram(packageJson: URL, before: readonly CommandGroup[] = []) {
  return createProgram({ ...PIPELINE_ABOUT, packageJson }, [
    ...before,
    pipelineCommands,
    graderCommandsWith({
      temporal: async () => (await import('../grading/temporal-trials.js')).temporalTrials(),
    }),
  ]);
}

export function main(argv: readonly string[]): Promise<number> {
  return runProgram(operatorProgram(new URL('../../package.json', import.meta.url)), argv);
}
