import type { IO } from './io.js';
import { sanitize } from './sanitize.js';

export interface Column {
  header: string;
  /** Applied after sanitising, for colour on a TTY; `row` is the row's index. */
  style?: (text: string, row: number) => string;
}

/**
 * Rows for people on a TTY (headers, aligned columns, no borders, like gh) or, off a TTY,
 * tab-separated rows with no header for cut and awk. Every cell is sanitised here, once.
 */
export async function printTable(io: IO, columns: Column[], rows: unknown[][]): Promise<void> {
  const cells = rows.map((row) => row.map((value) => sanitize(value)));
  if (!io.stdoutIsTTY) {
    io.stdout.write(cells.map((row) => row.join('\t') + '\n').join(''));
    return;
  }
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: columns.map((c) => c.header),
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
      bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
      left: '', 'left-mid': '', mid: '', 'mid-mid': '',
      right: '', 'right-mid': '', middle: '  ',
    },
    style: { head: io.color ? ['bold'] : [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  cells.forEach((row, r) => {
    table.push(row.map((text, i) => columns[i]?.style?.(text, r) ?? text));
  });
  io.stdout.write(table.toString().split('\n').map((line) => line.trimEnd()).join('\n') + '\n');
}

/** Field/value view of one record: aligned labels on a TTY, `field<TAB>value` rows otherwise. */
export function printFields(io: IO, fields: ReadonlyArray<readonly [label: string, value: string]>): void {
  const width = Math.max(...fields.map(([label]) => label.length));
  const lines = fields.map(([label, value]) =>
    io.stdoutIsTTY ? `${label.padEnd(width)}  ${value}` : `${label}\t${value}`,
  );
  io.stdout.write(lines.join('\n') + '\n');
}
