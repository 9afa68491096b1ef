// Whether ssh2 runs its ciphers through its optional native binding. It is built by node-gyp
// at install time against the headers npm is given (.npmrc `nodedir`); a binding built for
// another Node ABI does not load and ssh2 silently falls back to JavaScript ciphers, which
// measured 228 vs 383 MB/s for chacha20 uploads here (shared/reference/sftp-with-ssh2.md).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function sshNativeCrypto(): boolean {
  try {
    return (require('ssh2/lib/protocol/crypto.js') as { bindingAvailable?: boolean }).bindingAvailable === true;
  } catch {
    return false;
  }
}
