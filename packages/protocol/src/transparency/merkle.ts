// Merkle tree hashing of RFC 9162 §2.1 (the same tree as RFC 6962 and Rekor): tree heads, inclusion proofs and
// consistency proofs, and their verification. Pure: no I/O, and every function is a function of its arguments.
import { createHash } from 'node:crypto';

/** The size of every hash here: SHA-256. */
export const HASH_SIZE = 32;

// Domain separation between leaves and interior nodes, so no leaf can pose as a subtree (RFC 9162 §2.1.1).
const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** The hash of one leaf: SHA-256(0x00 || leaf bytes). */
export function leafHash(leafBytes: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(leafBytes).digest();
}

/** The hash of an interior node: SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/** The largest power of two smaller than n, for n >= 2: where the tree of n leaves splits. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function leafAt(leafHashes: readonly Uint8Array[], index: number): Uint8Array {
  const hash = leafHashes[index];
  if (hash === undefined) throw new RangeError(`no leaf at index ${index}`);
  return hash;
}

/** MTH(D[lo:hi]) over leaf hashes, recursing on index ranges rather than copies. */
function subtreeRoot(leafHashes: readonly Uint8Array[], lo: number, hi: number): Buffer {
  const n = hi - lo;
  if (n === 0) return createHash('sha256').digest();
  if (n === 1) return Buffer.from(leafAt(leafHashes, lo));
  const k = splitPoint(n);
  return nodeHash(subtreeRoot(leafHashes, lo, lo + k), subtreeRoot(leafHashes, lo + k, hi));
}

function checkSize(name: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
}

/** The tree head of the given leaves; the empty tree's is SHA-256 of nothing. */
export function rootOf(leafHashes: readonly Uint8Array[]): Buffer {
  return subtreeRoot(leafHashes, 0, leafHashes.length);
}

/** The audit path of leaf `index` in the tree of all `leafHashes` (RFC 9162 §2.1.3.1), leaf to root. */
export function inclusionProof(leafHashes: readonly Uint8Array[], index: number): Buffer[] {
  checkSize('index', index, 0, leafHashes.length - 1);
  const path: Buffer[] = [];
  // Walk down from the root, collecting the sibling subtree at each split; the proof lists them bottom-up.
  let lo = 0;
  let hi = leafHashes.length;
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo);
    if (index < lo + k) {
      path.push(subtreeRoot(leafHashes, lo + k, hi));
      hi = lo + k;
    } else {
      path.push(subtreeRoot(leafHashes, lo, lo + k));
      lo += k;
    }
  }
  return path.reverse();
}

/**
 * The proof that the tree of the first `oldSize` leaves is a prefix of the tree of all `leafHashes`
 * (RFC 9162 §2.1.4.1). Empty when the sizes are equal.
 */
export function consistencyProof(leafHashes: readonly Uint8Array[], oldSize: number): Buffer[] {
  checkSize('oldSize', oldSize, 1, leafHashes.length);
  const proof: Buffer[] = [];
  // SUBPROOF(m, D[lo:hi], complete) unrolled: each level adds one sibling, collected top-down, emitted bottom-up.
  let m = oldSize;
  let lo = 0;
  let hi = leafHashes.length;
  let complete = true; // whether the old tree is a whole subtree seen so far from the left edge
  while (m !== hi - lo) {
    const k = splitPoint(hi - lo);
    if (m <= k) {
      proof.push(subtreeRoot(leafHashes, lo + k, hi));
      hi = lo + k;
    } else {
      proof.push(subtreeRoot(leafHashes, lo, lo + k));
      lo += k;
      m -= k;
      complete = false;
    }
  }
  // The old tree's last subtree: the verifier knows it already when it is the whole old tree.
  if (!complete) proof.push(subtreeRoot(leafHashes, lo, hi));
  return proof.reverse();
}

function isHash(value: Uint8Array): boolean {
  return value.length === HASH_SIZE;
}

function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a).equals(Buffer.from(b));
}

/** Whether `proof` shows the leaf with hash `leafHash` at `index` in the tree of `size` leaves with head `root`. */
export function verifyInclusion(
  leafHash: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (!isHash(leafHash) || !isHash(root) || !proof.every(isHash)) return false;
  // fn walks the leaf's position up the tree, sn the last leaf's; where they meet the node has no right sibling.
  let fn = index;
  let sn = size - 1;
  let r: Uint8Array = leafHash;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      // A left child on the right edge is promoted without a sibling: climb until it is a right child again.
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameHash(r, root);
}

/**
 * Whether `proof` shows the tree of `oldSize` leaves with head `oldRoot` to be a prefix of the tree of `newSize`
 * leaves with head `newRoot`. Equal sizes need an empty proof and equal heads.
 */
export function verifyConsistency(
  oldSize: number,
  newSize: number,
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize) || oldSize < 1 || oldSize > newSize)
    return false;
  if (!isHash(oldRoot) || !isHash(newRoot) || !proof.every(isHash)) return false;
  if (oldSize === newSize) return proof.length === 0 && sameHash(oldRoot, newRoot);
  if (proof.length === 0) return false;
  // When the old tree is a complete subtree its head is the proof's implied first node.
  const path: readonly Uint8Array[] = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : proof;
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  const [first, ...rest] = path;
  if (first === undefined) return false;
  let fr: Uint8Array = first;
  let sr: Uint8Array = first;
  for (const c of rest) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameHash(fr, oldRoot) && sameHash(sr, newRoot);
}

function isPowerOfTwo(n: number): boolean {
  let m = n;
  while (m > 1 && m % 2 === 0) m /= 2;
  return m === 1;
}
