// The SFTP stage alone, in its own process, for test/bench/sftp.bench.ts: a database (the
// PostgreSQL URL given, else in-memory PGlite) with one merchant, the key given on the
// command line, and a no-op intake.
// Prints one JSON line when listening; on stdin's end it stops and prints its lifetime peak
// RSS (start-up included: PGlite's start-up peak is far above the SFTP server's).
import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { ConfigSchema, type Config } from '../../src/config/index.ts';
import { openDatabase } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';
import { createMerchantService } from '../../src/merchants/service.ts';
import { startSftp } from '../../src/sftp/server.ts';
import { keyRingFrom } from '../../src/vault/cipher.ts';
import { randomBytes } from 'node:crypto';

const [dataDir, publicKeyFile, databaseUrl = ''] = process.argv.slice(2);
const log = createLogger({ level: 'silent' });
// On a PostgreSQL server when given one, so the figures are not PGlite's memory.
const database = await openDatabase({ url: databaseUrl, pgliteDir: undefined, poolSize: 2, log });
await database.migrate();
const merchants = createMerchantService({ db: database.db, vault: keyRingFrom({ v1: randomBytes(32).toString('base64') }, 'v1'), mode: 'sandbox' });
const creds = await merchants.add({ name: 'Bench Shop' });
await merchants.allowIp(creds.mid, '127.0.0.1');
await merchants.addKey(creds.mid, readFileSync(publicKeyFile!, 'utf8'));
const config: Config['sftp'] = { ...(Value.Default(ConfigSchema, {}) as Config).sftp, port: 0 };
const stage = await startSftp({ config, dataDir: dataDir!, db: database.db, log, onFileReady: () => {} });
const rssMiB = () => Math.round(process.memoryUsage.rss() / 1048576);
console.log(JSON.stringify({ port: stage.port, username: creds.sftpUsername, inbound: `${stage.root}/${creds.sftpUsername}/inbound`, nativeCrypto: stage.nativeCrypto, idleRssMiB: rssMiB() }));
process.stdin.resume();
process.stdin.on('end', async () => {
  await stage.stop();
  await database.close();
  console.log(JSON.stringify({ lifetimePeakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) }));
  process.exit(0);
});
