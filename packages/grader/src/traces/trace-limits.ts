// The bounds on reading one trial's trace. The engine writes its trace, so its size, its line lengths and its numbers
// are the engine's to choose: each bound keeps the grader's memory and arithmetic finite whatever the trace says, and
// every bound crossed is a flag on the trial, never a failure of the run.

export interface TraceLimits {
  /** Bytes of a trace file read; past it the trace is truncated (flag trace-truncated) and its tokens are unknown. */
  maxBytes: number;
  /** Bytes of one line; a longer line is skipped unread and counts as an invalid line. */
  maxLineBytes: number;
  /** Bytes (UTF-16 code units) of valid event lines kept for the published trace receipt (flag receipt-truncated). */
  maxReceiptBytes: number;
  /** Tokens of one model.call, its four counts added; a call past it makes the trace's tokens unknown. */
  maxTokensPerCall: number;
  /** Problems kept with their line and message; the rest are only counted. */
  maxProblems: number;
}

export const traceLimits: Readonly<TraceLimits> = {
  // A real trace of a 30-minute run is a few MiB; 64 MiB leaves an order of magnitude of room and bounds the read.
  maxBytes: 64 * 1024 * 1024,
  // An event line is a few hundred bytes (tool arguments are summarized); a MiB is never a real one.
  maxLineBytes: 1024 * 1024,
  // The receipt is for reading and diffing; parsed events cost several times their text, so it keeps less than is read.
  maxReceiptBytes: 8 * 1024 * 1024,
  // Hundreds of times the largest context window offered today: beyond it a counter is broken or lying. With the byte
  // cap it also keeps every sum far below Number.MAX_SAFE_INTEGER (the sums are clamped there regardless).
  maxTokensPerCall: 1_000_000_000,
  maxProblems: 100,
};
