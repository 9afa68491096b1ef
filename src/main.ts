#!/usr/bin/env node
// The `rescued` command line on the process's own arguments, output and exit status.
import { registerHooks } from 'node:module';
import { enableSharedCompileCache } from './config/compile-cache.ts';
import type { Serve } from './cli/program.ts';

// Node strips the types of every .ts file it loads, and compiles it, on every run: the compile
// cache keeps both from one run to the next (in the system's temporary folder, or
// NODE_COMPILE_CACHE), which takes a command's start from about a second to a few hundred ms
// (issue 28; test/bench/cli.bench.ts). So the modules below are imported after it is on.
// Its worker threads share it (src/config/compile-cache.ts).
enableSharedCompileCache();

// A command (not `serve`) loads drizzle-orm from its CommonJS build, the same code its package
// ships beside the ES modules. Node looks up the package scope of every ES module it resolves,
// and for each of drizzle's ~100 files that meant copying out its 180 kB package.json: loading
// drizzle took 300–500 ms of a CLI command's start and most of its garbage collection, against
// 60–80 ms from CommonJS (issue 28; npm run bench -- cli). The daemon keeps the ES modules: its
// start is paid once, and drizzle's CommonJS drivers would load a second copy of the database
// packages (their CommonJS builds) into its memory. It is spared the same lookups another way:
// drizzle's files import each other by relative paths with their extensions, and its package
// is "type": "module", so such a path resolves to its URL and loads as a module without asking
// the package (a start's CPU 2.4 → 1.95 s: every end-to-end test and restart pays it).
const DRIZZLE = '/node_modules/drizzle-orm/';
if (!process.argv.slice(2).includes('serve')) {
  registerHooks?.({
    resolve: (specifier, context, next) =>
      specifier === 'drizzle-orm' || specifier.startsWith('drizzle-orm/') ? next(specifier, { ...context, conditions: ['node', 'require'] }) : next(specifier, context),
  });
} else {
  registerHooks?.({
    resolve: (specifier, context, next) =>
      context.parentURL?.includes(DRIZZLE) && specifier.startsWith('.') ? { url: new URL(specifier, context.parentURL).href, format: 'module', shortCircuit: true } : next(specifier, context),
    load: (url, context, next) => (url.includes(DRIZZLE) && url.endsWith('.js') ? next(url, { ...context, format: 'module' }) : next(url, context)),
  });
}

// Every stage's error codes, registered before any command can throw one.
await import('./catalogue.ts');
const { buildProgram } = await import('./cli/program.ts');
const { processIo } = await import('./admin/io.ts');

// `serve` loads the daemon, and with it every stage, only when it runs.
const serve: Serve = async (...args) => (await import('./daemon.ts')).serve(...args);

// Parsed as user arguments, as every other caller does, so that the command line the program
// keeps (rawArgs) is exactly what a running daemon is sent (src/cli/context.ts).
await buildProgram(processIo, serve).parseAsync(process.argv.slice(2), { from: 'user' });
