// How close two words are, for "did you mean" suggestions. Pure.

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`: `stauts` is 1 from `status`. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The candidate `word` is most likely a typo of, if any: within two edits, and fewer edits than
 * a third of the candidate's length would not be, so `list` does not suggest `status`.
 */
export function closestWord(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: { word: string; distance: number } | undefined;
  for (const candidate of candidates) {
    // Each edit changes the length by one at most: a word of another length than the candidate's
    // by more than two is not within two edits (a job id, usually), and is not measured.
    if (Math.abs(lower.length - candidate.length) > 2) continue;
    const distance = editDistance(lower, candidate);
    if (distance > 2 || distance >= Math.max(2, Math.ceil(candidate.length / 2))) continue;
    if (best === undefined || distance < best.distance) best = { word: candidate, distance };
  }
  return best?.word;
}
