#!/usr/bin/env node
// The `rescued` command line on the process's own arguments, output and exit status.
// Every stage's error codes, registered before any command can throw one.
import './catalogue.ts';
import { buildProgram, type Serve } from './cli/program.ts';
import { processIo } from './admin/io.ts';

// `serve` loads the daemon, and with it every stage, only when it runs.
const serve: Serve = async (...args) => (await import('./daemon.ts')).serve(...args);

// Parsed as user arguments, as every other caller does, so that the command line the program
// keeps (rawArgs) is exactly what a running daemon is sent (src/cli/context.ts).
await buildProgram(processIo, serve).parseAsync(process.argv.slice(2), { from: 'user' });
