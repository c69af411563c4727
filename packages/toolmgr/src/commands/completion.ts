import { COMMANDS, type CommandArgs } from "../command-table.js";
import type { Deps } from "../deps.js";
import { UsageError } from "../errors.js";
import { registrySummary, toolsByEcosystem } from "../registry/registry-summary.js";

const SHELLS = ["bash", "zsh", "fish", "powershell"] as const;

/**
 * `toolmgr completion <bash|zsh|fish|powershell>`: prints a completion script for commands, options, ecosystems, and
 * for `exec`/`which` the commands pinned here, in the shims' order (project, then user toolset).
 */
export async function completionCommand(args: CommandArgs, deps: Deps): Promise<number> {
  const shell = args.positionals[0];
  if (shell === undefined || !(SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(
      `Cannot write a completion script for ${shell === undefined ? "no shell" : `"${shell}"`}: choose one of ${SHELLS.join(", ")}`,
    );
  }
  const commands = Object.keys(COMMANDS).filter((c) => c !== "lint-registry");
  const options = Object.fromEntries(
    commands.map((c) => [c, [...Object.keys(COMMANDS[c]?.options ?? {}).map((o) => `--${o}`), "--help"]]),
  );
  const names = [...toolsByEcosystem(registrySummary().recipes).keys()];
  deps.io.stdout.write(render(shell as (typeof SHELLS)[number], { commands, options, ecosystems: names }));
  return 0;
}

interface Words {
  readonly commands: readonly string[];
  readonly options: Readonly<Record<string, readonly string[]>>;
  readonly ecosystems: readonly string[];
}

/**
 * What may follow command `c`: its options (every command has at least `--help`), then its positional words, the
 * ecosystems for `list` and the shells for `completion`. bash, zsh and PowerShell offer the same list.
 */
function argumentWords(c: string, w: Words): string[] {
  const positionals = c === "list" ? w.ecosystems : c === "completion" ? SHELLS : [];
  return [...(w.options[c] ?? []), ...positionals];
}

/** Commands whose first argument is a pinned command: completed from `toolmgr which --list` when the shell asks. */
const PINNED_ARGUMENT = new Set(["exec", "which"]);
const LIST = "toolmgr which --list";

function render(shell: (typeof SHELLS)[number], w: Words): string {
  switch (shell) {
    case "bash":
      return [
        "# toolmgr completion for bash: source <(toolmgr completion bash)",
        "_toolmgr() {",
        '  local cur="${COMP_WORDS[COMP_CWORD]}" cmd="${COMP_WORDS[1]}"',
        '  if [ "$COMP_CWORD" -eq 1 ]; then',
        `    COMPREPLY=($(compgen -W "${w.commands.join(" ")} --help --version" -- "$cur")); return`,
        "  fi",
        '  case "$cmd" in',
        ...w.commands.map((c) =>
          PINNED_ARGUMENT.has(c)
            ? `    ${c}) [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "${argumentWords(c, w).join(" ")} $(${LIST} 2>/dev/null)" -- "$cur")) ;;`
            : `    ${c}) COMPREPLY=($(compgen -W "${argumentWords(c, w).join(" ")}" -- "$cur")) ;;`,
        ),
        "  esac",
        "}",
        "complete -o default -F _toolmgr toolmgr",
        "",
      ].join("\n");
    case "zsh":
      return [
        "#compdef toolmgr",
        '# toolmgr completion for zsh: toolmgr completion zsh > "${fpath[1]}/_toolmgr"',
        "_toolmgr() {",
        "  if (( CURRENT == 2 )); then",
        `    compadd -- ${w.commands.join(" ")} --help --version; return`,
        "  fi",
        "  case ${words[2]} in",
        ...w.commands.map((c) =>
          PINNED_ARGUMENT.has(c)
            ? `    ${c}) (( CURRENT == 3 )) && compadd -- ${argumentWords(c, w).join(" ")} \${(f)"$(${LIST} 2>/dev/null)"} ;;`
            : `    ${c}) compadd -- ${argumentWords(c, w).join(" ")} ;;`,
        ),
        "  esac",
        "}",
        'if [ "$funcstack[1]" = "_toolmgr" ]; then _toolmgr "$@"; else compdef _toolmgr toolmgr; fi',
        "",
      ].join("\n");
    case "fish":
      return [
        "# toolmgr completion for fish: toolmgr completion fish > ~/.config/fish/completions/toolmgr.fish",
        "complete -c toolmgr -f",
        ...w.commands.map((c) => `complete -c toolmgr -n __fish_use_subcommand -a ${c}`),
        ...w.commands.flatMap((c) =>
          (w.options[c] ?? []).map(
            (o) => `complete -c toolmgr -n "__fish_seen_subcommand_from ${c}" -l ${o.slice(2)}`,
          ),
        ),
        `complete -c toolmgr -n "__fish_seen_subcommand_from list" -a "${w.ecosystems.join(" ")}"`,
        `complete -c toolmgr -n "__fish_seen_subcommand_from completion" -a "${SHELLS.join(" ")}"`,
        `complete -c toolmgr -n "__fish_seen_subcommand_from ${[...PINNED_ARGUMENT].join(" ")}" -a "(${LIST} 2>/dev/null)"`,
        "",
      ].join("\n");
    case "powershell":
      return [
        "# toolmgr completion for PowerShell: toolmgr completion powershell | Out-String | Invoke-Expression",
        "Register-ArgumentCompleter -Native -CommandName toolmgr -ScriptBlock {",
        "  param($wordToComplete, $commandAst, $cursorPosition)",
        "  $words = $commandAst.CommandElements | ForEach-Object { $_.ToString() }",
        `  $commands = @(${w.commands.map((c) => `'${c}'`).join(", ")})`,
        "  $candidates = if ($words.Count -le 2 -and -not ($words.Count -eq 2 -and $wordToComplete -eq '')) { $commands } else {",
        "    switch ($words[1]) {",
        ...w.commands.map(
          (c) =>
            `      '${c}' { @(${argumentWords(c, w)
              .map((x) => `'${x}'`)
              .join(", ")})${PINNED_ARGUMENT.has(c) ? ` + @(${LIST} 2>$null)` : ""} }`,
        ),
        "      default { @() }",
        "    }",
        "  }",
        '  $candidates | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {',
        "    [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)",
        "  }",
        "}",
        "",
      ].join("\n");
  }
}
