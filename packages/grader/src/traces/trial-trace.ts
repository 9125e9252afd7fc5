// One trial's trace, from wherever its adapter says it is to a summary: abp-trace/v1 lines streamed from {traceFile}, or
// a sidecar's native log (the engine's stdout, already capped by maxOutputBytes, or {traceFile}) run through its
// translator. Every read is bounded by traceLimits; whatever was lost on the way is a flag that makes the tokens unknown.
import type { TraceSourceConfig } from '@abp/protocol/schemas/abp-adapters';
import type { Redactor } from '../redaction/redactor.js';
import { createLineSplitter, readTraceFile, traceReadFlag, type TraceFileRead } from './read-trace-file.js';
import {
  createTraceSummarizer,
  summarizeTrace,
  type SummarizeTraceOptions,
  type TraceReadFlag,
  type TraceSource,
  type TraceSummary,
} from './summarize-trace.js';
import { TraceError } from './errors.js';
import { traceLimits, type TraceLimits } from './trace-limits.js';
import { traceTranslators, type TraceTranslatorContext } from './translators/index.js';

export interface TrialTraceInput {
  trace: TraceSourceConfig;
  /** The host path of {traceFile}. */
  traceFile: string;
  stdout: Buffer;
  /** The engine's stdout passed maxOutputBytes: a log read from it is missing its end (flag truncated-log). */
  stdoutTruncated: boolean;
  context: TraceTranslatorContext;
  redactor: Redactor;
  /** Default traceLimits. */
  limits?: Partial<TraceLimits> | undefined;
}

const flagsOf = (read: TraceFileRead): TraceReadFlag[] => {
  const flag = traceReadFlag(read);
  return flag === null ? [] : [flag];
};

/** The trial's trace summary, or null for an adapter that declares no trace. Never throws for what the engine wrote. */
export async function readTrialTrace(input: TrialTraceInput): Promise<TraceSummary | null> {
  const limits: TraceLimits = { ...traceLimits, ...input.limits };
  const options = (source: TraceSource): SummarizeTraceOptions => ({
    source,
    runModel: input.context.model,
    redactor: input.redactor,
    limits,
  });
  // No trace, or none that could be read: summarized as empty, with the flag saying why.
  const missing = (readFlags: readonly TraceReadFlag[] = []) =>
    summarizeTrace('', options({ kind: 'missing' }), readFlags);

  switch (input.trace.kind) {
    case 'none':
      return null;
    case 'native': {
      const summarizer = createTraceSummarizer(options({ kind: 'native' }));
      let written = false;
      const splitter = createLineSplitter(
        {
          line(text) {
            written ||= text.trim() !== '';
            summarizer.line(text);
          },
          overlongLine(bytes) {
            written = true;
            summarizer.overlongLine(bytes);
          },
        },
        limits.maxLineBytes,
      );
      const read = await readTraceFile(input.traceFile, (bytes) => splitter.push(bytes), limits.maxBytes);
      splitter.end(read.$case === 'read' && read.truncated);
      // An empty file is no trace, like an absent one; a file that failed mid-read is no trace either.
      if (read.$case !== 'read' || !written) return missing(flagsOf(read));
      return summarizer.finish(flagsOf(read));
    }
    case 'sidecar': {
      const translator = traceTranslators.get(input.trace.translator);
      if (translator === undefined) return missing();
      let text: string;
      const readFlags: TraceReadFlag[] = [];
      if (input.trace.from === 'stdout') {
        text = input.stdout.toString('utf8');
        if (input.stdoutTruncated) readFlags.push('truncated-log');
      } else {
        // A translator reads its native log whole; the cap bounds it as it bounds a native trace.
        const chunks: Buffer[] = [];
        const read = await readTraceFile(input.traceFile, (bytes) => chunks.push(bytes), limits.maxBytes);
        if (read.$case !== 'read') return missing(flagsOf(read));
        text = Buffer.concat(chunks).toString('utf8');
        readFlags.push(...flagsOf(read));
      }
      if (text.trim() === '') return missing(readFlags);
      const summarizer = createTraceSummarizer(options({ kind: 'sidecar', translator: translator.id }));
      // Whatever the translator made of the log is checked like any trace line; a non-JSON value is an invalid line. A
      // log it cannot read at all (the engine wrote what no translator foresaw) is one invalid line: the trace's
      // tokens are then unknown, and the trial is scored as the engine left it, never voided by the engine's log.
      let events: unknown[];
      try {
        events = translator.translate(text, input.context);
      } catch (error) {
        if (error instanceof TraceError && error.code === 'invalid-translator-context') throw error;
        events = [undefined];
      }
      for (const event of events) {
        const line: string | undefined = JSON.stringify(event); // undefined for an undefined event
        summarizer.line(line ?? 'null');
      }
      return summarizer.finish(readFlags);
    }
  }
}
