// Owns the stand-in's script (abp-provider-script/v1): the conversations it answers, each a list of the model's turns
// (text, tool calls, and the exact usage the turn reports), and how a request finds its conversation and turn. The
// turn is read from the request itself (how many assistant turns its history holds), so a client's retry gets the same
// answer and the stand-in keeps no state that a retry could advance.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { formatIssues } from '@abp/protocol/schemas/issues';

export const SCRIPT_SCHEMA_ID = 'abp-provider-script/v1';

const count = z.int().min(0, 'must be a whole number of tokens, 0 or more');

/** Tokens as the protocol normalizes them: input never includes cache reads or writes (spec §3.3). */
export const scriptedUsage = z.strictObject({
  input: count,
  output: count,
  cacheRead: count.default(0),
  cacheWrite: count.default(0),
});
export type ScriptedUsage = z.infer<typeof scriptedUsage>;

const toolCall = z.strictObject({
  name: z.string().min(1, 'must name the tool, as the request declares it'),
  input: z
    .union([z.record(z.string(), z.unknown()), z.string()])
    .describe("The tool's arguments: an object, or text for a free-form tool (a Responses API custom tool)."),
});

export const scriptedTurn = z
  .strictObject({
    text: z.string().optional(),
    toolCalls: z.array(toolCall).default([]),
    usage: scriptedUsage,
  })
  .refine((turn) => turn.text !== undefined || turn.toolCalls.length > 0, {
    message: 'a turn must say something (text) or call a tool (toolCalls)',
  });
export type ScriptedTurn = z.infer<typeof scriptedTurn>;

const conversation = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes, e.g. "fix-slug"'),
  match: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Text the request's opening holds (its system prompt and the messages before the model's first turn); absent, every request matches.",
    ),
  turns: z.array(scriptedTurn).min(1, 'must hold at least one turn'),
});

export const providerScript = z.strictObject({
  schema: z.literal(SCRIPT_SCHEMA_ID),
  conversations: z.array(conversation).min(1, 'must hold at least one conversation'),
  otherwise: scriptedTurn
    .optional()
    .describe(
      "The answer to a request no conversation matches (an engine's side calls: titles, summaries); absent, such a request is refused.",
    ),
});
export type ProviderScript = z.infer<typeof providerScript>;

export class ScriptError extends Error {
  constructor(
    readonly code: 'invalid-script' | 'unreadable-script',
    message: string,
  ) {
    super(message);
    this.name = 'ScriptError';
  }
}

export function parseScript(value: unknown, source = 'the script'): ProviderScript {
  const parsed = providerScript.safeParse(value);
  if (!parsed.success)
    throw new ScriptError(
      'invalid-script',
      `${source} is not a valid ${SCRIPT_SCHEMA_ID}:\n${formatIssues(parsed.error.issues)}`,
    );
  return parsed.data;
}

export async function readScript(path: string): Promise<ProviderScript> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new ScriptError('unreadable-script', `${path}: ${(error as Error).message}; give a JSON file`);
  }
  return parseScript(value, path);
}

/** What the stand-in reads of any request, whatever its wire format. */
export interface ScriptedRequest {
  /** The system prompt and the messages before the model's first turn, as text: where a `match` is looked for. */
  opening: string;
  /** How many turns the model already took in this conversation: the index of the turn to answer with. */
  assistantTurns: number;
}

export type TurnChoice =
  { found: true; conversation: string; turn: number; answer: ScriptedTurn } | { found: false; reason: string };

export function chooseTurn(script: ProviderScript, request: ScriptedRequest): TurnChoice {
  const conversation = script.conversations.find(
    (candidate) => candidate.match === undefined || request.opening.includes(candidate.match),
  );
  if (conversation === undefined)
    return script.otherwise === undefined
      ? { found: false, reason: 'no scripted conversation matches this request, and the script has no `otherwise`' }
      : { found: true, conversation: 'otherwise', turn: 0, answer: script.otherwise };
  const answer = conversation.turns[request.assistantTurns];
  if (answer === undefined)
    return {
      found: false,
      reason: `conversation "${conversation.name}" has ${conversation.turns.length} turns, and this request asks for turn ${request.assistantTurns + 1}`,
    };
  return { found: true, conversation: conversation.name, turn: request.assistantTurns, answer };
}
