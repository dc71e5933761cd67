import type { IO } from './io.js';
import { sanitize } from '../text/sanitize.js';
import { planColumns, type ColumnNeeds } from '../text/table-layout.js';
import { loadTerminalText, surelyFits, type TerminalText } from './terminal-text.js';

export interface Column {
  header: string;
  /** Colour on a TTY, applied to the text as shown (sanitised, cut if it had to be, suffix included); `row` is the row's index. */
  style?: (text: string, row: number) => string;
  /** Free text (a name, a URL): cut with `…` when the terminal is too narrow. Ids, prefixes and statuses are not. */
  truncate?: boolean;
  /** Shown after the cell's own text and never cut (`(in use)`). */
  suffix?: (row: number) => string;
  /** A shorter form of the row's cell, taken before anything is cut (a time without its absolute part). */
  compact?: (row: number) => string;
  /** Left out when the table cannot fit otherwise. */
  optional?: boolean;
}

const GAP = '  ';
const BOLD = ['\u001b[1m', '\u001b[22m'] as const;
/** A cut column keeps at least this much of its text, besides its suffix. */
const MIN_CUT_TEXT = 6;

/**
 * Rows for people on a TTY (headers, aligned columns, no borders, like gh), fitted to the
 * terminal's width (see text/table-layout.ts), or, off a TTY, tab-separated rows with no header
 * and full values for cut and awk. Every cell is sanitised here, once, and measured once: the
 * work is linear in the number of cells, however many keys or jobs there are.
 */
export async function printTable(io: IO, columns: Column[], rows: unknown[][]): Promise<void> {
  const cells = rows.map((row) => row.map((value) => sanitize(value)));
  if (!io.stdoutIsTTY) {
    io.stdout.write(cells.map((row) => row.join('\t') + '\n').join(''));
    return;
  }
  const text = await loadTerminalText();
  const suffixes = columns.map((c) => (c.suffix ? cells.map((_, r) => sanitize(c.suffix?.(r))) : undefined));
  const fullWidths = cells.map((row) => row.map((cell) => text.width(cell)));
  const needs = columns.map((column, i): ColumnNeeds => {
    const header = text.width(column.header);
    const suffixWidths = suffixes[i]?.map((s) => text.width(s)) ?? [];
    const widest = (widths: readonly number[]): number => Math.max(header, ...widths.map((w, r) => w + (suffixWidths[r] ?? 0)));
    const full = widest(fullWidths.map((row) => row[i] ?? 0));
    let compact: number | undefined;
    return {
      full,
      // Measured only if the table turns out too wide (most tables fit), and then once.
      get compact() {
        if (column.compact) compact ??= widest(cells.map((_, r) => text.width(sanitize(column.compact?.(r)))));
        return compact;
      },
      truncate: column.truncate === true,
      min: Math.max(header, Math.max(0, ...suffixWidths) + MIN_CUT_TEXT),
      optional: column.optional === true,
    };
  });
  const plan = planColumns(needs, io.columns, GAP.length);
  const shown = columns.map((_, i) => i).filter((i) => plan[i]?.shown);

  const header = shown
    .map((i) => {
      const title = columns[i]?.header ?? '';
      const padded = title + ' '.repeat(Math.max(0, (plan[i]?.width ?? 0) - text.width(title)));
      // Bold on a colour terminal, padding included.
      return io.color ? BOLD[0] + padded + BOLD[1] : padded;
    })
    .join(GAP)
    .trimEnd();
  const lines = [header];
  for (let r = 0; r < cells.length; r++) {
    const parts = shown.map((i) => {
      const column = columns[i] as Column;
      const width = plan[i]?.width ?? 0;
      const suffix = suffixes[i]?.[r] ?? '';
      let cell = plan[i]?.compact ? sanitize(column.compact?.(r)) : (cells[r]?.[i] ?? '');
      let cellWidth = plan[i]?.compact ? text.width(cell) : (fullWidths[r]?.[i] ?? 0);
      const room = width - text.width(suffix);
      if (column.truncate && cellWidth > room) {
        cell = text.truncate(cell, room);
        cellWidth = text.width(cell);
      }
      const shownText = cell + suffix;
      const styled = column.style ? column.style(shownText, r) : shownText;
      return styled + ' '.repeat(Math.max(0, width - cellWidth - text.width(suffix)));
    });
    lines.push(parts.join(GAP).trimEnd());
  }
  io.stdout.write(lines.join('\n') + '\n');
}

/** A field of a record: `fixed` values (ids) are never wrapped or cut. */
export type Field = readonly [label: string, value: string, options?: { fixed: boolean }];

/**
 * Field/value view of one record: aligned labels on a TTY, the values wrapped to the terminal's
 * width under their column (a word too long for a line is cut with `…`); `field<TAB>value` rows
 * otherwise.
 */
export async function printFields(io: IO, fields: readonly Field[]): Promise<void> {
  if (!io.stdoutIsTTY) {
    io.stdout.write(fields.map(([label, value]) => `${label}\t${value}\n`).join(''));
    return;
  }
  const width = Math.max(...fields.map(([label]) => label.length));
  const indent = ' '.repeat(width + GAP.length);
  // A narrow terminal still gets a usable column of text; its lines then wrap where it wraps them.
  const room = Math.max(20, io.columns - indent.length);
  let text: TerminalText | undefined;
  const lines: string[] = [];
  for (const [label, value, options] of fields) {
    let wrapped = [value];
    if (!options?.fixed && !surelyFits(value, room)) {
      text ??= await loadTerminalText();
      wrapped = text.wrap(value, room);
    }
    lines.push(`${label.padEnd(width)}${GAP}${wrapped.join('\n' + indent)}`.trimEnd());
  }
  io.stdout.write(lines.join('\n') + '\n');
}
