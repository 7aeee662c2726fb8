/**
 * The shell side of completion: small functions that hand the words typed to `kcpt __complete` and offer its
 * candidates (complete.ts), as cobra's scripts do for kubectl. Bash splits words at `:`, which workspace paths are made
 * of, so its function rebuilds the words from the line and offers only what follows the last `:`.
 */
export const shells = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof shells)[number];

const bash = `# kcpt completion for bash: source <(kcpt completion bash)
_kcpt_complete() {
  local line="\${COMP_LINE:0:COMP_POINT}" cur out directive
  local -a words
  read -ra words <<< "$line"
  [[ "$line" == *[[:space:]] ]] && words+=("")
  cur="\${words[\${#words[@]}-1]}"
  out=$(command kcpt __complete "\${words[@]:1}" 2>/dev/null) || return
  directive="\${out##*:}"
  out="\${out%:*}"
  if (( directive == 0 )); then compopt -o default; COMPREPLY=(); return; fi
  if (( directive & 16 )); then compopt -o dirnames; COMPREPLY=(); return; fi
  # kcpt filtered them already (and compgen -W would expand the ~ candidate).
  COMPREPLY=()
  [[ -n "$out" ]] && mapfile -t COMPREPLY <<< "\${out%$'\\n'}"
  if [[ "$cur" == *:* && "$COMP_WORDBREAKS" == *:* ]]; then
    local prefix="\${cur%"\${cur##*:}"}"
    COMPREPLY=("\${COMPREPLY[@]#"$prefix"}")
  fi
  (( directive & 2 )) && compopt -o nospace
  return 0
}
complete -F _kcpt_complete kcpt
`;

const zsh = `#compdef kcpt
# kcpt completion for zsh: source <(kcpt completion zsh)
_kcpt() {
  local -a lines candidates
  local directive
  lines=("\${(@f)$(command kcpt __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  directive=\${lines[-1]#:}
  candidates=("\${(@)lines[1,-2]}")
  if (( directive == 0 )); then _files; return; fi
  if (( directive & 16 )); then _path_files -/; return; fi
  if (( directive & 2 )); then compadd -S '' -- $candidates; else compadd -- $candidates; fi
}
compdef _kcpt kcpt
`;

const fish = `# kcpt completion for fish: kcpt completion fish | source
function __kcpt_complete
  set -l words (commandline -opc) (commandline -ct)
  command kcpt __complete $words[2..-1] 2>/dev/null | string match -v -r '^:'
end
complete -c kcpt -f -a '(__kcpt_complete)'
`;

export function completionScript(shell: Shell): string {
  return { bash, zsh, fish }[shell];
}

/** How to turn completion on in each shell. */
export const setupLines = [
  'bash: source <(kcpt completion bash)        # add it to ~/.bashrc',
  'zsh:  source <(kcpt completion zsh)         # add it to ~/.zshrc, after compinit',
  'fish: kcpt completion fish | source          # or save it as ~/.config/fish/completions/kcpt.fish',
];
