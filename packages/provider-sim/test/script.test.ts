// The script as the stand-in reads it: which conversation and turn a request gets, and bad scripts refused naming the
// field and the fix.
import { describe, expect, it } from 'vitest';
import { chooseTurn, parseScript, ScriptError } from '../src/script.js';

const turn = (text: string) => ({ text, usage: { input: 1, output: 1 } });
const script = parseScript({
  schema: 'abp-provider-script/v1',
  conversations: [
    { name: 'fix', match: 'slugify', turns: [turn('one'), turn('two')] },
    { name: 'anything', turns: [turn('catch-all')] },
  ],
});

describe('choosing the answer', () => {
  it('finds the first conversation whose text the opening holds, and the turn from the history', () => {
    expect(chooseTurn(script, { opening: 'fix slugify', assistantTurns: 1 })).toMatchObject({
      found: true,
      conversation: 'fix',
      turn: 1,
      answer: { text: 'two' },
    });
    expect(chooseTurn(script, { opening: 'other', assistantTurns: 0 })).toMatchObject({ conversation: 'anything' });
  });

  it('refuses a turn past the end, and an unmatched request unless the script says otherwise', () => {
    expect(chooseTurn(script, { opening: 'slugify', assistantTurns: 2 })).toEqual({
      found: false,
      reason: 'conversation "fix" has 2 turns, and this request asks for turn 3',
    });
    const strict = parseScript({
      schema: 'abp-provider-script/v1',
      conversations: [{ name: 'a', match: 'x', turns: [turn('a')] }],
    });
    expect(chooseTurn(strict, { opening: 'y', assistantTurns: 0 })).toMatchObject({ found: false });
    const lenient = parseScript({ ...strict, otherwise: turn('title') });
    expect(chooseTurn(lenient, { opening: 'y', assistantTurns: 5 })).toMatchObject({
      found: true,
      conversation: 'otherwise',
      answer: { text: 'title' },
    });
  });

  it('fills cache counts with 0 and tool calls with none', () => {
    expect(script.conversations[0]?.turns[0]).toEqual({
      text: 'one',
      toolCalls: [],
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
    });
  });
});

describe('a bad script', () => {
  it.each([
    [{ conversations: [] }, 'schema'],
    [{ schema: 'abp-provider-script/v1', conversations: [] }, 'at least one conversation'],
    [{ schema: 'abp-provider-script/v1', conversations: [{ name: 'A b', turns: [turn('x')] }] }, 'lower-case letters'],
    [
      { schema: 'abp-provider-script/v1', conversations: [{ name: 'a', turns: [{ usage: { input: 1, output: 1 } }] }] },
      'must say something',
    ],
    [
      {
        schema: 'abp-provider-script/v1',
        conversations: [{ name: 'a', turns: [{ text: 'x', usage: { input: -1, output: 1 } }] }],
      },
      'whole number of tokens',
    ],
  ])('%j is refused, naming the problem', (value, message) => {
    let caught: unknown;
    try {
      parseScript(value, 'script.json');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ScriptError);
    expect((caught as ScriptError).code).toBe('invalid-script');
    expect((caught as Error).message).toMatch(/^script\.json is not a valid abp-provider-script\/v1/);
    expect((caught as Error).message).toContain(message);
  });
});
