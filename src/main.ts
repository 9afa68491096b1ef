#!/usr/bin/env node
// The `rescued` command line on the process's own arguments, output and exit status.
import { buildProgram } from './cli/program.ts';
import { processIo } from './cli/io.ts';

await buildProgram(processIo).parseAsync();
