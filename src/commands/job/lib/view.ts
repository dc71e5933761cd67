import type { Job } from '../../../api/jobs.js';
import type { Deps } from '../../../deps.js';
import { formatProgress, humanTime, rfc3339, toCount } from '../../../text/format.js';
import { groupDigits } from '../../../text/locale.js';
import { sanitize } from '../../../text/sanitize.js';
import { printFields, type Field } from '../../../io/table.js';
import { crawlCommand } from '../../shared/suggest.js';
import { fitCommandHint } from '../../shared/examples.js';
import { loadTerminalText } from '../../../io/terminal-text.js';

const DOCUMENTED = new Set(['id', 'url', 'status', 'pagesTotal', 'pagesFinished', 'creditsUsed', 'createdAt', 'errorMessage']);

/**
 * A job for people (aligned fields, colour, relative times, `37/120 pages (31%)`) or, off a TTY,
 * `field<TAB>value` rows with the service's field names, full values and RFC 3339 times.
 * Scalar fields the interface does not document are shown too, after the known ones.
 */
export async function printJob(deps: Deps, job: Job, options: { pagesHint: boolean }): Promise<void> {
  const extras = Object.entries(job).filter(
    ([name, value]) => !DOCUMENTED.has(name) && (value === null || typeof value !== 'object'),
  );
  if (!deps.io.stdoutIsTTY) {
    const rows: Array<[string, string]> = [
      ['id', sanitize(job.id)],
      ['url', sanitize(job.url)],
      ['status', sanitize(job.status)],
      ['pagesTotal', sanitize(job.pagesTotal)],
      ['pagesFinished', sanitize(job.pagesFinished)],
      ['creditsUsed', sanitize(job.creditsUsed)],
      ['createdAt', rfc3339(job.createdAt)],
    ];
    if (job.errorMessage !== undefined && job.errorMessage !== null) rows.push(['errorMessage', sanitize(job.errorMessage)]);
    for (const [name, value] of extras) rows.push([sanitize(name), sanitize(value)]);
    await printFields(deps.io, rows);
    return;
  }
  const style = await deps.style();
  // Page counts and credits for people: grouped as their locale does (plain rows keep raw digits).
  const count = groupDigits(deps.env);
  const rows: Field[] = [
    ['Job', style.bold(sanitize(job.id)), { fixed: true }],
    ['URL', sanitize(job.url)],
    ['Status', style.status(sanitize(job.status))],
    ['Progress', formatProgress(job.pagesFinished, job.pagesTotal, count)],
    ['Credits', typeof job.creditsUsed === 'number' && Number.isFinite(job.creditsUsed) ? count(job.creditsUsed) : sanitize(job.creditsUsed)],
    ['Created', sanitize(humanTime(job.createdAt, deps.clock.now()))],
  ];
  if (job.errorMessage !== undefined && job.errorMessage !== null && job.errorMessage !== '') {
    rows.push(['Error', style.red(sanitize(job.errorMessage))]);
  }
  for (const [name, value] of extras) rows.push([sanitize(name), sanitize(value)]);
  await printFields(deps.io, rows);
  if (options.pagesHint && (toCount(job.pagesFinished) ?? 0) > 0) {
    // `job pages` refuses a job that is still going: point to --wait then.
    const unfinished = job.status === 'pending' || job.status === 'running';
    const command = crawlCommand(deps, ['job', 'pages'], [job.id], unfinished ? ['--wait'] : []);
    const prose = unfinished ? 'Export the pages once it finishes with:' : 'Export the pages with:';
    // Fitted to the width as the fields above are: a terminal would break it mid-word.
    const { width } = await loadTerminalText();
    const lines = fitCommandHint(prose, command, deps.io.columns, width);
    deps.io.stdout.write('\n' + lines.map((line) => style.dim(line)).join('\n') + '\n');
  }
}
