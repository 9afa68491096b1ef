// `npm run lint` must fail the day someone adds an import cycle. The package's own
// `lint:cycles` command is run on throwaway src/ folders: one with the shape of the cycles
// once found here (a stage naming a type of the wiring file), one without.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

async function lintCycles(cwd: string): Promise<{ code: number; out: string }> {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const env = { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH}` };
  try {
    const { stdout } = await run('sh', ['-c', pkg.scripts['lint:cycles']!], { cwd, env });
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
}

async function writeTree(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

describe('lint: import cycles', () => {
  let cyclic: string;
  let acyclic: string;
  beforeAll(async () => {
    cyclic = await mkdtemp(join(tmpdir(), 'rescued-cycle-'));
    acyclic = await mkdtemp(join(tmpdir(), 'rescued-nocycle-'));
    await writeTree(cyclic, {
      'src/wiring.ts': "import { start } from './stage/start.ts';\nexport interface Core { n: number }\nexport const run = (): number => start({ n: 1 });\n",
      'src/stage/start.ts': "import type { Core } from '../wiring.ts';\nexport const start = (c: Core): number => c.n;\n",
    });
    await writeTree(acyclic, {
      'src/core.ts': 'export interface Core { n: number }\n',
      'src/stage/start.ts': "import type { Core } from '../core.ts';\nexport const start = (c: Core): number => c.n;\n",
      'src/wiring.ts': "import { start } from './stage/start.ts';\nexport const run = (): number => start({ n: 1 });\n",
    });
  });
  afterAll(async () => {
    await rm(cyclic, { recursive: true, force: true });
    await rm(acyclic, { recursive: true, force: true });
  });

  it('fails on a cycle, even one made only of a type import', async () => {
    const r = await lintCycles(cyclic);
    expect(r.code).toBe(1);
    // dpdm may start the cycle at either module, depending on file-system order.
    const cycle = r.out.split('\n').find((l) => l.includes(' -> '));
    expect(cycle?.replace(/^\s*\d+\)\s*/, '').split(' -> ').sort()).toEqual(['src/stage/start.ts', 'src/wiring.ts']);
  });

  it('passes the same modules once the shared type has moved below both', async () => {
    const r = await lintCycles(acyclic);
    expect(r).toMatchObject({ code: 0 });
  });
});
