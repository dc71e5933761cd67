// Strings from the server reach a terminal: drop every character that is not shown as itself.
// C0/C1 controls (ESC, CSI, BEL, ...) would let a hostile or broken server move the cursor,
// retitle the window or hide text; tabs and newlines would break plain output, which is
// tab-separated and one record a line. Unicode format characters are invisible but still act:
// bidi controls reorder what is shown ("Trojan Source"), zero-width characters, the soft hyphen,
// the BOM and tag characters hide text or split a word (a key) where nobody sees it. Line and
// paragraph separators break lines on some terminals.
// Made on first use: V8 builds a Unicode property class when the expression is created, a cost
// every run that loads this module would pay, help included, though only output from a server needs it.
let unsafe: RegExp | undefined;

export function sanitize(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : typeof value === 'object' ? stringify(value) : String(value);
  return text.replace((unsafe ??= /[\p{Cc}\p{Cf}\u2028\u2029\u{E0000}-\u{E007F}]/gu), '');
}

/** A value from the server as JSON; one nested thousands deep overflows JSON.stringify's stack. */
function stringify(value: object): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '(too deeply nested to show)';
  }
}

let unsafeInText: RegExp | undefined;

/**
 * Text a command lays out itself (`--jq`'s output) for a terminal: the same characters dropped as
 * by `sanitize`, but line feeds and tabs kept, which are the text's own (a value a line, `@tsv`).
 */
export function sanitizeLines(text: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what it drops (all but tab and line feed)
  return text.replace((unsafeInText ??= /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\u2028\u2029\u{E0000}-\u{E007F}]/gu), '');
}
