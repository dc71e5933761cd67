import { Argument, Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { withExamples } from '../shared/examples.js';
import { COMPLETION_TREE } from './completion-tree.js';
import type { CommandNode } from './lib/complete.js';
import type { CompleteOptions, CompletionOptions } from './lib/print.js';

import type { Shell } from './lib/scripts.js';

// Here, not beside the scripts: help and every other command build this module, never the scripts.
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish', 'powershell'];

export type { CompleteOptions, CompletionOptions };

export function command(runF: (options: CompletionOptions) => Promise<void>) {
  return withExamples(
    new Command('completion')
      .description('print the shell completion script for bash, zsh, fish or powershell (nothing is written to your rc files)')
      .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
      .action((shell) => runF({ shell })),
    [
      ['bash: add this line to ~/.bashrc', 'eval "$(crawl completion bash)"'],
      ['zsh: add this line to ~/.zshrc, after the line `autoload -Uz compinit && compinit` (macOS has none by default)', 'eval "$(crawl completion zsh)"'],
      ['fish: add this line to ~/.config/fish/config.fish', 'crawl completion fish | source'],
      ['PowerShell: add this line to $PROFILE (Windows PowerShell runs it once scripts are allowed: Set-ExecutionPolicy -Scope CurrentUser RemoteSigned)', 'crawl completion powershell | Out-String | Invoke-Expression'],
    ],
  );
}

/** What the scripts call at each Tab: hidden from help. */
export function completeCommand(runF: (options: CompleteOptions) => Promise<void>) {
  return new Command('__complete')
    .description('the candidates for the last word (used by the completion scripts)')
    .argument('[words...]')
    .helpOption(false)
    .allowUnknownOption()
    // The whole program, which this run has not built: made from it by the build.
    .action((args) => runF({ args, tree: COMPLETION_TREE }));
}

/** The program as plain data: names, descriptions, flags (with their fixed values) and operands (src/build/command-table.ts). */
export function treeOf(command: CommandUnknownOpts): CommandNode {
  return {
    name: command.name(),
    description: command.description(),
    options: command.options
      .filter((o) => !o.hidden)
      .map((o) => ({ long: o.long, short: o.short, description: o.description, takesValue: o.required || o.optional, choices: o.argChoices })),
    // What help lists (not a group's hidden `help`, which complete.ts knows).
    commands: command
      .createHelp()
      .visibleCommands(command)
      .filter((c) => !c.name().startsWith('__'))
      .map((c) => treeOf(c as CommandUnknownOpts)),
    operands: command.registeredArguments.map((a) => ({ name: a.name(), variadic: a.variadic, choices: a.argChoices })),
  };
}
