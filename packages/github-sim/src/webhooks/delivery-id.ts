// Deterministic identities of a webhook: the X-GitHub-Delivery GUID of each event, the hook id and
// the Hookshot build in the User-Agent, all pure functions of (seed, sequence) so the same scenario
// delivers the same ids. GitHub's GUID names the event, shared by every hook and every redelivery.
import { hash3, mix32 } from '../world/random.js';

// Streams keep each derived fact independent of the others that share a seed.
export const streams = {
  guid: 0x6775_6964,
  hookId: 0x686f_6f6b,
  hookshot: 0x6873_6874,
  drop: 0x6472_6f70,
  jitter: 0x6a69_7474,
} as const;

/** A UUID-shaped id (version 4 layout) for the `sequence`-th event built from a seed. */
export function deliveryGuid(seed: number, sequence: number): string {
  let hex = '';
  let word = hash3(seed, streams.guid, sequence);
  for (let part = 0; part < 4; part++) {
    hex += word.toString(16).padStart(8, '0');
    word = mix32(word + part + 1);
  }
  // Version nibble 4 and variant bits 10xx, so the id parses as a well-formed UUID.
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A hook id in the range GitHub's repository hooks use (nine digits). */
export function defaultHookId(seed: number): number {
  return 100_000_000 + (hash3(seed, streams.hookId, 0) % 900_000_000);
}

/** The short build id GitHub puts after `GitHub-Hookshot/`. */
export function hookshotBuild(seed: number): string {
  return hash3(seed, streams.hookshot, 0).toString(16).padStart(8, '0').slice(0, 7);
}
