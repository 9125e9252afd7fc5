// Writes events as abp-trace/v1 JSONL: one event per line, keys in the order the event schema declares them, so the
// same events always produce the same bytes (traces are diffed and digested).
import { traceEventSchema, type TraceEvent } from '@abp/protocol/schemas/abp-trace';
import { locateIssues } from '@abp/protocol/schemas/issues';
import { formatJsonPath } from '@abp/protocol/schemas/json-text';
import { TraceError } from './errors.js';

export function serializeTrace(events: readonly TraceEvent[]): string {
  return events
    .map((event, index) => {
      // zod builds its output in schema key order; zod's default messages quote no values, so none can leak a secret.
      const parsed = traceEventSchema.safeParse(event);
      if (!parsed.success) {
        const problems = locateIssues(parsed.error.issues).map(
          (issue) => `${formatJsonPath(issue.path)}: ${issue.message}`,
        );
        throw new TraceError(
          'invalid-event',
          `event ${index} is not a valid abp-trace/v1 event (${problems.join('; ')}); serialize only events summarizeTrace accepted`,
        );
      }
      return `${JSON.stringify(parsed.data)}\n`;
    })
    .join('');
}
