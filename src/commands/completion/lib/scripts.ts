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
  local line="\${COMP_LINE:0:COMP_POINT}" piece="" cur="" pre="" flag="" out i n glued
  local -a words=()
  # The words as typed: bash splits --flag=value and a:b at the = and : of COMP_WORDBREAKS, so a
  # piece with no blank before it that is, or follows, an = or : is glued back onto its word.
  # The last word ends at the cursor; bash replaces only its last piece (none after an = or :).
  for ((i = 0; i <= COMP_CWORD; i++)); do
    piece="\${COMP_WORDS[i]}"
    glued=1
    if [[ "$line" == [[:blank:]]* ]]; then
      line="\${line#"\${line%%[![:blank:]]*}"}"
      glued=0
    fi
    ((i == COMP_CWORD)) && piece="$line"
    n=\${#words[@]}
    if ((glued && n > 0)) && [[ "$piece" == [=:]* || "\${words[n - 1]}" == *[=:] ]]; then
      words[n - 1]+="$piece"
    elif ((i > 0)); then
      words+=("$piece")
    fi
    line="\${line#"$piece"}"
  done
  cur="\${words[\${#words[@]} - 1]}"
  [[ "$piece" == *[!=:]* ]] || piece=""
  pre="\${cur%"$piece"}"
  out=$(crawl __complete -- "\${words[@]}" 2>/dev/null) || return 0
  COMPREPLY=()
  if [[ "$out" == ":files" ]]; then
    # bash's own file names (a folder gets a slash and no space, names are quoted) when the part
    # bash completes is the file name (after --flag=, = being a word break); else, and in bash 3
    # (no compopt), the names compgen gives.
    [[ "$cur" == -*=* ]] && flag="\${cur%%=*}="
    [[ "$pre" == "$flag" ]] && compopt -o default 2>/dev/null && return 0
    local IFS=$'\\n'
    COMPREPLY=($(compgen -f -- "\${cur#"$flag"}"))
    COMPREPLY=("\${COMPREPLY[@]/#/$flag}")
    COMPREPLY=("\${COMPREPLY[@]#"$pre"}")
    return 0
  fi
  while IFS= read -r line; do
    [[ -n "$line" ]] && COMPREPLY+=("\${line%%$'\\t'*}")
  done <<< "$out"
  COMPREPLY=("\${COMPREPLY[@]#"$pre"}")
}
complete -F _crawl_complete crawl
`;
    case 'zsh':
      return `#compdef crawl
# crawl completion for zsh. Load it with: eval "$(crawl completion zsh)" (in ~/.zshrc, after compinit)
_crawl() {
  local out line flag=""
  local -a candidates
  out=$(crawl __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  # --flag=value: complete the value alone (crawl answers --flag=candidate).
  if [[ "$PREFIX" == -*=* ]]; then
    flag="\${PREFIX%%=*}="
    compset -P '*='
  fi
  if [[ "$out" == ":files" ]]; then
    _files
    return
  fi
  for line in "\${(@f)out}"; do
    [[ -z "$line" ]] && continue
    line="\${line#$flag}"
    candidates+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
  done
  _describe crawl candidates
}
compdef _crawl crawl
`;
    case 'fish':
      return `# crawl completion for fish. Load it with: crawl completion fish | source (in ~/.config/fish/config.fish)
function __crawl_complete
    set -l token (commandline -ct)
    set -l out (crawl __complete -- (commandline -opc)[2..-1] "$token" 2>/dev/null)
    if test "$out" = ":files"
        # --flag=value: the file names after the =, each given with its --flag=.
        set -l flag (string match -r -- '^-[^=]*=' "$token")
        for path in (__fish_complete_path (string sub -s (math (string length -- "$flag") + 1) -- "$token"))
            printf '%s%s\\n' "$flag" "$path"
        end
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
    if ($out.Count -eq 1 -and $out[0] -eq ':files') {
        # Nothing: PowerShell completes the path itself. But for --flag=value, the paths after the =,
        # each given with its --flag=.
        if ($wordToComplete -notmatch '^(-[^=]*=)(.*)$') { return }
        $flag = $Matches[1]
        foreach ($path in [System.Management.Automation.CompletionCompleters]::CompleteFilename($Matches[2])) {
            [System.Management.Automation.CompletionResult]::new($flag + $path.CompletionText, $path.ListItemText, $path.ResultType, $path.ToolTip)
        }
        return
    }
    foreach ($line in $out) {
        $parts = $line -split "\`t", 2
        $description = if ($parts.Count -gt 1 -and $parts[1]) { $parts[1] } else { $parts[0] }
        [System.Management.Automation.CompletionResult]::new($parts[0], $parts[0], 'ParameterValue', $description)
    }
}
`;
  }
}
