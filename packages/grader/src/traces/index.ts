// Traces in the grader (spec §6): validating, redacting and summing one trial's trace, writing traces, and the sidecar
// translators for engines that cannot write abp-trace/v1 themselves.
export { TraceError, type TraceErrorCode } from './errors.js';
export {
  summarizeTrace,
  traceFlags,
  type SummarizeTraceOptions,
  type TraceEnvelope,
  type TraceFlag,
  type TraceProblem,
  type TraceSource,
  type TraceSummary,
} from './summarize-trace.js';
export { serializeTrace } from './serialize-trace.js';
export {
  abpModelId,
  traceTranslators,
  translateNativeTrace,
  type TraceTranslator,
  type TraceTranslatorContext,
} from './translators/index.js';
