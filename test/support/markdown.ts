// Reading the project's markdown in tests: its fenced blocks (the commands and output a page
// shows) and its links, as docs.test.ts, package.test.ts and docs-command-lines.test.ts read them.

export interface FencedBlock {
  /** The info string after the opening fence (`sh`, `console`), or ''. */
  lang: string;
  lines: string[];
  /** The 1-based line of the page where the block's first line is. */
  line: number;
}

/** The fenced blocks of a markdown text, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1] ?? '',
    lines: (m[2] ?? '').replace(/\n$/, '').split('\n'),
    line: markdown.slice(0, m.index).split('\n').length + 1,
  }));
}

/** The targets of the links of a markdown text (`[text](target)`), outside its fenced blocks. */
export function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
}
