// Raw tar entries written by hand, for layers no honest writer makes (escaping paths, links through links, whiteouts).
export interface RawEntry {
  name: string;
  type?: '0' | '1' | '2' | '5';
  content?: string;
  linkname?: string;
  mode?: number;
}

function octal(block: Buffer, offset: number, width: number, value: number): void {
  block.write(`${value.toString(8).padStart(width - 1, '0')}\0`, offset, 'latin1');
}

export function rawTar(entries: readonly RawEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const content = Buffer.from(entry.content ?? '');
    const block = Buffer.alloc(512);
    block.write(entry.name, 0, 100, 'latin1');
    octal(block, 100, 8, entry.mode ?? 0o644);
    octal(block, 108, 8, 0);
    octal(block, 116, 8, 0);
    octal(block, 124, 12, content.length);
    octal(block, 136, 12, 0);
    block.write(entry.type ?? '0', 156, 'latin1');
    block.write(entry.linkname ?? '', 157, 100, 'latin1');
    block.write('ustar\u000000', 257, 'latin1');
    let sum = 0;
    for (let index = 0; index < 512; index++) sum += index >= 148 && index < 156 ? 0x20 : (block[index] ?? 0);
    block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    parts.push(block, content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}
