import { sanitize } from '../text/sanitize.js';

const MAX_MESSAGE = 300;

/**
 * The server's own message, whatever shape the error body has: `{error: "..."}`,
 * `{error: {message}}`, `{errors: [{message}|"..."]}`, `{message}`, plain text or an HTML page.
 * Sanitised and shortened: it goes straight into a one-line error.
 */
export function serverMessage(body: string, contentType: string | undefined): string | undefined {
  const text = body.trim();
  if (text === '') return undefined;
  const looksJson = text.startsWith('{') || text.startsWith('[') || /json/i.test(contentType ?? '');
  if (looksJson) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON after all (a proxy's text under a JSON content type): fall through to text handling.
    }
    if (parsed !== undefined) {
      const message = messageFromJson(parsed);
      return message === undefined ? undefined : clip(message);
    }
  }
  if (looksLikeHtml(text, contentType)) {
    return clip(messageFromHtml(text));
  }
  return clip(text.split(/\r?\n/).find((line) => line.trim() !== '') ?? '');
}

/** A web page (by its content type, or by how it starts): a web site or a proxy answered. */
export function looksLikeHtml(body: string, contentType: string | undefined): boolean {
  return /html/i.test(contentType ?? '') || /^\s*<(!doctype|html|head|body)/i.test(body);
}

/** No real error body nests deeper; a hostile one thousands deep would overflow the stack. */
const MAX_DEPTH = 8;

function messageFromJson(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    const parts = value.map((item) => messageFromJson(item, depth + 1)).filter((m): m is string => !!m);
    return parts.length ? parts.join('; ') : undefined;
  }
  const record = value as Record<string, unknown>;
  for (const field of ['error', 'errors', 'message', 'detail', 'error_description', 'title']) {
    const inner = record[field];
    if (inner === undefined || inner === null || typeof inner === 'boolean') continue;
    const message = messageFromJson(inner, depth + 1);
    if (message) return message;
  }
  return undefined;
}

function messageFromHtml(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const h1 = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1];
  const raw = title ?? h1 ?? html.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, '');
  return decodeEntities(raw.replace(/<[^>]*>/g, ' '));
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&');
}

function clip(message: string): string | undefined {
  const one = sanitize(message.replace(/\s+/g, ' ')).trim();
  if (one === '') return undefined;
  return one.length > MAX_MESSAGE ? one.slice(0, MAX_MESSAGE - 1) + '…' : one;
}
