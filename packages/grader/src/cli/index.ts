// The grader's command line as the other `abp` binaries build on it: the program with its exit codes, the option
// parsers, the grader's commands and how commands speak. This file only re-exports.

export {
  createProgram,
  fraction,
  jsonOption,
  runProgram,
  wholeNumber,
  type CommandGroup,
  type ProgramAbout,
} from './program.js';
export { envGroup, graderCommands, graderCommandsWith, type TrialPlaces } from './commands.js';
export { GRADER_ENVIRONMENT } from './main.js';
export { CommandFailed, createOutput, type CommandFailureCode, type Output, type OutputOptions } from './output.js';
