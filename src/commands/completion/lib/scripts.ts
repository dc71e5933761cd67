// The completion scripts `crawl completion <shell>` prints. Each asks `crawl __complete <count>
// :<word>...` (./protocol.ts: the words of the line up to the cursor, the one being completed last,
// each behind a colon) and offers what it prints: one candidate a line, `value<TAB>description`, or
// `:files<TAB><own>` / `:commands<TAB><own>` for the shell's own file or command names after <own>.
// Its stderr goes nowhere: completion never writes into the prompt. Nothing is declared readonly,
// so a script sourced twice (a reloaded rc file) is no error. The bash script keeps to bash 3.2
// (macOS's /bin/bash): no associative arrays, case operators, mapfile or unguarded compopt.

/** The shells there is a script for (the command module lists them: it loads on every run, this does not). */
export type Shell = 'bash' | 'zsh' | 'fish' | 'powershell';

export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return `# crawl completion for bash (3.2 and later). Load it with: eval "$(crawl completion bash)" (in ~/.bashrc)
_crawl_complete() {
  local line="\${COMP_LINE:0:COMP_POINT}" piece="" cur="" pre="" out="" own="" action="" name="" dir="" breaks="" word="" quote="" plain="" c="" tab=$'\\t' i j n glued
  local -a words=() asked=()
  # The words as typed: bash splits --flag=value, a:b and name=@file at the =, : and @ of
  # COMP_WORDBREAKS, so a piece with no blank before it that is, or follows, an =, : or @ is glued
  # back onto its word. The last word ends at the cursor; bash replaces only its last piece (none
  # after an =, : or @).
  for ((i = 0; i <= COMP_CWORD; i++)); do
    piece="\${COMP_WORDS[i]}"
    glued=1
    if [[ "$line" == [[:blank:]]* ]]; then
      line="\${line#"\${line%%[![:blank:]]*}"}"
      glued=0
    fi
    ((i == COMP_CWORD)) && piece="$line"
    n=\${#words[@]}
    if ((glued && n > 0)) && [[ "$piece" == [=:@]* || "\${words[n - 1]}" == *[=:@] ]]; then
      words[n - 1]+="$piece"
    elif ((i > 0)); then
      words+=("$piece")
    fi
    line="\${line#"$piece"}"
  done
  cur="\${words[\${#words[@]} - 1]}"
  [[ "$piece" == *[!=:@]* ]] || piece=""
  # bash 3.2 does not split COMP_WORDS at the =, : and @ of COMP_WORDBREAKS, but readline replaces
  # only what follows the last of them all the same (outside quotes).
  if ((BASH_VERSINFO[0] < 4)) && [[ "$cur" != *[\\'\\"\\\\]* ]]; then
    breaks="\${COMP_WORDBREAKS//[!=:@]/}"
    [[ -n "$breaks" ]] && piece="\${cur##*[$breaks]}"
  fi
  pre="\${cur%"$piece"}"
  # An @ just before the piece is replaced with it (bash keeps it in the text, as it does for a host name).
  pre="\${pre%@}"
  for ((i = 0; i < \${#words[@]}; i++)); do
    word="\${words[i]}"
    # The user's quotes and backslashes are not part of the word crawl is asked about.
    if [[ "$word" == *[\\'\\"\\\\]* ]]; then
      quote=""
      plain=""
      for ((j = 0; j < \${#word}; j++)); do
        c="\${word:j:1}"
        if [[ "$c" == "$quote" ]]; then
          quote=""
        elif [[ -z "$quote" && ( "$c" == "'" || "$c" == '"' ) ]]; then
          quote="$c"
        elif [[ "$c" == '\\' && "$quote" != "'" ]]; then
          j=$((j + 1))
          plain+="\${word:j:1}"
        else
          plain+="$c"
        fi
      done
      word="$plain"
    fi
    asked+=(":$word")
  done
  out=$(crawl __complete "\${#words[@]}" "\${asked[@]}" 2>/dev/null) || return 0
  COMPREPLY=()
  case "\${out%%$tab*}" in
    :files) action=file ;;
    :commands) action=command ;;
  esac
  if [[ -n "$action" && "$out" == *$tab* ]]; then
    own="\${out#*$tab}"
    # bash's own file names (a folder gets a slash and no space, names are quoted) when the piece
    # bash replaces is the file name itself (after --flag=, = being a word break); else, and in
    # bash 3.2 (no compopt), the names compgen gives, each after what comes before it in the word.
    if [[ "$action" == file && "$pre" == "$own" ]] && compopt -o default 2>/dev/null; then return 0; fi
    while IFS= read -r name; do
      [[ -n "$name" ]] || continue
      dir=""
      [[ "$action" == file && -d "$name" ]] && dir="/" && compopt -o nospace 2>/dev/null
      # Quoted for the line, as bash's own file names are (a blank would end the word).
      printf -v name '%q' "$name"
      name="$own$name$dir"
      COMPREPLY+=("\${name#"$pre"}")
    done <<< "$(compgen -A "$action" -- "\${cur#"$own"}")"
    return 0
  fi
  while IFS= read -r line; do
    [[ -n "$line" ]] && COMPREPLY+=("\${line%%$tab*}")
  done <<< "$out"
  COMPREPLY=("\${COMPREPLY[@]#"$pre"}")
}
complete -F _crawl_complete crawl
`;
    case 'zsh':
      return `#compdef crawl
# crawl completion for zsh. Load it with: eval "$(crawl completion zsh)" in ~/.zshrc, after the line
# autoload -Uz compinit && compinit
_crawl() {
  local out line own flag="" tab=$'\\t'
  local -a asked candidates
  # The words up to the cursor without the user's quotes, each behind a colon.
  asked=("\${(@Q)words[2,CURRENT-1]}" "$PREFIX")
  out=$(crawl __complete \${#asked} "\${(@)asked/#/:}" 2>/dev/null) || return 1
  if [[ "$out" == :(files|commands)$tab* ]]; then
    own="\${out#*$tab}"
    [[ -n "$own" ]] && compset -P "\${(b)own}"
    if [[ "$out" == :files* ]]; then _files; else _command_names -e; fi
    return
  fi
  # --flag=value: complete the value alone (crawl answers --flag=candidate).
  if [[ "$PREFIX" == -*=* ]]; then
    flag="\${PREFIX%%=*}="
    compset -P '*='
  fi
  for line in "\${(@f)out}"; do
    [[ -z "$line" ]] && continue
    line="\${line#$flag}"
    candidates+=("\${\${line%%$tab*}//:/\\\\:}:\${line#*$tab}")
  done
  # Matched in either case: crawl offers GET for -X g.
  _describe crawl candidates -M 'm:{a-zA-Z}={A-Za-z}'
}
if [[ "\${funcstack[1]}" == _crawl ]]; then
  # Loaded by compinit from a file named _crawl on $fpath, at the first Tab: complete it.
  _crawl "$@"
elif (( $+functions[compdef] )); then
  compdef _crawl crawl
else
  # No compinit yet (macOS runs none unless ~/.zshrc does): no error at start-up; if compinit has
  # run by the first prompt (it comes later in ~/.zshrc), crawl completes from then on.
  _crawl_register() {
    add-zsh-hook -d precmd _crawl_register
    (( $+functions[compdef] )) && compdef _crawl crawl
  }
  autoload -Uz add-zsh-hook && add-zsh-hook precmd _crawl_register
fi
`;
    case 'fish':
      return `# crawl completion for fish. Load it with: crawl completion fish | source (in ~/.config/fish/config.fish)
function __crawl_complete
    # The token as the command gets it: the user's quotes and backslashes gone (an open quote too).
    set -l token (string unescape -- (commandline -ct))
    set -l words (commandline -opc)[2..-1] "$token"
    set -l out (crawl __complete (count $words) ":"$words 2>/dev/null)
    if string match -qr '^:(files|commands)\\t' -- "$out[1]"
        # The shell's own names for the part of the token after <own> (--output=, name=@), each given with <own>.
        set -l own (string replace -r '^:\\w+\\t' '' -- "$out[1]")
        set -l rest (string sub -s (math (string length -- "$own") + 1) -- "$token")
        if string match -q ':files*' -- "$out[1]"
            for path in (__fish_complete_path "$rest")
                printf '%s%s\\n' "$own" "$path"
            end
        else
            for name in (complete -C -- "$rest")
                printf '%s%s\\n' "$own" "$name"
            end
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
    # The words up to the cursor as crawl would get them: the user's quotes gone, the word at the
    # cursor cut there, none after it.
    $words = @()
    foreach ($element in @($commandAst.CommandElements | Select-Object -Skip 1)) {
        $extent = $element.Extent
        if ($extent.StartOffset -ge $cursorPosition) { break }
        $whole = $extent.EndOffset -le $cursorPosition
        if ($whole -and ($element -is [System.Management.Automation.Language.StringConstantExpressionAst] -or $element -is [System.Management.Automation.Language.ExpandableStringExpressionAst])) {
            $words += ,[string]$element.Value
        } else {
            $words += ,($extent.Text.Substring(0, [Math]::Min($extent.Text.Length, $cursorPosition - $extent.StartOffset)) -replace "^['\`"]", '')
        }
    }
    if ($wordToComplete -eq '') { $words += ,'' }
    # Each word behind a colon, and their count: crawl.ps1 drops a bare --, and PowerShell before
    # 7.3 an empty argument; neither can change what crawl reads.
    $asked = @($words | ForEach-Object { ':' + $_ })
    # crawl writes UTF-8, and PowerShell decodes a program's output with [Console]::OutputEncoding,
    # the console's code page (437, 850, 1252...): a profile named müller would arrive garbled.
    # UTF-8 for this one call, and the console's own back after it, whatever happens.
    $encoding = [Console]::OutputEncoding
    $switched = $false
    try {
        try { [Console]::OutputEncoding = [System.Text.UTF8Encoding]::new($false); $switched = $true } catch { }
        $out = @(& crawl __complete $words.Count @asked 2>$null)
    } finally {
        if ($switched) { [Console]::OutputEncoding = $encoding }
    }
    if ($out.Count -ge 1 -and $out[0] -match "^:(files|commands)\`t(.*)$") {
        $kind = $Matches[1]
        $own = $Matches[2]
        # A whole word of file names: PowerShell's own path completion, which it does when a completer offers nothing.
        if ($kind -eq 'files' -and $own -eq '') { return }
        $current = [string]$words[-1]
        $rest = $current.Substring([Math]::Min($own.Length, $current.Length))
        $found = if ($kind -eq 'files') { [System.Management.Automation.CompletionCompleters]::CompleteFilename($rest) } else { [System.Management.Automation.CompletionCompleters]::CompleteCommand($rest) }
        foreach ($path in $found) {
            [System.Management.Automation.CompletionResult]::new($own + $path.CompletionText, $path.ListItemText, $path.ResultType, $path.ToolTip)
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
