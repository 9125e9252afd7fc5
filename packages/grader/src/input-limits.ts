// How large each kind of input the grader reads whole may be (protocol/files/bounded-read.ts refuses larger ones, and
// anything that is not a regular file). Generous for every real input, far below what would exhaust the process.
import { MiB } from '@abp/protocol/files/bounded-read';

/** A task bundle: its held-out tests, golden patch and trace are tens of KiB, a large one a few MiB. */
export const MAX_BUNDLE_BYTES = 256 * MiB;
/** A JSON document: a run configuration, a task manifest, a verdict, a signature, a draw record. */
export const MAX_DOCUMENT_BYTES = 64 * MiB;
/** A signature or another small JSON input. */
export const MAX_JSON_INPUT_BYTES = 16 * MiB;
/** An ABP trace (JSON lines): a long session's trace runs to tens of MiB. */
export const MAX_TRACE_BYTES = 256 * MiB;
/** A backlog snapshot (JSON lines, one issue each) of the whole registry. */
export const MAX_SNAPSHOT_BYTES = 1024 * MiB;
