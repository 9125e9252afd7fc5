// The contract of a sidecar translator (spec §6): an engine that cannot write abp-trace/v1 itself ships one, and the
// harness records which translator produced the trace.

export interface TraceTranslatorContext {
  /** The ABP task id. */
  task: string;
  /** The engine's name ("claude-code") or name and version ("claude-code/2.0.14"). */
  engine: string;
  /** The model the adapter declares, as an ABP model id ("anthropic/claude-sonnet-4-5"). */
  model: string;
  /** RFC 3339 UTC instant the harness started the engine. */
  startedAt: string;
}

export interface TraceTranslator {
  readonly id: string;
  readonly description: string;
  /**
   * Native engine output to abp-trace/v1 events, unvalidated and unredacted: summarizeTrace checks and redacts them like
   * any other trace, so a translator bug shows up as a reported problem rather than a silently trusted number.
   */
  translate(nativeText: string, context: TraceTranslatorContext): unknown[];
}
