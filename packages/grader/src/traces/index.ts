// Traces in the grader (spec §6): reading one trial's trace within bounds, validating, redacting and summing it, writing
// traces, and the sidecar translators for engines that cannot write abp-trace/v1 themselves.
export { TraceError, type TraceErrorCode } from './errors.js';
export {
  createTraceSummarizer,
  summarizeTrace,
  traceFlags,
  traceReadFlags,
  type SummarizeTraceOptions,
  type TraceEnvelope,
  type TraceFlag,
  type TraceProblem,
  type TraceReadFlag,
  type TraceSource,
  type TraceSummarizer,
  type TraceSummary,
} from './summarize-trace.js';
export { traceLimits, type TraceLimits } from './trace-limits.js';
export {
  createLineSplitter,
  readTraceFile,
  traceReadFlag,
  type TraceFileRead,
  type TraceLineSink,
} from './read-trace-file.js';
export { readTrialTrace, type TrialTraceInput } from './trial-trace.js';
export { serializeTrace } from './serialize-trace.js';
export {
  abpModelId,
  traceTranslators,
  translateNativeTrace,
  type TraceTranslator,
  type TraceTranslatorContext,
} from './translators/index.js';
