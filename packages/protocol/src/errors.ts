// The one error base of abp. Each module declares its failures as a union of string codes and one subclass, so callers
// (the CLI's exit codes and --json output, the pipeline's retry decisions, tests) branch on `code`, never on a message.
// A message names the file, the field and the fix; `cause` keeps the underlying error.
export class AbpError<Code extends string = string> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}
