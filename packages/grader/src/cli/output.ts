// How commands speak: data as JSON on stdout with --json, lines for a person otherwise; errors on stderr.
import { AbpError } from '@abp/protocol/errors';

export interface OutputOptions {
  json?: boolean;
}

export interface Output {
  /** A line for a person; dropped in --json mode so stdout stays parseable. */
  line(text: string): void;
  /** The command's result as data; printed only in --json mode. */
  data(value: unknown): void;
  error(text: string): void;
}

export function createOutput(options: OutputOptions, stdout = process.stdout, stderr = process.stderr): Output {
  return {
    line: (text) => {
      if (!options.json) stdout.write(`${text}\n`);
    },
    data: (value) => {
      if (options.json) stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    error: (text) => {
      stderr.write(`${text}\n`);
    },
  };
}

export type CommandFailureCode =
  | 'invalid-documents'
  | 'not-running'
  | 'gate-failed'
  | 'not-comparable'
  /** `abp gate` refused a run folder that does not match the journal that sealed it. */
  | 'results-tampered'
  | 'conformance-failed'
  | 'workflow-failed'
  | 'stage-failed'
  /** The main job finished, but the freeze rejected a merged fix: the summary names it and why. */
  | 'tasks-rejected'
  /** The main job finished, but a merged fix did not end frozen, pulled and graded (stalled, withdrawn, not pulled). */
  | 'tasks-not-delivered'
  /** `abp run` finished and wrote its receipts, but every trial was excluded: nothing in it can be compared. */
  | 'no-trial-scored'
  /** Options that cannot go together, found only once the command runs: exit 2, as commander's own usage errors. */
  | 'invalid-usage';

/**
 * A command that ran and failed: exit 1; 3 when `abp gate` refuses to compare, a run folder that does not match its
 * journal included; 4 when `abp run` scored no trial (usage errors are commander's and exit 2).
 */
export class CommandFailed extends AbpError<CommandFailureCode> {
  constructor(
    code: CommandFailureCode,
    message: string,
    /** The command already printed its result (with the failure in it) as --json data. */
    readonly reportedAsData = false,
  ) {
    super(code, message);
  }

  get exitCode(): number {
    if (this.code === 'not-comparable' || this.code === 'results-tampered') return 3;
    // Apart from 1, so CI can tell "the engine could not be graded at all" from "the command broke".
    if (this.code === 'invalid-usage') return 2;
    return this.code === 'no-trial-scored' ? 4 : 1;
  }
}
