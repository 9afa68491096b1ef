// The wiring file: builds the stages from the configuration, starts them in a fixed order
// and stops them in reverse. The first SIGTERM/SIGINT drains (the side-port answers 503 and
// in-flight work finishes within shutdown.drainTimeoutMs); a second one forces the exit.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
// Every stage's error codes, registered before any stage can throw one.
import './catalogue.ts';
import type { ResolvedConfig } from './config/index.ts';
import type { Logger } from './log.ts';
import { openCore, type Core } from './core.ts';
import { authenticateClient } from './auth/authenticate-client.ts';
import { createFailureThrottle } from './auth/failure-throttle.ts';
import { ensureDemoMerchant } from './merchants/demo.ts';
import { build } from './http/app.ts';
import { createApiDeps } from './http/api.ts';
import { createConsoleDeps } from './http/console/deps.ts';
import { createProcessor } from './processors/index.ts';
import { startEngineStage } from './engine/stage.ts';
import { startSftp, type SftpStage } from './sftp/server.ts';
import { createTokenizationKeyAuthenticator } from './auth/tokenization-key.ts';
import { createIntakeStage } from './intake/stage.ts';
import type { ApplyCardUpdate } from './intake/updates.ts';
import { attachPaymentMethod } from './orders/payment-method.ts';
import { userDirs } from './sftp/paths.ts';
import { startWebhooksStage } from './webhooks/stage.ts';
import { startAdminStage } from './admin/server.ts';
import { startRetentionStage } from './retention/stage.ts';
import { systemClock } from './clock.ts';
import type { CommandRunner } from './admin/io.ts';

interface Stage {
  name: string;
  stop: () => Promise<void>;
}

export interface Daemon {
  core: Core;
  http: FastifyInstance;
  /** Undefined when sftp.enabled is false. */
  sftp: SftpStage | undefined;
  /** Drains and stops every stage in reverse order. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Runs the CLI commands sent to the data folder's socket (embedded database only); without it none are taken. */
  runCommand?: CommandRunner;
}

export async function startDaemon(config: ResolvedConfig, log: Logger, opts: StartOptions = {}): Promise<Daemon> {
  const stages: Stage[] = [];
  let draining = false;
  const stopAll = async () => {
    for (const stage of stages.reverse()) {
      const t0 = Date.now();
      await stage.stop().catch((err: unknown) => log.error({ err, stage: stage.name }, 'stage failed to stop'));
      log.info({ stage: stage.name, ms: Date.now() - t0 }, 'stage stopped');
    }
  };
  try {
    const core = await openCore(config, log);
    stages.push({ name: 'storage', stop: () => core.database.close() });
    log.info({ stage: 'storage', database: core.database.kind, mode: config.mode }, 'stage started');
    if (core.database.kind === 'pglite' && opts.runCommand) await startAdminSocket(core, opts.runCommand, stages);

    const sftp = config.sftp.enabled ? await startSftpStage(core, stages) : undefined;
    if (sftp) stages.push({ name: 'sftp', stop: () => sftp.stop() });

    // The processor behind the real-time calls (CIT evaluate, challenge, refund).
    const processor = createProcessor(config, { db: core.database.db, vault: core.vault, ring: core.keyRing, log });
    if (config.engine.enabled) {
      const engine = startEngineStage(core, processor);
      stages.push({ name: 'engine', stop: () => engine.stop() });
    }
    // Webhooks: after the engine, whose events they deliver, and before the side-port. What
    // the engine writes while it drains (after this stage stopped) waits in the outbox.
    if (config.webhooks.enabled) {
      const webhooks = startWebhooksStage(core);
      stages.push({ name: 'webhooks', stop: () => webhooks.stop() });
    }
    // The purge sweep (docs/operations.md, "Retention"): beside the engine, before the side-port.
    if (config.retention.enabled) {
      const retention = startRetentionStage(core, systemClock);
      stages.push({ name: 'retention', stop: () => retention.stop() });
      log.info({ stage: 'retention', cron: config.retention.purgeCron }, 'stage started');
    }
    const http = await build({
      log,
      tokens: core.tokens,
      authenticateClient: (id, secret) => authenticateClient(core.database.db, id, secret),
      authenticateTokenizationKey: createTokenizationKeyAuthenticator(core.database.db),
      authThrottle: createFailureThrottle(config.auth),
      vault: core.vault,
      pingDatabase: () => core.database.ping(),
      bodyLimitBytes: config.http.bodyLimitBytes,
      trustProxy: config.http.trustProxy,
      tls: config.http.tlsCertFile ? { cert: readFileSync(config.http.tlsCertFile), key: readFileSync(config.http.tlsKeyFile) } : undefined,
      isDraining: () => draining,
      api: createApiDeps({ db: core.database.db, vault: core.vault, processor, mode: config.mode, log, config: config.api }),
      operatorConsole: createConsoleDeps(config, core.database.db, log),
    });
    await http.listen({ host: config.http.host, port: config.http.port });
    stages.push({ name: 'http', stop: () => http.close() });
    const address = http.server.address() as AddressInfo;
    const httpBase = `${config.http.tlsCertFile ? 'https' : 'http'}://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    log.info({ stage: 'http', address: httpBase }, 'stage started');

    if (config.mode === 'sandbox') await ensureDemoMerchant(core, httpBase, sftp);

    return {
      core,
      http,
      sftp,
      async stop() {
        draining = true;
        await stopAll();
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/**
 * The CLI socket: PGlite is single-process, so while the daemon holds it, CLI commands run
 * here (src/admin/). Right after storage, so commands work for as long as storage is open.
 */
async function startAdminSocket(core: Core, runCommand: CommandRunner, stages: Stage[]): Promise<void> {
  const { config, log } = core;
  const admin = await startAdminStage({ dataDir: config.dataDir, config, database: core.database, runCommand, log: log.child({ component: 'admin' }) });
  if (!admin) return;
  stages.push({ name: 'admin', stop: () => admin.stop() });
  log.info({ stage: 'admin', path: admin.path }, 'stage started');
}

/** Intake, then the SFTP server that feeds it (intake stops after SFTP, before storage). */
async function startSftpStage(core: Core, stages: Stage[]): Promise<SftpStage> {
  const { config, log } = core;
  // Files found in inbound/ at start are handed over while startSftp is still resolving.
  let sftpRoot!: (root: string) => void;
  const root = new Promise<string>((resolve) => (sftpRoot = resolve));
  // Card-update files apply each entry as POST …/payment-method does (src/orders/payment-method.ts).
  const cardUpdates: ApplyCardUpdate = async (merchantId, ref, body) => {
    const o = await attachPaymentMethod({ db: core.database.db, clock: systemClock, mode: config.mode }, core.vault, merchantId, ref, body);
    return { orderSessionKey: o.id, status: o.status };
  };
  const intake = createIntakeStage(core, async (username) => userDirs(await root, username).outbound, cardUpdates);
  stages.push({ name: 'intake', stop: () => intake.stop() });
  const sftp = await startSftp({ config: config.sftp, dataDir: config.dataDir, db: core.database.db, log, onFileReady: (file) => intake.onFileReady(file) });
  sftpRoot(sftp.root);
  log.info({ stage: 'sftp', address: `${sftp.host}:${sftp.port}`, root: sftp.root, nativeCrypto: sftp.nativeCrypto, hostKeys: sftp.hostKeys }, 'stage started');
  if (!sftp.nativeCrypto) log.warn({ stage: 'sftp' }, 'ssh2 native crypto binding not loaded: ciphers run in JavaScript (about 40% slower); see README "SFTP"');
  return sftp;
}

export interface ShutdownOptions {
  stop: () => Promise<void>;
  drainTimeoutMs: number;
  log: Logger;
  exit: (code: number) => void;
}

/** The signal policy: the first signal drains (bounded by drainTimeoutMs), a second forces exit 1. */
export function shutdownHandler(opts: ShutdownOptions): (signal: NodeJS.Signals) => void {
  let stopping = false;
  return (signal) => {
    if (stopping) {
      opts.log.warn({ signal }, 'second signal: forcing exit');
      opts.exit(1);
      return;
    }
    stopping = true;
    opts.log.info({ signal, drainTimeoutMs: opts.drainTimeoutMs }, 'draining');
    const timer = setTimeout(() => {
      opts.log.error({ drainTimeoutMs: opts.drainTimeoutMs }, 'drain timed out: forcing exit');
      opts.exit(1);
    }, opts.drainTimeoutMs);
    timer.unref();
    opts.stop().then(
      () => {
        clearTimeout(timer);
        opts.log.info('stopped');
        opts.exit(0);
      },
      (err: unknown) => {
        clearTimeout(timer);
        opts.log.error({ err }, 'stop failed');
        opts.exit(1);
      },
    );
  };
}

/**
 * Runs the daemon until a signal. Resolves with the exit code. The handlers are installed
 * before the stages start, so a signal during start-up waits for it and then drains, instead
 * of killing the process half-started.
 */
export async function serve(config: ResolvedConfig, log: Logger, opts: StartOptions = {}): Promise<number> {
  const starting = startDaemon(config, log, opts);
  return new Promise((resolve, reject) => {
    const onSignal = shutdownHandler({ stop: async () => (await starting).stop(), drainTimeoutMs: config.shutdown.drainTimeoutMs, log, exit: resolve });
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    starting.catch(reject);
  });
}
