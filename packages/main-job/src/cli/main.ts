// The main job's `abp` (`npm run abp` in this repository): start and stop, the simulator, and every operator's and
// consumer's command.
import { runProgram } from '@abp/grader/cli';
import { operatorProgram } from '@abp/pipeline/cli/main';
import { mainJobCommands } from './commands.js';

export function main(argv: readonly string[]): Promise<number> {
  return runProgram(operatorProgram(new URL('../../package.json', import.meta.url), [mainJobCommands]), argv);
}
