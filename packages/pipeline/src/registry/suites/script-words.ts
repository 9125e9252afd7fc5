// The commands inside a package script or a CI line, as words: split at the shell's list operators, each part split
// into words at blanks with quotes honoured (a glob stays a word, as the runner gets it once the shell has found no
// match or the runner expands it itself), leading NAME=value words dropped; and a command line made back from words
// with the quoting the grader's parser reads.

/** Each simple command of a script line: `a && b; c | d` gives a, b, c and d, as words. */
export function scriptCommands(script: string): string[][] {
  return splitOutsideQuotes(script)
    .map(words)
    .map((argv) => argv.slice(argv.findIndex((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word))))
    .filter((argv) => argv.length > 0 && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0] ?? ''));
}

/** Parts of a line between `&&`, `||`, `;`, `|` and newlines that are not inside quotes. */
function splitOutsideQuotes(line: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let current = '';
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index] ?? '';
    if (quote !== null) {
      if (char === quote) quote = null;
      current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      current += char;
    } else if (char === ';' || char === '\n' || char === '|' || (char === '&' && line[index + 1] === '&')) {
      if (char === '&' || (char === '|' && line[index + 1] === '|')) index += 1;
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

function words(part: string): string[] {
  const out: string[] = [];
  let quote: string | null = null;
  let current: string | null = null;
  for (const char of part) {
    if (quote !== null) {
      if (char === quote) quote = null;
      else current = (current ?? '') + char;
    } else if (char === "'" || char === '"') {
      quote = char;
      current ??= '';
    } else if (/\s/.test(char)) {
      if (current !== null) out.push(current);
      current = null;
    } else current = (current ?? '') + char;
  }
  if (current !== null) out.push(current);
  return out;
}

const PLAIN_WORD = /^[A-Za-z0-9_./:=@%+,-]+$/;

/** One command line from words: a word with anything beyond plain characters (a glob, a space) is single-quoted. */
export function commandLine(words: readonly string[]): string {
  return words.map((word) => (PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)).join(' ');
}
