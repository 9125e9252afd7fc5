// An HTTP answer read whole, but never past a cap: refused before reading when it announces more, and as soon as the
// bytes that came exceed it. For answers that are small by contract (the API's JSON, a worker's task read), so that a
// broken or hostile server cannot make the reader hold gigabytes.
export async function readCappedBody(response: Response, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  if (Number(response.headers.get('content-length')) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of response.body ?? []) {
    length += (chunk as Uint8Array).length;
    if (length > maxBytes) throw tooLarge();
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks, length);
}
