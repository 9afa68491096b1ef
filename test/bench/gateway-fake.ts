// The Stripe fake (test/fakes/stripe/server.ts) in a process of its own for the gateways bench,
// so that its HTTP parsing and JSON do not run on the engine's event loop. Every
// POST /v1/payment_intents answers after `latencyMs`; with `faultRate` > 0 that share of calls
// (drawn from a seeded generator, in arrival order) instead fails after the same delay, one
// of four ways in equal parts: a timeout or a reset before anything is charged, or a timeout
// or a reset after the charge is made (the caller cannot tell which).
// Run by gateways.bench.ts through fork(); it talks over the IPC channel:
//   child → parent  { type: 'ready', url, key }
//   parent → child  { type: 'stats' }  →  child → parent  { type: 'stats', ...FakeStats }
import { fileURLToPath } from 'node:url';
import { seeded } from '../helpers/seeded.ts';
import { startStripeFake, type StripeBehaviour } from '../fakes/stripe/server.ts';

export interface FakeOptions {
  latencyMs: number;
  faultRate: number;
  seed: number;
  /** Behaviours drawn ahead of the calls (then every call answers after latencyMs, no fault). */
  calls: number;
}

export const FAULTS = ['timeout', 'reset', 'timeout_after_charge', 'reset_after_charge'] as const;
export type Fault = (typeof FAULTS)[number];

export interface FakeStats {
  /** POST /v1/payment_intents received (SDK retries and reconciling replays included). */
  intentCalls: number;
  /** Faults drawn for the calls received so far, by kind. */
  faultsScripted: Record<Fault, number>;
  /** PaymentIntents that succeeded (money taken), in all. */
  charges: number;
  /** Charges per order (metadata.rescued_order). */
  chargesByOrder: Record<string, number>;
  /** The pre-drawn script ran out (later calls had no faults). */
  scriptExhausted: boolean;
  /** CPU seconds the fake's process has used (user + system). */
  cpuSeconds: number;
}


/** The behaviours of the first `calls` calls, and how many of each fault they hold. */
export function script(opts: FakeOptions): { behaviours: StripeBehaviour[]; faults: Record<Fault, number> } {
  const random = seeded(opts.seed);
  const faults = Object.fromEntries(FAULTS.map((f) => [f, 0])) as Record<Fault, number>;
  const behaviours: StripeBehaviour[] = [];
  for (let i = 0; i < opts.calls; i++) {
    const fault = random() < opts.faultRate ? FAULTS[Math.floor(random() * FAULTS.length)]! : undefined;
    if (fault) faults[fault]++;
    behaviours.push(opts.latencyMs > 0 ? { kind: 'delay', ms: opts.latencyMs, then: { kind: fault ?? 'approve' } } : { kind: fault ?? 'approve' });
  }
  return { behaviours, faults };
}

export interface ScriptedFake {
  url: string;
  key: string;
  stats(): FakeStats;
  close(): Promise<void>;
}

/** The Stripe fake with the scripted latency and faults (in whichever process calls it). */
export async function scriptedFake(opts: FakeOptions): Promise<ScriptedFake> {
  // A live key: the bench's account is added in production mode, which refuses test-mode keys.
  const fake = await startStripeFake({ key: 'sk_live_benchbenchbench1234' });
  const { behaviours } = script(opts);
  fake.script(...behaviours);
  fake.fallback(opts.latencyMs > 0 ? { kind: 'delay', ms: opts.latencyMs } : { kind: 'approve' });
  // The fake records every request (headers and parsed body); only their number is needed
  // here, so the list is emptied now and then to keep the process small.
  let intentCalls = 0;
  const drain = () => {
    for (const r of fake.requests) if (r.method === 'POST' && r.path === '/v1/payment_intents') intentCalls++;
    fake.requests.length = 0;
  };
  const timer = setInterval(drain, 1000);
  return {
    url: fake.url,
    key: fake.key,
    stats() {
      drain();
      const chargesByOrder: Record<string, number> = {};
      for (const c of fake.charges.values()) {
        const order = c.metadata.rescued_order ?? '?';
        chargesByOrder[order] = (chargesByOrder[order] ?? 0) + 1;
      }
      const faultsScripted = Object.fromEntries(FAULTS.map((f) => [f, 0])) as Record<Fault, number>;
      for (const b of behaviours.slice(0, intentCalls)) {
        const kind = b.kind === 'delay' ? (b.then?.kind ?? 'approve') : b.kind;
        if ((FAULTS as readonly string[]).includes(kind)) faultsScripted[kind as Fault]++;
      }
      const cpu = process.cpuUsage();
      return { intentCalls, faultsScripted, charges: fake.charges.size, chargesByOrder, scriptExhausted: intentCalls > behaviours.length, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
    },
    async close() {
      clearInterval(timer);
      await fake.close();
    },
  };
}

async function main(): Promise<void> {
  const fake = await scriptedFake(JSON.parse(process.argv[2] ?? '{}') as FakeOptions);
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stats') process.send!({ type: 'stats', ...fake.stats() });
  });
  process.on('disconnect', () => void fake.close().then(() => process.exit(0)));
  process.send!({ type: 'ready', url: fake.url, key: fake.key });
}

// Started by fork() (not imported by the bench for an in-process fake).
if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
