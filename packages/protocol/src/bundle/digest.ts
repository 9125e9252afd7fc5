// The content address of a bundle's archives: the lowercase hex sha256 of their bytes, written "sha256:<hex>" where a
// document names one.
import { createHash } from 'node:crypto';

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
