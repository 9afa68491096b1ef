#!/usr/bin/env node
// The `rescued` command line on the process's own arguments, output and exit status.
// Every stage's error codes, registered before any command can throw one.
import './catalogue.ts';
import { buildProgram } from './cli/program.ts';
import { processIo } from './cli/io.ts';

// Parsed as user arguments, as every other caller does, so that the command line the program
// keeps (rawArgs) is exactly what a running daemon is sent (src/cli/context.ts).
await buildProgram(processIo).parseAsync(process.argv.slice(2), { from: 'user' });
