// How a table's columns share a terminal's width, pure (io/table.ts draws it). Like gh's table
// printer: ids, prefixes and statuses keep their width; free text (names, URLs) is cut, the widest
// first. Before anything is cut, a column with a shorter form takes it (a time without its
// absolute part); after, if the table is still too wide, optional columns are left out, rightmost
// first. A table whose fixed columns alone are too wide is drawn as it is: nothing else can give.

export interface ColumnNeeds {
  /** The widest cell in full (its suffix included), or the header when wider. */
  full: number;
  /** The same for the column's shorter form, when it has one. */
  compact?: number | undefined;
  /** Free text: may be cut down to `min`. */
  truncate: boolean;
  /** The narrowest a cut column may be (at least its header and its widest suffix). */
  min: number;
  /** May be left out when nothing else makes the table fit. */
  optional: boolean;
}

export interface ColumnPlan {
  shown: boolean;
  /** Drawn in its shorter form. */
  compact: boolean;
  width: number;
}

export function planColumns(needs: readonly ColumnNeeds[], total: number, gap: number): ColumnPlan[] {
  const plan: ColumnPlan[] = needs.map((n) => ({ shown: true, compact: false, width: n.full }));
  const natural = (i: number): number => {
    const n = needs[i] as ColumnNeeds;
    return (plan[i] as ColumnPlan).compact ? (n.compact ?? n.full) : n.full;
  };
  const used = (): number => {
    const shown = plan.filter((p) => p.shown);
    return shown.reduce((sum, p) => sum + p.width, 0) + gap * Math.max(0, shown.length - 1);
  };
  if (used() <= total) return plan;

  for (let i = needs.length - 1; i >= 0 && used() > total; i--) {
    const n = needs[i] as ColumnNeeds;
    const p = plan[i] as ColumnPlan;
    if (n.compact === undefined || n.compact >= n.full) continue;
    p.compact = true;
    p.width = n.compact;
  }
  if (used() <= total) return plan;

  for (;;) {
    if (shareFreeText(plan, needs, natural, total, gap)) return plan;
    const drop = plan.findLastIndex((p, i) => p.shown && (needs[i] as ColumnNeeds).optional);
    if (drop < 0) return plan;
    (plan[drop] as ColumnPlan).shown = false;
  }
}

/**
 * Gives the free-text columns what the fixed ones leave: each its natural width if all fit, else
 * the widest are cut to one common width (never below their minimum), any remainder going to the
 * leftmost cut columns. False when even their minimums do not fit.
 */
function shareFreeText(plan: ColumnPlan[], needs: readonly ColumnNeeds[], natural: (i: number) => number, total: number, gap: number): boolean {
  const shown = plan.map((p, i) => i).filter((i) => (plan[i] as ColumnPlan).shown);
  const free = shown.filter((i) => (needs[i] as ColumnNeeds).truncate);
  let budget = total - gap * Math.max(0, shown.length - 1);
  for (const i of shown) if (!free.includes(i)) budget -= natural(i);
  const min = (i: number): number => Math.min(natural(i), (needs[i] as ColumnNeeds).min);
  const widthAt = (cap: number, i: number): number => Math.max(min(i), Math.min(natural(i), cap));
  const sumAt = (cap: number): number => free.reduce((sum, i) => sum + widthAt(cap, i), 0);
  const widest = Math.max(0, ...free.map(natural));
  if (sumAt(widest) <= budget) {
    for (const i of free) (plan[i] as ColumnPlan).width = natural(i);
    return true;
  }
  if (sumAt(0) > budget) {
    for (const i of free) (plan[i] as ColumnPlan).width = min(i);
    return false;
  }
  // The widest common cap that fits: sumAt grows with the cap.
  let low = 0;
  let high = widest;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (sumAt(mid) <= budget) low = mid;
    else high = mid - 1;
  }
  let left = budget - sumAt(low);
  for (const i of free) {
    const width = widthAt(low, i);
    const extra = left > 0 && width < natural(i) ? 1 : 0;
    left -= extra;
    (plan[i] as ColumnPlan).width = width + extra;
  }
  return true;
}
