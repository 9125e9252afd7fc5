// The one error type of the draw folder: inputs a seeded selection or a draw record cannot be built from.
// An audit that finds a difference does not throw; it reports the difference (see audit.ts).
import { AbpError } from '../errors.js';

export type DrawErrorCode = 'invalid-seed' | 'invalid-count' | 'unsorted-pool' | 'invalid-record';

export class DrawError extends AbpError<DrawErrorCode> {}
