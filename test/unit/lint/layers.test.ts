// `npm run lint` must fail the day someone imports up the layers (DESIGN.md §6,
// .config/layers.mjs). The package's own `lint:layers` command, with the repository's rules,
// is run on throwaway src/ folders: one importing a floor above (only a type, which counts),
// one importing a room of its own floor, one with a folder no floor names, and one with the
// same modules arranged downwards.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);
const made: string[] = [];

async function lintLayers(files: Record<string, string>): Promise<{ code: number; out: string }> {
  const cwd = await mkdtemp(join(tmpdir(), 'rescued-layers-'));
  made.push(cwd);
  await mkdir(join(cwd, '.config'));
  await copyFile(join(ROOT, '.config', 'layers.mjs'), join(cwd, '.config', 'layers.mjs'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(cwd, path, '..'), { recursive: true });
    await writeFile(join(cwd, path), text);
  }
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const env = { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH}` };
  try {
    const { stdout } = await run('sh', ['-c', pkg.scripts['lint:layers']!], { cwd, env });
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
}

/** The rule and the import of each violation the command printed. */
const violations = (out: string) => [...out.matchAll(/error (\S+): (\S+) → (\S+)/g)].map((m) => `${m[1]}: ${m[2]} → ${m[3]}`);

const PLAN = 'export interface Plan { n: number }\n';

afterAll(async () => {
  for (const dir of made) await rm(dir, { recursive: true, force: true });
});

describe('lint: layers', () => {
  it('fails on an import of a floor above, even one of a type only', async () => {
    const r = await lintLayers({
      'src/engine/plan.ts': PLAN,
      'src/db/query.ts': "import type { Plan } from '../engine/plan.ts';\nexport const n = (p: Plan): number => p.n;\n",
    });
    expect(r.code).toBe(1);
    expect(violations(r.out)).toEqual(['upward-from-floor-1: src/db/query.ts → src/engine/plan.ts']);
  });

  it('fails on an import of another room of the same floor, unless the rules allow that one', async () => {
    const r = await lintLayers({
      'src/reports/figures.ts': 'export const figures = 1;\n',
      'src/orders/view.ts': "import { figures } from '../reports/figures.ts';\nexport const view = figures;\n",
      'src/admin/io.ts': 'export const io = 1;\n',
      'src/cli/run.ts': "import { io } from '../admin/io.ts';\nexport const run = io;\n",
    });
    expect(r.code).toBe(1);
    expect(violations(r.out)).toEqual(['same-floor-from-orders-: src/orders/view.ts → src/reports/figures.ts']);
  });

  it('fails on a folder that no floor names', async () => {
    const r = await lintLayers({
      'src/db/query.ts': 'export const q = 1;\n',
      'src/newroom/thing.ts': "import { q } from '../db/query.ts';\nexport const thing = q;\n",
    });
    expect(r.code).toBe(1);
    expect(violations(r.out)).toEqual(['room-without-a-floor: src/newroom/thing.ts → src/db/query.ts']);
  });

  it('passes the same modules once every import runs down', async () => {
    const r = await lintLayers({
      'src/db/plan.ts': PLAN,
      'src/engine/query.ts': "import type { Plan } from '../db/plan.ts';\nexport const n = (p: Plan): number => p.n;\n",
      'src/main.ts': "import { n } from './engine/query.ts';\nexport const run = (): number => n({ n: 1 });\n",
    });
    expect(r).toMatchObject({ code: 0 });
  });
});
