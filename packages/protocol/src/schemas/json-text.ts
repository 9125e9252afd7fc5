// Reading JSON text for humans: readable paths, the line of every value, duplicate keys, and syntax errors with their position.
// JSON.parse alone cannot do this: V8's messages sometimes omit the position, and it silently keeps the last duplicate key.

export type JsonPath = ReadonlyArray<PropertyKey>;

/** `verification.failToPass[0]`, `$` for the root, `$["odd key"]` where a key is not a plain name. */
export function formatJsonPath(path: JsonPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else {
      const key = String(segment);
      if (/^[A-Za-z_$][\w$-]*$/.test(key)) text += text === '' ? key : `.${key}`;
      else text += `${text === '' ? '$' : ''}[${JSON.stringify(key)}]`;
    }
  }
  return text === '' ? '$' : text;
}

export interface JsonSyntaxError {
  /** 0-based offset into the text. */
  offset: number;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
  message: string;
}

export interface DuplicateKey {
  path: Array<string | number>;
  line: number;
  firstLine: number;
}

export interface JsonScan {
  error: JsonSyntaxError | null;
  /** The line each value starts on, by formatJsonPath of its path. */
  valueLines: Map<string, number>;
  duplicateKeys: DuplicateKey[];
}

class SyntaxFailure extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_DEPTH = 256;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const describeChar = (char: string | undefined) => (char === undefined ? 'the end of the text' : JSON.stringify(char));

/** Scans JSON text without building values: positions, duplicate keys, and the first syntax error with a plain-words message. */
export function scanJson(text: string): JsonScan {
  const valueLines = new Map<string, number>();
  const duplicateKeys: DuplicateKey[] = [];
  let pos = 0;
  let line = 1;
  let depth = 0;

  // Raw newlines are legal only between tokens, so tracking them here keeps `line` right everywhere.
  const skipWhitespace = () => {
    for (;;) {
      const char = text[pos];
      if (char === '\n') line += 1;
      else if (char !== ' ' && char !== '\t' && char !== '\r') return;
      pos += 1;
    }
  };
  function fail(message: string, at = pos): never {
    throw new SyntaxFailure(at, message);
  }

  const readString = (): string => {
    const start = pos;
    pos += 1;
    for (;;) {
      const char = text[pos];
      if (char === undefined) fail('unterminated string: add the closing double quote', start);
      if (char === '"') break;
      if (char === '\\') {
        const escape = text[pos + 1];
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) fail('invalid \\u escape: it takes 4 hex digits');
          pos += 6;
        } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) pos += 2;
        else fail(`invalid escape \\${escape ?? ''} in a string`);
      } else if (char.charCodeAt(0) < 0x20)
        fail('control character inside a string: write a newline as \\n and a tab as \\t');
      else pos += 1;
    }
    pos += 1;
    return JSON.parse(text.slice(start, pos)) as string;
  };

  const readValue = (path: Array<string | number>) => {
    skipWhitespace();
    const key = formatJsonPath(path);
    if (!valueLines.has(key)) valueLines.set(key, line);
    const char = text[pos];
    if (char === '{' || char === '[') {
      // Bounded so the recursion cannot overflow the stack on hostile input; ABP documents nest a handful of levels.
      if (++depth > MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH} levels`);
      if (char === '{') readObject(path);
      else readArray(path);
      depth -= 1;
    } else if (char === '"') readString();
    else if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) {
      NUMBER.lastIndex = pos;
      if (!NUMBER.exec(text)) fail('invalid number');
      pos = NUMBER.lastIndex;
    } else {
      for (const literal of ['true', 'false', 'null']) {
        if (text.startsWith(literal, pos)) {
          pos += literal.length;
          return;
        }
      }
      if (char === "'") fail('strings must use double quotes');
      fail(`expected a JSON value, got ${describeChar(char)}`);
    }
  };

  const readObject = (path: Array<string | number>) => {
    pos += 1;
    const keyLines = new Map<string, number>();
    skipWhitespace();
    if (text[pos] === '}') {
      pos += 1;
      return;
    }
    let commaAt = -1;
    for (;;) {
      skipWhitespace();
      if (text[pos] === '}' && commaAt >= 0) fail('trailing comma before "}": remove it', commaAt);
      if (text[pos] !== '"') fail(`expected a double-quoted property name, got ${describeChar(text[pos])}`);
      const keyLine = line;
      const key = readString();
      const firstLine = keyLines.get(key);
      if (firstLine === undefined) keyLines.set(key, keyLine);
      else duplicateKeys.push({ path: [...path, key], line: keyLine, firstLine });
      skipWhitespace();
      if (text[pos] !== ':')
        fail(`expected ":" after the property name ${JSON.stringify(key)}, got ${describeChar(text[pos])}`);
      pos += 1;
      readValue([...path, key]);
      skipWhitespace();
      if (text[pos] === ',') {
        commaAt = pos;
        pos += 1;
      } else if (text[pos] === '}') {
        pos += 1;
        return;
      } else fail(`expected "," or "}" after the value of ${JSON.stringify(key)}, got ${describeChar(text[pos])}`);
    }
  };

  const readArray = (path: Array<string | number>) => {
    pos += 1;
    skipWhitespace();
    if (text[pos] === ']') {
      pos += 1;
      return;
    }
    let commaAt = -1;
    for (let index = 0; ; index += 1) {
      skipWhitespace();
      if (text[pos] === ']' && commaAt >= 0) fail('trailing comma before "]": remove it', commaAt);
      readValue([...path, index]);
      skipWhitespace();
      if (text[pos] === ',') {
        commaAt = pos;
        pos += 1;
      } else if (text[pos] === ']') {
        pos += 1;
        return;
      } else fail(`expected "," or "]" after array item ${index}, got ${describeChar(text[pos])}`);
    }
  };

  try {
    readValue([]);
    skipWhitespace();
    if (pos < text.length) fail(`unexpected ${describeChar(text[pos])} after the end of the JSON value`);
    return { error: null, valueLines, duplicateKeys };
  } catch (error) {
    if (!(error instanceof SyntaxFailure)) throw error;
    // Recount from the offset: an unterminated string is reported where it starts, not where the scan stopped.
    const before = text.slice(0, error.offset);
    const failLine = before.split('\n').length;
    const column = error.offset - (before.lastIndexOf('\n') + 1) + 1;
    return {
      error: { offset: error.offset, line: failLine, column, message: error.message },
      valueLines,
      duplicateKeys,
    };
  }
}

/** JSON.parse with a located, plain-words error instead of V8's message. */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; error: JsonSyntaxError } {
  try {
    const value: unknown = JSON.parse(text);
    return { ok: true, value };
  } catch (error) {
    const scanned = scanJson(text).error;
    if (scanned) return { ok: false, error: scanned };
    // The scanner accepted what JSON.parse refused (e.g. a lone surrogate edge); report V8's words at the start.
    return { ok: false, error: { offset: 0, line: 1, column: 1, message: (error as Error).message } };
  }
}
