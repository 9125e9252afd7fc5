// The one place where an `abp` command's errors become exit codes (0 ok, 1 the command failed, 2 it was used wrongly,
// 3 `abp gate` could not compare, 4 `abp run` scored no trial), shared by every `abp` binary: the grader's, the
// pipeline's (which adds the operators' commands) and the main job's. Each builds its program from the command groups
// of its own package and of the packages below it; command modules load on use, so `abp --help` pays for commander
// alone.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { AbpError } from '@abp/protocol/errors';
import { CommandFailed } from './output.js';

/** Adds one group of commands to a program. */
export type CommandGroup = (program: Command) => void;

export interface ProgramAbout {
  /** The package.json of the package whose binary this is: its version is what `abp --version` prints. */
  packageJson: URL;
  description: string;
  /** The environment variables the commands read, for the end of `abp --help`. */
  environment: string;
}

export function createProgram(about: ProgramAbout, groups: readonly CommandGroup[]): Command {
  const { version } = JSON.parse(readFileSync(about.packageJson, 'utf8')) as { version: string };
  const program = new Command('abp')
    .description(about.description)
    .version(version, '-V, --version', 'print the version of this abp')
    // Options before a command are the program's, so a command may have its own --version (abp registry rotate).
    .enablePositionalOptions()
    .showHelpAfterError('(run `abp --help` for usage)')
    .exitOverride()
    .addHelpText('after', `\nEnvironment: ${about.environment}`);
  for (const group of groups) group(program);
  return program;
}

export async function runProgram(program: Command, argv: readonly string[]): Promise<number> {
  // A reader that stops early (`abp --help | head`) closes the pipe: what it did not read is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    // Help and version exit through here too, with code 0.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const message = error instanceof Error ? error.message : String(error);
    // instanceof narrows a generic class to AbpError<any>; every code is a string.
    const code: string = error instanceof AbpError ? (error as AbpError<string>).code : 'failed';
    // With --json a failure is data too, so a script reads the code instead of parsing prose.
    const reported = error instanceof CommandFailed && error.reportedAsData;
    if (argv.includes('--json') && !reported)
      process.stdout.write(`${JSON.stringify({ error: { code, message } }, null, 2)}\n`);
    process.stderr.write(`abp: ${message}\n`);
    if (process.env.ABP_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    if (error instanceof CommandFailed) return error.exitCode;
    // A malformed setting in the environment is a usage error, like a malformed flag.
    return code === 'invalid-setting' ? 2 : 1;
  }
}

/** A flag's parser for a whole number from 0 to `max`. */
export function wholeNumber(label: string, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 0 || value > max)
      throw new InvalidArgumentError(`${label} must be a whole number from 0 to ${max}, got "${raw}"`);
    return value;
  };
}

/** A flag's parser for a non-negative number such as a growth fraction (0.15 is +15 %) or a significance level. */
export function fraction(label: string, max = Number.POSITIVE_INFINITY) {
  return (raw: string): number => {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > max) {
      throw new InvalidArgumentError(
        `${label} must be a number from 0${max === Number.POSITIVE_INFINITY ? '' : ` to ${max}`}, e.g. 0.15, got "${raw}"`,
      );
    }
    return value;
  };
}

/** A flag's parser for a sha256 digest as abp spells them: "sha256:" and 64 lowercase hex digits. */
export function sha256Flag(label: string) {
  return (raw: string): string => {
    if (!/^sha256:[0-9a-f]{64}$/.test(raw))
      throw new InvalidArgumentError(`${label} must be "sha256:" followed by 64 lowercase hex digits, got "${raw}"`);
    return raw;
  };
}

export const jsonOption = () => new Option('--json', 'print the result as JSON on stdout');
