import type { Job } from '../../../api/jobs.js';
import type { Deps } from '../../../deps.js';
import { printTable } from '../../../io/table.js';
import { formatProgress, rfc3339 } from '../../../text/format.js';
import { groupDigits } from '../../../text/locale.js';

/**
 * Several jobs, a row each: on a terminal a table (ID, STATUS in colour, PROGRESS, URL cut to fit);
 * off one, tab-separated `id status pagesFinished pagesTotal creditsUsed createdAt url`, full values.
 */
export async function printJobRows(deps: Deps, jobs: readonly Job[]): Promise<void> {
  if (!deps.io.stdoutIsTTY) {
    await printTable(deps.io, [], jobs.map((j) => [j.id, j.status, j.pagesFinished, j.pagesTotal, j.creditsUsed, rfc3339(j.createdAt), j.url]));
    return;
  }
  const style = await deps.style();
  const count = groupDigits(deps.env);
  await printTable(
    deps.io,
    [{ header: 'ID' }, { header: 'STATUS', style: (text) => style.status(text) }, { header: 'PROGRESS' }, { header: 'URL', truncate: true, optional: true }],
    jobs.map((j) => [j.id, j.status, formatProgress(j.pagesFinished, j.pagesTotal, count), j.url]),
  );
}
