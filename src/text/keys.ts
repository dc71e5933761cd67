// What a key looks like, judged without asking the service: pure, for the api and command layers.

/**
 * A key that an HTTP Authorization header can carry as it is: visible ASCII only. Anything else
 * (control characters such as ESC or a line break, white space, zero-width and bidi characters,
 * any non-ASCII) could not authenticate, and printed it would act on the terminal instead.
 */
export function isUsableKey(value: string): boolean {
  return /^[\x21-\x7e]+$/.test(value);
}

/** The leading `<letters>_` of a key (`crk_` in `crk_AbC...`), or undefined when it has none. */
export function keyScheme(key: string): string | undefined {
  return /^[A-Za-z]+_/.exec(key)?.[0];
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
