import { describe, expect, it } from 'vitest';
import { expandPlaceholders, findPlaceholderProblems } from '../../src/execution/placeholders.js';
import type { PlaceholderName } from '../../src/execution/placeholders.js';
import { codeOf } from './execution-error.js';

const values: Record<PlaceholderName, string> = {
  repo: '/bench',
  workspace: '/w',
  state: '/s',
  promptFile: '/p.md',
  inputFile: '/in.json',
  prompt: 'fix {state} in "a b"; rm -rf /',
  trialId: 't-1',
  traceFile: '/trace.jsonl',
};

describe('expandPlaceholders', () => {
  it('replaces placeholders anywhere inside each argument and keeps the argument count', () => {
    expect(
      expandPlaceholders(
        [
          'agent',
          '{repo}/engine.ts',
          '--cwd={workspace}',
          '{trialId}-{trialId}',
          '{promptFile}',
          '--trace={traceFile}',
        ],
        values,
      ),
    ).toEqual(['agent', '/bench/engine.ts', '--cwd=/w', 't-1-t-1', '/p.md', '--trace=/trace.jsonl']);
  });

  it('inserts values as text: braces, quotes and spaces in the prompt are neither expanded nor split', () => {
    expect(expandPlaceholders(['run', '{prompt}'], values)).toEqual(['run', 'fix {state} in "a b"; rm -rf /']);
  });

  it('turns {{ and }} into literal braces', () => {
    expect(expandPlaceholders(['{{"a": 1}}', '{{{state}}}', '}}{{'], values)).toEqual(['{"a": 1}', '{/s}', '}{']);
  });

  it('rejects an unknown placeholder', () => {
    expect(codeOf(() => expandPlaceholders(['agent', '{repository}'], values))).toBe('unknown-placeholder');
  });

  it.each([['{workspace'], ['a}b'], ['{a{workspace}'], ['{}']])('rejects the malformed argument %j', (argument) => {
    expect(codeOf(() => expandPlaceholders([argument], values))).toBe('unknown-placeholder');
  });
});

describe('findPlaceholderProblems', () => {
  it('finds nothing wrong in a well-formed command', () => {
    expect(findPlaceholderProblems(['agent', '--cwd={workspace}', '{{literal}}', 'plain'])).toEqual([]);
  });

  it('reports every problem with the index of its argument', () => {
    const problems = findPlaceholderProblems(['agent', '{repository}', 'ok', '--x={workspace', 'y}']);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/argument 1\b/);
    expect(problems[0]).toContain('{workspace}');
    expect(problems[1]).toMatch(/argument 3\b/);
    expect(problems[2]).toMatch(/argument 4\b/);
  });
});
