// Owns making text from a run safe in the report: every string that came from a results folder (task ids, reasons,
// details, warnings are written by engines and adapters) passes through here before it reaches HTML.

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and for quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => entities[char] ?? char);
}

/**
 * An href for a receipt path relative to the run folder. Each segment is percent-encoded, so a path can only ever
 * name a file beside the report: "javascript:x" becomes "javascript%3Ax", a relative file name.
 */
export function receiptHref(path: string): string {
  return escapeHtml(path.split('/').map(encodeURIComponent).join('/'));
}
