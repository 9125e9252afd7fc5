// Owns what every wire format shares: a request body read defensively (it is the engine's, and may be anything), the
// ids the stand-in gives what it answers (derived from the conversation, the turn and the position, so the same script
// answers with the same ids every run), and a text cut into the pieces a stream sends it in.
export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The text of a message's content: a string, or the text of its text parts, whatever the format calls them. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => (isObject(part) && typeof part['text'] === 'string' ? part['text'] : ''))
    .join('\n');
}

/**
 * The messages before the model's first turn that set the conversation up: system and developer prompts and the
 * user's messages (an engine may put its environment in one and the task in the next). What a script's `match` is
 * looked for in; later messages are tool output, which must not move a request to another conversation.
 */
export function openingMessages(
  messages: readonly Json[],
  byAssistant: (message: Json) => boolean = (message) => message['role'] === 'assistant',
): Json[] {
  const first = messages.findIndex(byAssistant);
  return (first === -1 ? messages : messages.slice(0, first)).filter((message) =>
    ['system', 'developer', 'user'].includes(String(message['role'])),
  );
}

/** A stable id: `prefix` then the conversation, turn and index, safe in every format's id alphabet. */
export function scriptedId(prefix: string, conversation: string, turn: number, index = 0): string {
  return `${prefix}abp_${conversation.replace(/[^A-Za-z0-9]/g, '_')}_${turn}_${index}`;
}

/** Streams send text in pieces; clients must join them. Small pieces make a client that keeps only one show it. */
export function pieces(text: string, size = 24): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out.length === 0 ? [''] : out;
}

/** One server-sent event, named where the format names them. */
export function sse(data: unknown, event?: string): string {
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}
