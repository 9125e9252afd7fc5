// docs/draw-algorithm.md's check values and worked example, read from the document itself, so the document an auditor
// re-implements from cannot drift from the code.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/schemas/canonical-json.js';
import { buildDrawRecord, drawRecordText, optOutsDigest } from '../../src/draw/record.js';
import { drawStream, selectIssues, seedText, uniformIndex } from '../../src/draw/select.js';
import { exampleInputs, examplePool } from './pools.js';

const doc = readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docs/draw-algorithm.md'),
  'utf8',
);
/** The prose with every run of white space as one space, so line wrapping does not matter. */
const prose = doc.replace(/\s+/g, ' ');

/** The cells of the table row whose first cell is `label`. */
function row(label: string): string[] {
  const line = doc.split('\n').find((text) => text.startsWith(`| ${label} |`));
  if (line === undefined) throw new Error(`docs/draw-algorithm.md has no table row "${label}"`);
  return line
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

/** The first fenced block after `marker`, with its lines joined as written or without the line breaks. */
function blockAfter(marker: string, joinLines: boolean): string {
  const start = doc.indexOf(marker);
  if (start < 0) throw new Error(`docs/draw-algorithm.md does not say "${marker}"`);
  const open = doc.indexOf('```\n', start) + 4;
  const lines = doc.slice(open, doc.indexOf('\n```', open)).split('\n');
  return lines.join(joinLines ? '' : '\n');
}

describe('docs/draw-algorithm.md', () => {
  it('§2.6: the seed string and the first 32-bit values of seed 424242, and the first of seed 0', () => {
    expect(row('seed string; key length')[1]).toBe(`\`${seedText(424242)}\`; ${seedText(424242).length}`);
    const values = (row('first 14 32-bit values')[1] ?? '').split(', ').map(Number);
    const next = drawStream(424242);
    expect(values).toHaveLength(14);
    expect(Array.from({ length: 14 }, () => next())).toEqual(values);
    expect(prose).toContain(`the first 32-bit value is ${drawStream(0)()}.`);
  });

  it('§2.6: the first bytes after the drop are the 32-bit values, big-endian', () => {
    const bytes = (row('first 16 bytes after the drop (hex)')[1] ?? '').replaceAll('`', '').split(' ');
    const next = drawStream(424242);
    const fromValues = Array.from({ length: 4 }, () => next().toString(16).padStart(8, '0').match(/../g) ?? []).flat();
    expect(fromValues).toEqual(bytes);
  });

  it('§3: the rejection check with n = 3000000000', () => {
    const next = drawStream(424242);
    const indices = [uniformIndex(next, 3_000_000_000), uniformIndex(next, 3_000_000_000)];
    expect(prose).toContain(`gives the indices ${indices[0]} (first value) and then ${indices[1]} (the second value,`);
    expect(drawStream(424242)()).toBe(indices[0]);
  });

  it('§2.6: i and j after the drop, as seedrandom keeps them', () => {
    const state = seedrandom(seedText(424242), { state: true }).state();
    expect(row('last 4 dropped bytes (hex); `i`, `j` after the drop')[1]).toMatch(
      new RegExp(`; ${state.i}, ${state.j}$`),
    );
  });

  it('§2.1: bare digits would merge seeds, as the document says', () => {
    expect(seedrandom('42').int32() >>> 0).toBe(seedrandom('424242').int32() >>> 0);
    expect(prose).toContain(`both start with the 32-bit value ${seedrandom('42').int32() >>> 0}`);
  });

  it('§5: every row of the worked example, and the picks', () => {
    const picks = selectIssues(examplePool(), { seed: 424242, count: 10 });
    expect(picks).toHaveLength(6);
    const next = drawStream(424242);
    picks.forEach((pick, index) => {
      const cells = row(String(index + 1));
      expect(cells[6]).toBe(pick.repo);
      expect(cells[12]).toBe(`#${pick.number}`);
      // Each row's two values are the next two of the stream, and each index is the value modulo its n.
      const [repoN, repoU, repoLimit, repoIndex] = [cells[2], cells[3], cells[4], cells[5]].map(Number);
      const [issueN, issueU, issueLimit, issueIndex] = [cells[8], cells[9], cells[10], cells[11]].map(Number);
      expect(next()).toBe(repoU);
      expect(next()).toBe(issueU);
      expect([repoLimit, issueLimit]).toEqual([
        2 ** 32 - (2 ** 32 % (repoN ?? 0)),
        2 ** 32 - (2 ** 32 % (issueN ?? 0)),
      ]);
      expect([repoIndex, issueIndex]).toEqual([(repoU ?? 0) % (repoN ?? 0), (issueU ?? 0) % (issueN ?? 0)]);
    });
    expect(prose).toContain(
      `the draw ends with 6 of the 10 picks asked for: ${picks.map((pick) => `${pick.repo}#${pick.number}`).join(', ')}.`,
    );
  });

  it('§6: the opt-out digests, the id input, the id, the record bytes and the digest', () => {
    expect(prose).toContain(`\`["opted/out"]\` → \`${optOutsDigest(new Set(['opted/out']))}\``);
    expect(prose).toContain(`the empty list \`[]\` → \`${optOutsDigest(new Set())}\``);
    const inputs = exampleInputs();
    const record = buildDrawRecord(inputs);
    expect(blockAfter("The id's input, as canonical JSON:", false)).toBe(
      canonicalJson({
        algorithm: 'abp-draw/v1',
        count: inputs.count,
        eligibilityRules: inputs.eligibilityRules,
        optOuts: optOutsDigest(inputs.optOuts),
        registry: inputs.registryDigest,
        registryVersion: inputs.registryVersion,
        seed: inputs.seed,
        snapshot: inputs.snapshotDigest,
      }),
    );
    expect(prose).toContain(`gives the id \`${record.id}\``);
    expect(`${blockAfter("The record's bytes", true)}\n`).toBe(drawRecordText(record));
    expect(prose).toContain(`SHA-256 is the \`digest\` \`${record.digest}\``);
  });

  it("appendix: seedrandom's double for seed 424242", () => {
    const rng = seedrandom(seedText(424242));
    expect(prose).toContain(`returns ${rng()}; the second, from the next byte on, returns ${rng()}`);
  });
});
