
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  /** A job status coloured as the contract says: completed green, running/pending cyan/yellow, failures red. */
  status(status: string): string;
}

const identity = (text: string): string => text;

const plain: Style = {
  bold: identity,
  dim: identity,
  green: identity,
  red: identity,
  yellow: identity,
  cyan: identity,
  status: identity,
};

/** chalk is only imported when colour is actually on: plain output and scripts never pay for it. */
export async function loadStyle(enabled: boolean): Promise<Style> {
  if (!enabled) return plain;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  const style: Style = {
    bold: (t) => chalk.bold(t),
    dim: (t) => chalk.dim(t),
    green: (t) => chalk.green(t),
    red: (t) => chalk.red(t),
    yellow: (t) => chalk.yellow(t),
    cyan: (t) => chalk.cyan(t),
    status: (s) => {
      const kind = statusKind(s);
      if (kind === 'success') return chalk.green(s);
      if (kind === 'active') return s === 'pending' ? chalk.yellow(s) : chalk.cyan(s);
      if (kind === 'failure') return chalk.red(s);
      return s;
    },
  };
  return style;
}

export type StatusKind = 'success' | 'active' | 'failure' | 'unknown';

export function statusKind(status: string): StatusKind {
  if (status === 'completed') return 'success';
  if (status === 'running' || status === 'pending') return 'active';
  if (status === 'errored' || status.startsWith('cancelled')) return 'failure';
  return 'unknown';
}
