// `npm install` / `npm ci` runs this from the root package's postinstall. It mends two defects
// of postgres-js 3.4.9 (the latest release, pinned in package.json) that a lost database
// connection inside a transaction reaches:
//
// 1. The transaction's body keeps running after its connection closed (`begin` only races the
//    close against it), and every statement it or `begin` itself sends afterwards (the
//    `rollback`) is written to the closed connection: the write is put off with setImmediate,
//    finds the socket null, and throws from the timer — an uncaughtException that stops the
//    daemon (porsager/postgres#1154, #1208; the guard of #1168/#1209 is not released).
// 2. If the pool reconnects that connection for another query in the meantime, the rest of
//    the body runs on the new session, outside its transaction, each statement committed on
//    its own (porsager/postgres#1155).
//
// The patch makes a transaction's statements fail with the close's own error once its
// connection has closed (2, and the source of 1), and makes a put-off write on a connection
// with no socket fail its queries with CONNECTION_CLOSED instead of throwing (1, whatever the
// path). test/integration/db/connection-loss.test.ts checks both against PostgreSQL.
// Every edit names the text it expects: a release whose text differs fails the install loudly,
// to be looked at, instead of running unmended.
/* global process, console */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MARK = '/* rescued: mended */';
const pkg = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'postgres');

const EDITS = {
  'connection.js': [
    [
      '  function nextWrite(fn) {\n',
      `  function nextWrite(fn) {\n    if (socket === null) { ${MARK}\n      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options))\n      return true\n    }\n`,
    ],
  ],
  'index.js': [
    ['    let savepoints = 0\n', `    let savepoints = 0 ${MARK}\n      , closedBy = null\n`],
    ['connection.onclose = reject)', 'connection.onclose = e => (closedBy = e, reject(e)))'],
    [
      '        q.catch(e => uncaughtError || (uncaughtError = e))\n',
      '        q.catch(e => uncaughtError || (uncaughtError = e))\n        if (closedBy) return q.reject(closedBy)\n',
    ],
  ],
};

function mend(file, edits) {
  const text = readFileSync(file, 'utf8');
  if (text.includes(MARK)) return;
  let out = text;
  for (const [from, to] of edits) {
    if (out.split(from).length !== 2) throw new Error(`${file}: expected exactly one ${JSON.stringify(from)}; is postgres still 3.4.9?`);
    out = out.replace(from, () => to);
  }
  writeFileSync(file, out);
}

if (existsSync(join(pkg, 'package.json'))) {
  try {
    for (const dir of ['src', 'cjs/src']) for (const [name, edits] of Object.entries(EDITS)) mend(join(pkg, dir, name), edits);
  } catch (err) {
    console.error(`rescued postinstall: postgres-js could not be mended: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
