// RFC 9162 Merkle hashing: known tree heads from the Certificate Transparency test data, and every inclusion and
// consistency proof of every tree from 1 to 70 leaves verifying, while altered proofs, indices, sizes and roots do not.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  nodeHash,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from '../../src/transparency/merkle.js';

const MAX_SIZE = 70;

function leavesOf(size: number): Buffer[] {
  return Array.from({ length: size }, (_, index) => leafHash(Buffer.from(`entry ${index}`)));
}

function flipped(hash: Uint8Array): Buffer {
  const copy = Buffer.from(hash);
  copy[copy.length - 1] = (copy[copy.length - 1] ?? 0) ^ 0x01;
  return copy;
}

/** Each proof with one element altered, one dropped and one added. */
function tampered(proof: readonly Buffer[]): Buffer[][] {
  const variants: Buffer[][] = proof.map((_, position) =>
    proof.map((hash, at) => (at === position ? flipped(hash) : hash)),
  );
  if (proof.length > 0) variants.push(proof.slice(0, -1), proof.slice(1));
  variants.push([...proof, leafHash(Buffer.from('extra'))]);
  return variants;
}

describe('tree heads', () => {
  // The eight leaves and tree heads of the Certificate Transparency reference tests (RFC 6962 trees).
  const leaves = [
    '',
    '00',
    '10',
    '2021',
    '3031',
    '40414243',
    '5051525354555657',
    '606162636465666768696a6b6c6d6e6f',
  ].map((hex) => leafHash(Buffer.from(hex, 'hex')));
  const heads = [
    '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
    'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
    '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
    'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
    '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
  ];

  it('match the reference tree heads for 1 to 8 leaves', () => {
    expect(heads.map((_, index) => rootOf(leaves.slice(0, index + 1)).toString('hex'))).toEqual(heads);
  });

  it('hash the empty tree as SHA-256 of nothing, and separate leaves from nodes', () => {
    expect(rootOf([]).toString('hex')).toBe(createHash('sha256').digest('hex'));
    const [a, b] = leavesOf(2) as [Buffer, Buffer];
    expect(rootOf([a, b])).toEqual(nodeHash(a, b));
    expect(leafHash(Buffer.concat([a, b]))).not.toEqual(nodeHash(a, b));
  });

  it('split an unbalanced tree at the largest power of two below its size', () => {
    const leaves = leavesOf(7);
    const left = rootOf(leaves.slice(0, 4));
    const right = nodeHash(rootOf(leaves.slice(4, 6)), leaves[6] as Buffer);
    expect(rootOf(leaves)).toEqual(nodeHash(left, right));
  });
});

describe('inclusion proofs', () => {
  it(`verify for every leaf of every tree of 1 to ${MAX_SIZE} leaves, and fail when anything is altered`, () => {
    let checked = 0;
    for (let size = 1; size <= MAX_SIZE; size += 1) {
      const leaves = leavesOf(size);
      const root = rootOf(leaves);
      for (let index = 0; index < size; index += 1) {
        const leaf = leaves[index] as Buffer;
        const proof = inclusionProof(leaves, index);
        expect(verifyInclusion(leaf, index, size, proof, root), `leaf ${index} of ${size}`).toBe(true);
        expect(verifyInclusion(leaf, index, size, proof, flipped(root))).toBe(false);
        expect(verifyInclusion(flipped(leaf), index, size, proof, root)).toBe(false);
        for (const wrongIndex of new Set([index - 1, index + 1, size - 1 - index, size])) {
          if (wrongIndex !== index)
            expect(
              verifyInclusion(leaf, wrongIndex, size, proof, root),
              `leaf ${index} of ${size} as ${wrongIndex}`,
            ).toBe(false);
        }
        // No wrong-size case: a path can fit a neighbouring size of the same shape (leaf 0 of 3 and of 4 both climb
        // past one leaf and one subtree). The size is bound by the signed checkpoint, which verifyInclusionOf checks.
        for (const variant of tampered(proof)) expect(verifyInclusion(leaf, index, size, variant, root)).toBe(false);
        checked += 1;
      }
    }
    expect(checked).toBe((MAX_SIZE * (MAX_SIZE + 1)) / 2);
  });

  it('hold as many hashes as the leaf is deep', () => {
    const leaves = leavesOf(6); // a tree of 4 + 2: leaves 0..3 are 3 deep, 4..5 are 2 deep
    expect(leaves.map((_, index) => inclusionProof(leaves, index).length)).toEqual([3, 3, 3, 3, 2, 2]);
    expect(inclusionProof(leavesOf(1), 0)).toEqual([]);
  });

  it('are refused for a leaf outside the tree', () => {
    expect(() => inclusionProof(leavesOf(3), 3)).toThrow(RangeError);
    expect(() => inclusionProof(leavesOf(3), -1)).toThrow(RangeError);
    expect(verifyInclusion(leavesOf(1)[0] as Buffer, 0, 0, [], rootOf([]))).toBe(false);
  });
});

describe('consistency proofs', () => {
  it(`verify between every pair of sizes up to ${MAX_SIZE}, and fail when anything is altered`, () => {
    let checked = 0;
    for (let newSize = 1; newSize <= MAX_SIZE; newSize += 1) {
      const leaves = leavesOf(newSize);
      const newRoot = rootOf(leaves);
      for (let oldSize = 1; oldSize <= newSize; oldSize += 1) {
        const oldRoot = rootOf(leaves.slice(0, oldSize));
        const proof = consistencyProof(leaves, oldSize);
        expect(verifyConsistency(oldSize, newSize, oldRoot, newRoot, proof), `${oldSize} -> ${newSize}`).toBe(true);
        expect(verifyConsistency(oldSize, newSize, flipped(oldRoot), newRoot, proof)).toBe(false);
        expect(verifyConsistency(oldSize, newSize, oldRoot, flipped(newRoot), proof)).toBe(false);
        if (oldSize < newSize) {
          expect(verifyConsistency(newSize, oldSize, newRoot, oldRoot, proof)).toBe(false);
          expect(
            verifyConsistency(oldSize + 1, newSize, oldRoot, newRoot, proof),
            `${oldSize} as ${oldSize + 1} -> ${newSize}`,
          ).toBe(false);
          // No larger-new-size case, for the reason given for inclusion: the signed checkpoint binds the size.
        }
        if (oldSize > 1)
          expect(
            verifyConsistency(oldSize - 1, newSize, oldRoot, newRoot, proof),
            `${oldSize} as ${oldSize - 1} -> ${newSize}`,
          ).toBe(false);
        for (const variant of tampered(proof))
          expect(verifyConsistency(oldSize, newSize, oldRoot, newRoot, variant)).toBe(false);
        checked += 1;
      }
    }
    expect(checked).toBe((MAX_SIZE * (MAX_SIZE + 1)) / 2);
  });

  it('do not verify a rewritten history', () => {
    const leaves = leavesOf(20);
    const rewritten = leaves.map((hash, index) => (index === 3 ? leafHash(Buffer.from('rewritten')) : hash));
    const proof = consistencyProof(rewritten, 10);
    expect(verifyConsistency(10, 20, rootOf(leaves.slice(0, 10)), rootOf(rewritten), proof)).toBe(false);
  });

  it('are empty between equal sizes, and refused from size 0 or beyond the tree', () => {
    const leaves = leavesOf(5);
    expect(consistencyProof(leaves, 5)).toEqual([]);
    expect(verifyConsistency(5, 5, rootOf(leaves), rootOf(leaves), [])).toBe(true);
    expect(() => consistencyProof(leaves, 0)).toThrow(RangeError);
    expect(() => consistencyProof(leaves, 6)).toThrow(RangeError);
    expect(verifyConsistency(0, 5, rootOf([]), rootOf(leaves), [])).toBe(false);
  });
});
