// JSON.parse keeps the last of two members with the same name and says nothing, so `{"keys": [...], "keys": []}` reads
// as whatever its last writer wanted, and two readers that resolve duplicates differently see two documents. A document
// that decides trust must mean one thing: this finds the first repeated member name in a JSON text, by a scan of its
// tokens (strings skipped whole, objects and arrays tracked), for text JSON.parse has accepted already.

/** The first member name repeated within one object, with the JSON path of that object; null when there is none. */
export function firstDuplicateKey(text: string): { path: string; key: string } | null {
  // One frame per open object or array: an object's names so far and the name whose value is being read.
  const frames: Array<{ object: boolean; names: Set<string>; current: string | null; index: number }> = [];
  const pathOf = () =>
    `$${frames
      .slice(0, -1)
      .map((frame) => (frame.object ? `.${frame.current ?? ''}` : `[${frame.index}]`))
      .join('')}`;
  let expectingName = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      let end = at + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = frames.at(-1);
      if (top?.object === true && expectingName) {
        const name = JSON.parse(text.slice(at, end + 1)) as string;
        if (top.names.has(name)) return { path: pathOf(), key: name };
        top.names.add(name);
        top.current = name;
        expectingName = false;
      }
      at = end;
    } else if (char === '{') {
      frames.push({ object: true, names: new Set(), current: null, index: 0 });
      expectingName = true;
    } else if (char === '[') {
      frames.push({ object: false, names: new Set(), current: null, index: 0 });
    } else if (char === '}' || char === ']') {
      frames.pop();
    } else if (char === ',') {
      const top = frames.at(-1);
      if (top?.object === true) expectingName = true;
      else if (top !== undefined) top.index += 1;
    }
  }
  return null;
}
