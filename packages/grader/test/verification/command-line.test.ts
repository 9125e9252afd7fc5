import { describe, expect, it } from 'vitest';
import { CommandLineError, parseCommandLine, splitCommandLine } from '../../src/verification/command-line.js';
import { errorCode } from '../test-reports/error-code.js';

describe('splitCommandLine', () => {
  it.each([
    ['pytest tests/test_x.py -q', ['pytest', 'tests/test_x.py', '-q']],
    ['  go   test\t./...  ', ['go', 'test', './...']],
    ["pytest -k 'not slow and $HOME'", ['pytest', '-k', 'not slow and $HOME']],
    ['pytest -k "a and not b"', ['pytest', '-k', 'a and not b']],
    ['echo "say \\"hi\\" \\\\ \\$x \\`y\\`"', ['echo', 'say "hi" \\ $x `y`']],
    ['echo "a\\nb"', ['echo', 'a\\nb']],
    ['echo a\\ b \\| \\$', ['echo', 'a b', '|', '$']],
    ["pytest 'tests/test_x.py::test_a[1-2]'", ['pytest', 'tests/test_x.py::test_a[1-2]']],
    ["echo '' \"\" x''y", ['echo', '', '', 'xy']],
    ['echo pre"mid"\'post\'', ['echo', 'premidpost']],
    ['go test -run=TestA# ./...', ['go', 'test', '-run=TestA#', './...']],
    ['npx vitest a~b', ['npx', 'vitest', 'a~b']],
    ['FOO=1 pytest', ['FOO=1', 'pytest']],
    ['', []],
  ])('%s', (line, argv) => {
    expect(splitCommandLine(line)).toEqual(argv);
  });
});

describe('parseCommandLine', () => {
  it('returns leading NAME=value words as env, the rest as argv', () => {
    expect(parseCommandLine('CI=1 PYTHONHASHSEED=0 python3 -m pytest -q')).toEqual({
      env: { CI: '1', PYTHONHASHSEED: '0' },
      argv: ['python3', '-m', 'pytest', '-q'],
    });
  });

  it('allows quoted and empty values, and later assignments win as in a shell', () => {
    expect(parseCommandLine('A="x y" B= A=\'z\' cmd')).toEqual({ env: { A: 'z', B: '' }, argv: ['cmd'] });
  });

  it('treats NAME=value after the command, a quoted name, or an invalid name as an argument', () => {
    expect(parseCommandLine('cmd FOO=bar')).toEqual({ env: {}, argv: ['cmd', 'FOO=bar'] });
    expect(parseCommandLine('"FOO"=bar cmd')).toEqual({ env: {}, argv: ['FOO=bar', 'cmd'] });
    expect(parseCommandLine('1X=bar cmd')).toEqual({ env: {}, argv: ['1X=bar', 'cmd'] });
    expect(parseCommandLine('A-B=1 cmd')).toEqual({ env: {}, argv: ['A-B=1', 'cmd'] });
  });

  it('refuses an empty command and a line that only assigns', () => {
    expect(errorCode(CommandLineError, () => parseCommandLine('   '))).toBe('empty-command');
    expect(errorCode(CommandLineError, () => parseCommandLine('FOO=1 BAR=2'))).toBe('no-command');
  });
});

describe('shell syntax the grader cannot honor', () => {
  it.each([
    ['pytest | tee log', '|', 8],
    ['pytest && echo ok', '&', 8],
    ['pytest; echo ok', ';', 7],
    ['pytest > out.txt', '>', 8],
    ['pytest < in.txt', '<', 8],
    ['(cd sub && pytest)', '(', 1],
    ['pytest $ARGS', '$', 8],
    ['pytest `cat args`', '`', 8],
    ['pytest tests/*.py', '*', 14],
    ['pytest test_?.py', '?', 13],
    ['pytest tests/test_x.py::test_a[1]', '[', 31],
    ['cp a.{txt,bak}', '{', 6],
    ['pytest ~/tests', '~', 8],
    ['HOME=~ pytest', '~', 6],
    ['pytest # comment', '#', 8],
    ['pytest "$HOME/tests"', '$', 9],
    ['pytest "`id`"', '`', 9],
    ['pytest\necho', '\n', 7],
  ])('%j is refused at the offending character', (line, character, column) => {
    let caught: unknown;
    try {
      splitCommandLine(line);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CommandLineError);
    const error = caught as CommandLineError;
    expect(error.code).toBe('shell-syntax');
    // The message must point at the character and column so a task author can fix the line.
    expect(error.message).toContain(`column ${column}`);
    expect(error.message).toContain(character === '\n' ? 'line break' : `"${character}"`);
  });

  it('names the fix: quoting for literals, a script for pipelines', () => {
    const messageOf = (line: string) => {
      try {
        splitCommandLine(line);
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    expect(messageOf('pytest tests/*.py')).toMatch(/quote it/);
    expect(messageOf('pytest | tee log')).toMatch(/script/);
  });

  it('refuses unterminated quotes and a dangling backslash', () => {
    expect(errorCode(CommandLineError, () => splitCommandLine("pytest -k 'a and b"))).toBe('unterminated-quote');
    expect(errorCode(CommandLineError, () => splitCommandLine('pytest -k "a and b'))).toBe('unterminated-quote');
    expect(errorCode(CommandLineError, () => splitCommandLine('pytest -k "a\\"'))).toBe('unterminated-quote');
    expect(errorCode(CommandLineError, () => splitCommandLine('pytest \\'))).toBe('trailing-backslash');
  });
});
