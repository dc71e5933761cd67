// Word wrapping, pure: help topics measure by length (their text is our own ASCII), terminal
// views by display width (io/terminal-text.ts).

/**
 * `text` as lines of at most `width` columns as `measure` counts them, broken at spaces. A word
 * wider than a line is given a line of its own (the caller cuts it if it must). Runs of spaces
 * between words become one; a line never starts or ends with a space.
 */
export function wrapWords(text: string, width: number, measure: (text: string) => number = (t) => t.length): string[] {
  const words = text.split(' ').filter((word) => word !== '');
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const word of words) {
    const size = measure(word);
    if (line !== '' && used + 1 + size <= width) {
      line += ' ' + word;
      used += 1 + size;
      continue;
    }
    if (line !== '') lines.push(line);
    line = word;
    used = size;
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}
