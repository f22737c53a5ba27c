/**
 * What kind of tool a call ran (read, shell, search, write, edit), from its name and,
 * for multi-command tools (str_replace_editor, Codex's argv form of apply_patch), its
 * arguments. A leaf module: the outcome, artifact and digest readers all key on it.
 */
import { argvOf, commandOf, str } from './tool-args.ts'

export type ToolKind = 'read' | 'shell' | 'search' | 'write' | 'edit' | 'other'

const READ_TOOLS = /^(read|read_?file|view|cat|open|open_?file|get_?file|read_many_files|view_file|notebook_?read)$/i
const SHELL_TOOLS = /^(bash|sh|shell|exec|exec_?command|execute|execute_?bash|execute_?command|run|run_?command|run_?shell_?command|run_?terminal_?cmd|terminal|local_shell|container\.exec|cmd|command|shell_?command)$/i
const SEARCH_TOOLS = /^(grep|grep_search|rg|ripgrep|search|search_?files|search_?dir|search_?file|find|find_?file|find_?files|glob|codebase_search|list_?files|ls|list_?directory|web_search|web_fetch|fetch)$/i
const WRITE_TOOLS = /^(write|write_?file|create|create_?file|write_?to_?file|save_?file|new_?file)$/i
const EDIT_TOOLS = /^(edit|edit_?file|str_replace|str_replace_editor|str_replace_based_edit_tool|apply_?patch|patch|replace|replace_in_file|multi_?edit|search_replace|insert|update_file|notebook_?edit|edit_notebook)$/i

/** A tool's name without its namespace (`functions.bash`, `default_api:edit`). */
export function bareName(tool: string): string {
  return tool.split(/[.:/]/).pop() ?? tool
}

export function classifyTool(tool: string, args: Record<string, unknown>): ToolKind {
  const name = bareName(tool)
  if (/^str_replace(_editor|_based_edit_tool)?$/i.test(name)) {
    const sub = str(args.command)
    if (sub === 'view') return 'read'
    if (sub === 'create') return 'write'
    return 'edit'
  }
  // Codex's shell form of apply_patch: `{"command": ["apply_patch", "*** Begin Patch…"]}`.
  const argv = argvOf(args)
  if (argv && /^apply_?patch$/.test(argv[0]!)) return 'edit'
  if (READ_TOOLS.test(name)) return 'read'
  if (SHELL_TOOLS.test(name)) return 'shell'
  if (SEARCH_TOOLS.test(name)) return 'search'
  if (WRITE_TOOLS.test(name)) return 'write'
  if (EDIT_TOOLS.test(name)) return 'edit'
  if (commandOf(args)) return 'shell'
  return 'other'
}

