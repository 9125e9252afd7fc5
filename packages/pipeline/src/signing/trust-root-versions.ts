// The published versions of the trust root in `<home>/trust-roots/`: `v<N>.json` (the document, 2-space JSON) and
// `v<N>.sigstore.json` (its signed trust-root statement). The first version is signed by a key it lists itself; every
// later one by a key the version before trusts (trust-root-chain.ts), so a consumer who pinned any version walks
// forward. Both files are written once and never replaced: a version, once out, is what every consumer saw.
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { writeFileOnce } from '@abp/protocol/files/durable-files';
import { SigningError } from '@abp/protocol/signing/errors';
import type { Signer } from './signer.js';
import { TRUST_ROOT_PREDICATE, trustRootSubjectName } from '@abp/protocol/signing/statement';
import {
  trustRootDigest,
  trustRootStatement,
  verifyNextTrustRoot,
  type FetchedTrustRootVersion,
} from '@abp/grader/trust';
import { parseTrustRoot, trustRootText } from '@abp/protocol/signing/trust-root';
import { verifyStatementBundle } from '@abp/grader/trust';

export interface TrustRootVersionPaths {
  document: string;
  signature: string;
}

/** One published version as stored. */
export interface PublishedTrustRoot {
  version: number;
  document: TrustRoot;
  /** `v<N>.json` as stored. */
  documentText: string;
  /** `v<N>.sigstore.json` as stored: the bytes the transparency log's `trust-root` entry digests. */
  signatureText: string;
}

const VERSION_FILE = /^v([1-9][0-9]*)\.json$/;

export function trustRootVersionPaths(dir: string, version: number): TrustRootVersionPaths {
  return { document: join(dir, `v${version}.json`), signature: join(dir, `v${version}.sigstore.json`) };
}

async function readIfPresent(path: string): Promise<string | null> {
  return readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SigningError(
      'trust-root-invalid',
      `${path} is not JSON: ${(error as Error).message}; a published version is never edited, restore it from a copy`,
      { cause: error },
    );
  }
}

/** Writes `text` to `path` (mode 0644) unless a file is there already, and returns what the path holds afterwards. */
async function publishOnce(path: string, text: string): Promise<{ text: string; created: boolean }> {
  const written = await writeFileOnce(path, text, { mode: 0o644 });
  return written.created ? { text, created: true } : { text: written.existing.toString('utf8'), created: false };
}

/**
 * The document of version `version` if its file exists, signed or not: a crash between the two writes of a publication
 * leaves a document without its signature, which the next publication of that version completes.
 */
export async function readTrustRootDocument(dir: string, version: number): Promise<TrustRoot | null> {
  const path = trustRootVersionPaths(dir, version).document;
  const text = await readIfPresent(path);
  if (text === null) return null;
  const document = parseTrustRoot(parseJson(text, path), path);
  if (document.version !== version)
    throw new SigningError(
      'trust-root-invalid',
      `${path} holds trust root version ${document.version}; v<N>.json holds version N`,
    );
  return document;
}

/** Version `version` with its signature; null unless both files are there (a half-published version is not published). */
export async function readTrustRootVersion(dir: string, version: number): Promise<PublishedTrustRoot | null> {
  const paths = trustRootVersionPaths(dir, version);
  const [documentText, signatureText] = await Promise.all([
    readIfPresent(paths.document),
    readIfPresent(paths.signature),
  ]);
  if (documentText === null || signatureText === null) return null;
  const document = parseTrustRoot(parseJson(documentText, paths.document), paths.document);
  if (document.version !== version)
    throw new SigningError(
      'trust-root-invalid',
      `${paths.document} holds trust root version ${document.version}; v<N>.json holds version N`,
    );
  return { version, document, documentText, signatureText };
}

/** The published versions (document and signature both there), in ascending order. */
export async function listTrustRootVersions(dir: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const present = new Set(names);
  return names
    .map((name) => VERSION_FILE.exec(name)?.[1])
    .filter((version): version is string => version !== undefined)
    .map(Number)
    .filter((version) => present.has(`v${version}.sigstore.json`))
    .sort((a, b) => a - b);
}

/** The newest published version, or null before the first is published. */
export async function latestTrustRootVersion(dir: string): Promise<PublishedTrustRoot | null> {
  const versions = await listTrustRootVersions(dir);
  const newest = versions.at(-1);
  return newest === undefined ? null : readTrustRootVersion(dir, newest);
}

/** `fetchVersion` for advanceTrustRoot over a local trust-roots/ folder (a mirror, or the registry's own). */
export function publishedVersionFetcher(dir: string): (version: number) => Promise<FetchedTrustRootVersion | null> {
  return async (version) => {
    const paths = trustRootVersionPaths(dir, version);
    const published = await readTrustRootVersion(dir, version);
    if (published === null) return null;
    return {
      document: parseJson(published.documentText, paths.document),
      signature: parseJson(published.signatureText, paths.signature),
    };
  };
}

/** Checks that the first published version is signed by a key it lists itself (trust-root-unverified otherwise). */
export async function verifyFirstTrustRoot(first: TrustRoot, signature: unknown, source: string): Promise<TrustRoot> {
  try {
    await verifyStatementBundle(signature, first, {
      subjects: [{ name: trustRootSubjectName(first.version), sha256: trustRootDigest(first).slice('sha256:'.length) }],
      predicateType: TRUST_ROOT_PREDICATE,
    });
  } catch (error) {
    if (!(error instanceof SigningError)) throw error;
    throw new SigningError(
      'trust-root-unverified',
      `${source} is not signed by a key trust root version ${first.version} lists (${error.code}: ${error.message})`,
      { cause: error },
    );
  }
  return first;
}

/**
 * Verifies the whole published chain: the first version signed by its own key, each next one by the version before, no
 * version missing in between. Returns the versions, oldest first (empty before the first is published).
 */
export async function verifyPublishedChain(dir: string): Promise<PublishedTrustRoot[]> {
  const versions = await listTrustRootVersions(dir);
  const chain: PublishedTrustRoot[] = [];
  for (const [position, version] of versions.entries()) {
    const previous = chain[position - 1];
    if (previous !== undefined && version !== previous.version + 1) {
      throw new SigningError(
        'trust-root-invalid',
        `${dir} holds trust root versions ${previous.version} and ${version} but none between: restore the missing v<N>.json and v<N>.sigstore.json from a mirror`,
      );
    }
    const published = await readTrustRootVersion(dir, version);
    if (published === null)
      throw new SigningError(
        'trust-root-invalid',
        `${trustRootVersionPaths(dir, version).document} vanished while it was read`,
      );
    const paths = trustRootVersionPaths(dir, version);
    if (previous === undefined) {
      await verifyFirstTrustRoot(
        published.document,
        parseJson(published.signatureText, paths.signature),
        paths.signature,
      );
    } else {
      await verifyNextTrustRoot(previous.document, {
        document: parseJson(published.documentText, paths.document),
        signature: parseJson(published.signatureText, paths.signature),
      });
    }
    chain.push(published);
  }
  return chain;
}

export interface PublishOptions {
  /** Signs the version's trust-root statement. */
  signer: Signer;
  /** The statement's signedAt. */
  signedAt: Date;
  /** The trust root the signature must verify against: the version before, or 'self' for the first version. */
  vouchedBy: TrustRoot | 'self';
}

/**
 * Publishes `document` as version `document.version` of the trust root: the document first, then its signed statement,
 * each written once. Idempotent: a version already published with this document is returned as it is; one whose
 * document a crash left unsigned is signed now. A different document already published under the version is refused
 * (trust-root-invalid): abp never replaces a published version. The stored signature is verified before returning.
 */
export async function publishTrustRootVersion(
  dir: string,
  document: TrustRoot,
  options: PublishOptions,
): Promise<{ published: PublishedTrustRoot; created: boolean }> {
  const checked = parseTrustRoot(document, `trust root version ${document.version}`);
  const paths = trustRootVersionPaths(dir, checked.version);
  await mkdir(dir, { recursive: true });
  const stored = await publishOnce(paths.document, trustRootText(checked));
  const kept = parseTrustRoot(parseJson(stored.text, paths.document), paths.document);
  if (trustRootDigest(kept) !== trustRootDigest(checked)) {
    throw new SigningError(
      'trust-root-invalid',
      `${paths.document} already holds another trust root version ${checked.version} (${trustRootDigest(kept)}, not ${trustRootDigest(checked)}); a published version is never replaced: publish the change as version ${checked.version + 1}`,
    );
  }
  const vouch = async (signature: unknown): Promise<void> => {
    if (options.vouchedBy === 'self') {
      await verifyFirstTrustRoot(kept, signature, paths.signature);
    } else {
      await verifyNextTrustRoot(options.vouchedBy, { document: parseJson(stored.text, paths.document), signature });
    }
  };
  let signatureText = await readIfPresent(paths.signature);
  let created = stored.created;
  if (signatureText === null) {
    const bundle = await options.signer.sign(trustRootStatement(kept, options.signedAt));
    // Checked before it is written: a signature file is never replaced, so a wrong one must never land.
    await vouch(bundle);
    const signature = await publishOnce(paths.signature, `${JSON.stringify(bundle, null, 2)}\n`);
    signatureText = signature.text;
    created ||= signature.created;
  }
  await vouch(parseJson(signatureText, paths.signature));
  const published: PublishedTrustRoot = {
    version: kept.version,
    document: kept,
    documentText: stored.text,
    signatureText,
  };
  return { published, created };
}
