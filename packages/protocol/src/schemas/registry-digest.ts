// The content address of a registry document. Apart from abp-registry.ts because it needs node:crypto, which the
// Temporal workflow sandbox refuses: workflow code may import the schema, not this.
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/** "sha256:<hex>" of the canonical JSON (RFC 8785) of a JSON value. */
export function contentDigest(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex')}`;
}

/** The digest a registry document must carry: the content digest of the document without its digest field. */
export function registryDigest(document: Readonly<Record<string, unknown>>): string {
  const rest: Record<string, unknown> = { ...document };
  delete rest.digest;
  return contentDigest(rest);
}
