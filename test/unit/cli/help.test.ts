// Every `rescued` command answers --help: the whole command tree, walked from the program
// itself (a command added later is covered without touching this test), run in-process.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../../src/cli/program.ts';
import { runCli } from '../../helpers/cli.ts';
import { loadAllGroups } from '../../../src/cli/lazy.ts';
import { COMMANDS } from '../../../src/cli/commands.ts';

function commandPaths(command: Command, path: string[] = []): string[][] {
  return command.commands.flatMap((c) => [[...path, c.name()], ...commandPaths(c, [...path, c.name()])]);
}

const quiet = { out: () => {}, err: () => {}, setExitCode: () => {} };
// The groups load on use (src/cli/lazy.ts): the whole tree is every group loaded.
const tree = commandPaths(await loadAllGroups(buildProgram(quiet)));

describe('rescued --help', () => {
  it('the tree has the commands an operator uses', () => {
    const names = tree.map((p) => p.join(' '));
    for (const expected of ['serve', 'migrate', 'merchant add', 'merchant add-key', 'orders show', 'webhooks replay', 'processor add', 'vault rotate']) expect(names).toContain(expected);
  });

  it('lists each group by the name and description its module gives it, without loading it', async () => {
    const before = buildProgram(quiet).commands.map((c) => [c.name(), c.description(), c.commands.length] as const);
    for (const group of COMMANDS) expect(before).toContainEqual([group.name, group.description, 0]);
    const after = (await loadAllGroups(buildProgram(quiet))).commands.map((c) => [c.name(), c.description()] as const);
    expect(after).toEqual(before.map(([name, description]) => [name, description]));
    expect(after.filter(([name]) => name === 'orders')).toHaveLength(1);
  });

  it('help <group> lists the group\'s commands, loaded first', async () => {
    const res = await runCli(['help', 'orders'], {});
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^Usage: rescued orders \[options\] \[command\]/);
    for (const sub of ['show', 'reconcile', 'list', 'find']) expect(res.stdout).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));
  });

  it('answers at the top, exit 0, listing the commands', async () => {
    const res = await runCli(['--help'], {});
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^Usage: rescued \[options\] \[command\]/);
    for (const top of new Set(tree.map((p) => p[0]!))) expect(res.stdout).toContain(top);
  });

  it.each(tree.map((p) => [p.join(' '), p] as const))('%s --help: exit 0 and its usage, nothing else done', async (name, path) => {
    const res = await runCli([...path, '--help'], { RESCUED_DATA_DIR: '/nonexistent/rescued-help-test' });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`^Usage: rescued ${name.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&')}\\b`));
    expect(res.stdout).toMatch(/-h, --help\s+display help for command/);
    expect(res.stderr).toBe('');
  });
});
