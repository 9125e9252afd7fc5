// Owns the {name} placeholders of adapter and verification commands: validation before any
// process starts, and expansion inside each argument without ever joining them or using a shell.

import { ExecutionError } from './errors.js';

export const placeholderNames = [
  'repo',
  'workspace',
  'state',
  'promptFile',
  'inputFile',
  'prompt',
  'trialId',
  'traceFile',
] as const;
export type PlaceholderName = (typeof placeholderNames)[number];

type Piece = { literal: string } | { placeholder: PlaceholderName };

const knownList = placeholderNames.map((name) => `{${name}}`).join(', ');

/** Every problem in every argument, for config validation; empty when `argv` is well formed. */
export function findPlaceholderProblems(argv: readonly string[]): string[] {
  return argv.flatMap((argument, index) => parseArgument(argument, index).problems);
}

export function expandPlaceholders(
  argv: readonly string[],
  values: Readonly<Record<PlaceholderName, string>>,
): string[] {
  return argv.map((argument, index) => {
    const { pieces, problems } = parseArgument(argument, index);
    if (problems.length > 0) throw new ExecutionError('unknown-placeholder', problems.join('; '));
    // A value is inserted as is: braces inside a prompt are text, not placeholders.
    return pieces.map((piece) => ('literal' in piece ? piece.literal : values[piece.placeholder])).join('');
  });
}

function parseArgument(argument: string, index: number): { pieces: Piece[]; problems: string[] } {
  const pieces: Piece[] = [];
  const problems: string[] = [];
  const where = `argument ${index} (${JSON.stringify(argument)})`;
  let literal = '';
  let at = 0;
  while (at < argument.length) {
    const char = argument[at] as string;
    const next = argument[at + 1];
    if ((char === '{' && next === '{') || (char === '}' && next === '}')) {
      literal += char;
      at += 2;
    } else if (char === '}') {
      problems.push(`${where}: unmatched "}" at offset ${at}; write "}}" for a literal brace`);
      at += 1;
    } else if (char === '{') {
      const close = argument.indexOf('}', at + 1);
      const name = close === -1 ? null : argument.slice(at + 1, close);
      if (name === null || name.includes('{')) {
        problems.push(`${where}: unmatched "{" at offset ${at}; write "{{" for a literal brace`);
        at += 1;
        continue;
      }
      if (isPlaceholderName(name)) {
        if (literal !== '') pieces.push({ literal });
        literal = '';
        pieces.push({ placeholder: name });
      } else {
        problems.push(`${where}: unknown placeholder {${name}}; known placeholders are ${knownList}`);
      }
      at = close + 1;
    } else {
      literal += char;
      at += 1;
    }
  }
  if (literal !== '') pieces.push({ literal });
  return { pieces, problems };
}

function isPlaceholderName(name: string): name is PlaceholderName {
  return (placeholderNames as readonly string[]).includes(name);
}
