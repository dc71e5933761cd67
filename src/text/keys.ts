// What a key looks like, judged without asking the service: pure, for the api and command layers.

/**
 * A key that an HTTP Authorization header can carry as it is: visible ASCII only. Anything else
 * (control characters such as ESC or a line break, white space, zero-width and bidi characters,
 * any non-ASCII) could not authenticate, and printed it would act on the terminal instead.
 */
export function isUsableKey(value: string): boolean {
  return value !== '' && keyDefect(value) === undefined;
}

/** The leading `<letters>_` of a key (`crk_` in `crk_AbC...`), or undefined when it has none. */
export function keyScheme(key: string): string | undefined {
  return /^[A-Za-z]+_/.exec(key)?.[0];
}

/**
 * Whether a setting that names a command holds what looks like a key instead (`config set
 * key-command crk_…`, the key pasted where its command goes): one word, `<letters>_` or
 * `<letters>-`, then at least 15 letters, digits, `_` or `-` with a digit among them. The
 * service's keys and most services' tokens are so; a program's name seldom has a digit in it.
 */
export function looksLikeBareKey(text: string): boolean {
  const token = /^[A-Za-z]{1,10}[_-]([A-Za-z0-9_-]{15,})$/.exec(text.trim())?.[1];
  return token !== undefined && /\d/.test(token);
}

/**
 * Whether `text` has the shape of `key`: the same leading `<letters>_` and at least as long. An id
 * (`key_...`) or a listed prefix is shorter or differs in its start; a full key of the same
 * service does not.
 */
export function shapedLike(text: string, key: string): boolean {
  const scheme = keyScheme(key);
  return scheme !== undefined && text.startsWith(scheme) && text.length >= key.length;
}

/**
 * What can be wrong with an API key as text, before it goes into an `Authorization` header.
 *
 * A bearer token is printable ASCII with no space (RFC 6750 `b64token`). Anything else cannot be
 * a key the service issued, and would otherwise reach undici, which rejects a header holding CR,
 * LF or other control characters: an internal error, retried as a network fault. The key itself
 * must never be quoted back, so the defect is named by the offending character's code point.
 */

/** Spaces, tabs and line breaks around a key, as `$(cat key.txt)` or a CRLF file leaves them. */
const SURROUNDING = /^[ \t\r\n]+|[ \t\r\n]+$/g;

/** The key from an environment variable without the white space a shell or a file adds around it. */
export function trimKeyText(text: string): string {
  return text.replace(SURROUNDING, '');
}

/** Why `key` cannot be sent as a bearer token, or undefined when it can. */
export function keyDefect(key: string): string | undefined {
  for (const char of key) {
    const code = char.codePointAt(0) ?? 0;
    if (code > 0x20 && code < 0x7f) continue;
    return `contains ${describeChar(code)}`;
  }
  return undefined;
}

/** One character in words, by code point (never the key around it). */
export function describeChar(code: number): string {
  const point = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  if (code === 0x0a) return `a line break (LF, ${point})`;
  if (code === 0x0d) return `a line break (CR, ${point})`;
  if (code === 0x09) return `a tab (${point})`;
  if (code === 0x20) return `a space (${point})`;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return `a control character (${point})`;
  if (/^[\p{Cf}\p{Co}\p{Cn}\p{Cs}]$/u.test(String.fromCodePoint(code))) return `an invisible character (${point})`;
  if (/^\s$/u.test(String.fromCodePoint(code))) return `white space (${point})`;
  return `a character that is not plain ASCII (${point})`;
}
