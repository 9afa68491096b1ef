// Runs once before any test file: migrates one PGlite data folder and (with TEST_DATABASE_URL)
// one PostgreSQL template database, so that each test starts from a copy of a migrated
// database instead of running initdb and every migration again (about 1.5 s each on PGlite).
// Tests about creating or migrating a database still start from an empty one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data folder, to be copied (never opened in place). */
    pgliteTemplateDir: string;
    /** The same data folder as a tarball, for in-memory PGlite. */
    pgliteTemplateTar: string;
    /** Name of a migrated database on the TEST_DATABASE_URL server, or '' without one. */
    pgTemplate: string;
  }
}

const log = createLogger({ level: 'silent' });

async function pgliteTemplate(root: string): Promise<{ dir: string; tar: string }> {
  const dir = join(root, 'pglite');
  const database = await openDatabase({ url: '', pgliteDir: dir, poolSize: 1, log });
  try {
    await database.migrate();
    const client = (database.db as unknown as { $client: { dumpDataDir(c: 'none'): Promise<Blob> } }).$client;
    const tar = join(root, 'pglite.tar');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(tar, Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer()));
    return { dir, tar };
  } finally {
    await database.close();
  }
}

async function pgTemplate(base: string): Promise<{ name: string; drop: () => Promise<void> }> {
  const name = `rescued_tpl_${randomBytes(6).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const database = await openDatabase({ url: url.toString(), poolSize: 1, log });
    await database.migrate();
    await database.close();
  } finally {
    await admin.end();
  }
  return {
    name,
    async drop() {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = mkdtempSync(join(tmpdir(), 'rescued-templates-'));
  // Every temporary folder of the run (tests, child daemons, OpenSSH clients) goes under one
  // folder that the teardown removes, so nothing is left behind even when a test fails
  // before its own clean-up. Workers and children inherit TMPDIR.
  const runTmp = mkdtempSync(join(tmpdir(), 'rescued-run-'));
  process.env.TMPDIR = runTmp;
  const base = process.env.TEST_DATABASE_URL;
  try {
    const [lite, pg] = await Promise.all([pgliteTemplate(root), base ? pgTemplate(base) : undefined]);
    project.provide('pgliteTemplateDir', lite.dir);
    project.provide('pgliteTemplateTar', lite.tar);
    project.provide('pgTemplate', pg?.name ?? '');
    return async () => {
      await pg?.drop();
      rmSync(root, { recursive: true, force: true });
      rmSync(runTmp, { recursive: true, force: true });
    };
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    rmSync(runTmp, { recursive: true, force: true });
    throw err;
  }
}
