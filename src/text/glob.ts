// Shell-style patterns for names: `*` any run of characters, `?` one character, `[abc]` one of a
// set; everything else stands for itself. The whole name must match.

export function globMatcher(pattern: string): (name: string) => boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*') source += '[\\s\\S]*';
    else if (c === '?') source += '[\\s\\S]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) source += '\\[';
      else {
        const body = pattern.slice(i + 1, end);
        const negated = body.startsWith('!');
        const set = (negated ? body.slice(1) : body).replace(/[\\\]^]/g, '\\$&');
        source += `[${negated ? '^' : ''}${set}]`;
        i = end;
      }
    } else source += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  const regex = new RegExp(`^${source}$`, 'u');
  return (name) => regex.test(name);
}
