// Owns turning a task's one-line verification command into argv without a shell: POSIX
// shell-words quoting, leading NAME=value environment words, and a refusal (never a
// silent misreading) of any shell syntax that only a shell could honor.
import { AbpError } from '@abp/protocol/errors';

export type CommandLineErrorCode =
  'empty-command' | 'no-command' | 'unterminated-quote' | 'trailing-backslash' | 'shell-syntax';

export class CommandLineError extends AbpError<CommandLineErrorCode> {}

export interface ParsedCommandLine {
  /** Leading NAME=value words, as `FOO=1 pytest` sets FOO for pytest only. */
  readonly env: Record<string, string>;
  readonly argv: string[];
}

const OPERATORS = new Set(['|', '&', ';', '<', '>', '(', ')']);
const EXPANSIONS = new Set(['$', '`']);
const PATTERNS = new Set(['*', '?', '[', ']', '{', '}']);
const DOUBLE_QUOTE_ESCAPABLE = new Set(['"', '\\', '$', '`']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Word {
  text: string;
  /** Index of the `=` that makes this word an assignment, when the part before it is an unquoted name. */
  assignmentAt: number | null;
  /** Nothing in the word so far was quoted or escaped (only then can `NAME=` start an assignment). */
  unquoted: boolean;
}

export function parseCommandLine(line: string): ParsedCommandLine {
  const words = readWords(line);
  if (words.length === 0) {
    throw new CommandLineError(
      'empty-command',
      'the verification command is empty; give the test command, e.g. "pytest tests/test_x.py -q"',
    );
  }
  const env: Record<string, string> = {};
  let index = 0;
  for (; index < words.length; index += 1) {
    const word = words[index];
    if (word?.assignmentAt == null) break;
    env[word.text.slice(0, word.assignmentAt)] = word.text.slice(word.assignmentAt + 1);
  }
  const argv = words.slice(index).map((word) => word.text);
  if (argv.length === 0) {
    throw new CommandLineError(
      'no-command',
      `command line ${JSON.stringify(line)} only sets environment variables; add the command to run after them`,
    );
  }
  return { env, argv };
}

/** Shell-words splitting; NAME=value words stay in place (parseCommandLine separates them). */
export function splitCommandLine(line: string): string[] {
  return readWords(line).map((word) => word.text);
}

function readWords(line: string): Word[] {
  const words: Word[] = [];
  let word: Word | undefined;
  const current = (): Word => {
    word ??= { text: '', assignmentAt: null, unquoted: true };
    return word;
  };
  for (let i = 0; i < line.length; i += 1) {
    const char = line.charAt(i);
    if (char === ' ' || char === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "'") {
      const close = line.indexOf("'", i + 1);
      if (close === -1) throw unterminated(line, i, 'single');
      const target = current();
      target.text += line.slice(i + 1, close);
      target.unquoted = false;
      i = close;
    } else if (char === '"') {
      const target = current();
      i = readDoubleQuoted(line, i, target);
      target.unquoted = false;
    } else if (char === '\\') {
      const next = line.charAt(i + 1);
      if (next === '') {
        throw new CommandLineError(
          'trailing-backslash',
          `command line ${JSON.stringify(line)} ends in a backslash that escapes nothing; remove it or quote it ('\\')`,
        );
      }
      if (next === '\n' || next === '\r') throw refused(line, i + 1, 'a line break', 'put the command on one line');
      const target = current();
      target.text += next;
      target.unquoted = false;
      i += 1;
    } else {
      checkUnquoted(line, i, word);
      const target = current();
      if (char === '=' && target.unquoted && target.assignmentAt === null && NAME.test(target.text)) {
        target.assignmentAt = target.text.length;
      }
      target.text += char;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Reads a double-quoted span starting at `open`; returns the index of the closing quote. */
function readDoubleQuoted(line: string, open: number, target: Word): number {
  for (let i = open + 1; i < line.length; i += 1) {
    const char = line.charAt(i);
    if (char === '"') return i;
    if (char === '\\' && DOUBLE_QUOTE_ESCAPABLE.has(line.charAt(i + 1))) {
      target.text += line.charAt(i + 1);
      i += 1;
    } else if (EXPANSIONS.has(char)) {
      throw refused(
        line,
        i,
        `"${char}" inside double quotes`,
        `escape it (\\${char}) or use single quotes if it is literal; the grader expands nothing, so wrap anything else in a script`,
      );
    } else {
      target.text += char;
    }
  }
  throw unterminated(line, open, 'double');
}

function checkUnquoted(line: string, index: number, word: Word | undefined): void {
  const char = line.charAt(index);
  const atWordStart = word === undefined;
  const atAssignedValue = word !== undefined && word.assignmentAt === word.text.length - 1;
  if (OPERATORS.has(char)) {
    throw refused(
      line,
      index,
      `unquoted "${char}"`,
      'wrap the pipeline or redirection in a script and call the script, or quote it if it is literal',
    );
  }
  if (EXPANSIONS.has(char)) {
    throw refused(
      line,
      index,
      `unquoted "${char}"`,
      'quote it in single quotes if it is literal; the grader expands nothing, so wrap anything else in a script',
    );
  }
  if (PATTERNS.has(char)) {
    throw refused(line, index, `unquoted "${char}"`, 'quote it: without a shell there is no glob or brace expansion');
  }
  if (char === '~' && (atWordStart || atAssignedValue)) {
    throw refused(
      line,
      index,
      'unquoted "~" starting a word',
      'quote it, or write the path out: without a shell there is no home-directory expansion',
    );
  }
  if (char === '#' && atWordStart) {
    throw refused(
      line,
      index,
      'unquoted "#" starting a word',
      'quote it, or drop the comment: a shell would ignore the rest of the line',
    );
  }
  if (char === '\n' || char === '\r') {
    throw refused(line, index, 'a line break', 'put the command on one line, or wrap several commands in a script');
  }
}

function refused(line: string, index: number, what: string, fix: string): CommandLineError {
  return new CommandLineError(
    'shell-syntax',
    `command line ${JSON.stringify(line)}: ${what} at column ${index + 1} is shell syntax the grader cannot honor without a shell; ${fix}`,
  );
}

function unterminated(line: string, index: number, kind: 'single' | 'double'): CommandLineError {
  return new CommandLineError(
    'unterminated-quote',
    `command line ${JSON.stringify(line)}: the ${kind} quote at column ${index + 1} is never closed; close it`,
  );
}
