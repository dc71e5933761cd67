// The completion scripts `crawl completion <shell>` prints. Each asks `crawl __complete -- <words>`
// (the words of the line up to the cursor, the one being completed last) and offers what it prints:
// one candidate a line, `value<TAB>description`, or `:files` for the shell's own file names. Its
// stderr goes nowhere: completion never writes into the prompt. Nothing is declared readonly, so a
// script sourced twice (a reloaded rc file) is no error.

/** The shells there is a script for (the command module lists them: it loads on every run, this does not). */
export type Shell = 'bash' | 'zsh' | 'fish' | 'powershell';

export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return `# crawl completion for bash. Load it with: eval "$(crawl completion bash)" (in ~/.bashrc)
_crawl_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" out line
  out=$(crawl __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
  COMPREPLY=()
  if [[ "$out" == ":files" ]]; then
    local IFS=$'\\n'
    COMPREPLY=($(compgen -f -- "$cur"))
    return 0
  fi
  while IFS= read -r line; do
    [[ -n "$line" ]] && COMPREPLY+=("\${line%%$'\\t'*}")
  done <<< "$out"
}
complete -F _crawl_complete crawl
`;
    case 'zsh':
      return `#compdef crawl
# crawl completion for zsh. Load it with: eval "$(crawl completion zsh)" (in ~/.zshrc, after compinit)
_crawl() {
  local out line
  local -a candidates
  out=$(crawl __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  if [[ "$out" == ":files" ]]; then
    _files
    return
  fi
  for line in "\${(@f)out}"; do
    [[ -z "$line" ]] && continue
    candidates+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
  done
  _describe crawl candidates
}
compdef _crawl crawl
`;
    case 'fish':
      return `# crawl completion for fish. Load it with: crawl completion fish | source (in ~/.config/fish/config.fish)
function __crawl_complete
    set -l out (crawl __complete -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)
    if test "$out" = ":files"
        __fish_complete_path (commandline -ct)
    else
        printf '%s\\n' $out
    end
end
complete -c crawl -f -a '(__crawl_complete)'
`;
    case 'powershell':
      return `# crawl completion for PowerShell. Load it with: crawl completion powershell | Out-String | Invoke-Expression (in $PROFILE)
Register-ArgumentCompleter -Native -CommandName crawl -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | Select-Object -Skip 1 | ForEach-Object { $_.ToString() })
    if ($wordToComplete -eq '') { $words += '""' }
    $out = @(& crawl __complete -- @words 2>$null)
    if ($out.Count -eq 1 -and $out[0] -eq ':files') { return }
    foreach ($line in $out) {
        $parts = $line -split "\`t", 2
        $description = if ($parts.Count -gt 1 -and $parts[1]) { $parts[1] } else { $parts[0] }
        [System.Management.Automation.CompletionResult]::new($parts[0], $parts[0], 'ParameterValue', $description)
    }
}
`;
  }
}
