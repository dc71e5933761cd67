import type { IO } from './io.js';
import { sanitize } from '../text/sanitize.js';
import { displayWidth } from '../text/width.js';

export interface Column {
  header: string;
  /** Applied after sanitising, for colour on a TTY; `row` is the row's index. */
  style?: (text: string, row: number) => string;
}

const GAP = '  ';
const BOLD = ['\u001b[1m', '\u001b[22m'] as const;

/**
 * Rows for people on a TTY (headers, aligned columns, no borders, like gh) or, off a TTY,
 * tab-separated rows with no header for cut and awk. Every cell is sanitised here, once.
 * Each cell's width is measured once and each line built once: the work is linear in the
 * number of cells, however many keys or jobs there are.
 */
export async function printTable(io: IO, columns: Column[], rows: unknown[][]): Promise<void> {
  const cells = rows.map((row) => row.map((value) => sanitize(value)));
  if (!io.stdoutIsTTY) {
    io.stdout.write(cells.map((row) => row.join('\t') + '\n').join(''));
    return;
  }
  const widths = columns.map((c) => displayWidth(c.header));
  const measured = cells.map((row) =>
    row.map((text, i) => {
      const width = displayWidth(text);
      if (width > (widths[i] ?? 0)) widths[i] = width;
      return width;
    }),
  );
  const line = (texts: string[], textWidths: number[], style: (text: string, i: number) => string): string =>
    texts
      .map((text, i) => style(text, i) + ' '.repeat(Math.max(0, (widths[i] ?? 0) - (textWidths[i] ?? 0))))
      .join(GAP)
      .trimEnd();
  const headerWidths = columns.map((c) => displayWidth(c.header));
  // The header is bold on a colour terminal, padding included.
  const header = columns
    .map((c, i) => {
      const padded = c.header + ' '.repeat((widths[i] ?? 0) - (headerWidths[i] ?? 0));
      return io.color ? BOLD[0] + padded + BOLD[1] : padded;
    })
    .join(GAP)
    .trimEnd();
  const lines = [header];
  for (let r = 0; r < cells.length; r++) {
    lines.push(line(cells[r] ?? [], measured[r] ?? [], (text, i) => columns[i]?.style?.(text, r) ?? text));
  }
  io.stdout.write(lines.join('\n') + '\n');
}

/** Field/value view of one record: aligned labels on a TTY, `field<TAB>value` rows otherwise. */
export function printFields(io: IO, fields: ReadonlyArray<readonly [label: string, value: string]>): void {
  const width = Math.max(...fields.map(([label]) => label.length));
  const lines = fields.map(([label, value]) =>
    io.stdoutIsTTY ? `${label.padEnd(width)}  ${value}` : `${label}\t${value}`,
  );
  io.stdout.write(lines.join('\n') + '\n');
}
