// The sidecar translators the harness can name in an adapter's "trace" block, by id.
import { TraceError } from '../errors.js';
import { claudeCodeStreamJson } from './claude-code-stream-json.js';
import { codexRollout } from './codex-rollout.js';
import { hermesHooks } from './hermes-hooks.js';
import { miniSweAgentTrajectory } from './mini-swe-agent-trajectory.js';
import type { TraceTranslator, TraceTranslatorContext } from './translator.js';

export type { TraceTranslator, TraceTranslatorContext } from './translator.js';
export { abpModelId } from './claude-code-stream-json.js';

export const traceTranslators: ReadonlyMap<string, TraceTranslator> = new Map([
  [claudeCodeStreamJson.id, claudeCodeStreamJson],
  [codexRollout.id, codexRollout],
  [hermesHooks.id, hermesHooks],
  [miniSweAgentTrajectory.id, miniSweAgentTrajectory],
]);

/** Runs the named translator and returns its events as JSONL text, ready for summarizeTrace. */
export function translateNativeTrace(
  translatorId: string,
  nativeText: string,
  context: TraceTranslatorContext,
): string {
  const translator = traceTranslators.get(translatorId);
  if (translator === undefined) {
    const known = [...traceTranslators.keys()].map((id) => JSON.stringify(id)).join(', ');
    throw new TraceError(
      'unknown-translator',
      `no trace translator ${JSON.stringify(translatorId)}; known translators: ${known}. Fix the adapter's trace.translator`,
    );
  }
  return translator
    .translate(nativeText, context)
    .map((event) => `${JSON.stringify(event)}\n`)
    .join('');
}
