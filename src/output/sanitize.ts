// Strings from the server reach a terminal: drop C0/C1 control characters (ESC, CSI, BEL, ...) so
// a hostile or broken server cannot move the cursor, retitle the window or hide text.
// Tabs and newlines go too, because plain output is tab-separated and one record a line.
// So do the bidi controls ("Trojan Source": ALM, LRM, RLM, the embeddings, overrides and isolates),
// which reorder what is shown without being seen.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function sanitize(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : typeof value === 'object' ? stringify(value) : String(value);
  return text.replace(CONTROL, '');
}

/** A value from the server as JSON; one nested thousands deep overflows JSON.stringify's stack. */
function stringify(value: object): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '(too deeply nested to show)';
  }
}
