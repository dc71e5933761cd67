/**
 * `text` without the byte-order mark some Windows editors put first in a UTF-8 file (older
 * Notepad, PowerShell 5.1's `Set-Content -Encoding UTF8`): JSON.parse refuses it.
 */
export function withoutByteOrderMark(text: string): string {
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}
