// Command groups added by name and description only, their modules loaded when one is run.
// `rescued --help` lists every group without loading any, and `rescued orders list` loads the
// orders group alone: importing every group's module (and through them the database drivers,
// the HTTP server and the gateways' SDKs) took 1.5–2.3 s per command (issue 28).
import type { Command } from 'commander';

/** One group of `rescued` commands: what `--help` shows of it, and how to load the real thing. */
export interface CommandGroup {
  name: string;
  description: string;
  /** The group's module's function that adds its commands (it calls `program.command(name)`). */
  load: () => Promise<(program: Command) => void>;
}

const groups = new WeakMap<Command, CommandGroup>();
const loaded = new WeakSet<Command>();

/** Adds each group as a placeholder command; its module loads before commander dispatches to it. */
export function addLazyGroups(program: Command, list: readonly CommandGroup[]): void {
  for (const group of list) groups.set(program.command(group.name).description(group.description), group);
  program.hook('preSubcommand', (_program, sub) => loadGroup(program, sub));
  // Commander's own `help <command>` prints the command's help at once, before any hook could
  // load it: this one, listed as commander lists its own, loads the group first.
  program
    .command('help [command]')
    .description('display help for command')
    .action(async (name?: string) => {
      const sub = program.commands.find((c) => c.name() === name && c.name() !== 'help');
      if (!sub) return program.help({ error: name !== undefined });
      await loadGroup(program, sub);
      sub.help();
    });
}

/**
 * Loads a placeholder's module and lets it add its commands to the placeholder itself: while
 * its function runs, `program.command(<the group's name>)` answers the placeholder (with any
 * arguments it declares) instead of adding a second command of that name.
 */
async function loadGroup(program: Command, placeholder: Command): Promise<void> {
  const group = groups.get(placeholder);
  if (!group || loaded.has(placeholder)) return;
  const add = await group.load();
  if (loaded.has(placeholder)) return;
  loaded.add(placeholder);
  const own = Object.getOwnPropertyDescriptor(program, 'command');
  const ownCommand = Object.getPrototypeOf(program).command as (this: Command, ...args: unknown[]) => Command;
  const command = (nameAndArgs: string, ...rest: unknown[]): Command => {
    const [, name, args] = /([^ ]+) *(.*)/.exec(nameAndArgs)!;
    if (name !== group.name) return ownCommand.call(program, nameAndArgs, ...rest);
    if (args) placeholder.arguments(args);
    return placeholder;
  };
  // The group's function is synchronous: the stand-in is in place only while it runs.
  Object.defineProperty(program, 'command', { value: command, configurable: true, writable: true });
  try {
    add(program);
  } finally {
    if (own) Object.defineProperty(program, 'command', own);
    else delete (program as unknown as Record<string, unknown>).command;
  }
}

/** Loads every group of a program: for what walks the whole tree (the help test, the docs). */
export async function loadAllGroups(program: Command): Promise<Command> {
  for (const sub of program.commands) await loadGroup(program, sub);
  return program;
}
